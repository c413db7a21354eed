"""Each member's working memory of the debate, masked before it speaks.

Every mode fills the same token ``budget``; the anchors (the motion and the constraints) and, when
on, the long-term summary are always in and count against it. Then the statements:

* ``none``      -- the full history, newest first while it fits (the oldest fall off);
* ``window``    -- the last ``window`` statements, newest first while they fit;
* ``memo``      -- the hybrid masker of ``memory.masking``: a score of recency, boosted for
  controversy (statements that drew rebuttals or questions) and novelty (the first statement of
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
gets: the settled sub-questions (every stated item on them points one way, and nobody rebutted
or questioned them in the last round) with the agreed facts on them. The masker reads the
transcript and the task's evidence texts only to show a member what was *said*: the
:class:`Context` it builds never holds another member's unstated evidence or the task's truth.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from game.council.session import COORDINATOR, CouncilSession, Statement
from game.council.tasks import Evidence
from game.core.errors import InputError, ParleyError

if TYPE_CHECKING:
    from memory.embedder import Embedder

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
    self_repeat: float = Field(0.8, ge=0.0, le=1.0, description="memo: cosine to the member's own recent statements that masks")
    own_recent: int = Field(2, ge=0, description="memo: the member's recent statements masked against")
    controversy_weight: float = Field(0.3, ge=0.0, le=10.0)
    novelty_weight: float = Field(1.0, ge=0.0, le=10.0)
    resolved_factor: float = Field(0.3, ge=0.0, le=1.0, description="memo: score kept on settled sub-questions")
    recency_decay: float = Field(0.8, gt=0.0, le=1.0, description="memo: recency = decay ** rounds ago")
    same_evidence: bool = Field(True, description="memo: a statement raising evidence already stated is redundant "
                                                  "with its first mention (by the item it cites, whatever the wording)")

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
    agreed: tuple[str, ...]           # evidence ids the summary states as agreed facts
    statements: tuple[Statement, ...]
    evidence: dict[str, Evidence]     # the items named by kept statements or the summary
    masked: dict[int, str] = field(default_factory=dict)
    tokens: int = 0

    def lines(self) -> list[str]:
        return [*self.anchors, *self.summary, *(line(s) for s in self.statements)]

    def render(self) -> str:
        return "\n".join(self.lines())


def line(s: Statement) -> str:
    return f"[{s.speaker}] {s.text}"


def _counter() -> Callable[[str], int]:
    from memory.tokens import count_tokens
    return count_tokens


class Masker:
    """Builds contexts for one session; caches each statement's vector and token count."""

    def __init__(self, config: MaskingConfig | None = None, embedder: Embedder | None = None,
                 count: Callable[[str], int] | None = None, labellers: Mapping[str, Any] | None = None):
        self.config = config or MaskingConfig()
        self.labellers = dict(labellers or {})
        self.failures: list[tuple[int, str, str]] = []  # subjective: (round, member, why its labels failed)
        self._labels: dict[tuple[str, int], tuple[tuple[int, ...], frozenset[int], str | None]] = {}
        if self.config.mode == "subjective":
            _check_labellers(self.labellers)
        if embedder is None and self.config.mode == "memo":
            from memory.embedder import get_embedder
            embedder = get_embedder("hash")
        self.embedder = embedder
        self.count = count or _counter()
        self._vecs: dict[str, np.ndarray] = {}
        self._tok: dict[str, int] = {}

    def tokens(self, text: str) -> int:
        n = self._tok.get(text)
        if n is None:
            n = self._tok[text] = self.count(text)
        return n

    def vectors(self, texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self._vecs]
        if todo:
            assert self.embedder is not None
            for t, v in zip(todo, self.embedder(todo)):
                self._vecs[t] = v
        if not texts:
            return np.zeros((0, getattr(self.embedder, "dim", 1)), dtype=np.float32)
        return np.stack([self._vecs[t] for t in texts])

    def context(self, session: CouncilSession, member: str) -> Context:
        cfg = self.config
        task = session.task
        anchors = (f"Motion: {task.motion}", *(f"Constraint: {c}" for c in task.constraints))
        agreed, summary = settled(session) if cfg.uses_long_term else ((), ())
        used = sum(self.tokens(a) for a in anchors) + sum(self.tokens(s) for s in summary)
        room = max(0, cfg.budget - used)
        hist = session.history
        masked: dict[int, str] = {}
        if cfg.mode == "memo":
            order, masked = self._memo_order(session, member, agreed)
        elif cfg.mode == "dedupe":  # the first statement of each evidence item, newest first; nothing else
            order = [s.id for s in reversed(hist) if s.evidence and session.stated.get(s.evidence) == s.id]
            masked.update({s.id: "not the first mention of an evidence item" for s in hist if s.id not in set(order)})
        elif cfg.mode == "objective":
            order = _objective(hist)
            masked.update({s.id: "speaker less confident than the median" for s in hist if s.id not in set(order)})
        elif cfg.mode == "subjective":
            order, masked = self._subjective_order(session, member)
        else:
            keep = hist if cfg.mode == "none" else hist[-cfg.window:]
            order = [s.id for s in reversed(keep)]
            masked.update({s.id: f"outside the last {cfg.window}" for s in hist[:len(hist) - len(keep)]})
        kept, room_left = self._fill(hist, order, room, masked, contiguous=cfg.mode in ("none", "window", "objective"))
        by = task.by_id()
        named = {s.evidence for s in kept if s.evidence} | set(agreed)
        return Context(member, session.round, anchors, summary, tuple(agreed), tuple(kept),
                       {e: by[e] for e in sorted(named)}, masked, cfg.budget - room_left)

    def _fill(self, hist: list[Statement], order: list[int], room: int, masked: dict[int, str],
              contiguous: bool) -> tuple[list[Statement], int]:
        kept: list[int] = []
        cap = self.config.max_items if self.config.mode == "memo" else None
        for pos, sid in enumerate(order):
            n = self.tokens(line(hist[sid]))
            if n > room or (cap is not None and len(kept) >= cap):
                masked[sid] = "over the token budget" if n > room else f"beyond the {cap} kept"
                if contiguous:
                    masked.update({s: "over the token budget" for s in order[pos + 1:]})
                    break
                continue
            kept.append(sid)
            room -= n
        return [hist[i] for i in sorted(kept)], room

    def _memo_order(self, session: CouncilSession, member: str,
                    agreed: Sequence[str]) -> tuple[list[int], dict[int, str]]:
        """Statement ids in memo's priority order, and the ones it masked (with the reason)."""
        from memory.config import MaskConfig
        from memory.masking import ScoredMemory, boost, mask
        from memory.records import MemoryRecord
        cfg = self.config
        hist = session.history
        if not hist:
            return [], {}
        settled_aspects = {session.task.item(e).aspect for e in agreed}
        drawn = np.bincount([s.target for s in hist if s.target is not None], minlength=len(hist))
        first_rebuttal = {s.target: s.id for s in reversed(hist) if s.kind == "rebuttal"}
        cands, restated = [], {}
        for s in hist:
            first = session.stated.get(s.evidence) if s.evidence else None
            if cfg.same_evidence and first is not None and first != s.id:
                restated[s.id] = f"restates evidence first stated in #{first}"
                continue
            novelty = 1.0 if (s.evidence and session.stated.get(s.evidence) == s.id) or outside(session, s) else \
                0.5 if first_rebuttal.get(s.target) == s.id and s.target is not None else 0.0
            rec = MemoryRecord(id=str(s.id), scope="shared", kind="utterance", text=s.text, turn=s.round,
                               speaker=s.speaker, controversy=min(1.0, drawn[s.id] / 2), novelty=novelty,
                               status="resolved" if s.aspect in settled_aspects and s.speaker != COORDINATOR
                               else "active", seq=s.id)
            cands.append(ScoredMemory(rec, score=cfg.recency_decay ** (session.round - s.round)))
        mcfg = MaskConfig(redundancy_drop=cfg.redundancy, redundancy_soft=min(cfg.soft, cfg.redundancy),
                          soft_penalty=cfg.soft_penalty, self_repeat=cfg.self_repeat,
                          controversy_weight=cfg.controversy_weight, novelty_weight=cfg.novelty_weight,
                          resolved_factor=cfg.resolved_factor)
        boost(cands, mcfg)
        vecs = self.vectors([s.text for s in hist])
        own = [s.id for s in hist if s.speaker == member and s.id not in restated][-cfg.own_recent:] \
            if cfg.own_recent else []
        kept = mask(cands, vecs[[int(c.id) for c in cands]], vecs[own] if own else vecs[:0], {str(i) for i in own},
                    mcfg, [hist[i].text for i in own])
        masked = {**restated, **{int(c.id): c.reason for c in cands if c.fate == "masked"}}
        order = [int(c.id) for c in sorted(kept, key=lambda c: (-c.score, -c.rec.seq))]
        return order, masked

    def _subjective_order(self, session: CouncilSession, member: str) -> tuple[list[int], dict[int, str]]:
        """Newest first: the member's own statements, the others' it labelled keep this round and the
        ones said after it labelled; on a failed labelling, the last ``window`` statements."""
        hist = session.history
        key = (member, session.round)
        if key not in self._labels:
            self._labels[key] = self._ask(session, member)
        offered, keep, failed = self._labels[key]
        if failed is not None:
            w = self.config.window
            old = hist[:max(0, len(hist) - w)]
            return [s.id for s in reversed(hist[len(old):])], \
                {s.id: f"labels failed ({failed}); outside the last {w}" for s in old}
        last = offered[-1] if offered else -1
        order: list[int] = []
        masked: dict[int, str] = {}
        for s in reversed(hist):
            if s.speaker == member or s.id in keep or s.id > last:
                order.append(s.id)
            else:
                masked[s.id] = f"{member} labelled it mask" if s.id in offered else "older than the statements labelled"
        return order, masked

    def _ask(self, session: CouncilSession,
             member: str) -> tuple[tuple[int, ...], frozenset[int], str | None]:
        """One labelling request: (statement ids offered, ids kept, why it failed or None)."""
        labeller = self.labellers.get(member)
        if not isinstance(labeller, Labeller):
            _check_labellers({member: labeller})
        offered = [s for s in session.history if s.speaker != member][-getattr(self.config, "candidates", 40):]
        ids = tuple(s.id for s in offered)
        if not offered:
            return ids, frozenset(), None
        req = LabelRequest(member, session.task.member(member).role, session.round, session.task.motion,
                           tuple(line(s) for s in offered))
        try:
            nums = [int(n) for n in labeller.label(req)]
            bad = sorted(n for n in nums if not 1 <= n <= len(ids))
            if bad:
                raise ValueError(f"labels {bad} are not numbers 1-{len(ids)}")
        except (ParleyError, ValueError, TypeError) as exc:
            why = getattr(exc, "error", None) or str(exc) or type(exc).__name__
            self.failures.append((session.round, member, why))
            return ids, frozenset(), why
        return ids, frozenset(ids[n - 1] for n in nums), None


