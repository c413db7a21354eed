"""Who perceives an event: everyone in the room, the speaker and listener, or all (public)."""

from __future__ import annotations

from collections.abc import Mapping

from game.engine.state import GameState


def perceivers(
    state: GameState,
    order: tuple[str, ...],
    location: str | None,
    actor: str,
    listener: str | None = None,
    public: bool = False,
    also_at: str | None = None,
    rank: Mapping[str, int] | None = None,
) -> tuple[str, ...]:
    """Entity ids that witness an event, in the engine's fixed entity order.

    ``order`` lists every entity (player first, then NPCs in world order) so the
    result is deterministic; ``rank`` is each entity's position in it (built from ``order`` when
    not given). ``also_at`` adds a second location (a move is seen where it starts and where it
    ends). Only the entities in those rooms are looked at (``GameState.entities_at``), so the cost
    is that of the witnesses, not of the world.
    """
    if public:
        return order
    if rank is None:
        rank = {e: i for i, e in enumerate(order)}
    found = {e for e in (actor, listener) if e is not None and e in rank}
    for loc in (location, also_at):
        if loc is not None:
            found.update(e for e in state.entities_at(loc) if e in rank)
    return tuple(sorted(found, key=rank.__getitem__))
