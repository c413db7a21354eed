"""A tournament config becomes scenarios and matches with stable ids.

Scenarios are resolved once (generated scenes, world scenes, imported sets) into plain dicts keyed
by a scenario id. A match is one game: a scenario, who holds which seat, who opens, a seed and a
repetition. Its id is a hash of the match's own content (the scenario's content, each seat's
competitor *spec*, not just its name, the opener, seed, repetition and limits), so renaming a
file or adding competitors leaves the other matches' ids alone, and ``--resume`` can tell what
has been played.

The tournament's kind (``game.tournament.kinds``) turns each ``[[scenarios]]`` entry into scenarios
and says who sits where in the games of a scenario (negotiation: each ordered pair of competitors
in the scene's two parties, with either party opening; adventure and council: each competitor in
the player's seat; debate: each competitor holding the whole council); every such game is played
for every seed and repetition.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from game.core.errors import InputError, WorldError
from game.tournament import DEFAULT_MAX_MATCHES
from game.tournament.kinds import TournamentKind, kind_for
from game.tournament.model import (
    Competitor,
    GeneratedScenarios,
    ImportedScenarios,
    Match,
    TournamentConfig,
    derived_seed,
    digest,
)

__all__ = [
    "Match",
    "check_count",
    "competitor_specs",
    "count_matches",
    "derived_seed",
    "digest",
    "expand",
    "iter_matches",
    "resolve_scenarios",
]


# --- scenarios -----------------------------------------------------------------------------
def resolve_scenarios(cfg: TournamentConfig, base: Path) -> dict[str, dict[str, Any]]:
    """Scenario id -> the scenario as the kind plays it (``TournamentKind.scenarios``), in config order."""
    kind = kind_for(cfg.kind)
    out: dict[str, dict[str, Any]] = {}
    origin: dict[str, str] = {}
    for n, src in enumerate(cfg.scenarios):
        where = f"scenarios[{n}]"
        try:
            found = kind.scenarios(cfg, src, base, where)
        except WorldError:
            raise  # it names the world's files and every problem in them
        except InputError as e:
            raise InputError(
                e.message if e.message.startswith(where) else f"{where}: {e.message}", hint=e.hint
            ) from None
        if not found:
            raise InputError(f"{where}: no scenarios", hint="an imported set with none, or a limit of 0")
        for sid in found:
            if sid in out:
                raise InputError(
                    f"{where}: scenario {sid!r} is also in {origin[sid]}",
                    hint="each scenario id must be unique: give generated sets other seeds, import "
                    "sets from differently named files, or list a world scene once",
                )
            origin[sid] = where
        out.update(found)
    return out


# --- counting ------------------------------------------------------------------------------
Factors = list[tuple[int, str, str]]
"""(count, singular, plural) of each factor of a tournament's match count."""


def source_count(source: Any, base: Path) -> int:
    """How many scenarios a ``[[scenarios]]`` entry holds, without making them: ``generate`` for a
    generated set, one for a world's scene, the set's size (at most ``limit``) for an imported set
    (read through the safe loader: a bounded file)."""
    if isinstance(source, GeneratedScenarios):
        return source.generate
    if isinstance(source, ImportedScenarios):
        from game.tournament.importers import load_set

        n = len(load_set(base / source.imported).scenarios)
        return min(n, source.limit) if source.limit else n
    return 1


def count_matches(cfg: TournamentConfig, scenarios: int) -> Factors | None:
    """The factors of the match count of ``cfg`` on ``scenarios`` scenarios: the kind's games per
    scenario (``TournamentKind.game_factors``: pairings and openers, or competitors), scenarios,
    seeds and repetitions; their product is the count. None when the kind cannot say without its
    scenarios (a kind without ``game_factors``)."""
    games = getattr(kind_for(cfg.kind), "game_factors", None)
    if games is None:
        return None
    return [
        *games(cfg),
        (scenarios, "scenario", "scenarios"),
        (len(cfg.seeds), "seed", "seeds"),
        (cfg.repetitions, "repetition", "repetitions"),
    ]


def product(factors: Factors) -> int:
    total = 1
    for n, _, _ in factors:
        total *= n
    return total


def check_count(factors: Factors, max_matches: int = DEFAULT_MAX_MATCHES) -> int:
    """The match count (the product of ``factors``); an ``InputError`` naming the factors when it
    is more than ``max_matches``."""
    total = product(factors)
    if total > max_matches:
        shown = [f for n, f in enumerate(factors) if f[0] != 1 or n == 0 or f[2] == "scenarios"]
        terms = " × ".join(f"{n:,} {one if n == 1 else many}" for n, one, many in shown)
        raise InputError(
            f"{terms} = {total:,} matches, more than the limit {max_matches:,}",
            hint="raise it with --max-matches N, or play fewer scenarios, repetitions or competitors",
        )
    return total


