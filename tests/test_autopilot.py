"""The autopilot wins every shipped adventure from any seed, deterministically, without peeking."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from agents.autopilot import Autopilot, command_text, make_autopilot
from game.session import Game
from game.types import PLAYER, Action
from game.world.loader import load_world
from tests.conftest import ROOT, WORLDS, parley

WORLD_DIRS = {"harbor": WORLDS / "harbor", "bazaar": WORLDS / "bazaar", "council": WORLDS / "council",
              "mini": ROOT / "tests" / "fixtures" / "mini"}
_LOADED: dict[str, object] = {}


def world(name: str):
    if name not in _LOADED:
        _LOADED[name] = load_world(WORLD_DIRS[name])
    return _LOADED[name]


def autoplay(w, seed: int, turns: int | None = None) -> tuple[Game, Autopilot]:
    game = Game(w, seed=seed)
    pilot = make_autopilot(game, seed)
    limit = turns if turns is not None else game.spec.max_turns
    while not game.engine.done and game.engine.state.turn < limit:
        game.act(pilot.act(game.engine.observe(PLAYER)))
    return game, pilot


@pytest.mark.parametrize("name", list(WORLD_DIRS))
@pytest.mark.parametrize("seed", range(20))
def test_autopilot_wins_from_any_seed(name, seed):
    game, pilot = autoplay(world(name), seed)
    st = game.engine.state
    assert st.won, f"{name} seed {seed}: quests {st.quests_done} by turn {st.turn}"
    assert len(st.quests_done) == len(game.spec.quests)
    assert st.turn <= game.spec.max_turns
    invalid = st.invalid.get(PLAYER, 0)
    assert invalid <= 0.05 * pilot.actions, f"{invalid} refused actions of {pilot.actions}"
    assert pilot.invalid == invalid  # it noticed every refusal it got


@pytest.mark.parametrize("name", list(WORLD_DIRS))
def test_same_seed_same_transcript_bytes(name):
    a = autoplay(world(name), 7)[0].transcript.text()
    b = autoplay(world(name), 7)[0].transcript.text()
    assert a == b and len(a) > 1000


def test_autopilot_never_changes_the_engine():
    game = Game(world("harbor"), seed=5)
    pilot = make_autopilot(game.engine, 5)  # an Engine works as well as a Game
    while not game.engine.done:
        before = game.engine.snapshot()
        action = pilot.act(game.engine.observe(PLAYER))
        assert game.engine.snapshot() == before
        assert isinstance(action, Action) and action.actor == PLAYER and command_text(game.engine, action)
        game.act(action)
    assert game.engine.state.won


@pytest.mark.parametrize("name,turn", [("harbor", 17), ("bazaar", 9), ("council", 12), ("mini", 17)])
def test_state_round_trip_mid_game_continues_identically(name, turn):
    """Saved mid-game (bazaar and mini: in the middle of haggling) and restored into a fresh game."""
    w = world(name)
    a = Game(w, seed=4)
    pa = make_autopilot(a, 4)
    while not a.engine.done and a.engine.state.turn < turn:
        a.act(pa.act(a.engine.observe(PLAYER)))
    if name in ("bazaar", "mini"):
        assert a.engine.state.active_scene is not None
    saved_engine = json.loads(json.dumps(a.engine.get_state()))
    saved_agents = json.loads(json.dumps(a.components()))
    saved_pilot = json.loads(json.dumps(pa.get_state()))  # JSON-able, and survives a round trip
    mark = len(a.transcript.records)
    while not a.engine.done:
        a.act(pa.act(a.engine.observe(PLAYER)))

    b = Game(w, seed=4)
    b.engine.set_state(saved_engine)
    for k, st in saved_agents["agents"].items():
        b.agents[k].set_state(st)
    pb = Autopilot(b.engine, np.random.default_rng(12345))  # a different stream: set_state restores it
    pb.set_state(saved_pilot)
    while not b.engine.done:
        b.act(pb.act(b.engine.observe(PLAYER)))
    assert b.transcript.records[1:] == a.transcript.records[mark:]
    assert b.engine.state_hash() == a.engine.state_hash() and b.engine.state.won
    assert pb.get_state() == pa.get_state()


@pytest.mark.parametrize("name", ["harbor", "bazaar", "mini"])
def test_merchants_unlike_its_model_still_sell(name, monkeypatch):
    """Merchants driven by another negotiator (no model), or a model that is wrong: it still closes every deal."""
    from agents.negotiators import from_kind
    for seed in range(3):
        game = Game(world(name), seed=seed)
        game.engine.scenes.factory = lambda scene, party, utility, params: from_kind("linear", utility)
        pilot = make_autopilot(game, seed)
        while not game.engine.done:
            game.act(pilot.act(game.engine.observe(PLAYER)))
        assert game.engine.state.won and game.engine.state.invalid.get(PLAYER, 0) == 0
    monkeypatch.setattr(Autopilot, "_model", lambda self, sid: from_kind("conceder", self.trades[sid]["them"]))
    for seed in range(3):
        game, pilot = autoplay(world(name), seed)
        assert game.engine.state.won and game.engine.state.invalid.get(PLAYER, 0) == 0


class _Guard:
    """Wraps a spec object; reading its hidden attribute while the autopilot thinks is an error."""

    active = False

    def __init__(self, obj, hidden: str):
        object.__setattr__(self, "_obj", obj)
        object.__setattr__(self, "_hidden", hidden)

    def __getattr__(self, name):
        if name == self._hidden and _Guard.active:
            raise AssertionError(f"the autopilot read {name!r}")
        return getattr(self._obj, name)


def _guarded(w, flip: bool):
    """A copy of the world whose fact truth flags (flipped if asked) and NPC honesty the autopilot may not read."""
    spec = w.spec
    facts = {k: _Guard(f.model_copy(update={"true": (not f.true) if flip else f.true}), "true")
             for k, f in spec.facts.items()}
    npcs = {k: _Guard(n, "honesty") for k, n in spec.npcs.items()}
    return dataclasses.replace(w, spec=spec.model_copy(update={"facts": facts, "npcs": npcs}))


@pytest.mark.parametrize("name", list(WORLD_DIRS))
def test_autopilot_reads_no_hidden_truth_and_wins_when_every_rumour_flips(name):
    """Reading a fact's truth flag or an NPC's honesty profile while choosing an action fails the test.
    With every truth flag flipped, NPCs who know several answers tell other stories (in mini the
    claims it hears change); the autopilot treats claims only as hints, and still wins."""
    for flip in (False, True):
        w = _guarded(world(name), flip)
        for seed in range(5):
            game = Game(w, seed=seed)
            _Guard.active = True
            try:
                pilot = make_autopilot(game, seed)
                while not game.engine.done:
                    _Guard.active = True
                    action = pilot.act(game.engine.observe(PLAYER))
                    _Guard.active = False
                    game.act(action)
            finally:
                _Guard.active = False
            assert game.engine.state.won, f"{name} seed {seed} flip={flip}"


def test_cli_autopilot_wins_and_is_deterministic(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    r1 = parley("run", "--no-memory", "worlds/harbor", "--autopilot", "--seed", "3", "--out", str(a))
    r2 = parley("run", "--no-memory", "worlds/harbor", "--autopilot", "--seed", "3", "--out", str(b), "--quiet")
    assert r1.returncode == 0 and r2.returncode == 0, r1.stderr + r2.stderr
    assert "WON" in r1.stdout and "> go " in r1.stdout and "Quest complete" in r1.stdout
    assert r2.stdout.splitlines()[0].startswith("world harbor-v1 seed 3:") and "WON" in r2.stdout
    assert a.read_bytes() == b.read_bytes()
    first = json.loads(a.read_text().splitlines()[0])
    assert first["type"] == "start" and first["seed"] == 3
    r3 = parley("run", "--no-memory", "worlds/council", "--autopilot", "--turns", "4", "--quiet")
    assert r3.returncode == 0 and "turn 4," in r3.stdout and "not won" in r3.stdout
    r4 = parley("run", "--no-memory", "worlds/council", "--autopilot", "--script", "x.txt")
    assert r4.returncode == 2 and "not allowed" in r4.stderr
