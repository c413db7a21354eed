"""The council kind: each competitor takes the player's seat in a world's council scene, argues and
votes; it wins when the motion passes. Played, grouped and rated as an adventure
(``game.tournament.kind_adventure``); a scenario is a world's council scene (``world``, ``scene``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from game.core.errors import InputError
from game.tournament.kind_adventure import AdventureKind
from game.tournament.kind_base import is_council_scene, world_scene
from game.tournament.model import Scenario, TournamentConfig, WorldScenario


class CouncilKind(AdventureKind):
    name = "council"

    def _scene_problem(self, s: WorldScenario) -> str | None:
        return None if s.scene else "a council scenario needs scene (a council scene's id)"

    def scenarios(self, cfg: TournamentConfig, source: Scenario, base: Path, where: str) -> dict[str, dict[str, Any]]:
        """Scenario id (world:scene) -> {"world": its path, "scene_id", "human": None, "content": its digest}."""
        if not isinstance(source, WorldScenario):  # config_problems says so too
            raise InputError(f"{where}: {self.name} scenarios are worlds (world = ...)")
        path, _, content, sid = world_scene(source, base, where, "council", is_council_scene)
        return {sid: {"world": path, "scene_id": source.scene, "human": None, "content": content}}


COUNCIL = CouncilKind()