def counted(cfg: TournamentConfig, base: Path, max_matches: int = DEFAULT_MAX_MATCHES) -> int | None:
    """The match count of ``cfg`` from its config alone (no scenario made, no match built),
    checked against ``max_matches``; None for a kind that needs its scenarios to count."""
    factors = count_matches(cfg, sum(source_count(s, base) for s in cfg.scenarios))
    return None if factors is None else check_count(factors, max_matches)


def count_resolved(cfg: TournamentConfig, scenarios: dict[str, dict[str, Any]], max_matches: int) -> int:
    """The match count of ``cfg`` on its resolved scenarios, checked against ``max_matches``: the
    product of its factors, or for a kind without ``game_factors`` each scenario's seatings."""
    factors = count_matches(cfg, len(scenarios))
    if factors is None:
        games = sum(_distinct_seatings(cfg, sid, sc) for sid, sc in scenarios.items())
        factors = [
            (games, "game", "games"),
            (len(cfg.seeds), "seed", "seeds"),
            (cfg.repetitions, "repetition", "repetitions"),
        ]
    return check_count(factors, max_matches)


def _distinct_seatings(cfg: TournamentConfig, sid: str, scenario: dict[str, Any]) -> int:
    """How many games the kind seats in one scenario; two that are the same game are an ``InputError``
    (the built-in kinds' ``game_factors`` count seatings that are distinct by construction)."""
    seen: set[tuple[tuple[tuple[str, str], ...], str | None]] = set()
    for seats, opener in kind_for(cfg.kind).seatings(cfg, sid, scenario):
        key = (tuple(seats.items()), opener)
        if key in seen:
            raise InputError(
                f"two matches are the same game ({sid}, {', '.join(seats.values())})",
                hint="the tournament kind seats the same competitors twice in one scenario",
            )
        seen.add(key)
    return len(seen)


# --- matches -------------------------------------------------------------------------------
def _spec(c: Competitor, kind: TournamentKind) -> dict[str, Any]:
    """What decides how a competitor plays: its name (rows carry it), its config and what that
    resolves to here (``TournamentKind.effective``: every parameter of a negotiator, defaults
    included, an LLM's endpoint and model from the environment)."""
    spec = c.model_dump(mode="json", exclude={"masking"} if c.masking is None else None)
    effective = kind.effective(c)
    if effective is not None:
        spec["effective"] = effective
    return spec


def competitor_specs(cfg: TournamentConfig) -> dict[str, dict[str, Any]]:
    """Each competitor's spec as its match ids hash it; a setting that does not resolve (an LLM's
    endpoint) is an ``InputError`` naming the competitor."""
    kind = kind_for(cfg.kind)
    return {c.name: _spec(c, kind) for c in cfg.competitors}


def iter_matches(
    cfg: TournamentConfig, scenarios: dict[str, dict[str, Any]], specs: dict[str, dict[str, Any]] | None = None
) -> Iterator[Match]:
    """Every match of the round robin, in a fixed order: for each scenario, seed and repetition,
    the kind's games of the scenario (``TournamentKind.seatings``). ``specs``: ``competitor_specs``
    when the caller has them."""
    kind = kind_for(cfg.kind)
    specs = specs if specs is not None else competitor_specs(cfg)
    limits = {"deadline": cfg.deadline, "turns": cfg.turns}
    for sid, sc in scenarios.items():
        content = digest(sc.get("scene") or sc.get("task") or [sid, sc.get("scene_id"), sc.get("content")])
        roles = list(kind.seatings(cfg, sid, sc))
        for seed in cfg.seeds:
            for rep in range(cfg.repetitions):
                for seats, opener in roles:
                    key = {
                        "kind": cfg.kind,
                        "scenario": sid,
                        "content": content,
                        "opener": opener,
                        "seed": seed,
                        "rep": rep,
                        "limits": limits,
                        "seats": [[role, name, specs[name]] for role, name in seats.items()],
                    }
                    mid = digest(key)
                    yield Match(
                        id=mid,
                        kind=cfg.kind,
                        scenario=sid,
                        seats=seats,
                        opener=opener,
                        seed=seed,
                        rep=rep,
                        group=mid if kind.one_match_games else f"{sid}|{seed}|{rep}",
                    )


def expand(cfg: TournamentConfig, scenarios: dict[str, dict[str, Any]]) -> list[Match]:
    """Every match of the round robin, in a fixed order (``iter_matches``); two that are the same
    game are an ``InputError``."""
    out = list(iter_matches(cfg, scenarios))
    ids = [m.id for m in out]
    if len(set(ids)) != len(ids):  # two competitors with the same spec, or a scenario listed twice
        seen: set[str] = set()
        dup = next(m for m in out if m.id in seen or seen.add(m.id))  # type: ignore[func-returns-value]
        raise InputError(
            f"two matches are the same game ({dup.scenario}, {', '.join(dup.seats.values())})",
            hint="two competitors have the same agent and params, or a scenario is listed twice; "
            "give them different params or drop one",
        )
    return out
