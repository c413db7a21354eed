"""The base class of rule-based agents (the ``Agent`` protocol lives in ``game.core.protocols``)."""

from __future__ import annotations

from typing import Any

from game.core.protocols import Agent
from game.core.types import Event

__all__ = ["Agent", "BaseAgent"]


class BaseAgent:
    """Convenience base: no-op observe, stateless get/set_state.

    ``uses_context``: whether ``act`` reads its memory context. Rule-based agents
    that ignore it say False, so the engine does not build one for them.
    """

    uses_context = False
    passive = False

    def __init__(self, entity: str):
        self.entity = entity

    def observe(self, event: Event) -> None:
        return None

    def get_state(self) -> dict[str, Any]:
        return {}

    def set_state(self, state: dict[str, Any]) -> None:
        return None
