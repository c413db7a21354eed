"""Who perceives an event: everyone in the room, the speaker and listener, or all (public)."""

from __future__ import annotations

from game.engine.state import GameState


def perceivers(
    state: GameState,
    order: tuple[str, ...],
    location: str | None,
    actor: str,
    listener: str | None = None,
    public: bool = False,
    also_at: str | None = None,
) -> tuple[str, ...]:
    """Entity ids that witness an event, in the engine's fixed entity order.

    ``order`` lists every entity (player first, then NPCs in world order) so the
    result is deterministic. ``also_at`` adds a second location (a move is seen
    where it starts and where it ends).
    """
    if public:
        return order
    where = state.where
    out = []
    for e in order:
        loc = where.get(e)
        if (
            e == actor
            or e == listener
            or (location is not None and loc == location)
            or (also_at is not None and loc == also_at)
        ):
            out.append(e)
    return tuple(out)
