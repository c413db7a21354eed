"""What the tournament kinds share: the context a worker plays matches in, and world scenarios.

``MatchContext`` is what ``TournamentKind.play`` gets besides the match: the tournament's config,
the scenarios the worker was sent, the competitors by name, values made once per scenario (kept
between the matches of a worker's batches) and LLM clients. ``world_scene`` loads a world
scenario (``world = ..., scene = ...``) and checks its scene is one the kind plays.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from game.core.errors import InputError, did_you_mean
from game.tournament.model import Competitor, TournamentConfig, WorldScenario, digest


class MatchContext:
    """A worker's state for one tournament: its config, scenarios and competitors, and what it made
    for them."""

    def __init__(self, cfg: TournamentConfig, scenarios: dict[str, dict[str, Any]]):
        self.cfg = cfg
        self.scenarios = scenarios
        self.comps = {c.name: c for c in cfg.competitors}
        self._made: dict[tuple[str, Any], Any] = {}
        self._clients: dict[str, Any] = {}

    def add_scenarios(self, scenarios: dict[str, dict[str, Any]]) -> None:
        for sid, sc in scenarios.items():
            if self.scenarios.get(sid) != sc:  # new, or changed since (a re-imported set): make again
                self.scenarios[sid] = sc
                for key in [k for k in self._made if k[0] == sid]:
                    del self._made[key]

    def per_scenario(self, sid: str, key: Any, make: Callable[[dict[str, Any]], Any]) -> Any:
        """``make(scenario)`` once per scenario and ``key`` in this worker (again after the scenario changed)."""
        if (sid, key) not in self._made:
            self._made[(sid, key)] = make(self.scenarios[sid])
        return self._made[(sid, key)]

    def client(self, comp: Competitor, seed: int) -> Any:
        """A new client per match (its usage is that match's alone; its retry jitter seeded by the match)."""
        if comp.name not in self._clients:
            from agents.llm.config import LLMConfig

            self._clients[comp.name] = LLMConfig.from_env(**(comp.llm.settings() if comp.llm else {}))
        from game.play.compose import new_client

        return new_client(self._clients[comp.name], seed)


def world_scene(
    src: WorldScenario, base: Path, where: str, label: str | None = None, fits: Callable[[Any], bool] | None = None
) -> tuple[str, Any, str, str]:
    """Load the scenario's world: (its path, the world, a digest of its spec: an edited world gives new
    match ids, the scenario id). With ``label``, the scenario is the world's scene ``src.scene``, which
    must be one that ``fits`` (an ``InputError`` at ``where`` naming the ones that do); the id is
    ``world:scene``. Without, the world's adventure; the id is the world's."""
    from game.play.worlds import load_world

    cand = base / src.world
    path = str(cand.resolve()) if cand.exists() else src.world
    world = load_world(path)
    content = digest(world.spec.model_dump(mode="json"))
    if label is None or fits is None:
        return path, world, content, world.spec.id
    ok = [k for k, v in world.spec.scenes.items() if fits(v)]
    if src.scene not in ok:
        raise InputError(
            f"{where}: no {label} scene {src.scene!r} in world {world.spec.id}",
            hint=did_you_mean(src.scene or "", ok) or f"{label} scenes: {', '.join(ok) or 'none'}",
        )
    return path, world, content, f"{world.spec.id}:{src.scene}"


def is_council_scene(scene: Any) -> bool:
    """A world's council scene (as opposed to a negotiation)."""
    return getattr(scene, "type", "") == "council"
