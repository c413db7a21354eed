"""Two tiers: working memory (recent, masked) and long-term memory (reflections, consolidated facts).

Each agent accumulates the importance of what it writes to its private memory.
When the total passes a threshold, its older working memories are
consolidated: observations and utterances are clustered and each cluster
becomes one reflection (extractive, or by an LLM when one is configured), their
sources leave retrieval; claims, facts, agreements and quest results are
promoted to the long-term tier as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from memory.config import ReflectionConfig
from memory.records import private

FOLD = ("observation", "utterance")                  # summarised into reflections
PROMOTE = ("claim", "fact", "agreement", "quest", "offer")  # kept verbatim in long-term memory


def _clip(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


class Reflector:
    def __init__(self, bank: Any, config: ReflectionConfig | None = None,
                 llm: Callable[[list[str]], str] | None = None):
        self.bank, self.cfg, self.llm = bank, config or ReflectionConfig(), llm
        self.pressure: dict[str, float] = {}
        self.tried: dict[str, int] = {}

    def note(self, agent: str, importance: float) -> None:
        self.pressure[agent] = self.pressure.get(agent, 0.0) + importance

    def maybe_consolidate(self, agent: str, turn: int) -> list[str]:
        """Consolidate if the agent's accumulated importance passed the threshold; return new reflection ids."""
        if self.pressure.get(agent, 0.0) < self.cfg.threshold:
            return []
        if turn < self.tried.get(agent, -10**9) + self.cfg.working_turns:
            return []  # nothing was old enough at the last try; wait until some memory can have aged
        self.tried[agent] = turn
        made = self.consolidate(agent, turn)
        if made:  # otherwise keep the pressure for the next try
            self.pressure[agent] = 0.0
        return made

    def consolidate(self, agent: str, turn: int) -> list[str]:
        bank, cfg = self.bank, self.cfg
        scope = private(agent)
        old = [r for r in bank.records.values() if r.scope == scope and r.tier == "working"
               and r.status == "active" and not r.anchor and r.turn < turn - cfg.working_turns]
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
            if not text:
                text = "; ".join(_clip(r.text) for r in ranked[: cfg.max_lines])
                if len(members) > cfg.max_lines:
                    text += f" (and {len(members) - cfg.max_lines} more)"
            lo, hi = min(r.turn for r in members), max(r.turn for r in members)
            rec = bank.add(scope, "reflection", f"Recalled from turns {lo}-{hi}: {text}", turn,
                           speaker=agent, references=[r.id for r in members], tier="long",
                           importance=max(r.importance for r in members))
            bank.set_status([r.id for r in members], "consolidated")
            made.append(rec.id)
        return made

    def get_state(self) -> dict[str, Any]:
        return {"pressure": dict(sorted(self.pressure.items())), "tried": dict(sorted(self.tried.items()))}

    def set_state(self, state: dict[str, Any]) -> None:
        self.pressure = {k: float(v) for k, v in state.get("pressure", {}).items()}
        self.tried = {k: int(v) for k, v in state.get("tried", {}).items()}
