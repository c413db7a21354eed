"""The adventure kind: each competitor takes the player's seat in a world and plays its adventure.

A competitor is a player seat (``autopilot``, ``llm``, ``script:FILE`` or ``module:function``),
optionally with agent memory (MEMO), so memory is ablated like any other option. A scenario is a
world. Each competitor plays every world, seed and repetition with the NPCs rule-based (every
competitor meets the same world); the competitors' runs of one (world, seed, repetition) form one
rated game, ranked by points: 1 for a win plus the share of quests done.
``game.tournament.kind_council`` is the same game played in one of a world's council scenes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from game.core.errors import InputError, Problem
from game.tournament.kind_base import MatchContext, world_scene
from game.tournament.llm_usage import match_totals, seat_usage
from game.tournament.model import Competitor, Match, Scenario, TournamentConfig, WorldScenario, derived_seed, endpoint
from game.tournament.report_items import Report, ReportInput

SEATS = ("autopilot", "llm")  # player seats besides script:FILE and module:function
_MODULE_SEAT = re.compile(r"^module:[A-Za-z_][\w.]*[:.][A-Za-z_]\w*$")


class AdventureKind:
    name = "adventure"
    quick_matches = False
    one_match_games = False
    unscored_games = False
    metrics: tuple[tuple[str, str], ...] = ()

    def config_problems(self, cfg: TournamentConfig, file: str) -> list[Problem]:
        out: list[Problem] = []
        for n, c in enumerate(cfg.competitors):
            why = "masking is for debate competitors" if c.masking is not None else _seat_problem(c)
            if why:
                out.append(Problem(why, file=file, path=f"competitors[{n}]"))
        for n, s in enumerate(cfg.scenarios):
            if not isinstance(s, WorldScenario):
                why = (
                    f"{self.name} scenarios are worlds (world = ...); generated and imported sets are "
                    "negotiation scenes"
                )
            else:
                why = self._scene_problem(s)
            if why:
                out.append(Problem(why, file=file, path=f"scenarios[{n}]"))
        return out

    def _scene_problem(self, s: WorldScenario) -> str | None:
        return "scene is for negotiation and council tournaments" if s.scene else None

    def scenarios(self, cfg: TournamentConfig, source: Scenario, base: Path, where: str) -> dict[str, dict[str, Any]]:
        """Scenario id -> {"world": its path, "scene_id": None, "human": None, "content": its digest}."""
        if not isinstance(source, WorldScenario):  # config_problems says so too
            raise InputError(f"{where}: {self.name} scenarios are worlds (world = ...)")
        path, _, content, sid = world_scene(source, base, where)
        return {sid: {"world": path, "scene_id": None, "human": None, "content": content}}

    def effective(self, c: Competitor) -> dict[str, Any] | None:
        """An LLM seat's (or its endpoint's) endpoint and model."""
        return endpoint(c) if c.agent == "llm" or c.llm is not None else None

    def game_factors(self, cfg: TournamentConfig) -> list[tuple[int, str, str]]:
        """Games per scenario, as ``seatings`` makes them: one per competitor."""
        return [(len(cfg.competitors), "competitor", "competitors")]

    def seatings(
        self, cfg: TournamentConfig, sid: str, scenario: dict[str, Any]
    ) -> Iterator[tuple[dict[str, str], str | None]]:
        for c in cfg.competitors:
            yield {"player": c.name}, None

    def play(self, m: Match, ctx: MatchContext) -> dict[str, Any]:
        from game.play.config import EpisodeConfig, GameConfig, LLMSettings, MemorySettings
        from game.play.episode import play_episode

        comp = ctx.comps[m.seats["player"]]
        sc = ctx.scenarios[m.scenario]
        llm = None
        if comp.llm is not None:
            llm = LLMSettings(**comp.llm.settings())
        game = GameConfig(
            world=sc["world"],
            seed=derived_seed(m.seed, m.rep) if m.rep else m.seed,
            player=comp.agent,
            memory=MemorySettings(embedder=comp.embedder) if comp.memory else None,
            llm=llm,
            llm_npcs=[],
        )  # NPCs stay rule-based: every competitor meets the same world
        ep = EpisodeConfig(game=game, kind=self.name, scene=sc.get("scene_id"), turns=ctx.cfg.turns)
        res = play_episode(ep)
        share = len(res.quests_done) / res.quests_total if res.quests_total else 0.0
        points = float(res.won) + share
        seat = {
            "role": "player",
            "competitor": comp.name,
            "points": round(points, 6),
            "utility": None,
            "reservation": None,
            "advantage": None,
            "won": bool(res.won),
            "score": int(res.score),
            "invalid": int(res.invalid.get("player", 0)),
            "false_leads": res.false_leads,
        }
        if comp.agent == "llm" or res.llm_calls:  # an LLM seat's own calls, tokens, seconds, repairs and cost
            seat.update(seat_usage(res.llm_usage, comp.llm.usd_per_1k_tokens if comp.llm else 0.0))
        return {
            "status": res.status,
            "agreement": None,
            "outcome": None,
            "rounds": int(res.turns),
            "seats": [seat],
            "welfare": None,
            "pareto_distance": None,
            "nash_distance": None,
            "ks_distance": None,
            **match_totals([seat]),
        }

    def observe(self, row: dict[str, Any], seats: list[dict[str, Any]]) -> dict[str, float]:
        return {}

    def unscored_note(self, n: int) -> str:
        return f"{n} {self.name} game{'s' if n != 1 else ''} scored nobody: not rated"

    def report(self, rep: Report, data: ReportInput) -> None:
        """Nothing beyond the ranking, metrics and pairwise comparisons every report has."""


ADVENTURE = AdventureKind()


def _seat_problem(c: Competitor) -> str | None:
    a = c.agent
    if a in SEATS or a.startswith("script:") and len(a) > 7 or _MODULE_SEAT.match(a):
        return "params are for negotiators" if c.params else None
    return f"unknown seat {a!r}; seats: autopilot, llm, script:FILE, module:function"
