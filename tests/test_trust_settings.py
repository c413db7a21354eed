"""The cross-topic trust settings (benchmarks/trust_settings.py) on a few seeds: pooling is what lets
the game's Σ-Mem beat a per-(NPC, topic) beta where honesty carries across topics, and flag a
sleeper in a few lies where the unpooled memory needs dozens."""

from __future__ import annotations

import numpy as np

from benchmarks.trust_settings import NEVER, beta_f, collusion_run, game_choice, sigma_f, sleeper_run, transfer_run

METHODS = {"game": sigma_f(), "unpooled": sigma_f(0.95, 0.0, "topic"), "beta": beta_f("key", 0.95, 2.0)}


def test_pooling_wins_where_honesty_carries_across_topics():
    for run in (transfer_run, collusion_run):
        got = {name: np.mean([run(seed, METHODS)[name][20] for seed in (200, 201, 202)]) for name in METHODS}
        assert got["game"] >= got["beta"] + 0.02
        assert abs(got["unpooled"] - got["beta"]) < 0.02  # declared topics apart: per-topic counts


def test_the_game_flags_sleepers_in_a_few_lies_and_no_steady_npc():
    res = [sleeper_run(seed, METHODS) for seed in (300, 301)]
    lies = {m: [x for r in res for x in r[m]["lies"]] for m in METHODS}
    assert max(lies["game"]) < 30
    assert np.median(lies["unpooled"]) > 2 * np.median(lies["game"])
    assert all(x < NEVER for x in lies["game"])
    assert not any(f for r in res for f in r["game"]["false_flags"])


def test_the_rule_that_set_the_game_picks_the_least_pooling_within_the_goals():
    def grid_entry(transfer, collusion, lies, flags=0.0):
        return {"transfer": transfer, "collusion": collusion, "sleeper_lies": lies, "false_flags": flags}

    beta = "beta (NPC, topic) event λ=0.95 a=0.5"
    results = {
        "transfer": {beta: {20: [0.85]}},
        "collusion": {beta: {20: [0.70]}},
        "sleepers": {beta: {"lies": [12, 12], "false_flags": [False]}},
    }
    tuned = {
        "results": results,
        "best": {s: {"beta (NPC, topic)": beta} for s in results},
        "sigma": {
            "Σ-Mem topic γ=0.9 ρ=0.0": grid_entry(0.85, 0.70, 60),  # misses every goal
            "Σ-Mem topic γ=0.9 ρ=0.5": grid_entry(0.96, 0.92, 12),
            "Σ-Mem topic γ=0.9 ρ=0.75": grid_entry(0.97, 0.99, 8),  # more pooling than needed
            "Σ-Mem event γ=0.9 ρ=0.25": grid_entry(0.99, 0.99, 5),  # not the game's decay
            "Σ-Mem topic γ=0.8 ρ=0.25": grid_entry(0.99, 0.99, 5, flags=0.2),  # too many false flags
        },
    }
    out = game_choice(tuned)
    assert out["choice"] == "Σ-Mem topic γ=0.9 ρ=0.5" == out["game"] and out["agrees"]
