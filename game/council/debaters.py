"""Debaters: anything that turns what a member sees into its next statement.

A debater gets a :class:`View` and nothing else: its own briefing (its private evidence and the
shared evidence), its starting stance and persuadability, and its masked :class:`Context`. It
never sees the session, another member's unstated evidence or the task's truth.

:class:`ScriptedDebater` is a plausible, not an ideal, council member:

* its stance is recomputed each turn from its starting stance and what its context shows it:
  evidence beyond its briefing counts (discounted by its persuadability), and every repeat of an
  item in view adds weight (``repetition_gain * ln(mentions)``: what is said often feels truer);
  the visible stances of others pull it a little (``conformity``). What falls out of its context
  it has forgotten.
* it speaks by scoring its options: answer the chair's question with evidence it holds on that
  sub-question (any it holds, when the question names none); raise shared evidence its context does not show yet (the hidden-profile bias:
  shared points that back its view come first); raise its own evidence the context does not
  show (less eagerly when it cuts against its view); rebut the most controversial opposing
  claim in view (citing its best supporting item); or restate its position. A little seeded
  noise breaks ties. Each statement says which way it reads the item it cites (``side``) and
  how many of its own items it has not stated yet (``unstated``).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from game.core.seeds import SeedTree, rng
from game.council.context import Context
from game.council.session import COORDINATOR, Reply, Statement
from game.council.tasks import Evidence


@dataclass(frozen=True)
class View:
    """Everything a member may know when it speaks."""

    member: str
    role: str
    motion: str
    round: int
    prior: float  # its stance after its briefing, before the debate
    stance: float  # its stance when it last spoke
    persuadability: float
    own: tuple[Evidence, ...]  # its private evidence
    shared: tuple[Evidence, ...]  # everyone's briefing
    context: Context
    said: frozenset[str] = frozenset()  # the evidence ids this member has stated itself

    def known(self) -> dict[str, Evidence]:
        """The items it knows of: its briefing and what its context names."""
        out = {e.id: e for e in (*self.own, *self.shared)}
        out.update(self.context.evidence)
        return out


@runtime_checkable
class Debater(Protocol):
    """Picks a member's next statement from its view; ``final_stance`` is its vote's stance."""

    def respond(self, view: View) -> Reply: ...

    def final_stance(self, view: View) -> float: ...


class DebaterConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    repetition_gain: float = Field(0.5, ge=0.0, le=5.0)
    conformity: float = Field(0.15, ge=0.0, le=5.0)
    shared_bias: float = Field(1.2, ge=0.0, le=10.0, description="eagerness to raise shared points backing its view")
    contrary_shared: float = Field(0.3, ge=0.0, le=10.0)
    own_supporting: float = Field(1.0, ge=0.0, le=10.0)
    own_contrary: float = Field(0.6, ge=0.0, le=10.0, description="eagerness to raise its evidence against its view")
    rebut: float = Field(0.6, ge=0.0, le=10.0)
    rebut_controversy: float = Field(0.3, ge=0.0, le=10.0)
    restate: float = Field(0.4, ge=0.0, le=10.0)
    answer: float = Field(3.0, ge=0.0, le=10.0)
    noise: float = Field(0.15, ge=0.0, le=5.0)


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def _sentence(text: str) -> str:
    """``text`` ending as a sentence: a full stop unless it already ends in one, ! or ?."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


def _side(x: float) -> str:
    return "support" if x > 0.5 else "oppose"


