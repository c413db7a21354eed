"""The LLM benchmark's quick path against the bundled model: a couple of player turns, an NPC reply
and two negotiation moves, with structured replies; the results file has the tables' columns and
figures in range (the real run is ``python -m benchmarks.llm_bench``, see docs/benchmarks/llm_bench.md)."""

from __future__ import annotations

import json
import math

import pytest

pytestmark = [pytest.mark.real_llm, pytest.mark.xdist_group("real_llm")]

SEAT_COLUMNS = {
    "moves",
    "unusable",
    "unusable_ci",
    "off_list",
    "repairs",
    "calls_per_move",
    "prompt_per_move",
    "completion_per_move",
    "max_completion_per_call",
    "s_median",
    "s_p90",
    "cached_share",
    "formats",
}


def test_the_quick_path_measures_every_seat_it_runs(tmp_path, capsys):
    from benchmarks.llm_bench import main

    out = tmp_path / "llm.json"
    argv = ["--quick", "--turns", "2", "--modes", "auto", "--parts", "seats", "negotiation"]
    argv += ["--deadline", "1", "--npc-replies", "1", "--debate-seeds", "none", "--out", str(out)]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "Seats" in printed and "Negotiation" in printed and "Goals" in printed
    res = json.loads(out.read_text())
    assert set(res["seats"]) == {"player | auto", "NPC | auto", "negotiator | auto"}
    for key, row in res["seats"].items():
        assert SEAT_COLUMNS <= set(row), key
        assert row["moves"] >= 1 and 0 <= row["unusable"] <= row["moves"]
        assert 0.0 <= row["unusable_ci"][0] <= row["unusable_ci"][1] <= 1.0
        assert row["calls_per_move"] >= 1 and row["prompt_per_move"] > 0 and row["completion_per_move"] > 0
        assert 0 < row["s_median"] <= row["s_p90"] < 120
        assert 0.0 <= row["cached_share"] <= 1.0
        assert row["formats"] == ["json_schema"]  # llama.cpp takes OpenAI's form
    player = res["seats"]["player | auto"]
    assert player["moves"] == 2 and player["unusable"] == 0 and player["off_list"] == 0  # the enum holds
    assert res["seats"]["negotiator | auto"]["unusable"] == 0
    neg = res["negotiation"]
    floor = 0 if neg["baseline"] == "random" else 2  # the random floor plays the same cells
    assert neg["baseline"] in neg["tuning"] and len(neg["outcomes"]) == 4 + floor  # 1 scene x 1 opponent x 2 openers
    for who in ("LLM", neg["baseline"]):
        s = neg["summary"][who]
        assert s["cells"] == 2 and 0 <= s["agreements"] <= 2
        assert all(math.isnan(x) or -1e-9 <= x <= 1 + 1e-9 for x in s["utility"])
    goals = res["goals"]
    assert goals["0 unusable player moves over >= 500"]["moves"] == 2
    assert goals["0 unusable player moves over >= 500"]["met"] is False  # too few turns to claim it
    assert res["machine"]["cores"] >= 1 and res["runtime_s"] > 0
    assert len(res["rows"]) == 2 + 1 + res["seats"]["negotiator | auto"]["moves"]  # a row per move
