"""Debate tournaments: council debate configurations (masking modes, scripted or LLM members) as
competitors on hidden-profile tasks and world council scenes, through the CLI and the library."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from game.core.errors import InputError
from game.council.session import CouncilConfig
from game.council.tasks import hidden_profile_task
from game.play.debates import run_debate
from game.tournament.config import load_config, parse_config
from game.tournament.kind_debate import masking_config
from game.tournament.report import write_report
from game.tournament.runner import plan, run
from game.tournament.stats import read_results, summarise
from tests.conftest import ROOT, parley
from tests.test_tournament import write

EXAMPLE = ROOT / "examples" / "tournaments" / "debate_masking.toml"
MEMO = "{ controversy_weight = 0.3, novelty_weight = 1.0, redundancy = 0.8 }"  # the benchmark's memo

SMALL = f"""
name = "small debate"
kind = "debate"
seeds = [0]

[[competitors]]
name = "dedupe"
agent = "scripted"
masking = "dedupe"

[[competitors]]
name = "memo"
agent = "scripted"
params = {MEMO}

[[competitors]]
name = "objective"
agent = "scripted"
masking = "objective"

[[scenarios]]
generate = 6
seed = 1000
"""


def rows_of(folder: Path) -> dict[str, dict]:
    """Rows by id, without the one field that is not determined by the match (wall_time)."""
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    return {r["id"]: {k: v for k, v in r.items() if k != "wall_time"} for r in rows}


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """The small tournament run once through the CLI: (config path, output folder)."""
    tmp = tmp_path_factory.mktemp("debate")
    cfg = write(tmp, SMALL)
    r = parley("tournament", str(cfg), "--out", str(tmp / "cli"), "--quiet")
    assert r.returncode == 0, r.stderr
    assert "18 matches played" in r.stdout and (tmp / "cli" / "summary.md").exists()
    return cfg, tmp / "cli"


def test_the_cli_and_the_library_play_the_same_debates(small, tmp_path):
    cfg_path, cli = small
    cfg, base = load_config(cfg_path)
    p = plan(cfg, base)
    assert len(p.matches) == 6 * 3 and {m.kind for m in p.matches} == {"debate"}
    assert len({m.group for m in p.matches}) == 6  # one rated game per task
    run(p, tmp_path / "lib")
    assert rows_of(tmp_path / "lib") == rows_of(cli)  # deterministic, and the same either way
    run(plan(cfg, base), tmp_path / "procs", backend="processes", workers=2)
    assert rows_of(tmp_path / "procs") == rows_of(cli)
    # a row is the debate itself: the same as running the council engine on the task directly
    for row in rows_of(cli).values():
        seat = row["seats"][0]
        task = hidden_profile_task(int(row["scenario"].removeprefix("hp")))
        _, m = run_debate(task, CouncilConfig(seed=0), masking_config(cfg.competitor(seat["competitor"])))
        assert (row["rounds"], seat["correct"], row["outcome"]["decision"]) == (m.rounds, m.correct, m.decision)
        assert seat["points"] == float(m.correct) and seat["role"] == "council"
        assert seat["redundancy"] == pytest.approx(m.redundancy, abs=1e-6)


def test_objective_masking_ranks_far_below_dedupe_and_memo(small):
    _, cli = small
    s = summarise(read_results(cli / "results.jsonl"))
    acc = {c: s.metrics[c]["accuracy"].mean for c in s.competitors}
    assert s.competitors[-1] == "objective" and s.rated_games == 6
    assert acc["objective"] + 0.4 <= min(acc["dedupe"], acc["memo"])
    for c in s.competitors:
        for key in ("rounds", "redundancy", "effective_ratio", "tokens_per_member_round"):
            assert key in s.metrics[c]
        est = s.metrics[c]["accuracy"]
        assert est.n == 6 and est.lo <= est.mean <= est.hi
    md = (cli / "summary.md").read_text()
    assert "Council debates" in md and "accuracy \\[95% CI\\]" in md and "objective" in md


def test_the_example_runs_the_benchmarks_parameters(tmp_path):
    bench = pytest.importorskip("benchmarks.council_bench")
    cfg, base = load_config(EXAMPLE)
    assert cfg.kind == "debate"
    for c in cfg.competitors:
        assert masking_config(c) == bench.MODES[c.name]
    assert CouncilConfig() == bench.COUNCIL.model_copy(update={"seed": 0})  # the tournament's council
    p = plan(cfg, base)
    assert len(p.matches) == 4 * 20
    summary = run(p, tmp_path / "o")
    assert summary.played == 80 and summary.seconds < 30
    s = summarise(read_results(tmp_path / "o" / "results.jsonl"))
    assert s.rated_games == 20 and set(s.competitors) == {"none", "window", "dedupe", "memo"}


def test_a_bad_masking_is_a_located_error_with_exit_2(tmp_path):
    text = SMALL.replace('masking = "objective"', 'masking = "objectiv"').replace(
        f"params = {MEMO}", "params = { budget = 3, windw = 2 }"
    )
    bad = write(tmp_path, text, "bad.toml")
    r = parley("tournament", str(bad))
    assert r.returncode == 2
    assert "bad.toml" in r.stderr
    assert "competitors[2].masking: competitor 'objective': unknown masking mode 'objectiv'" in r.stderr
    assert "did you mean 'objective'" in r.stderr
    assert "competitors[1].params.budget: competitor 'memo'" in r.stderr
    assert "competitors[1].params.windw" in r.stderr and "did you mean 'window'" in r.stderr
    for comp, why in (
        ({"name": "s", "agent": "scripted", "masking": "subjective"}, "needs llm members"),
        ({"name": "a", "agent": "autopilot"}, "unknown debate agent"),
        ({"name": "m", "agent": "scripted", "memory": True}, "memory is for"),
        ({"name": "p", "agent": "scripted", "params": {"mode": "none"}}, "masking = "),
    ):
        with pytest.raises(InputError) as e:
            parse_config({"kind": "debate", "competitors": [comp], "scenarios": [{"generate": 1}]}, "x.toml")
        assert why in e.value.render() and f"competitor {comp['name']!r}" in e.value.render()
    with pytest.raises(InputError) as e:
        parse_config(
            {
                "kind": "debate",
                "competitors": [{"name": "a", "agent": "scripted"}],
                "scenarios": [{"imported": "x.json"}],
            }
        )
    assert "scenarios[0]: debate scenarios are generated" in e.value.render()


def test_masking_is_refused_outside_debates():
    for kind, comps, scen in (
        (
            "negotiation",
            [{"name": "b", "agent": "boulware", "masking": "memo"}, {"name": "c", "agent": "conceder"}],
            {"generate": 1},
        ),
        (
            "council",
            [{"name": "a", "agent": "autopilot", "masking": "none"}],
            {"world": str(ROOT / "worlds" / "council"), "scene": "weir_council"},
        ),
    ):
        with pytest.raises(InputError) as e:
            parse_config({"kind": kind, "competitors": comps, "scenarios": [scen]}, "t.toml")
        assert "competitors[0]: masking is for debate competitors" in e.value.render()


def test_a_world_council_scene_debates_without_a_rating(tmp_path):
    cfg = parse_config(
        {
            "kind": "debate",
            "seeds": [0, 1],
            "turns": 8,
            "competitors": [
                {"name": "none", "agent": "scripted", "masking": "none"},
                {"name": "memo", "agent": "scripted"},
            ],
            "scenarios": [
                {"world": str(ROOT / "worlds" / "council"), "scene": "weir_council"},
                {"generate": 2, "seed": 1000},
            ],
        }
    )
    p = plan(cfg, tmp_path)
    assert len(p.matches) == 2 * 3 * 2
    run(p, tmp_path / "o")
    rows = read_results(tmp_path / "o" / "results.jsonl")
    world = [r for r in rows if r["scenario"].endswith(":weir_council")]
    assert len(world) == 4 and all(r["seats"][0]["points"] is None and r["seats"][0]["correct"] is None for r in world)
    assert all(1 <= r["rounds"] <= 8 and r["outcome"]["decision"] in (True, False) for r in world)
    s = summarise(rows)
    assert s.unscored == 2 and s.rated_games == 4 and s.groups == 6
    assert all(s.metrics[c]["accuracy"].n == 4 and s.metrics[c]["rounds"].n == 6 for c in s.competitors)
    assert any("no known right decision" in n for n in s.notes)
    write_report(tmp_path / "o", n_boot=100, plots=False)
    # only a debate may score nobody
    neg = dict(world[0], kind="negotiation", group="g", id="x")
    with pytest.raises(InputError, match="points"):
        summarise([neg])
    with pytest.raises(InputError) as e:
        parse_config({**cfg.model_dump(mode="json"), "turns": 500})
    assert "turns: a debate has at most 200 rounds" in e.value.render()


def test_llm_members_against_the_scripted_server(serve, tmp_path):
    from tests.test_council_llm import Model

    task = hidden_profile_task(8)
    srv = serve(responder=Model(task))
    llm = {"endpoint": srv.base_url, "model": "council", "max_retries": 0, "timeout": 5.0, "usd_per_1k_tokens": 0.5}
    os.environ.pop("OPENAI_API_KEY", None)
    cfg = parse_config(
        {
            "kind": "debate",
            "seeds": [0],
            "turns": 6,
            "competitors": [
                {"name": "llm-memo", "agent": "llm", "llm": llm},
                {
                    "name": "llm-subjective",
                    "agent": "llm",
                    "masking": "subjective",
                    "params": {"candidates": 8},
                    "llm": llm,
                },
                {"name": "scripted", "agent": "scripted"},
            ],
            "scenarios": [{"generate": 1, "seed": 8}],
        }
    )
    run(plan(cfg, tmp_path), tmp_path / "o")
    rows = {r["seats"][0]["competitor"]: r for r in read_results(tmp_path / "o" / "results.jsonl")}
    for name in ("llm-memo", "llm-subjective"):
        r = rows[name]
        assert r["llm_calls"] > 0 and r["llm_tokens"] > 0 and r["seats"][0]["invalid"] == 0
        assert r["cost"] == pytest.approx(r["llm_tokens"] / 1000 * 0.5, abs=1e-6)
        assert isinstance(r["seats"][0]["correct"], bool)
    assert rows["scripted"]["llm_calls"] == 0
    assert any("Statements to label" in json.dumps(b) for b in srv.requests)  # subjective members labelled
    assert summarise(list(rows.values())).rated_games == 1
