"""Each member's working memory of the debate: the masking config, the :class:`Context` a member
sees, the labelling requests of subjective masking, and the pure rules the maskers share. The
masker itself (``memory.debate_masking.Masker``) is memory's and is injected.

Every mode fills the same token ``budget``; the anchors (the motion and the constraints) and, when
on, the long-term summary are always in and count against it. Then the statements:

* ``none``      -- the full history, newest first while it fits (the oldest fall off);
* ``window``    -- the last ``window`` statements, newest first while they fit;
* ``memo``      -- the hybrid masker of ``memory.masking``: a score of recency, boosted for
  controversy (statements that drew rebuttals or questions in the last ``controversy_rounds``
  rounds: disputes still open) and novelty (the first statement of
  an evidence item, the first rebuttal of a claim, words from outside the council); statements
  on settled sub-questions fade;
  redundancy suppression drops a statement alike (cosine >= ``redundancy``) to one already kept
  or to the member's own recent statements; the best fill the budget (at most ``max_items``);
* ``objective`` -- the statements whose speakers were most confident (the top half), newest first;
* ``subjective`` -- (LLM members only; :class:`SubjectiveMaskingConfig`) once a round each member
  labels the others' recent statements keep/mask (a :class:`Labeller`, e.g. the LLM debater); its
  own statements, the ones it kept and the ones said after it labelled fill the budget, newest
  first. A failed labelling falls back to ``window``'s recency, the reason in ``Masker.failures``.

The long-term tier (``long_term``; on by default for ``memo`` only) is a summary every member
gets: the settled sub-questions (every item stated on them was read one way by its speaker, and
nobody rebutted or questioned them in the last round) with the statements that stated them.

Every decision here reads the transcript only: what was said, by whom, the item each statement
cites and the side its speaker read it as (``Statement.side``). Nothing reads the members'
private holdings, an item's true direction or weight, or the task's truth. The :class:`Context`
passes the items its statements name on to the debater (``Context.evidence``: the debater's
reading of what it heard); the masker never looks inside them, and the Context never holds
another member's unstated evidence or the task's truth.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from game.core.errors import InputError
from game.council.session import COORDINATOR, CouncilSession, Statement
from game.council.tasks import Evidence

MODES = ("none", "window", "dedupe", "memo", "objective")
LLM_MODES = ("subjective",)  # modes only LLM members can use (SubjectiveMaskingConfig)


class MaskingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    mode: Literal["none", "window", "dedupe", "memo", "objective"] = "memo"
    budget: int = Field(200, ge=16, le=100_000, description="context tokens for anchors, summary and statements")
    window: int = Field(6, ge=1, description="statements kept by 'window'")
    long_term: bool | None = Field(None, description="give the long-term summary (None: memo only)")
    max_items: int | None = Field(None, ge=1, description="memo: most statements kept")
    redundancy: float = Field(0.8, ge=0.0, le=1.0, description="memo: cosine that drops a statement as redundant")
    soft: float = Field(0.7, ge=0.0, le=1.0, description="memo: cosine above which a statement is down-weighted")
    soft_penalty: float = Field(0.5, ge=0.0, le=1.0)
    self_repeat: float = Field(
        0.8, ge=0.0, le=1.0, description="memo: cosine to the member's own recent statements that masks"
    )
    own_recent: int = Field(2, ge=0, description="memo: the member's recent statements masked against")
    controversy_weight: float = Field(0.3, ge=0.0, le=10.0)
    controversy_rounds: int | None = Field(
        1, ge=1, description="memo: count the rebuttals and questions of the last N rounds (open disputes; None: all)"
    )
    novelty_weight: float = Field(1.0, ge=0.0, le=10.0)
    resolved_factor: float = Field(0.3, ge=0.0, le=1.0, description="memo: score kept on settled sub-questions")
    recency_decay: float = Field(0.8, gt=0.0, le=1.0, description="memo: recency = decay ** rounds ago")
    same_evidence: bool = Field(
        True,
        description="memo: a statement raising evidence already stated is redundant "
        "with its first mention (by the item it cites, whatever the wording)",
    )

    @property
    def uses_long_term(self) -> bool:
        return self.mode == "memo" if self.long_term is None else self.long_term


class SubjectiveMaskingConfig(MaskingConfig):
    """The ``subjective`` mode: every member labels the others' statements (LLM members only)."""

    mode: Literal["subjective"] = "subjective"  # type: ignore[assignment]
    candidates: int = Field(40, ge=1, le=500, description="subjective: the others' latest statements offered")


