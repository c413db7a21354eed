"""Simple NPC behaviours: stand still, wander, patrol, or follow a script."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import BaseAgent
from game.core.types import Action, Decision, Observation, Verb


class Idle(BaseAgent):
    """Stays put and does nothing (merchants, guards)."""

    passive = True

    def act(self, observation: Observation, context: Any = None) -> Decision:
        return Decision(None)


class Wanderer(BaseAgent):
    """With probability ``p`` per turn, walks through a random exit leading to one of ``moves``."""

    def __init__(
        self,
        entity: str,
        rng: np.random.Generator,
        moves: list[str] | None = None,
        p: float = 0.3,
        exits: dict[str, dict[str, str]] | None = None,
    ):
        super().__init__(entity)
        self.rng, self.moves, self.p = rng, set(moves or []), float(p)
        self.exits = exits or {}

    def act(self, observation: Observation, context: Any = None) -> Decision:
        if self.rng.random() >= self.p:
            return Decision(None)
        here = self.exits.get(observation.location, {})
        options = sorted(d for d, dest in here.items() if not self.moves or dest in self.moves)
        if not options:
            return Decision(None)
        return Decision(Action(self.entity, Verb.GO, obj=options[int(self.rng.integers(len(options)))]))

    def get_state(self) -> dict[str, Any]:
        return {"rng": self.rng.bit_generator.state}

    def set_state(self, state: dict[str, Any]) -> None:
        self.rng.bit_generator.state = state["rng"]


class Patrol(BaseAgent):
    """Walks a fixed route of adjacent locations, one step per turn, and loops."""

    def __init__(self, entity: str, route: list[str], exits: dict[str, dict[str, str]]):
        super().__init__(entity)
        self.route, self.exits, self.i = list(route), exits, 0

    def act(self, observation: Observation, context: Any = None) -> Decision:
        return Decision(self._step(observation))

    def _step(self, observation: Observation) -> Action | None:
        if not self.route:
            return None
        target = self.route[(self.i + 1) % len(self.route)]
        self.i = (self.i + 1) % len(self.route)
        for d, dest in sorted(self.exits.get(observation.location, {}).items()):
            if dest == target:
                return Action(self.entity, Verb.GO, obj=d)
        return None

    def get_state(self) -> dict[str, Any]:
        return {"i": self.i}

    def set_state(self, state: dict[str, Any]) -> None:
        self.i = int(state["i"])


class Scripted(BaseAgent):
    """Replays a fixed list of actions, then idles."""

    def __init__(self, entity: str, actions: list[Action]):
        super().__init__(entity)
        self.actions, self.i = list(actions), 0

    def act(self, observation: Observation, context: Any = None) -> Decision:
        if self.i >= len(self.actions):
            return Decision(None)
        self.i += 1
        return Decision(self.actions[self.i - 1])

    def get_state(self) -> dict[str, Any]:
        return {"i": self.i}

    def set_state(self, state: dict[str, Any]) -> None:
        self.i = int(state["i"])
