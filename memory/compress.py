"""Compression: fold near-duplicates into one line; summarise older clusters without losing a value.

Lines that differ in a value (a number, or the value of ``key=value``) are never
merged or summarised into one: a run of same-template lines (a series of offers)
becomes one series line that keeps oldest → latest, min, max and trend. Similar
lines that state no values are summarised extractively: the most important
members verbatim, plus a count of the rest. An LLM summariser (any
``Callable[[list[str]], str]``) is used only when one is configured and the
cluster is large; on a series its wording leads and the values follow.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from memory.config import MemoConfig
from memory.masking import ScoredMemory
from memory.values import (  # one rule for what a value is, shared with masking
    SLOT,
    VALUE,
    alike,
    template,
    template_key,
    values,
)


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
    kind: str = "memory"  # memory | merged | summary
    count: int = 1  # how many memories the line stands for (repeats included)

    @property
    def rec(self):
        return self.members[0].rec


# --- value tokens and series ------------------------------------------------------------------
_WORDS = re.compile(r"[A-Za-z][\w'-]*")


@lru_cache(maxsize=65536)
def value_slots(text: str) -> tuple[tuple[str, str], ...]:
    """The value tokens of a text in order, each with a label (the key of key=value, else the word
    after the number, else the word before it)."""
    out = []
    for m in VALUE.finditer(text):
        if m.group("key"):
            out.append((m.group("kv"), m.group("key")))
            continue
        after = _WORDS.match(text[m.end() :].lstrip(" "))
        before = _WORDS.findall(text[: m.start()])
        out.append((m.group("num"), after.group(0) if after else (before[-1] if before else "value")))
    return tuple(out)


def _number(value: str) -> float | None:
    v = value.replace(",", "") if re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", value) else value.replace(",", ".")
    try:
        return float(v)
    except ValueError:
        return None


def _trend(nums: list[float]) -> str:
    steps = [b - a for a, b in zip(nums, nums[1:])]
    if all(s >= 0 for s in steps):
        return "rising"
    if all(s <= 0 for s in steps):
        return "falling"
    if nums[-1] == nums[0]:
        return "back where it started"
    return "rising overall" if nums[-1] > nums[0] else "falling overall"


def _slot_stats(values: list[str], ends: bool) -> str:
    """min, max and trend of one varying slot (oldest first), after its oldest → latest when ``ends``;
    a non-numeric slot lists every distinct value it took, in order."""
    head = f"{values[0]} → {values[-1]}, " if ends else ""
    nums = [_number(v) for v in values]
    if any(n is None for n in nums):
        return head + "values " + ", ".join(dict.fromkeys(values))
    lo = values[min(range(len(nums)), key=lambda k: nums[k])]
    hi = values[max(range(len(nums)), key=lambda k: nums[k])]
    return head + f"min {lo}, max {hi}, {_trend(nums)}"  # type: ignore[arg-type]


def series(texts: list[str], counts: list[int] | None = None, lead: str | None = None) -> str:
    """One line for same-template texts that differ in values, oldest first: every varying value is
    shown as oldest → latest with its min, max and trend, so no value is folded into another.

    ``lead`` replaces the quoted template (an LLM's wording); the values are kept all the same."""
    n = sum(counts) if counts else len(texts)
    rows = [[v for v, _ in value_slots(t)] for t in texts]
    labels = [lab for _, lab in value_slots(texts[-1])]
    varying = [k for k in range(len(labels)) if len({r[k] for r in rows}) > 1]
    labelled = lead is not None or len(varying) > 1
    stats = [_slot_stats([r[k] for r in rows], labelled) for k in varying]
    if labelled:
        stats = [f"{labels[k]}: {s}" for k, s in zip(varying, stats)]
    detail = f"({n} times, oldest → latest; {'; '.join(stats)})"
    if lead is not None:
        return f"{lead} {detail}"
    parts = template(texts[-1]).split(SLOT)
    line = parts[0]
    for k, rest in enumerate(parts[1:]):
        line += (f"{rows[0][k]} → {rows[-1][k]}" if k in varying else rows[-1][k]) + rest
    return f"{line} {detail}"


def _span(turns: list[int]) -> str:
    lo, hi = min(turns), max(turns)
    return f"turn {lo}" if lo == hi else f"turns {lo}-{hi}"


def group_line(group: list, lead: str | None = None) -> str:
    """One line for a cluster of memories (oldest first; the newest is the current statement).

    One wording: a series of its values (oldest → latest, min, max, trend), or the line with a
    count when nothing varies. Several wordings: the newest line with a count, and the range of
    the last value each member states, oldest → latest, so no value is folded out of sight.
    ``lead`` (an LLM's wording of the group) replaces the quoted line; the values stay."""
    texts, turns = [r.text for r in group], [r.turn for r in group]
    if group[-1].kind == "reflection":  # recollections of one thing: the newest, and how many there were
        return f"{lead or texts[-1]} ({len(texts)} recollections, {_span(turns)})"
    tmpls = {template_key(t) for t in texts}
    rows = [value_slots(t) for t in texts]
    if len(tmpls) == 1:
        if len({tuple(v for v, _ in r) for r in rows}) > 1:
            return series(texts, lead=lead)
        return f"{lead or texts[-1]} (x{len(texts)}, {_span(turns)})"
    if lead:
        texts = texts[:-1] + [lead]
    lasts = [r[-1][0] for r in rows if r]
    extra = ""
    if len(set(lasts)) > 1:
        extra = f"; {rows[-1][-1][1] if rows[-1] else 'value'}: " + _slot_stats(lasts, True)
    return f"{texts[-1]} (x{len(texts)} in {len(tmpls)} wordings, {_span(turns)}{extra})"


def merge_duplicates(
    kept: list[ScoredMemory], vecs: np.ndarray, cfg: MemoConfig, masked: list[ScoredMemory] = ()
) -> list[Item]:
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
    head_rows = np.empty(len(kept), dtype=np.intp)  # ``heads`` as an index array, filled as they open
    groups: dict[int, list[int]] = {}
    sim = vecs @ vecs.T if len(kept) else np.zeros((0, 0))
    close = sim >= cfg.merge_similarity
    for i in order:
        c = kept[i]
        # the heads this one is close enough to, most alike first; anchors merge only with anchors
        # (a repeated agreement is one line, never lost)
        hs = head_rows[: len(heads)]
        near = hs[close[i, hs]]
        near = near[np.argsort(-sim[i, near], kind="stable")].tolist() if len(near) else ()
        j = next((h for h in near if alike(kept[h].rec.text, c.rec.text) and kept[h].rec.anchor == c.rec.anchor), None)
        if j is not None:
            groups[j].append(i)
            continue
        head_rows[len(heads)] = i
        heads.append(i)
        groups[i] = [i]
    items = []
    for h in heads:
        members = [kept[i] for i in groups[h]]
        head = members[0]
        repeats = [e for m in members for e in echoes.get(m.id, ())]
        turns = [m.rec.turn for m in members] + [e.rec.turn for e in repeats]
        text = head.line or head.rec.text
        if head.group:  # a collapsed cluster already counts its own repeats (its members oldest first)
            group = head.group
            if len(turns) > 1:
                text += f" (+{len(turns) - 1} alike)"
            turns = [group[0].turn, group[-1].turn] + turns[1:]
            count = len(group) + len(turns) - 2
        elif len(turns) > 1:
            text += f" (x{len(turns)}, {_span(turns)})"
        for m in members[1:]:
            m.fate, m.reason, m.into = "merged", f"near-duplicate of {head.id}", head.id
        if not head.group:
            count = len(turns)
        items.append(
            Item(
                id=head.id,
                text=text,
                score=head.score,
                turn=max(turns),
                first_turn=min(turns),
                anchor=head.rec.anchor,
                members=members,
                kind="merged" if count > 1 else "memory",
                count=count,
            )
        )
    return items


_NAMED = re.compile(r"(?<![\w'])[A-Z][A-Za-z0-9]*(?![\w'])")  # a capitalised word, no apostrophe in it
_COUNTED = re.compile(r" \(x\d+, turns? \d+(?:-\d+)?\)")  # the plain count a line may carry


def _plain(it: Item) -> bool:
    """The line is its memory's own words, at most with a plain count: nothing a join could drop
    (a series' values, a "superseded" mark, other wordings)."""
    text = it.rec.text
    return it.text == text or (it.text.startswith(text) and _COUNTED.fullmatch(it.text[len(text) :]) is not None)


@lru_cache(maxsize=65536)
def _name_slots(text: str, speaker: str | None) -> tuple[tuple[str | None, str, str, str], ...]:
    """Each capitalised word of ``text`` that could be a name, as (the speaker, unless the word names
    them; the text before it; the text after it; the word)."""
    out = []
    for m in _NAMED.finditer(text):
        word = m.group(0)
        if m.start() == 0 and speaker != word.lower():
            continue  # a line's first word is a name only when it names the speaker ("Open" is not)
        out.append(
            (None if speaker is None or speaker == word.lower() else speaker, text[: m.start()], text[m.end() :], word)
        )
    return tuple(out)


def join_substitutes(items: list[Item]) -> list[Item]:
    """Lines that say one thing of different people or places, one name swapped in place ("Orla
    asks how the wall would be enforced", "Bram asks how …"), become one line naming each in order
    of appearance ("Orla / Bram asks how …"). Lossless: every name stays, only the repetition goes.

    Only a capitalised word may differ, and as the first word only the speaker's own name: a name,
    never "open"/"closed", "did"/"didn't" or "guilty"/"innocent" (changes or contradictions). The
    lines share scope and kind, each comes from the same speaker or from the person it names, they
    state the same values and carry nothing but their own words and a count. Anchors stay apart."""
    cand = [it for it in items if not it.anchor and _plain(it) and len(it.rec.text) < 200 and it.rec.status == "active"]
    buckets: dict[tuple, list[tuple[int, str]]] = {}
    for n, it in enumerate(cand):
        rec = it.rec
        for speaker, before, after, word in _name_slots(rec.text, rec.speaker):
            buckets.setdefault((rec.scope, rec.kind, speaker, values(rec.text), before, after), []).append((n, word))
    taken: set[int] = set()
    joined: dict[str, Item] = {}
    for key in sorted(buckets, key=lambda key: -len(buckets[key])):
        members = [(n, w) for n, w in buckets[key] if n not in taken]
        if len({n for n, _ in members}) < 2:
            continue
        taken.update(n for n, _ in members)
        members.sort(key=lambda nw: (cand[nw[0]].first_turn, cand[nw[0]].rec.seq))
        group = [cand[n] for n, _ in members]
        text = key[4] + " / ".join(dict.fromkeys(w for _, w in members)) + key[5]
        count = sum(it.count for it in group)
        if count > len(group):
            text += f" (x{count}, {_span([t for it in group for t in (it.first_turn, it.turn)])})"
        head = max(group, key=lambda it: (it.score, -it.rec.seq))
        for it in group:
            if it is not head:
                for c in it.members:
                    c.fate, c.reason, c.into = (
                        "merged",
                        f"the same line of another name, joined with {head.id}",
                        head.id,
                    )
        item = Item(
            id=head.id,
            text=text,
            score=head.score,
            turn=max(it.turn for it in group),
            first_turn=min(it.first_turn for it in group),
            anchor=False,
            members=head.members + [c for it in group if it is not head for c in it.members],
            kind="merged",
            count=count,
        )
        joined.update((it.id, item) for it in group)
    return _replace(items, joined)


def llm_text(llm: Callable[[list[str]], str] | None, lines: list[str], fallback: str, cfg: MemoConfig) -> str:
    """An LLM summary of a large cluster, or ``""`` (no summariser, a small cluster, a failure, or a
    summary too long to be worth its place)."""
    if llm is None or len(lines) < cfg.llm_cluster_min:
        return ""
    try:
        text = llm(lines).strip()
    except Exception:  # a failing summariser falls back to the extractive summary
        return ""
    return "" if len(text) > max(2 * len(fallback), 200) else text


def _summary(members: list[Item], text: str, reason: str) -> Item:
    """One summary line standing for ``members``; every candidate in them is marked as summarised into it."""
    turns = [t for it in members for t in (it.first_turn, it.turn)]
    sid = f"sum:{members[0].id}"
    summary = Item(
        id=sid,
        text=f"{text} [{_span(turns)}]",
        score=max(it.score for it in members),
        turn=max(turns),
        first_turn=min(turns),
        anchor=False,
        members=[c for it in members for c in it.members],
        kind="summary",
        count=sum(it.count for it in members),
    )
    for it in members:
        for c in it.members:
            if c.fate != "merged":
                c.fate, c.reason = "summarised", reason
            c.into = sid
    return summary


def _series(
    old: list[Item], cfg: MemoConfig, llm: Callable[[list[str]], str] | None, replaced: dict[str, Item]
) -> None:
    """Same-template lines that differ only in their values (a run of offers) become one series line:
    oldest → latest, min, max and trend. They are never folded into one value."""
    groups: dict[tuple[str, str], list[Item]] = {}
    for it in old:
        if value_slots(it.rec.text):
            groups.setdefault((it.rec.scope, template(it.rec.text)), []).append(it)
    for members in groups.values():
        if len(members) < cfg.cluster_min:
            continue
        members.sort(key=lambda it: (it.first_turn, it.rec.seq))  # oldest first
        texts, counts = [it.rec.text for it in members], [it.count for it in members]
        text = series(texts, counts)
        lead = llm_text(llm, [it.text for it in sorted(members, key=lambda it: (-it.score, it.rec.seq))], text, cfg)
        if lead:
            text = series(texts, counts, lead=lead)
        members.sort(key=lambda it: (-it.score, it.rec.seq))  # the summary takes the best member's place
        summary = _summary(members, text, f"series of {len(members)} values")
        replaced.update((it.id, summary) for it in members)


def _clusters(
    old: list[Item],
    vecs_of: Callable[[list[str]], np.ndarray],
    cfg: MemoConfig,
    llm: Callable[[list[str]], str] | None,
    replaced: dict[str, Item],
) -> None:
    """Clusters of similar lines that state no values: the best two verbatim and a count of the rest."""
    if len(old) < cfg.cluster_min:
        return
    vecs = vecs_of([it.id for it in old])
    unassigned = list(range(len(old)))
    while unassigned:
        seed = unassigned[0]
        sims = vecs[unassigned] @ vecs[seed]
        cluster = [unassigned[k] for k in range(len(unassigned)) if sims[k] >= cfg.cluster_similarity]
        unassigned = [u for u in unassigned if u not in cluster]
        if len(cluster) < cfg.cluster_min:
            continue
        members = [old[k] for k in cluster]
        by_importance = sorted(members, key=lambda it: (-it.score, -it.rec.importance, it.rec.seq))  # best first
        extractive = "; ".join(it.rec.text for it in by_importance[:2])
        if len(members) > 2:
            extractive += f" (+{len(members) - 2} similar)"
        text = llm_text(llm, [it.text for it in by_importance], extractive, cfg) or extractive
        summary = _summary(members, text, f"older cluster of {len(members)}")
        replaced.update((it.id, summary) for it in members)


def summarise_old(
    items: list[Item],
    vecs_of: Callable[[list[str]], np.ndarray],
    now: int,
    cfg: MemoConfig,
    llm: Callable[[list[str]], str] | None = None,
) -> list[Item]:
    """Replace older items by summary lines: a series line per run of same-template lines that
    differ in values, and one line per cluster of similar lines that state none. A line with
    values that belongs to no series stays verbatim: no value is ever hidden in "(+N similar)"."""
    # the best-scored lines stay verbatim: only the tail is worth compressing
    spared = {it.id for it in sorted(items, key=lambda it: (-it.score, it.rec.seq))[: cfg.keep_verbatim]}
    old = [it for it in items if not it.anchor and it.id not in spared and it.turn < now - cfg.summarise_after]
    if len(old) < cfg.cluster_min:
        return items
    old.sort(key=lambda it: (-it.score, it.rec.seq))
    replaced: dict[str, Item] = {}
    _series(old, cfg, llm, replaced)
    _clusters([it for it in old if it.id not in replaced and not value_slots(it.rec.text)], vecs_of, cfg, llm, replaced)
    return _replace(items, replaced)


def _replace(items: list[Item], by: dict[str, Item]) -> list[Item]:
    """``items`` with each one in ``by`` replaced by its line, which takes the place of its first member."""
    out, emitted = [], set()
    for it in items:
        new = by.get(it.id)
        if new is None:
            out.append(it)
        elif new.id not in emitted:
            emitted.add(new.id)
            out.append(new)
    return out
