"""Scripted NPCs: a body that moves, and a voice that greets, answers, refuses,
spreads rumours, haggles and debates.

Asked about a topic, an NPC picks among the facts it knows on that topic (or
about that subject). With probability ``honesty.for_topic(topic)`` it tells a
true one when it knows one; otherwise a false one it knows (a lie or a mistaken
belief). Words come from dialogue templates by intent (the world's ``lines``, or
the defaults below). Every answer carries structured claims with the fact id it
restates, so the consistency gate and the reliability memory can check it.

Randomness is stateless: each reply draws from the game seed's child
``npc, <id>, voice, <turn>, <seq>`` (``game.core.seeds``), so a loaded game speaks
exactly as the original would have.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import BaseAgent
from game.core import seeds
from game.core.speech import in_own_voice
from game.core.types import Claim, Decision, Observation, Request, Utterance

DEFAULT_LINES: dict[str, tuple[str, ...]] = {
    "answer": ("{text}",),
    "refuse": ("I know nothing about {topic}.",),
    "rumour": ("Have you heard? {text}",),
    "haggle": ("How about {terms}?",),
}
HAGGLE_CLOSING = {
    "accept": "Done. A fair bargain.",
    "reject": "No, that will not do.",
    "walk_away": "Then we have nothing more to discuss.",
}


def _norm(s: str) -> str:
    return s.lower().replace("_", " ").replace("-", " ").strip()


def matching_facts(spec: Any, npc: str, topic: str) -> list[str]:
    """Facts ``npc`` knows whose topic, subject or id matches the asked topic."""
    want = _norm(topic)
    out = []
    for fid in spec.npcs[npc].knowledge:
        f = spec.facts[fid]
        if (
            want in (_norm(f.topic), _norm(f.subject))
            or want == _norm(fid)
            or (len(want) > 2 and want in _norm(f.subject).split())
        ):
            out.append(fid)
    return out


def claim_of(spec: Any, fid: str, speaker: str, turn: int) -> Claim:
    f = spec.facts[fid]
    return Claim(
        subject=f.subject, relation=f.relation, object=f.object, topic=f.topic, speaker=speaker, turn=turn, fact_id=fid
    )


def _fill(template: str, **values: Any) -> str:
    """Fill a template; unknown placeholders are left as written (worlds are checked at load)."""

    class Keep(dict):
        def __missing__(self, key: str) -> str:
            return "{" + key + "}"

    try:
        return template.format_map(Keep(values))
    except (ValueError, IndexError, AttributeError, TypeError):  # an unchecked world: say it as written
        return template


class Voice:
    """The rule-based speech of one NPC, from its world spec."""

    def __init__(self, spec: Any, entity: str, seed: int):
        """``seed``: the game seed (the voice draws from its child ``npc, <entity>, voice``)."""
        self.spec, self.entity, self.seed = spec, entity, int(seed)
        self.npc = spec.npcs[entity]
        self._tree = seeds.seed_tree(self.seed).child("npc", entity, "voice")

    def rng(self, request: Request) -> np.random.Generator:
        return self._tree.child(max(request.turn, 0), max(request.seq, 0)).rng()

    def line(self, intent: str, rng: np.random.Generator, **values: Any) -> str:
        bank = self.npc.lines.get(intent) or DEFAULT_LINES[intent]
        pick = bank[int(rng.integers(len(bank)))] if len(bank) > 1 else bank[0]
        player = self.spec.player.name
        return _fill(pick, name=self.npc.name, player=player, **values)

    def told(self, fid: str) -> str:
        """A fact's text as this NPC tells it: in the first person where it names them
        (``game.core.speech.in_own_voice``); the fact itself keeps its words."""
        npc = self.npc
        words = npc.name.split()
        names = [npc.name, *(w for w in words if w.lower() in {a.lower() for a in npc.aliases})]
        others = [n.name for k, n in self.spec.npcs.items() if k != self.entity] + [self.spec.player.name]
        return in_own_voice(self.spec.facts[fid].text, names, others)

    def pick_fact(self, facts: list[str], rng: np.random.Generator) -> str:
        """Truthful with the topic's honesty probability, when both versions are known."""
        f = self.spec.facts
        true = [x for x in facts if f[x].true]
        false = [x for x in facts if not f[x].true]
        honest = rng.random() < self.npc.honesty.for_topic(f[facts[0]].topic)
        pool = (true or false) if honest else (false or true)
        return pool[int(rng.integers(len(pool)))] if len(pool) > 1 else pool[0]

    def greet(self, request: Request) -> list[Utterance]:
        """The greeting, and with the NPC's rumour chance a rumour about something it knows."""
        rng = self.rng(request)
        text = self.npc.greeting or f"{self.npc.name} nods at you."
        if self.npc.lines.get("greet"):
            text = self.line("greet", rng)
        out = [Utterance(self.entity, "greet", text)]
        if self.npc.knowledge and self.npc.rumour > 0 and rng.random() < self.npc.rumour:
            topics = list(dict.fromkeys(self.spec.facts[k].topic for k in self.npc.knowledge))
            topic = topics[int(rng.integers(len(topics)))]
            fid = self.pick_fact([k for k in self.npc.knowledge if self.spec.facts[k].topic == topic], rng)
            out.append(
                Utterance(
                    self.entity,
                    "rumour",
                    self.line("rumour", rng, text=self.told(fid), topic=_norm(topic)),
                    (claim_of(self.spec, fid, self.entity, request.turn),),
                )
            )
        return out

    def answer(self, request: Request) -> Utterance:
        topic = request.topic or ""
        facts = matching_facts(self.spec, self.entity, topic)
        rng = self.rng(request)
        if not facts:
            return Utterance(self.entity, "refuse", self.line("refuse", rng, topic=_norm(topic)))
        fid = self.pick_fact(facts, rng)
        return Utterance(
            self.entity,
            "answer",
            self.line("answer", rng, text=self.told(fid), topic=_norm(topic)),
            (claim_of(self.spec, fid, self.entity, request.turn),),
        )

    def haggle(self, request: Request) -> Utterance:
        move = request.data.get("move", "offer")
        if move != "offer":
            return Utterance(self.entity, "haggle", HAGGLE_CLOSING.get(move, "Hm."))
        terms = request.data.get("terms") or {}
        text = " and ".join(f"{k.replace('_', ' ')} {v}" for k, v in terms.items())
        return Utterance(self.entity, "haggle", self.line("haggle", self.rng(request), terms=text))

    def speech(self, request: Request) -> Utterance:
        """A council argument from the bank for the speaker's current stance."""
        d = request.data
        converted = d.get("stance") == "for" and d.get("initial") != "for"
        bank = d.get("converted") if converted else d.get("arguments")
        if converted and not bank:
            bank = ["The evidence has changed my mind: I support the motion."]
        if not bank:
            return Utterance(self.entity, "speech", "")
        return Utterance(self.entity, "speech", bank[int(d.get("round", 0)) % len(bank)])

    def reply(self, request: Request) -> list[Utterance]:
        if request.kind == "talk":
            return self.greet(request)
        if request.kind == "ask":
            return [self.answer(request)]
        if request.kind == "haggle":
            return [self.haggle(request)]
        if request.kind == "speech":
            return [self.speech(request)]
        raise ValueError(f"unknown request kind {request.kind!r}")


