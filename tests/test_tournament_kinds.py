"""Tournament kinds are plug-ins: a kind defined here is registered, planned, played, rated and
reported through the real config reader, runner, statistics and report; and no shared module picks
behaviour by a kind's name."""

from __future__ import annotations

import ast
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from game.core.errors import InputError, Problem
from game.tournament.config import parse_config
from game.tournament.kinds import KINDS, kind_for, register
from game.tournament.model import Competitor, GeneratedScenarios, Match, TournamentConfig, derived_seed
from game.tournament.report import write_report
from game.tournament.report_items import Table
from game.tournament.runner import batches, plan, run
from game.tournament.stats import LiveRatings, rate, read_results, summarise
from tests.conftest import ROOT

BUILT_IN = ("negotiation", "adventure", "council", "debate")


class DiceKind:
    """Two players each roll their die ``rolls`` times; the higher total wins the match (a tie
    halves). A competitor is a die: ``agent = "die"``, ``params = {sides = N}``."""

    name = "dice"
    quick_matches = True
    one_match_games = True
    unscored_games = False
    metrics = (("sixes", "sixes rolled"),)

    def config_problems(self, cfg: TournamentConfig, file: str) -> list[Problem]:
        out = []
        for n, c in enumerate(cfg.competitors):
            sides = c.params.get("sides", 6)
            if c.agent != "die" or not isinstance(sides, int) or not 2 <= sides <= 100:
                out.append(
                    Problem(
                        'a dice competitor is agent = "die" with 2 to 100 sides', file=file, path=f"competitors[{n}]"
                    )
                )
        out += [
            Problem("dice tables are generated (generate = N)", file=file, path=f"scenarios[{n}]")
            for n, s in enumerate(cfg.scenarios)
            if not isinstance(s, GeneratedScenarios)
        ]
        return out

    def scenarios(self, cfg: TournamentConfig, source: Any, base: Path, where: str) -> dict[str, dict[str, Any]]:
        return {
            f"table{source.seed}-{i}": {"rolls": 3 + i, "content": f"{source.seed}-{i}", "human": None}
            for i in range(source.generate)
        }

    def effective(self, c: Competitor) -> dict[str, Any] | None:
        return {"sides": c.params.get("sides", 6)}

    def seatings(
        self, cfg: TournamentConfig, sid: str, scenario: dict[str, Any]
    ) -> Iterator[tuple[dict[str, str], str | None]]:
        for a in cfg.competitors:
            for b in cfg.competitors:
                if a.name != b.name:
                    yield {"first": a.name, "second": b.name}, "first"

    def play(self, m: Match, ctx: Any) -> dict[str, Any]:
        rolls = ctx.scenarios[m.scenario]["rolls"]
        thrown = {}
        for role, name in m.seats.items():
            rng = random.Random(derived_seed(m.seed, m.rep, m.scenario, role))
            thrown[role] = [rng.randint(1, ctx.comps[name].params.get("sides", 6)) for _ in range(rolls)]
        total = {role: sum(t) for role, t in thrown.items()}
        best = max(total.values())
        winners = [r for r, t in total.items() if t == best]
        seats = [
            {
                "role": role,
                "competitor": name,
                "points": (1.0 if len(winners) == 1 else 0.5) * (role in winners),
                "won": role in winners and len(winners) == 1,
                "sixes": thrown[role].count(6),
            }
            for role, name in m.seats.items()
        ]
        return {
            "status": "played",
            "agreement": None,
            "outcome": total,
            "rounds": rolls,
            "seats": seats,
            "welfare": None,
            "pareto_distance": None,
            "nash_distance": None,
            "ks_distance": None,
            "llm_calls": 0,
            "llm_tokens": 0,
            "cost": 0.0,
        }

    def observe(self, row: dict[str, Any], seats: list[dict[str, Any]]) -> dict[str, float]:
        return {"sixes": float(sum(s["sixes"] for s in seats))}

    def unscored_note(self, n: int) -> str:
        return f"{n} dice games scored nobody"

    def report(self, rep: Any, data: Any) -> None:
        sixes: dict[str, int] = {}
        for row in data.rows:
            for seat in row["seats"]:
                sixes[seat["competitor"]] = sixes.get(seat["competitor"], 0) + seat["sixes"]
        rep.sections.append(
            ("Dice", [Table("Sixes", ["competitor", "sixes"], [[c, str(sixes[c])] for c in data.summary.competitors])])
        )


@pytest.fixture
def dice():
    kind = register(DiceKind())
    try:
        yield kind
    finally:
        KINDS.pop("dice")


DICE = {
    "name": "dice night",
    "kind": "dice",
    "seeds": [0, 1],
    "repetitions": 2,
    "competitors": [
        {"name": "d6", "agent": "die", "params": {"sides": 6}},
        {"name": "d8", "agent": "die", "params": {"sides": 8}},
        {"name": "d30", "agent": "die", "params": {"sides": 30}},
    ],
    "scenarios": [{"generate": 2, "seed": 5}],
}


