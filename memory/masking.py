"""Memory masking: which candidates an agent should *not* see this turn, and which count for more.

Adapted from multi-agent debate practice:

* redundancy suppression: a candidate nearly identical to one already selected is
  dropped; a merely similar one is down-weighted; one that repeats the agent's
  own recent statements is dropped (so agents don't talk in circles);
* controversy boost: memories that drew rebuttals or contradicting claims;
* novelty boost: memories that brought new concepts;
* task-goal filter: memories about resolved sub-goals fade;
* anchors are exempt from all of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from memory.config import MaskConfig
from memory.records import MemoryRecord
from memory.values import alike, same_claim, values


@dataclass
class ScoredMemory:
    """One retrieved memory being scored for a context (selected, masked, merged, ...), with
    everything explain() reports."""

    rec: MemoryRecord
    relevance: float = 0.0  # raw cosine similarity to the query (mixed with BM25 when the focus has words)
    meaning: float | None = None  # the cosine part alone, when relevance is mixed (None: not mixed)
    recency: float = 0.0  # raw decay ** age
    importance: float = 0.0
    norm: tuple[float, ...] = ()  # normalised relevance, recency, importance
    score: float = 0.0
    adjustments: list[str] = field(default_factory=list)
    fate: str = "candidate"  # selected | masked | merged | summarised | dropped
    reason: str = ""
    into: str | None = None  # merged into / summarised into
    section: str | None = None
    group: list[MemoryRecord] = field(default_factory=list)  # the memories this one stands for (oldest first)
    line: str | None = None  # its text in a context when it stands for a group or is history

    @property
    def id(self) -> str:
        return self.rec.id


def numbers(text: str) -> tuple[str, ...]:
    """The values a text states (``memory.values``: numbers and ``key=value`` values): two lines
    that differ in them are different facts (an offer at 43 is not a repeat of an offer at 40,
    mood=calm is not mood=angry), however similar they read."""
    return values(text)


def boost(cands: list[ScoredMemory], cfg: MaskConfig) -> None:
    """Controversy and novelty raise a score; resolved sub-goals lower it. Anchors untouched."""
    for c in cands:
        if c.rec.anchor:
            continue
        if c.rec.controversy and cfg.controversy_weight:
            add = cfg.controversy_weight * c.rec.controversy
            c.score += add
            c.adjustments.append(f"+{add:.3f} controversy")
        if c.rec.novelty and cfg.novelty_weight:
            add = cfg.novelty_weight * c.rec.novelty
            c.score += add
            c.adjustments.append(f"+{add:.3f} novelty")
        if c.rec.status == "resolved":
            c.score *= cfg.resolved_factor
            c.adjustments.append(f"x{cfg.resolved_factor} resolved sub-goal")


def mask(
    cands: list[ScoredMemory],
    vecs: np.ndarray,
    own_vecs: np.ndarray,
    own_ids: set[str],
    cfg: MaskConfig,
    own_texts: list[str] | None = None,
) -> list[ScoredMemory]:
    """Greedy redundancy suppression in score order. Returns the kept candidates (masked ones get a reason).

    ``vecs[i]`` is the vector of ``cands[i]``; ``own_vecs`` are the agent's own
    recent statements (``own_ids`` their record ids, never masked against themselves;
    ``own_texts`` their texts). Neither test goes by the vectors alone: a statement is redundant
    with a kept one only if :func:`alike` (the same values as written, no word swapped in place),
    and repeats the agent's own only if :func:`same_claim` (the same values read as numbers, and
    neither denies the other), since a different value or a denial reads close to any embedder.
    """
    order = sorted(range(len(cands)), key=lambda i: (not cands[i].rec.anchor, -cands[i].score, cands[i].rec.seq))
    kept: list[int] = []
    own_sims = vecs @ own_vecs.T if len(own_vecs) and len(vecs) else None
    texts = [c.rec.text for c in cands]
    sim = vecs @ vecs.T if len(cands) else np.zeros((0, 0))
    kept_rows = np.empty(len(cands), dtype=np.intp)
    for i in order:
        c = cands[i]
        if c.rec.anchor:
            kept_rows[len(kept)] = i
            kept.append(i)
            continue
        best, j = 0.0, -1
        if kept:  # nothing less alike than redundancy_soft matters; a different value or a swapped word
            sims = sim[i, kept_rows[: len(kept)]]  # is a different fact
            k = _closest(sims, cfg.redundancy_soft, lambda k: alike(texts[kept[k]], texts[i]))
            if k is not None:
                best, j = float(sims[k]), k
        if best >= cfg.redundancy_drop:
            c.fate, c.reason = "masked", f"redundant with {cands[kept[j]].id} (similarity {best:.2f})"
            c.into = cands[kept[j]].id  # counted on that line by compression: "(x3, turns 4-9)"
            continue
        if own_sims is not None and c.id not in own_ids:
            k = _closest(
                own_sims[i], cfg.self_repeat, lambda k: own_texts is None or same_claim(own_texts[k], texts[i])
            )
            if k is not None:
                c.fate, c.reason = (
                    "masked",
                    f"repeats the agent's own recent statement (similarity {own_sims[i, k]:.2f})",
                )
                continue
        if best >= cfg.redundancy_soft:
            c.score *= 1 - cfg.soft_penalty
            c.adjustments.append(f"x{1 - cfg.soft_penalty:.2f} similar to {cands[kept[j]].id} ({best:.2f})")
        kept_rows[len(kept)] = i
        kept.append(i)
    return [cands[i] for i in kept]


def _closest(sims: np.ndarray, cut: float, same: Callable[[int], bool]) -> int | None:
    """The index of the most similar row (at least ``cut``) that ``same`` takes for the same fact, or None."""
    close = np.flatnonzero(sims >= cut)
    for k in close[np.argsort(-sims[close], kind="stable")]:
        if same(int(k)):
            return int(k)
    return None