class MaskingConfigError(InputError):
    """A masking mode the council's members cannot use."""


@dataclass(frozen=True)
class LabelRequest:
    """What a member labels: the others' statements (``candidates``, numbered from 1 in order)."""

    member: str
    role: str
    round: int
    motion: str
    candidates: tuple[str, ...]


@runtime_checkable
class Labeller(Protocol):
    """Labels a request's candidates: returns the numbers (from 1) to keep; raises on failure."""

    def label(self, request: LabelRequest) -> Sequence[int]: ...


@dataclass
class Context:
    """What one member sees before speaking: anchors, summary, the kept statements (oldest first),
    the evidence texts those name, and why the rest was masked."""

    member: str
    round: int
    anchors: tuple[str, ...]
    summary: tuple[str, ...]
    agreed: tuple[str, ...]  # evidence ids the summary states as agreed facts
    statements: tuple[Statement, ...]
    evidence: dict[str, Evidence]  # the items named by kept statements or the summary (for the debater's reading)
    masked: dict[int, str] = field(default_factory=dict)
    tokens: int = 0

    def lines(self) -> list[str]:
        return [*self.anchors, *self.summary, *(line(s) for s in self.statements)]

    def render(self) -> str:
        return "\n".join(self.lines())


def line(s: Statement) -> str:
    return f"[{s.speaker}] {s.text}"


class ContextBuilder(Protocol):
    """Builds each member's :class:`Context` (``memory.debate_masking.Masker`` is the standard one;
    the composition root injects it). ``vectors``: unit rows for texts (the redundancy metrics)."""

    def context(self, session: CouncilSession, member: str) -> Context: ...

    def vectors(self, texts: Sequence[str]) -> np.ndarray: ...


def outside(session: CouncilSession, s: Statement) -> bool:
    """Words from outside the council (a player in the gallery): a new angle, for ``memo``."""
    return s.speaker != COORDINATOR and s.speaker not in session.members


def check_labellers(labellers: Mapping[str, Any]) -> None:
    bad = sorted(m for m, d in labellers.items() if not isinstance(d, Labeller))
    if bad or not labellers:
        who = f"{', '.join(bad)} cannot label statements" if bad else "the masker was given no labellers"
        raise MaskingConfigError(
            f"masking mode 'subjective' needs LLM members; {who}",
            hint="give every member an LLM debater (game.council.llm.LLMDebater), passed "
            "to the Masker as labellers, or pick another mode",
        )


def objective_order(hist: Sequence[Statement]) -> list[int]:
    """The statements of the most confident speakers (top half by confidence), newest first."""
    if not hist:
        return []
    cut = float(np.median([s.confidence for s in hist]))
    top = [s for s in hist if s.confidence >= cut]
    return [s.id for s in reversed(top)]


def settled(session: CouncilSession) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The long-term tier: (agreed evidence ids, summary lines), from the transcript alone. A
    sub-question is settled when every item stated on it was read one way by its speaker
    (:meth:`CouncilSession.sides`), it was raised before this round, and no statement of the last
    round rebutted or questioned anything on it. The summary says what was said: the side and
    the statements that stated the items."""
    hist = session.history
    aspects: dict[str, list[int]] = {}
    for sid in session.stated.values():
        if hist[sid].aspect:
            aspects.setdefault(hist[sid].aspect, []).append(sid)  # type: ignore[arg-type]
    sides = session.sides()
    last = session.round - 1
    disputed = {s.aspect for s in hist if s.round >= last and s.kind in ("rebuttal", "question")}
    disputed |= {hist[s.target].aspect for s in hist if s.round >= last and s.target is not None}
    agreed: list[str] = []
    lines: list[str] = []
    for aspect, sids in sorted(aspects.items()):
        if aspect in disputed or len(sides[aspect]) != 1 or min(hist[i].round for i in sids) >= session.round:
            continue
        agreed += sorted(str(hist[i].evidence) for i in sids)
        side = "for" if next(iter(sides[aspect])) > 0 else "against"
        lines.append(f"Settled, {aspect}: {side} the motion (" + ", ".join(f"#{i}" for i in sorted(sids)) + ")")
    return tuple(agreed), tuple(lines)
