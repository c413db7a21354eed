"""Quest goals: conditions over the game state, checked after every action."""

from __future__ import annotations

from typing import Any

from game.state import GameState
from game.types import PLAYER


def holds(cond: Any, st: GameState) -> bool:
    k = cond.kind
    if k == "has":
        return st.item_at.get(cond.item) == PLAYER
    if k == "at":
        return st.where.get(PLAYER) == cond.location
    if k == "item_at":
        return st.item_at.get(cond.item) == cond.location
    if k == "gave":
        return f"{cond.item}>{cond.npc}" in st.gave
    if k == "opened":
        return cond.item in st.opened
    if k == "scene":
        return st.scenes.get(cond.scene, {}).get("outcome") == cond.outcome
    raise ValueError(f"unknown condition kind {k!r}")


def newly_complete(spec: Any, st: GameState) -> list[str]:
    """Quests whose every goal now holds and that were not complete before."""
    done = set(st.quests_done)
    return [qid for qid, q in spec.quests.items()
            if qid not in done and all(holds(c, st) for c in q.goal)]

