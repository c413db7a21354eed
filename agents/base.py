"""The Agent protocol every actor in Parley follows."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from game.types import Action, Event, Observation


@runtime_checkable
class Agent(Protocol):
    """Picks an action from an observation (and, later, a memory context)."""

    def act(self, observation: Observation, context: Any = None) -> Action | None: ...

    def observe(self, event: Event) -> None: ...

    def get_state(self) -> dict[str, Any]: ...

    def set_state(self, state: dict[str, Any]) -> None: ...


class BaseAgent:
    """Convenience base: no-op observe, stateless get/set_state.

    ``uses_context``: whether ``act`` reads its memory context. Rule-based agents
    that ignore it say False, so the engine does not build one for them.
    """

    uses_context = False

    def __init__(self, entity: str):
        self.entity = entity

    def observe(self, event: Event) -> None:
        return None

    def get_state(self) -> dict[str, Any]:
        return {}

    def set_state(self, state: dict[str, Any]) -> None:
        return None
