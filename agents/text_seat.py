"""A text player in a Parley seat: ``ParleyPlayer(fn)`` seats any ``str -> str`` function (a
TextArena agent, a human at a prompt, an LLM call); ``render`` is the text such a player reads
on its turn (the LLM player reads the same)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from game.core.types import PLAYER, Observation


def render(obs: Observation, context: Any = None, problem: str | None = None) -> str:
    """What a text player reads on its turn: the room, what just happened, its memory (and, when
    its last reply held no command, why)."""
    parts = [obs.text]
    said = [e.seen_by(obs.actor) for e in obs.recent]
    if said:
        parts.append("Since your last turn:\n" + "\n".join(f"- {s}" for s in said))
    if obs.scene:
        parts.append(
            f"You are negotiating: {obs.scene}"
            if obs.scene.get("type") == "negotiation"
            else f"The council is in session: {obs.scene}"
        )
    parts.append(f"You carry: {', '.join(map(obs.name, obs.inventory)) or 'nothing'}; gold {obs.gold}.")
    if context is not None:
        parts.append("You remember:\n" + context.text())
    if problem:
        parts.append(f"Your last reply was not usable: {problem}. Reply with one command.")
    return "\n\n".join(parts)


class ParleyPlayer:
    """A ``str -> str`` function in the player's seat (a ``game.core.protocols.TextSeat``); it reads
    its memory context when memory is on. ``max_repairs``: how often a reply with no command is
    asked again (with the reason) before it is penalised."""

    uses_context = True

    def __init__(self, fn: Callable[[str], str], actor: str = PLAYER, max_repairs: int = 0):
        self.fn, self.entity, self.max_repairs = fn, actor, max_repairs

    def respond(self, observation: Observation, context: Any = None, problem: str | None = None) -> str:
        return str(self.fn(render(observation, context, problem)) or "")
