"""The negotiation kind: rule-based or LLM negotiators on two-party multi-issue scenes.

Competitors are negotiator kinds with their parameters (``agents.negotiators``) or ``llm``.
Scenarios are generated scenes (``game.negotiation.generate.random_scenes``), imported sets
(``parley import``) or a world's NPC-to-NPC negotiation scene. For each scenario, each ordered pair
of competitors (self-play only when asked) takes the scene's two parties in that order, and with
``openers = "both"`` plays once with each party opening: every competitor plays every role and
both opening positions. Each match is a rated game of its own; a seat's points are its advantage
(its utility above its reservation, scaled to what was there to gain; 0 without agreement).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from game.core.errors import InputError, Problem
from game.tournament.kind_base import MatchContext, world_scene
from game.tournament.llm_usage import match_totals, seat_usage
from game.tournament.model import (
    Competitor,
    GeneratedScenarios,
    ImportedScenarios,
    Match,
    Scenario,
    TournamentConfig,
    WorldScenario,
    derived_seed,
    endpoint,
)
from game.tournament.report_items import Figure, Report, ReportInput, Table, fmt_estimate, fmt_number
from game.tournament.results import SCENARIOS


class NegotiationKind:
    name = "negotiation"
    quick_matches = True
    one_match_games = True
    unscored_games = False
    metrics: tuple[tuple[str, str], ...] = ()  # agreement is one of stats.METRICS

    # --- the config ---------------------------------------------------------------------
    def config_problems(self, cfg: TournamentConfig, file: str) -> list[Problem]:
        out: list[Problem] = []
        if len(cfg.competitors) < 2 and not cfg.self_play:
            out.append(
                Problem(
                    "a negotiation tournament needs two competitors (or self_play = true)",
                    file=file,
                    path="competitors",
                )
            )
        for n, c in enumerate(cfg.competitors):
            why = "masking is for debate competitors" if c.masking is not None else _negotiator_problem(c)
            if why:
                out.append(Problem(why, file=file, path=f"competitors[{n}]"))
        for n, s in enumerate(cfg.scenarios):
            if isinstance(s, WorldScenario) and not s.scene:
                out.append(
                    Problem(
                        "a negotiation scenario from a world needs scene (a negotiation scene's id)",
                        file=file,
                        path=f"scenarios[{n}]",
                    )
                )
        return out

    # --- scenarios and matches ----------------------------------------------------------
    def scenarios(self, cfg: TournamentConfig, source: Scenario, base: Path, where: str) -> dict[str, dict[str, Any]]:
        """Scenario id -> {"scene": a NegotiationScene as a dict, "human": the people's outcome or None}."""
        out: dict[str, dict[str, Any]] = {}
        if isinstance(source, GeneratedScenarios):
            from game.negotiation.generate import random_scenes

            for i, scene in enumerate(random_scenes(source.generate, source.seed, source.deadline)):
                out[f"gen{source.seed}-{i}"] = {
                    "scene": scene.model_dump(mode="json", exclude_none=True),
                    "human": None,
                }
        elif isinstance(source, ImportedScenarios):
            from game.tournament.importers import load_set

            items = load_set(base / source.imported).scenarios
            for item in items[: source.limit] if source.limit else items:
                human = item.human.model_dump(mode="json") if item.human is not None else None
                out[item.id] = {"scene": item.scene.model_dump(mode="json", exclude_none=True), "human": human}
        else:
            out.update(_world_scene(source, base, where))
        for sid, sc in out.items():
            parties = [p["id"] for p in sc["scene"]["parties"]]
            if len(parties) != 2:
                raise InputError(f"scenario {sid!r} has {len(parties)} parties; a match needs two")
            if cfg.deadline is not None:
                sc["scene"]["deadline"] = cfg.deadline
        return out

    def effective(self, c: Competitor) -> dict[str, Any] | None:
        """Every parameter of a rule negotiator, defaults included; an LLM's endpoint and model."""
        if c.agent == "llm":
            return endpoint(c)
        from agents.negotiators import from_kind, kind_params

        neg = from_kind(c.agent, probe_utility(), **c.params)
        return {p: getattr(neg, p, None) for p in kind_params(c.agent)}

    def game_factors(self, cfg: TournamentConfig) -> list[tuple[int, str, str]]:
        """Games per scenario, as ``seatings`` makes them: ordered pairings, and openers."""
        n = len(cfg.competitors)
        pairings = n * n if cfg.self_play else n * (n - 1)
        return [(pairings, "pairing", "pairings"), (2 if cfg.openers == "both" else 1, "opener", "openers")]

    def seatings(
        self, cfg: TournamentConfig, sid: str, scenario: dict[str, Any]
    ) -> Iterator[tuple[dict[str, str], str | None]]:
        names = [c.name for c in cfg.competitors]
        parties = [p["id"] for p in scenario["scene"]["parties"]]
        openers = parties if cfg.openers == "both" else [scenario["scene"].get("first") or parties[0]]
        for x, y in itertools.product(names, names):
            if x != y or cfg.self_play:
                for opener in openers:
                    yield dict(zip(parties, (x, y))), opener

    # --- playing ------------------------------------------------------------------------
    def play(self, m: Match, ctx: MatchContext) -> dict[str, Any]:
        from agents.negotiators import from_kind
        from game.negotiation.runner import run_negotiation
        from game.play.episode import _usage

        scene, utils, analysis = ctx.per_scenario(m.scenario, m.opener, functools.partial(_analysed, opener=m.opener))
        negs: dict[str, Any] = {}
        clients: dict[str, Any] = {}
        for party, name in m.seats.items():
            comp = ctx.comps[name]
            if comp.agent == "llm":
                from agents.llm.negotiator import LLMNegotiator

                client = clients[party] = ctx.client(comp, derived_seed(m.seed, m.rep, m.scenario, party))
                negs[party] = LLMNegotiator(
                    client,
                    scene,
                    party,
                    utils[party],
                    fallback=from_kind("linear", utils[party]),
                    persona=f"You negotiate as party {party}.",
                )
            else:
                negs[party] = _rule_negotiator(comp, m, party, utils[party])
        invalid = {p: 0 for p in m.seats}

        def on_move(party: str, move: Any) -> None:
            if move.fallback:
                invalid[party] += 1

        try:
            session, metrics = run_negotiation(scene, negs, utilities=utils, analysis=analysis, on_move=on_move)
        finally:
            for client in clients.values():
                client.close()
        outage = next((c.outage for c in clients.values() if c.outage is not None), None)
        if outage is not None:
            raise outage
        agreed = session.agreement is not None
        seats = []
        for party, name in m.seats.items():
            u, r = float(metrics.utility(party)), float(metrics.reservations[metrics.parties.index(party)])
            adv = (u - r) / (1 - r) if agreed and r < 1 else 0.0
            used = {}  # an LLM seat's own calls, tokens, seconds, repairs and cost
            if party in clients:
                llm = ctx.comps[name].llm
                used = seat_usage(_usage(clients[party])["llm_usage"], llm.usd_per_1k_tokens if llm else 0.0)
            seats.append(
                {
                    "role": party,
                    "competitor": name,
                    "points": round(adv, 6),
                    "utility": round(u, 6),
                    "reservation": round(r, 6),
                    "advantage": round(adv, 6),
                    "won": None,
                    "score": None,
                    "invalid": invalid[party],
                    "false_leads": None,
                    **used,
                }
            )
        return {
            "status": session.status,
            "agreement": agreed,
            "outcome": dict(session.agreement) if agreed else None,
            "rounds": int(session.round),
            "seats": seats,
            "welfare": round(float(metrics.social_welfare), 6),
            "pareto_distance": round(float(metrics.distance_to_frontier), 6),
            "nash_distance": _rounded(metrics.distance_to_nash),
            "ks_distance": _rounded(metrics.distance_to_ks),
            **match_totals(seats),
        }

    # --- statistics and the report ------------------------------------------------------
    def observe(self, row: dict[str, Any], seats: list[dict[str, Any]]) -> dict[str, float]:
        return {} if row["agreement"] is None else {"agreement": float(row["agreement"])}

    def unscored_note(self, n: int) -> str:
        return f"{n} negotiation game{'s' if n != 1 else ''} scored nobody: not rated"

    def report(self, rep: Report, data: ReportInput) -> None:
        """A "Negotiation" section at the end: agreement and length, outcome scatters, the human comparison."""
        from game.tournament.kind_negotiation_report import Scenes, human_comparison, scatter_data

        s, scenes = data.summary, Scenes(data.scenarios)
        section: list[Table | Figure | str] = []
        agree_pts = [
            (c, s.metrics[c]["rounds"], s.metrics[c]["agreement"])
            for c in s.competitors
            if "agreement" in s.metrics[c] and "rounds" in s.metrics[c]
        ]
        section.append(
            Table(
                "Agreement and length",
                ["competitor", "agreement rate [95% CI]", "mean rounds [95% CI]"],
                [
                    [c, fmt_estimate(s.metrics[c].get("agreement")), fmt_estimate(s.metrics[c].get("rounds"), 1)]
                    for c in s.competitors
                    if "agreement" in s.metrics[c]
                ],
            )
        )
        if not data.scenarios:
            rep.notes.append(f"no scenes in {SCENARIOS}: utility scatters and the human comparison are left out")
        if data.plotting:
            from game.tournament import report_plots as rp

            if agree_pts:
                data.figure(
                    section,
                    "Agreement rate vs rounds",
                    "One dot per competitor: share of its "
                    "negotiations that ended in agreement against their mean length in rounds.",
                    rp.agreement_rounds,
                    agree_pts,
                )
            for d in scatter_data(data.rows, scenes):
                data.figure(
                    section,
                    f"Outcomes in {d.scenario}",
                    f"{d.matches} matches. Each dot is one match's outcome in utility space "
                    f"(x: {d.parties[0]}, y: {d.parties[1]}), coloured by pairing 'x-seat / y-seat'; "
                    "x marks = no agreement (the reservation point); the line is the Pareto "
                    "frontier; the star is the human outcome when known.",
                    rp.utility_scatter,
                    d,
                )
        human, n_sc = human_comparison(data.rows, scenes, s.competitors)
        if human:
            section.append(
                Table(
                    "Compared with humans",
                    ["who", "games", "agreement rate", "joint utility", "Pareto-optimal share (of all games)"],
                    [
                        [
                            h.who,
                            str(h.games),
                            fmt_number(h.agreement),
                            fmt_number(h.joint_utility),
                            fmt_number(h.pareto_share),
                        ]
                        for h in human
                    ],
                    f"Over the {n_sc} scenario{'s' if n_sc != 1 else ''} with a recorded human outcome: "
                    "joint utility is the sum of both parties' utilities (reservations on no deal); "
                    "Pareto-optimal share is the share of outcomes no other outcome dominates "
                    "(game.negotiation.metrics).",
                )
            )
        rep.notes.extend(scenes.notes)
        rep.sections.append(("Negotiation", section))


NEGOTIATION = NegotiationKind()


def _negotiator_problem(c: Competitor) -> str | None:
    from agents.negotiators import KINDS as NEG_KINDS
    from agents.negotiators import from_kind
    from game.core.errors import did_you_mean

    if c.agent == "llm":
        return "an llm negotiator takes no params" if c.params else None
    if c.agent not in NEG_KINDS:
        hint = did_you_mean(c.agent, [*NEG_KINDS, "llm"])
        return (
            f"unknown negotiator {c.agent!r}"
            + (f" ({hint})" if hint else "")
            + f"; kinds: {', '.join([*NEG_KINDS, 'llm'])}"
        )
    if c.memory:
        return "memory is for adventure and council competitors"
    try:
        from_kind(c.agent, probe_utility(), **c.params)
    except (TypeError, ValueError, InputError) as e:
        return e.message if isinstance(e, InputError) else str(e)
    return None


@functools.lru_cache(maxsize=1)
def probe_utility() -> Any:
    """A utility function to build negotiators on when only their parameters matter (checking them,
    reading their defaults)."""
    from game.negotiation.generate import random_scenes
    from game.negotiation.utility import utilities_for

    return utilities_for(random_scenes(1, 0)[0])["a"]


def _world_scene(src: WorldScenario, base: Path, where: str) -> dict[str, dict[str, Any]]:
    from game.world.spec import NegotiationScene

    _, world, _, sid = world_scene(src, base, where, "negotiation", lambda v: isinstance(v, NegotiationScene))
    scene = world.spec.scenes[src.scene]
    if any(p.id == "player" for p in scene.parties):
        raise InputError(
            f"{where}: scene {src.scene!r} has the player as a party",
            hint="a negotiation tournament plays scenes between two NPCs",
        )
    return {sid: {"scene": scene.model_dump(mode="json", exclude_none=True), "human": None}}


def _analysed(scenario: dict[str, Any], opener: str | None) -> tuple[Any, Any, Any]:
    """The scene (with ``opener`` opening), its parties' utilities and its analysis."""
    from game.negotiation.metrics import analyse
    from game.negotiation.utility import utilities_for
    from game.world.spec import NegotiationScene

    data = dict(scenario["scene"])
    if opener is not None:
        data["first"] = opener
    scene = NegotiationScene.model_validate(data)
    return scene, utilities_for(scene), analyse(scene)


def _rule_negotiator(comp: Competitor, m: Match, party: str, utility: Any) -> Any:
    from agents.negotiators import from_kind, kind_params

    params = dict(comp.params)
    if "seed" in kind_params(comp.agent) and "seed" not in params:
        params["seed"] = derived_seed(m.seed, m.rep, m.scenario, party)
    return from_kind(comp.agent, utility, **params)


def _rounded(x: Any) -> float | None:
    return None if x is None else round(float(x), 6)