class ScriptedDebater:
    """A rule-based member (see the module doc); seeded, so a debate replays exactly."""

    def __init__(self, config: DebaterConfig | None = None, seed: int | SeedTree = 0):
        """``seed``: a node of a seed tree to draw from, or a plain seed (its child ``council, debater``)."""
        self.config = config or DebaterConfig()
        self.rng = seed.rng() if isinstance(seed, SeedTree) else rng(seed, "council", "debater")

    # --- belief -------------------------------------------------------------------------------

    def stance(self, view: View) -> float:
        cfg = self.config
        ctx = view.context
        briefing = {e.id for e in (*view.own, *view.shared)}
        known = view.known()
        mentions = Counter(s.evidence for s in ctx.statements if s.evidence)
        for e in ctx.agreed:
            mentions[e] = max(mentions[e], 1)
        delta = 0.0
        for eid, n in mentions.items():
            e = known[eid]
            rep = cfg.repetition_gain * math.log(n)
            delta += e.direction * e.weight * (rep if eid in briefing else 1.0 + rep)
        social = sum(
            (2 * s.stance - 1) * s.confidence for s in ctx.statements if s.speaker not in (view.member, COORDINATOR)
        )
        x = _logit(view.prior) + view.persuadability * (delta + cfg.conformity * social)
        return float(min(max(1.0 / (1.0 + math.exp(-x)), 0.01), 0.99))

    def final_stance(self, view: View) -> float:
        return self.stance(view)

    # --- speech -------------------------------------------------------------------------------

    def respond(self, view: View) -> Reply:
        cfg = self.config
        stance = self.stance(view)
        sign = 1 if stance > 0.5 else -1
        conf = 0.3 + 0.7 * abs(2 * stance - 1)
        ctx = view.context
        seen = {s.evidence for s in ctx.statements if s.evidence} | set(ctx.agreed)
        options: list[tuple[float, str, Evidence | None, Statement | None]] = []
        question = next(
            (s for s in reversed(ctx.statements) if s.speaker == COORDINATOR and s.round >= view.round - 1), None
        )
        for e in view.own:
            if e.id in seen:
                continue
            if question is not None and question.aspect in (None, e.aspect):
                options.append((cfg.answer * e.weight, "answer", e, question))
            w = cfg.own_supporting if e.direction == sign else cfg.own_contrary
            options.append((w * e.weight, "evidence", e, None))
        for e in view.shared:
            if e.id not in seen:
                w = cfg.shared_bias if e.direction == sign else cfg.contrary_shared
                options.append((w * e.weight, "evidence", e, None))
        best = self._best_support(view, sign)
        target = self._controversial(view, sign)
        if target is not None:
            drew = sum(1 for s in ctx.statements if s.target == target.id)
            options.append((cfg.rebut + cfg.rebut_controversy * min(drew, 3), "rebuttal", best, target))
        options.append((cfg.restate, "restate", best, None))
        noise = self.rng.normal(0.0, cfg.noise, len(options)) if cfg.noise else np.zeros(len(options))
        k = int(np.argmax([o[0] + n for o, n in zip(options, noise)]))
        _, kind, ev, tgt = options[k]
        reply = self._say(view, kind, ev, tgt, stance, conf)
        said = view.said | ({reply.evidence} if reply.evidence else set())
        return replace(
            reply, side=None if ev is None else ev.direction, unstated=sum(e.id not in said for e in view.own)
        )

    def _best_support(self, view: View, sign: int) -> Evidence | None:
        items = [e for e in view.known().values() if e.direction == sign]
        return max(items, key=lambda e: (e.weight, e.id)) if items else None

    def _controversial(self, view: View, sign: int) -> Statement | None:
        """The opposing claim in view that drew the most rebuttals and questions (latest on ties);
        words from outside the council (no declared confidence) are not claims to rebut."""
        known = view.known()
        opposing = [
            s
            for s in view.context.statements
            if s.speaker not in (view.member, COORDINATOR)
            and s.confidence > 0
            and (
                (known[s.evidence].direction != sign)
                if s.evidence and s.kind == "evidence"
                else (s.stance > 0.5) != (sign > 0)
            )
        ]
        if not opposing:
            return None
        drew = Counter(s.target for s in view.context.statements if s.target is not None)
        return max(opposing, key=lambda s: (drew[s.id], s.id))

    def _say(
        self, view: View, kind: str, ev: Evidence | None, tgt: Statement | None, stance: float, conf: float
    ) -> Reply:
        side = _side(stance)
        if kind in ("evidence", "answer"):
            assert ev is not None
            lead = "To the chair's question: " if kind == "answer" else ""
            return Reply(
                "evidence",
                f"{lead}{_sentence(ev.text)}",
                stance,
                conf,
                ev.id,
                tgt.id if tgt is not None else None,
                ev.aspect,
            )
        if ev is None:
            aspect = tgt.aspect if tgt is not None else None
            text = f"I {side} the motion; the case on {aspect or 'the whole'} is not made."
            return Reply(
                "argument" if kind == "restate" else kind,
                text,
                stance,
                conf,
                target=tgt.id if tgt is not None else None,
                aspect=aspect,
            )
        if kind == "rebuttal":
            assert tgt is not None
            return Reply(
                "rebuttal",
                f"I disagree with {tgt.speaker}: {_sentence(ev.text)}",
                stance,
                conf,
                ev.id,
                tgt.id,
                ev.aspect,
            )
        lead = "Again" if ev in view.own else "As was said"
        return Reply(
            "restate", f"{lead}: {_sentence(ev.text)} I {side} the motion.", stance, conf, ev.id, aspect=ev.aspect
        )
