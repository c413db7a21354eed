"""Worlds with the standard agent kinds: ``load_world``, ``collect_problems`` and ``json_schema`` as
``game.world`` defines them, checked against the kinds ``agents.registry`` knows. The world layer
never imports the agents; front ends and tests load worlds through here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from game.core.errors import Problem
from game.core.protocols import AgentKinds
from game.play.wiring import agent_kinds
from game.world import loader, spec
from game.world.loader import World

__all__ = ["World", "collect_problems", "json_schema", "load_world", "standard_kinds"]


def standard_kinds() -> AgentKinds:
    """The registered agent kinds and their parameter models."""
    return agent_kinds()


def load_world(path: str | Path, agent_kinds: AgentKinds | None = None) -> World:
    """Load and validate a world (a folder, a world.toml, or a shipped world's name or id); raise
    ``WorldError`` listing every problem. ``agent_kinds``: None for the standard ones."""
    return loader.load_world(path, agent_kinds or standard_kinds())


def collect_problems(path: str | Path, agent_kinds: AgentKinds | None = None) -> tuple[World | None, list[Problem]]:
    """Load a world and return it with every problem found (the world is None if there are any)."""
    return loader.collect_problems(path, agent_kinds or standard_kinds())


def json_schema(agent_kinds: AgentKinds | None = None) -> dict[str, Any]:
    """The JSON Schema for world.toml, with each agent kind's parameters."""
    return spec.json_schema(agent_kinds or standard_kinds())