class ScriptedNPC(BaseAgent):
    """An NPC: ``body`` (idle, wanderer, patrol, …) moves it; a :class:`Voice` speaks for it;
    it trades through a rule-based negotiator of kind ``negotiator``."""

    def __init__(
        self,
        entity: str,
        spec: Any,
        seed: int,
        body: Any = None,
        negotiator: str = "linear",
        negotiator_params: dict[str, Any] | None = None,
    ):
        super().__init__(entity)
        self.voice = Voice(spec, entity, seed)
        self.body = body
        self.negotiator_kind = negotiator
        self.negotiator_params = dict(negotiator_params or {})

    @property
    def passive(self) -> bool:
        """True when the NPC never acts on its turn (the engine skips it)."""
        return self.body is None

    def act(self, observation: Observation, context: Any = None) -> Decision:
        return Decision(None) if self.body is None else self.body.act(observation, context)

    def reply(self, request: Request, context: Any = None) -> list[Utterance]:
        return self.voice.reply(request)

    def take_invalid(self) -> str | None:
        """Why the last reply fell back to a default: never, for the scripted voice."""
        return None

    def negotiator(self, scene: Any, party: str, utility: Any) -> Any:
        from agents.negotiators import from_kind

        return from_kind(self.negotiator_kind, utility, **self.negotiator_params)

    def get_state(self) -> dict[str, Any]:
        return {} if self.body is None else self.body.get_state()

    def set_state(self, state: dict[str, Any]) -> None:
        if self.body is not None:
            self.body.set_state(state)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.entity!r}, body={type(self.body).__name__})"