def outside(session: CouncilSession, s: Statement) -> bool:
    """Words from outside the council (a player in the gallery): a new angle, for ``memo``."""
    return s.speaker != COORDINATOR and s.speaker not in session.members


def _check_labellers(labellers: Mapping[str, Any]) -> None:
    bad = sorted(m for m, d in labellers.items() if not isinstance(d, Labeller))
    if bad or not labellers:
        who = f"{', '.join(bad)} cannot label statements" if bad else "the masker was given no labellers"
        raise MaskingConfigError(f"masking mode 'subjective' needs LLM members; {who}",
                                 hint="give every member an LLM debater (game.council.llm.LLMDebater), passed "
                                      "to the Masker as labellers, or pick another mode")


def _objective(hist: Sequence[Statement]) -> list[int]:
    """The statements of the most confident speakers (top half by confidence), newest first."""
    if not hist:
        return []
    cut = float(np.median([s.confidence for s in hist]))
    top = [s for s in hist if s.confidence >= cut]
    return [s.id for s in reversed(top)]


def settled(session: CouncilSession) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The long-term tier: (agreed evidence ids, summary lines). A sub-question is settled when
    every item stated on it points one way, it was raised before this round, and no statement
    of the last round rebutted or questioned anything on it."""
    by = session.task.by_id()
    hist = session.history
    aspects: dict[str, list[str]] = {}
    for eid in session.stated:
        aspects.setdefault(by[eid].aspect, []).append(eid)
    last = session.round - 1
    disputed = {s.aspect for s in hist if s.round >= last and s.kind in ("rebuttal", "question")}
    disputed |= {hist[s.target].aspect for s in hist if s.round >= last and s.target is not None}
    agreed: list[str] = []
    lines: list[str] = []
    for aspect, ids in sorted(aspects.items()):
        if aspect in disputed or len({by[e].direction for e in ids}) != 1 \
                or min(hist[session.stated[e]].round for e in ids) >= session.round:
            continue
        agreed += sorted(ids)
        lines.append(f"Settled, {aspect}: " + "; ".join(by[e].gist for e in sorted(ids)))
    return tuple(agreed), tuple(lines)