def test_a_registered_kind_is_planned_played_rated_and_reported(dice, tmp_path):
    cfg = parse_config(DICE, "dice.toml")
    p = plan(cfg, tmp_path)
    # 2 tables x 6 ordered pairs x 2 seeds x 2 repetitions, each match its own rated game
    assert len(p.matches) == 2 * 6 * 2 * 2 and all(m.kind == "dice" and m.group == m.id for m in p.matches)
    assert [m.id for m in plan(cfg, tmp_path).matches] == [m.id for m in p.matches]  # stable ids
    assert len(batches(p, workers=1)) < len(p.matches)  # quick matches share a batch

    out = tmp_path / "out"
    summary = run(p, out)
    assert (summary.played, summary.total) == (48, 48)
    rows = read_results(out / "results.jsonl")  # the rows pass the schema check
    assert {r["kind"] for r in rows} == {"dice"} and {r["rounds"] for r in rows} == {3, 4}
    assert json.loads((out / "scenarios.json").read_text())["table5-1"] == {"rolls": 4, "content": "5-1", "human": None}

    s = summarise(rows)
    assert s.rated_games == 48 and s.competitors[0] == "d30" and s.competitors[-1] == "d6"
    assert s.metrics["d30"]["sixes"].n == 32  # the kind's own metric: 4 of the 6 pairings x 2 x 2 x 2
    live = LiveRatings()
    for r in sorted(rows, key=lambda r: r["id"]):
        live.update(r)  # each dice match is rated as it comes
    assert live.ratings() == rate(rows)

    write_report(out)
    md = (out / "summary.md").read_text()
    header = md.split("### Per-competitor metrics")[1].splitlines()[2]
    assert header.startswith("| competitor | points |") and header.endswith("| wall time (s) | sixes rolled |")
    assert "## Dice" in md and "### Sixes" in md
    table = md.split("### Sixes")[1]
    total = sum(int(line.split("|")[2]) for line in table.splitlines() if line.startswith("| d"))
    assert total == sum(seat["sixes"] for r in rows for seat in r["seats"])


def test_a_kind_checks_its_own_config_and_unknown_kinds_get_a_hint(dice):
    bad = {**DICE, "competitors": [{"name": "coin", "agent": "coin"}, *DICE["competitors"][1:]]}
    with pytest.raises(InputError) as e:
        parse_config(bad, "dice.toml")
    assert "dice.toml: competitors[0]: a dice competitor is agent" in e.value.render()

    with pytest.raises(InputError) as e:
        parse_config({**DICE, "kind": "dise"}, "dice.toml")
    assert "dice.toml: kind: unknown tournament kind 'dise'" in e.value.render()
    assert "did you mean 'dice'?" in e.value.render()
    with pytest.raises(InputError, match="unknown tournament kind 'dise'.*kinds: negotiation"):
        kind_for("dise")
    with pytest.raises(ValueError, match="already registered"):
        register(DiceKind())  # another object under a taken name


def test_without_the_kind_its_config_is_refused(tmp_path):
    assert "dice" not in KINDS
    with pytest.raises(InputError) as e:
        parse_config(DICE, "dice.toml")
    assert "unknown tournament kind 'dice'" in e.value.render()


# --- no shared module dispatches on a kind's name ----------------------------------------------
def _kind_names(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in BUILT_IN
    return isinstance(node, ast.Tuple | ast.List | ast.Set) and any(_kind_names(e) for e in node.elts)


def dispatches(source: str) -> list[int]:
    """Lines that compare with a built-in kind's name, match on one, or key a table by one."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare) and any(_kind_names(x) for x in [node.left, *node.comparators]):
            out.append(node.lineno)
        elif isinstance(node, ast.MatchValue) and _kind_names(node.value):
            out.append(node.lineno)
        elif isinstance(node, ast.Dict) and any(k is not None and _kind_names(k) for k in node.keys):
            out.append(node.lineno)
    return out


def test_the_check_sees_a_dispatch():
    assert dispatches("if cfg.kind == 'debate':\n    pass") == [1]
    assert dispatches("x = 1\nif row['kind'] not in ('negotiation', 'council'):\n    pass") == [2]
    assert dispatches("match k:\n    case 'adventure':\n        pass") == [2]
    assert dispatches("size = {'negotiation': 200}[kind]") == [1]
    assert dispatches("if cfg.kind == name:\n    pass\nlabel = 'negotiation'") == []


def test_only_the_kind_modules_name_kinds():
    shared = [
        p
        for p in sorted((ROOT / "game" / "tournament").glob("*.py"))
        if p.name != "kinds.py" and not p.name.startswith("kind_")
    ]
    shared.append(ROOT / "game" / "cli" / "tournament.py")
    assert len(shared) > 10
    found = {str(p.relative_to(ROOT)): lines for p in shared if (lines := dispatches(p.read_text()))}
    assert not found, f"these modules pick behaviour by a kind's name (ask game.tournament.kinds instead): {found}"
    assert set(BUILT_IN) <= set(KINDS)
