"""Talking to NPCs: the engine side.

The engine checks who is addressed, asks the NPC's agent for its words (a
scripted voice or an LLM, see ``agents.npc``), records the answer as a
decision (so a replay needs no agent), and emits what was said. Claims the NPC
makes ride along in the event's data for the consistency gate and Σ-Mem.
"""

from __future__ import annotations

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
    """``Name says: "…"``: the words as the voice said them (a fact it tells is in its own voice
    already, ``agents.npc.Voice.told``; a greeting's "I am Lou" stays as it is)."""
    name = eng.name(u.speaker)
    return f'{name} says: "{u.text}"'


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
