"""The council's masker: each member's working memory of the debate, masked before it speaks.

The modes and the config are ``game.council.context``'s (read its docstring); this class fills a
member's :class:`~game.council.context.Context` under the token budget, with memory's hybrid
masker (``memory.masking``) for ``memo``, the embedder for its redundancy, and the labels of
LLM members for ``subjective``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from game.core.errors import ParleyError
from game.council.context import (
    COORDINATOR,
    Context,
    Labeller,
    LabelRequest,
    MaskingConfig,
    check_labellers,
    line,
    objective_order,
    outside,
    settled,
)
from game.council.session import CouncilSession, Statement
from memory.config import MaskConfig
from memory.masking import ScoredMemory, boost, mask
from memory.records import MemoryRecord

if TYPE_CHECKING:
    from memory.embedder import Embedder


def _counter() -> Callable[[str], int]:
    from memory.tokens import count_tokens

    return count_tokens


class Masker:
    """Builds contexts for one session; caches each statement's vector and token count."""

    def __init__(
        self,
        config: MaskingConfig | None = None,
        embedder: Embedder | None = None,
        count: Callable[[str], int] | None = None,
        labellers: Mapping[str, Any] | None = None,
    ):
        self.config = config or MaskingConfig()
        self.labellers = dict(labellers or {})
        self.failures: list[tuple[int, str, str]] = []  # subjective: (round, member, why its labels failed)
        self._labels: dict[tuple[str, int], tuple[tuple[int, ...], frozenset[int], str | None]] = {}
        if self.config.mode == "subjective":
            check_labellers(self.labellers)
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
            order = objective_order(hist)
            masked.update({s.id: "speaker less confident than the median" for s in hist if s.id not in set(order)})
        elif cfg.mode == "subjective":
            order, masked = self._subjective_order(session, member)
        else:
            keep = hist if cfg.mode == "none" else hist[-cfg.window :]
            order = [s.id for s in reversed(keep)]
            masked.update({s.id: f"outside the last {cfg.window}" for s in hist[: len(hist) - len(keep)]})
        kept, room_left = self._fill(hist, order, room, masked, contiguous=cfg.mode in ("none", "window", "objective"))
        by = task.by_id()
        named = {s.evidence for s in kept if s.evidence} | set(agreed)
        return Context(
            member,
            session.round,
            anchors,
            summary,
            tuple(agreed),
            tuple(kept),
            {e: by[e] for e in sorted(named)},
            masked,
            cfg.budget - room_left,
        )

    def _fill(
        self, hist: list[Statement], order: list[int], room: int, masked: dict[int, str], contiguous: bool
    ) -> tuple[list[Statement], int]:
        kept: list[int] = []
        cap = self.config.max_items if self.config.mode == "memo" else None
        for pos, sid in enumerate(order):
            n = self.tokens(line(hist[sid]))
            if n > room or (cap is not None and len(kept) >= cap):
                masked[sid] = "over the token budget" if n > room else f"beyond the {cap} kept"
                if contiguous:
                    masked.update({s: "over the token budget" for s in order[pos + 1 :]})
                    break
                continue
            kept.append(sid)
            room -= n
        return [hist[i] for i in sorted(kept)], room

    def _memo_order(
        self, session: CouncilSession, member: str, agreed: Sequence[str]
    ) -> tuple[list[int], dict[int, str]]:
        """Statement ids in memo's priority order, and the ones it masked (with the reason)."""
        cfg = self.config
        hist = session.history
        if not hist:
            return [], {}
        settled_aspects = {hist[session.stated[e]].aspect for e in agreed}
        recent = session.round - cfg.controversy_rounds if cfg.controversy_rounds else 0
        drawn = np.bincount([s.target for s in hist if s.target is not None and s.round > recent], minlength=len(hist))
        first_rebuttal = {s.target: s.id for s in reversed(hist) if s.kind == "rebuttal"}
        cands, restated = [], {}
        for s in hist:
            first = session.stated.get(s.evidence) if s.evidence else None
            if cfg.same_evidence and first is not None and first != s.id:
                restated[s.id] = f"restates evidence first stated in #{first}"
                continue
            novelty = (
                1.0
                if (s.evidence and session.stated.get(s.evidence) == s.id) or outside(session, s)
                else 0.5
                if first_rebuttal.get(s.target) == s.id and s.target is not None
                else 0.0
            )
            rec = MemoryRecord(
                id=str(s.id),
                scope="shared",
                kind="utterance",
                text=s.text,
                turn=s.round,
                speaker=s.speaker,
                controversy=min(1.0, drawn[s.id] / 2),
                novelty=novelty,
                status="resolved" if s.aspect in settled_aspects and s.speaker != COORDINATOR else "active",
                seq=s.id,
            )
            cands.append(ScoredMemory(rec, score=cfg.recency_decay ** (session.round - s.round)))
        mcfg = MaskConfig(
            redundancy_drop=cfg.redundancy,
            redundancy_soft=min(cfg.soft, cfg.redundancy),
            soft_penalty=cfg.soft_penalty,
            self_repeat=cfg.self_repeat,
            controversy_weight=cfg.controversy_weight,
            novelty_weight=cfg.novelty_weight,
            resolved_factor=cfg.resolved_factor,
        )
        boost(cands, mcfg)
        vecs = self.vectors([s.text for s in hist])
        own = (
            [s.id for s in hist if s.speaker == member and s.id not in restated][-cfg.own_recent :]
            if cfg.own_recent
            else []
        )
        kept = mask(
            cands,
            vecs[[int(c.id) for c in cands]],
            vecs[own] if own else vecs[:0],
            {str(i) for i in own},
            mcfg,
            [hist[i].text for i in own],
        )
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
            old = hist[: max(0, len(hist) - w)]
            return [s.id for s in reversed(hist[len(old) :])], {
                s.id: f"labels failed ({failed}); outside the last {w}" for s in old
            }
        last = offered[-1] if offered else -1
        order: list[int] = []
        masked: dict[int, str] = {}
        for s in reversed(hist):
            if s.speaker == member or s.id in keep or s.id > last:
                order.append(s.id)
            else:
                masked[s.id] = f"{member} labelled it mask" if s.id in offered else "older than the statements labelled"
        return order, masked

    def _ask(self, session: CouncilSession, member: str) -> tuple[tuple[int, ...], frozenset[int], str | None]:
        """One labelling request: (statement ids offered, ids kept, why it failed or None)."""
        labeller = self.labellers.get(member)
        if not isinstance(labeller, Labeller):
            check_labellers({member: labeller})
        offered = [s for s in session.history if s.speaker != member][-getattr(self.config, "candidates", 40) :]
        ids = tuple(s.id for s in offered)
        if not offered:
            return ids, frozenset(), None
        req = LabelRequest(
            member,
            session.task.member(member).role,
            session.round,
            session.task.motion,
            tuple(line(s) for s in offered),
        )
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
