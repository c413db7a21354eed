"""Compression: fold near-duplicates into one line; summarise older clusters extractively.

An LLM summariser (any ``Callable[[list[str]], str]``) is used only when one is
configured and the cluster is large; otherwise the summary is extractive: the
most important members verbatim, plus a count of the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from memory.config import MemoConfig
from memory.masking import ScoredMemory, numbers


@dataclass
class Item:
    """One line of a context: a memory, a merged group, or a summary of a cluster."""

    id: str
    text: str
    score: float
    turn: int
    first_turn: int
    anchor: bool
    members: list[ScoredMemory] = field(default_factory=list)
    kind: str = "memory"            # memory | merged | summary

    @property
    def rec(self):
        return self.members[0].rec


def _span(turns: list[int]) -> str:
    lo, hi = min(turns), max(turns)
    return f"turn {lo}" if lo == hi else f"turns {lo}-{hi}"


def merge_duplicates(kept: list[ScoredMemory], vecs: np.ndarray, cfg: MemoConfig,
                     masked: list[ScoredMemory] = ()) -> list[Item]:
    """Group kept candidates whose similarity to a group's head passes ``merge_similarity``.

    Candidates the mask dropped as redundant with a kept one (``masked``, with
    ``into`` set) are counted on that line too, so repeated events read
    "(x3, turns 4-9)" rather than vanishing."""
    echoes: dict[str, list[ScoredMemory]] = {}
    for c in masked:
        if c.fate == "masked" and c.into is not None:
            echoes.setdefault(c.into, []).append(c)
    order = sorted(range(len(kept)), key=lambda i: (not kept[i].rec.anchor, -kept[i].score, kept[i].rec.seq))
    heads: list[int] = []
    groups: dict[int, list[int]] = {}
    nums = [numbers(c.rec.text) for c in kept]
    for i in order:
        c = kept[i]
        if heads:  # anchors merge only with anchors (a repeated agreement is one line, never lost)
            sims = vecs[heads] @ vecs[i]
            j = next((int(k) for k in np.argsort(-sims, kind="stable")
                      if nums[heads[k]] == nums[i] and kept[heads[k]].rec.anchor == c.rec.anchor), None)
            if j is not None and float(sims[j]) >= cfg.merge_similarity:
                groups[heads[j]].append(i)
                continue
        heads.append(i)
        groups[i] = [i]
    items = []
    for h in heads:
        members = [kept[i] for i in groups[h]]
        head = members[0]
        repeats = [e for m in members for e in echoes.get(m.id, ())]
        turns = [m.rec.turn for m in members] + [e.rec.turn for e in repeats]
        text = head.rec.text
        if len(turns) > 1:
            text += f" (x{len(turns)}, {_span(turns)})"
            for m in members[1:]:
                m.fate, m.reason, m.into = "merged", f"near-duplicate of {head.id}", head.id
        items.append(Item(id=head.id, text=text, score=head.score, turn=max(turns), first_turn=min(turns),
                          anchor=head.rec.anchor, members=members, kind="merged" if len(turns) > 1 else "memory"))
    return items


def summarise_old(items: list[Item], vecs_of: Callable[[list[str]], np.ndarray], now: int, cfg: MemoConfig,
                  llm: Callable[[list[str]], str] | None = None) -> list[Item]:
    """Replace clusters of older, similar items by one summary line each."""
    # the best-scored lines stay verbatim: only the tail is worth compressing
    spared = {it.id for it in sorted(items, key=lambda it: (-it.score, it.rec.seq))[: cfg.keep_verbatim]}
    old = [it for it in items if not it.anchor and it.id not in spared and it.turn < now - cfg.summarise_after]
    if len(old) < cfg.cluster_min:
        return items
    old.sort(key=lambda it: (-it.score, it.rec.seq))
    vecs = vecs_of([it.id for it in old])
    unassigned = list(range(len(old)))
    replaced: dict[str, Item] = {}
    while unassigned:
        seed = unassigned[0]
        sims = vecs[unassigned] @ vecs[seed]
        cluster = [unassigned[k] for k in range(len(unassigned)) if sims[k] >= cfg.cluster_similarity]
        unassigned = [u for u in unassigned if u not in cluster]
        if len(cluster) < cfg.cluster_min:
            continue
        members = [old[k] for k in cluster]
        sid = f"sum:{members[0].id}"
        by_importance = sorted(members, key=lambda it: (-it.score, -it.rec.importance, it.rec.seq))  # best first
        turns = [t for it in members for t in (it.first_turn, it.turn)]
        extractive = "; ".join(it.rec.text for it in by_importance[:2])
        if len(members) > 2:
            extractive += f" (+{len(members) - 2} similar)"
        text = ""
        if llm is not None and len(members) >= cfg.llm_cluster_min:
            try:
                text = llm([it.text for it in by_importance]).strip()
            except Exception:  # a failing summariser falls back to the extractive summary
                text = ""
            if len(text) > max(2 * len(extractive), 200):  # a rambling summary would cost the cluster its place
                text = ""
        text = text or extractive
        summary = Item(id=sid, text=f"{text} [{_span(turns)}]", score=max(it.score for it in members),
                       turn=max(turns), first_turn=min(turns), anchor=False,
                       members=[c for it in members for c in it.members], kind="summary")
        for it in members:
            for c in it.members:
                if c.fate != "merged":
                    c.fate, c.reason = "summarised", f"older cluster of {len(members)}"
                c.into = sid
            replaced[it.id] = summary
    out, emitted = [], set()
    for it in items:
        s = replaced.get(it.id)
        if s is None:
            out.append(it)
        elif s.id not in emitted:
            emitted.add(s.id)
            out.append(s)
    return out
