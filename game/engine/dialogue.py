"""Talking to NPCs: the engine side.

The engine checks who is addressed, asks the NPC's agent for its words (a
scripted voice or an LLM, see ``agents.npc``), records the answer as a
decision (so a replay needs no agent), and emits what was said. Claims the NPC
makes ride along in the event's data for the consistency gate and Σ-Mem.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from game.core.types import Action, Request, Utterance
from game.engine import predicates
from game.engine.rules import Refusal

if TYPE_CHECKING:
    from game.engine.loop import Engine


def topics_of(eng: Engine, npc: str) -> list[str]:
    """The topics ``npc`` knows about (``game.engine.predicates.npc_topics``)."""
    return predicates.npc_topics(eng.spec, npc)


def all_topics(eng: Engine) -> list[str]:
    """Every topic anyone can be asked about (``game.engine.predicates.world_topics``)."""
    return predicates.world_topics(eng.spec)


def _listener(eng: Engine, a: Action) -> str:
    npc = a.obj
    if npc not in eng.spec.npcs:
        raise Refusal("Talk to whom?")
    if not predicates.npc_present(eng.spec, eng.state, a.actor, npc):
        raise Refusal(f"{eng.name(npc)} is not here.")
    return npc  # type: ignore[return-value]


def utterances(eng: Engine, npc: str, request: Request) -> list[Utterance]:
    """What ``npc`` says to ``request`` (recorded, so replays reproduce it without agents)."""

    def ask() -> tuple[list[dict], str | None]:
        voice = eng.voice(npc)
        said = voice.reply(request, eng.context_for(npc, voice, request))
        return [u.to_dict() for u in said], voice.take_invalid()

    return [Utterance.from_dict(d) for d in eng.decide("reply", npc, ask)]


def _quote(eng: Engine, u: Utterance) -> str:
    """``Name says: "…"``, the words in the speaker's own voice (never its own name)."""
    name = eng.name(u.speaker)
    return f'{name} says: "{in_own_voice(u.text, name)}"'


def do_talk(eng: Engine, a: Action) -> None:
    npc = _listener(eng, a)
    spec = eng.spec.npcs[npc]
    said = utterances(eng, npc, Request("talk", a.actor, eng.state.turn, eng.next_ask()))
    topics = topics_of(eng, npc)
    extra = f" ({spec.name} could tell you about: {', '.join(t.replace('_', ' ') for t in topics)}.)" if topics else ""
    if spec.trade:
        extra += f" ({spec.name} is open to trade.)"
    for i, u in enumerate(said):
        if u.intent == "greet":
            eng.emit(
                "talk",
                a.actor,
                _quote(eng, u),
                listener=npc,
                view=_quote(eng, u) + extra,
                data={"npc": npc, "topics": topics, "intent": "greet", "claims": [c.to_dict() for c in u.claims]},
            )
        else:
            say(eng, u, a.actor)


def say(eng: Engine, u: Utterance, to: str, **data) -> None:
    """Emit an NPC's words to ``to``, with its claims."""
    eng.emit(
        "say",
        u.speaker,
        _quote(eng, u),
        listener=to,
        data={"intent": u.intent, "claims": [c.to_dict() for c in u.claims], **data},
    )


def do_ask(eng: Engine, a: Action) -> None:
    npc = _listener(eng, a)
    topic = a.target or ""
    for u in utterances(eng, npc, Request("ask", a.actor, eng.state.turn, eng.next_ask(), topic=topic)):
        say(eng, u, a.actor, topic=topic, asked_by=a.actor)


_IRREGULAR = {"is": "am", "was": "was", "has": "have", "does": "do", "goes": "go"}
_CONTRACTED = {"'ll": "'ll", "'s": "'m", "'d": "'d"}
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def _base(verb: str) -> str:
    """A verb in the third person singular (``sells``, ``carries``, ``is``) as ``I`` says it."""
    low = verb.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low.endswith("ies") and len(low) > 4:
        return low[:-3] + "y"
    if low.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
        return low[:-2]
    return low[:-1] if low.endswith("s") and not low.endswith("ss") else low


def _as_i(match: re.Match[str]) -> str:
    """``she'll`` / ``He asks``: the speaker speaking of itself."""
    tail = match.group("tail")
    if tail.startswith("'"):
        return "I" + _CONTRACTED.get(tail.lower(), tail)
    return f"I {_base(tail.strip())}"


def in_own_voice(text: str, name: str) -> str:
    """``text`` as its speaker ``name`` says it: a sentence that opens with the speaker's own name
    speaks in the first person (``Mara Voss sells lanterns. She asks too much, but she'll haggle``:
    ``I sell lanterns. I ask too much, but I'll haggle``); after one, so does a sentence's ``she``
    or ``he``. Other words stay as they are."""
    if not name or name not in text:
        return text
    out, mine = [], False
    pronoun = re.compile(r"\b(?:[Ss]he|[Hh]e)(?P<tail>'\w+|\s+\w+)")
    for sentence in _SENTENCE.split(text):
        if sentence.startswith(name + " "):
            rest = sentence[len(name) + 1 :]
            verb, _, after = rest.partition(" ")
            sentence, mine = f"I {_base(verb)} {after}".rstrip(), True
        if mine:
            sentence = pronoun.sub(_as_i, sentence)
        out.append(sentence)
    return " ".join(out)
