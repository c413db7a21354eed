"""Two tiers: working memory (recent, masked) and long-term memory (reflections, consolidated facts).

Each agent accumulates the importance of what it writes to its private memory.
When the total passes a threshold, its older working memories are
consolidated: observations and utterances are clustered and each cluster
becomes one reflection (extractive, or by an LLM when one is configured); the
sources are marked consolidated and move with it to the long-term tier, where
they stay retrievable (a detail can still be recalled verbatim). Claims, facts,
agreements, offers and quest results are promoted to the long-term tier as they
are. Retrieval reads the tier: long-term memories never fall below a recency
floor (``MemoConfig.long_tier_recency``), so what was consolidated is not lost
to age alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from memory.compress import VALUE, series, template, value_slots
from memory.config import ReflectionConfig
from memory.records import MemoryRecord, private

FOLD = ("observation", "utterance")  # summarised into reflections
PROMOTE = ("claim", "fact", "agreement", "quest", "offer")  # kept verbatim in long-term memory
_UNIT = re.compile(r"\S*?(?=[\s,;:]|$)(?:\s+[A-Za-z][\w'-]*)?")
NEAR_EXACT = 0.97  # similarity at which two lines with the same values are one


def _clip(text: str, limit: int = 90) -> str:
    """At most ``limit`` characters, cut at a word boundary, but never before the last value the text
    states and the word after it (a number and its unit are never cut, nor dropped)."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    if cut <= 0:
        cut = limit - 1
    values = list(VALUE.finditer(text))
    if values and values[-1].end() > cut:
        cut = _UNIT.match(text, values[-1].end()).end()
    if cut >= len(text) - 1:
        return text
    return text[:cut].rstrip(" ,;:") + "…"


def _values(text: str) -> list[str]:
    return [v for v, _ in value_slots(text)]


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s=.,-]", " ", text.lower()).split()).rstrip(" .,")


def _units(members: list[MemoryRecord], vecs: np.ndarray) -> list[tuple[float, int, str, bool]]:
    """The lines a reflection may quote, as (importance, first turn, text, states values): exact and near-exact
    repeats become one line with a count; same-template lines that differ in values become one
    series line (oldest → latest); a line stating values carries its turn, so two values of one
    thing never share a line without saying which is newer."""
    order = sorted(range(len(members)), key=lambda k: (members[k].turn, members[k].seq))
    heads: list[int] = []
    count: dict[int, list[int]] = {}
    for k in order:  # near-exact: same normalised text, or nearly the same vector and the same values
        r = members[k]
        j = next(
            (
                h
                for h in heads
                if _norm(members[h].text) == _norm(r.text)
                or (float(vecs[h] @ vecs[k]) >= NEAR_EXACT and _values(members[h].text) == _values(r.text))
            ),
            None,
        )
        if j is None:
            heads.append(k)
            count[k] = [k]
        else:
            count[j].append(k)
    runs: dict[str, list[int]] = {}
    for h in heads:
        runs.setdefault(template(members[h].text) if value_slots(members[h].text) else f"\x01{h}", []).append(h)
    units = []
    for run in runs.values():
        recs = [members[k] for h in run for k in count[h]]
        lo, hi = min(r.turn for r in recs), max(r.turn for r in recs)
        imp = max(r.importance for r in recs)
        if len(run) > 1:
            text = series([members[h].text for h in run], [len(count[h]) for h in run]) + f" [turns {lo}-{hi}]"
        else:
            text = _clip(members[run[0]].text)
            if len(recs) > 1:
                text += f" (x{len(recs)})"
            if value_slots(members[run[0]].text):
                text += f" [turn {lo}]" if lo == hi else f" [turns {lo}-{hi}]"
        units.append((imp, lo, text, bool(value_slots(members[run[0]].text))))
    return units


