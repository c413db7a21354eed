"""Quest goals: conditions over the game state, checked after every action."""

from __future__ import annotations

from typing import Any

from game.core.types import PLAYER, Objective, QuestView
from game.engine.state import GameState


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
    return [qid for qid, q in spec.quests.items() if qid not in done and all(holds(c, st) for c in q.goal)]


SCENE_GOALS = {
    "agreement": "Strike a deal over {}",
    "no_agreement": "Let the talks over {} fail",
    "passed": "See {} pass",
    "failed": "See {} fail",
}


def objective(cond: Any, spec: Any, st: GameState) -> Objective:
    """One goal condition as a quest log line a player is shown."""

    def name(ident: str | None) -> str:
        for table in (spec.items, spec.npcs, spec.locations, spec.scenes):
            if ident in table:
                obj = table[ident]
                return getattr(obj, "name", None) or getattr(obj, "title", None) or ident
        return ident or "?"

    k = cond.kind
    item, npc = getattr(cond, "item", None), getattr(cond, "npc", None)
    location, scene = getattr(cond, "location", None), getattr(cond, "scene", None)
    text = {
        "has": lambda: f"Have the {name(item)}",
        "at": lambda: f"Be at {name(location)}",
        "item_at": lambda: f"Leave the {name(item)} at {name(location)}",
        "gave": lambda: f"Give the {name(item)} to {name(npc)}",
        "opened": lambda: f"Open the {name(item)}",
        "scene": lambda: SCENE_GOALS[cond.outcome].format(name(scene)),
    }[k]()
    return Objective(kind=k, text=text, item=item, npc=npc, location=location, scene=scene, done=holds(cond, st))


def quest_log(spec: Any, st: GameState) -> tuple[QuestView, ...]:
    """The player's quest log: each quest's title, description and objectives, as shown in the game."""
    done = set(st.quests_done)
    return tuple(
        QuestView(
            id=qid,
            title=q.title,
            description=q.description,
            objectives=tuple(objective(c, spec, st) for c in q.goal),
            done=qid in done,
        )
        for qid, q in spec.quests.items()
    )


def best_score(spec: Any) -> int:
    """The most points a game of this world can give: every quest's reward and every gift an NPC wants."""
    return sum(q.reward.score for q in spec.quests.values()) + sum(
        p for n in spec.npcs.values() for p in n.wants.values()
    )


def score_text(spec: Any, st: GameState) -> str:
    """What ``score`` answers: the points so far, of how many, and the quests done."""
    done = [q.title for qid, q in spec.quests.items() if qid in st.quests_done]
    turns = f"{st.turn} turn{'s' if st.turn != 1 else ''}"
    text = f"You have {st.score} of {best_score(spec)} points, in {turns}."
    if spec.quests:
        text += f" Quests done: {len(done)} of {len(spec.quests)}" + (f" ({'; '.join(done)})." if done else ".")
    return text


def quests_text(spec: Any, st: GameState) -> str:
    """What ``quests`` answers: each open quest with what is left to do, then the quests done."""
    log = quest_log(spec, st)
    if not log:
        return "There are no quests in this world."
    lines = []
    for q in (q for q in log if not q.done):
        lines.append(f"{q.title}: {q.description}")
        lines += [f"  [{'x' if o.done else ' '}] {o.text}" for o in q.objectives]
    done = [q.title for q in log if q.done]
    if done:
        lines.append("Done: " + "; ".join(done) + ".")
    if len(done) == len(log):
        lines.insert(0, "Every quest is done.")
    return "\n".join(lines)
