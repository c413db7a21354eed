"""The brute-force baseline (agents/brute_player.py) reads only its observation and wins the small
worlds by trying everything; the autopilot is measured against it (benchmarks/autopilot_bench.py)."""

from __future__ import annotations

import json

import pytest

from agents.brute_player import BrutePlayer
from game.core.types import Decision
from game.play.session import Game
from game.play.worlds import load_world
from tests.conftest import ROOT, WORLDS
from tests.test_autopilot import hatch_world


def _play(w, seed: int, player=None) -> tuple[Game, BrutePlayer]:
    game = Game(w, seed=seed)
    player = player or BrutePlayer(seed)
    while not game.engine.done and game.engine.state.turn < game.spec.max_turns:
        decision = player.act(*game.player_inputs()[:1])
        assert isinstance(decision, Decision)
        game.engine.run_round(decision)
    return game, player


@pytest.mark.parametrize("path", [ROOT / "tests" / "fixtures" / "mini", WORLDS / "harbor"])
def test_it_wins_by_trying_everything(path):
    for seed in range(2):
        game, _ = _play(load_world(path), seed)
        assert game.engine.state.won, f"{path.name} seed {seed}"


def test_it_opens_a_lock_whose_key_shares_no_word_with_it(tmp_path):
    game, _ = _play(load_world(hatch_world(tmp_path / "hatch")), 0)
    assert game.engine.state.won


def test_state_round_trips_as_json():
    w = load_world(ROOT / "tests" / "fixtures" / "mini")
    a = Game(w, seed=1)
    pa = BrutePlayer(1)
    for _ in range(8):
        a.engine.run_round(pa.act(a.player_inputs()[0]))
    saved = json.loads(json.dumps(pa.get_state()))
    pb = BrutePlayer(99)
    pb.set_state(saved)
    obs = a.player_inputs()[0]
    assert pb.act(obs) == pa.act(obs) and BrutePlayer.uses_context is False