class Reflector:
    def __init__(
        self, bank: Any, config: ReflectionConfig | None = None, llm: Callable[[list[str]], str] | None = None
    ):
        self.bank, self.cfg, self.llm = bank, config or ReflectionConfig(), llm
        self.pressure: dict[str, float] = {}
        self.tried: dict[str, int] = {}

    def note(self, agent: str, importance: float) -> None:
        self.pressure[agent] = self.pressure.get(agent, 0.0) + importance

    def maybe_consolidate(self, agent: str, turn: int) -> list[str]:
        """Consolidate if the agent's accumulated importance passed the threshold; return new reflection ids."""
        if self.pressure.get(agent, 0.0) < self.cfg.threshold:
            return []
        if turn < self.tried.get(agent, -(10**9)) + self.cfg.working_turns:
            return []  # nothing was old enough at the last try; wait until some memory can have aged
        self.tried[agent] = turn
        made = self.consolidate(agent, turn)
        if made:  # otherwise keep the pressure for the next try
            self.pressure[agent] = 0.0
        return made

    def consolidate(self, agent: str, turn: int) -> list[str]:
        bank, cfg = self.bank, self.cfg
        scope = private(agent)
        old = [
            r
            for r in bank.records.values()
            if r.scope == scope
            and r.tier == "working"
            and r.status == "active"
            and not r.anchor
            and r.turn < turn - cfg.working_turns
        ]
        for r in old:
            if r.kind in PROMOTE:
                r.tier = "long"
        fold = [r for r in old if r.kind in FOLD]
        if len(fold) < 2:
            return []
        vecs = bank.vectors([r.id for r in fold])
        todo = list(range(len(fold)))
        made = []
        while todo:
            seed = todo[0]
            sims = vecs[todo] @ vecs[seed]
            cluster = [todo[k] for k in range(len(todo)) if sims[k] >= cfg.cluster_similarity]
            todo = [t for t in todo if t not in cluster]
            if len(cluster) < 2:
                continue
            members = [fold[k] for k in cluster]
            ranked = sorted(members, key=lambda r: (-r.importance, r.seq))
            text = ""
            if self.llm is not None:
                try:
                    text = self.llm([r.text for r in ranked]).strip()
                except Exception:  # an LLM reflection is optional: fall back to extractive
                    text = ""
            if text:  # the values stay exact and dated whatever the model wrote
                valued = sorted((u for u in _units(members, vecs[cluster]) if u[3]), key=lambda u: u[1])
                text += "".join(f"; {u[2]}" for u in valued)
            else:
                text = self._extractive(members, vecs[cluster])
            lo, hi = min(r.turn for r in members), max(r.turn for r in members)
            rec = bank.add(
                scope,
                "reflection",
                f"Recalled from turns {lo}-{hi}: {text}",
                turn,
                speaker=agent,
                references=[r.id for r in members],
                tier="long",
                importance=max(r.importance for r in members),
            )
            for r in members:
                r.tier = "long"
            bank.set_status([r.id for r in members], "consolidated")
            made.append(rec.id)
        return made

    def _extractive(self, members: list[MemoryRecord], vecs: np.ndarray) -> str:
        """The most important distinct lines, oldest first; every line stating values is quoted."""
        units = _units(members, vecs)
        valued = [u for u in units if u[3]]
        plain = sorted((u for u in units if u not in valued), key=lambda u: -u[0])
        quoted = valued + plain[: max(self.cfg.max_lines - len(valued), 0)]
        quoted.sort(key=lambda u: u[1])
        text = "; ".join(u[2] for u in quoted)
        if len(units) > len(quoted):
            text += f" (and {len(units) - len(quoted)} more)"
        return text

    def get_state(self) -> dict[str, Any]:
        return {"pressure": dict(sorted(self.pressure.items())), "tried": dict(sorted(self.tried.items()))}

    def set_state(self, state: dict[str, Any]) -> None:
        self.pressure = {k: float(v) for k, v in state.get("pressure", {}).items()}
        self.tried = {k: int(v) for k, v in state.get("tried", {}).items()}
