"""A turn is whole or not played at all. A turn that raises part way (a bug, not bad input) is put
back: the engine, the NPC agents, agent memory, world facts, the record and the undo stack are as
they were before it; the front ends save that state (it loads and replays) and say it was a bug
in Parley, naming the turn, the transcript line and the log file with the traceback.

The bugs are real code a user can supply: a plugin agent kind (``tests/fixtures/faulty_npc.py``,
registered through ``agents.registry``) whose ``act`` raises after the player's move was applied,
and event listeners added to the engine that raise."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from conftest import ROOT, WORLDS, typed

from game.core.types import PLAYER, Action, Verb
from game.engine.state import state_hash

FIXTURES = ROOT / "tests" / "fixtures"
sys.path.insert(0, str(FIXTURES))
import faulty_npc  # noqa: E402  (registers the faulty_patrol agent kind)

from agents.registry import PatrolParams, register, unregister  # noqa: E402

unregister("faulty_patrol")  # known only while a test here runs: other tests see the shipped kinds

FAULT = 2  # the turn the faulty NPC fails on (``$PARLEY_FAULT_TURN``)


@pytest.fixture(autouse=True)
def armed():
    """The faulty NPC kind is registered for each test and fails once per process; each test arms it again."""
    faulty_npc.TRIPPED.clear()
    register("faulty_patrol", PatrolParams)(faulty_npc.faulty_patrol)
    yield
    unregister("faulty_patrol")
    faulty_npc.TRIPPED.clear()


@pytest.fixture
def faulty_world(tmp_path) -> Path:
    """Harbor with Constable Dray's patrol as the plugin kind ``faulty_patrol``."""
    folder = tmp_path / "harbor"
    shutil.copytree(WORLDS / "harbor", folder)
    dray = folder / "npcs" / "dray.toml"
    dray.write_text(dray.read_text().replace('kind = "patrol"', 'kind = "faulty_patrol"'))
    return folder


def saved(game) -> dict:
    """What a save and a turn's snapshot hold: the engine state, every component, reward totals."""
    return {"engine": game.engine.get_state(), "components": game.components(), "totals": dict(game.engine.totals)}


def whole(game) -> str:
    """A digest of everything a turn can change: engine state with its RNG, every component,
    reward totals, the record, the undo stack and the parser."""
    meta = game.meta
    return state_hash(
        {
            "state": saved(game),
            "records": list(game.transcript.records),
            "undo": [(s.said, s.turn, s.mark) for s in meta.snapshots],
            "parser": repr(vars(game.parser)),
        }
    )


def play_until_failure(game, line: str = "wait", digest: bool = True):
    """Play ``line`` until a turn fails; (the error, the digest before that turn, records then).
    ``digest=False``: no digest (it reads memory, which waits for a model still loading)."""
    from game.play.session import TurnError

    for _ in range(10):
        before, records = whole(game) if digest else None, len(game.transcript.records)
        try:
            game.submit(line)
        except TurnError as e:
            return e, before, records
    raise AssertionError("no turn failed")


def replays(name: str, saves: Path) -> bool:
    from game.play.persistence import replay_report

    return replay_report(name, saves).ok


# --- the Python API -------------------------------------------------------------------------------
def test_a_turn_an_npc_breaks_is_put_back_whole_and_the_game_goes_on(faulty_world, tmp_path):
    from game.play.autosave import report_failed_turn
    from game.play.session import Game

    record = tmp_path / "record.jsonl"
    game = Game(faulty_world, seed=0, transcript_path=record, memory={"embedder": "minilm"})
    game.submit("look")
    error, before, records = play_until_failure(game)
    game.transcript.flush()
    assert record.read_text() == game.transcript.text()  # the file is cut back too
    assert error.turn == FAULT and error.restored and error.bug
    assert error.line == records + 1  # where the failed turn's first record would have gone
    assert isinstance(error.error, ZeroDivisionError) and error.__cause__ is error.error
    assert whole(game) == before  # engine, RNG, agents, memory, facts, record, undo stack
    assert len(game.meta.snapshots) == 2  # look and the first wait: the failed move is not there
    said = report_failed_turn(error, tmp_path / "saves")
    assert "bug in Parley" in said and f"turn {FAULT}" in said and f"transcript line {error.line}" in said
    log = Path(re.search(r"traceback is in (\S+?);", said).group(1))
    assert "ZeroDivisionError: faulty_patrol divided by zero" in log.read_text()
    assert "faulty_npc.py" in log.read_text()
    saved = tmp_path / "saves" / "autosave-harbor-v1"
    assert (saved / "transcript.jsonl").read_text().count("\n") == error.line - 1
    assert replays("autosave-harbor-v1", tmp_path / "saves")
    loaded = Game.load("autosave-harbor-v1", tmp_path / "saves")
    assert loaded.engine.state_hash() == game.engine.state_hash()
    reply = game.submit("wait")  # the next command plays
    assert reply.kind == "turn" and game.engine.state.turn == FAULT + 1
    assert game.submit("undo").lines[0].startswith("[Undone: 'wait'; back to turn 2")


def test_act_raises_turn_error_after_a_listener_fails_and_the_state_is_as_before(harbor):
    from game.play.session import Game, TurnError

    game = Game(harbor, seed=3, memory={"embedder": "hash"})
    seen = []

    def listener(event):  # a listener of the user's own, added after memory and world facts
        seen.append(event)
        if event.turn == 1 and len([e for e in seen if e.turn == 1]) == 2:
            raise KeyError("listener bug")

    game.engine.listeners.append(listener)
    game.act(Action(PLAYER, Verb.WAIT))
    before, turn = whole(game), game.engine.state.turn
    with pytest.raises(TurnError) as caught:
        game.act(Action(PLAYER, Verb.LOOK))
    assert caught.value.turn == turn and whole(game) == before
    assert "KeyError" in caught.value.message and caught.value.game is game
    game.engine.listeners.remove(listener)
    game.act(Action(PLAYER, Verb.LOOK))
    assert game.engine.state.turn == turn + 1


def test_a_turn_at_the_trading_table_that_fails_is_put_back_with_its_scene(harbor, tmp_path):
    """A scene in progress (a trade): the failed offer is taken back with the scene's session,
    and the same offer then plays as in a game that never failed."""
    from game.play.autosave import write_autosave
    from game.play.session import Game, TurnError

    def to_the_table(game):
        for line in ("go north", "go east", "trade with mara"):
            game.submit(line)
        assert game.engine.state.active_scene is not None

    game, plain = Game(harbor, seed=0, memory={"embedder": "hash"}), Game(harbor, seed=0, memory={"embedder": "hash"})
    to_the_table(game)
    to_the_table(plain)

    def offer_breaks(event):
        if event.kind.value == "offer":
            raise AttributeError("listener bug at the table")

    game.engine.listeners.append(offer_breaks)
    before = whole(game)
    with pytest.raises(TurnError):
        game.submit("offer price=22")
    assert whole(game) == before
    game.engine.listeners.remove(offer_breaks)
    write_autosave(game, tmp_path)
    assert replays("autosave-harbor-v1", tmp_path)
    game.submit("offer price=22")
    plain.submit("offer price=22")
    assert game.engine.state_hash() == plain.engine.state_hash() and game.transcript.records == plain.transcript.records


def test_an_interrupted_turn_is_put_back_and_the_interruption_goes_on(harbor, tmp_path):
    """Ctrl-C (or a signal) in the middle of a turn: the game is put back, then the interruption
    goes on as before (the console's farewell then autosaves a game that replays)."""
    from game.play.autosave import write_autosave
    from game.play.session import Game

    game = Game(harbor, seed=0, memory={"embedder": "hash"})
    game.submit("look")

    def interrupt(event):
        if event.turn == 1:
            raise KeyboardInterrupt

    game.engine.listeners.append(interrupt)
    before = whole(game)
    with pytest.raises(KeyboardInterrupt):
        game.submit("north")
    assert whole(game) == before
    write_autosave(game, tmp_path)
    assert replays("autosave-harbor-v1", tmp_path)


def test_a_full_disk_mid_turn_is_said_as_such_not_as_a_bug(harbor):
    from game.play.session import Game, TurnError

    game = Game(harbor, seed=0)

    def disk_full(event):
        raise OSError(28, "No space left on device", "transcript.jsonl")

    game.engine.listeners.append(disk_full)
    before = whole(game)
    with pytest.raises(TurnError) as caught:
        game.submit("look")
    assert not caught.value.bug and "No space left on device" in caught.value.message
    assert "bug" not in caught.value.message and whole(game) == before


def test_a_turn_that_fails_while_memory_warms_drops_its_queued_memory_calls(faulty_world):
    """Memory warming in the background (its calls queued): the failed turn's calls are dropped,
    so once warm the game equals one that never played that turn."""
    from game.play.session import Game
    from game.play.warmup import background_memory

    gate = threading.Event()
    with background_memory(until=lambda: gate.wait(60)):
        game = Game(faulty_world, seed=0, memory={"embedder": "minilm"})
    game.warmup.start()
    game.submit("look")
    error, _, _ = play_until_failure(game, digest=False)
    assert game.warmup.warming  # the failure came while memory still warmed
    game.submit("wait")
    gate.set()
    game.warmup.settle()
    plain = Game(faulty_world, seed=0, memory={"embedder": "minilm"})  # fails no more: tripped once
    for line in ("look", *["wait"] * (error.turn - 1), "wait"):
        plain.submit(line)
    assert state_hash(saved(game)) == state_hash(saved(plain))
    assert game.transcript.records == plain.transcript.records


def test_memory_that_warms_during_the_failed_turn_is_put_back_to_before_it(harbor):
    """The model finishes loading in the middle of the turn that fails: the calls queued before
    the turn are applied then, and memory goes back to right after them."""
    from game.play.session import Game
    from game.play.warmup import background_memory

    gate = threading.Event()
    with background_memory(until=lambda: gate.wait(60)):
        game = Game(harbor, seed=0, memory={"embedder": "minilm"})
    game.warmup.start()
    game.submit("look")
    heard = []

    def warm_then_fail(event):
        if event.turn != 1:
            return
        heard.append(event)
        if len(heard) == 1:  # the model comes now: the next memory call applies the queue
            gate.set()
            while game.warmup.warming:
                threading.Event().wait(0.01)
        elif len(heard) == 2:
            raise RuntimeError("listener bug")

    game.engine.listeners.append(warm_then_fail)
    from game.play.session import TurnError

    with pytest.raises(TurnError):
        game.submit("north")
    game.engine.listeners.remove(warm_then_fail)
    assert not game.warmup.warming and game.warmup.pending == 0
    plain = Game(harbor, seed=0, memory={"embedder": "minilm"})
    plain.submit("look")
    assert state_hash(saved(game)) == state_hash(saved(plain))
    game.submit("north")
    plain.submit("north")
    assert game.engine.state_hash() == plain.engine.state_hash()


# --- the line console ------------------------------------------------------------------------------
def test_the_console_says_the_bug_saves_the_turn_before_it_and_plays_on(faulty_world, tmp_path):
    from game.cli.console import run_console
    from game.play.session import Game

    saves = tmp_path / "saves"
    game = Game(faulty_world, seed=0, memory={"embedder": "minilm"})
    out: list[str] = []
    at_failure: list[bool] = []

    def write(text: str) -> None:
        out.append(text)
        if "bug in Parley" in text:  # the autosave as it was when the bug was said
            at_failure.append(replays("autosave-harbor-v1", saves))

    code = run_console(game, saves_base=str(saves), read=typed(["look", "wait", "wait", "wait", "score"]), write=write)
    said = next(t for t in out if "bug in Parley" in t)
    assert code == 0 and at_failure == [True]
    assert f"turn {FAULT}" in said and "transcript line" in said and str(saves / "autosave-harbor-v1") in said
    assert Path(re.search(r"traceback is in (\S+?);", said).group(1)).is_file()
    assert "Traceback" not in "\n".join(out)
    assert game.engine.state.turn == FAULT + 1  # look, wait, (wait: the bug), wait: played on after it
    assert replays("autosave-harbor-v1", saves)  # the farewell's autosave, in the same slot


# --- the command line --------------------------------------------------------------------------------
def cli(*args: str, saves: Path, input: str | None = None) -> subprocess.CompletedProcess:
    """The real ``parley`` command in a process that has the plugin agent kind imported first."""
    code = f"import sys; sys.path.insert(0, {str(FIXTURES)!r}); import faulty_npc; from game.cli.main import main; "
    env = {**os.environ, "PARLEY_SAVES": str(saves), "PARLEY_FAULT_TURN": str(FAULT), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", code + "sys.exit(main(sys.argv[1:]))", *args],
        cwd=ROOT,
        input=input,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def test_parley_run_exits_1_with_the_message_and_a_save_that_replays(faulty_world, tmp_path):
    saves = tmp_path / "saves"
    done = cli("run", str(faulty_world), "--autopilot", "--embedder", "hash", saves=saves)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    err = done.stderr
    assert "bug in Parley (not your input)" in err and f"turn {FAULT} (transcript line " in err
    assert str(saves / "run-harbor-v1") in err and "parley play --load run-harbor-v1" in err
    log = Path(re.search(r"traceback is in (\S+?);", err).group(1))
    assert log.parent == saves / "logs" and "ZeroDivisionError" in log.read_text()
    line = int(re.search(r"transcript line (\d+)", err).group(1))
    assert (saves / "run-harbor-v1" / "transcript.jsonl").read_text().count("\n") == line - 1
    replayed = cli("replay", "run-harbor-v1", saves=saves)
    assert replayed.returncode == 0 and "replay ok" in replayed.stdout, replayed.stdout + replayed.stderr


def test_parley_play_plain_says_the_bug_and_goes_on_with_the_next_command(faulty_world, tmp_path):
    saves = tmp_path / "saves"
    done = cli(
        "play", str(faulty_world), "--plain", "--embedder", "hash", saves=saves, input="look\nwait\nwait\nwait\nquit\n"
    )
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert "bug in Parley (not your input)" in done.stdout and f"turn {FAULT}" in done.stdout
    assert f"turn {FAULT + 1}." in done.stdout  # the farewell: the wait after the failed one was played
    replayed = cli("replay", "autosave-harbor-v1", saves=saves)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr


# --- the terminal app -------------------------------------------------------------------------------
@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.tui
@pytest.mark.anyio
async def test_the_app_shows_the_bug_keeps_running_and_plays_the_next_command(faulty_world, tmp_path):
    from test_tui_input import story_lines
    from test_tui_play import ready, wait_for

    from game.play.session import Game
    from game.tui.app import ParleyApp

    saves = tmp_path / "saves"
    app = ParleyApp(lambda: Game(faulty_world, seed=0), saves_base=saves)
    async with app.run_test(size=(120, 40)) as pilot:
        await ready(pilot)
        for line in ("look", "wait", "wait"):
            await pilot.press(*line, "enter")
            await wait_for(pilot, lambda: not app.busy and not app.pending)
        said = " ".join(story_lines(app))
        assert "bug in Parley" in said and f"turn {FAULT}" in said, said[-600:]
        assert app.game.engine.state.turn == FAULT and app.is_running
        assert replays("autosave-harbor-v1", saves)
        await pilot.press(*"wait", "enter")
        await wait_for(pilot, lambda: not app.busy and not app.pending)
        assert app.game.engine.state.turn == FAULT + 1


@pytest.mark.tui
@pytest.mark.anyio
async def test_watching_a_seat_stops_at_the_bug_with_the_message_and_a_save_that_replays(faulty_world, tmp_path):
    import math

    from test_tui_play import wait_for

    from game.play.session import Game
    from game.tui.app import ParleyApp

    saves = tmp_path / "saves"
    app = ParleyApp(lambda: Game(faulty_world, seed=0, player_kind="autopilot"), saves_base=saves, spectate="autopilot")
    app.speed = math.inf
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: getattr(app.screen, "paused", False) and not app.busy)
        text = "\n".join(line.text for line in app.screen.query_one("#watch-story").lines)
        assert "bug in Parley" in text and f"turn {FAULT}" in text and "watch-harbor-v1" in text, text[-800:]
        assert app.game.engine.state.turn == FAULT and app.screen.state == "stopped by an error"
        assert replays("watch-harbor-v1", saves)


def test_a_turns_snapshot_shares_trust_arrays_until_they_change_and_a_save_still_lists_them(tmp_path):
    """A snapshot before each turn must not cost P² numbers (Σ-Mem's P × P matrix as lists made
    a 1,000-NPC turn three times slower, a copy made 10,000 NPCs quadratic): it shares the
    arrays read-only and the memory copies one before it changes it, so the snapshot keeps what
    it saw; a save and ``get_state`` keep plain lists; putting it back restores the same trust."""
    import numpy as np

    from game.play.session import Game

    game = Game(WORLDS / "harbor", seed=0, memory=None)
    game.act(game.parser.parse("wait", game.engine.scope()).action)
    sigma = game.facts.sigma
    captured = game.meta.capture()
    assert captured.shared and not sigma._S.flags.writeable  # shared, not copied
    before = state_hash(saved(game))
    frozen = np.array(sigma._S)
    peers = sorted(sigma.peers)[:2]
    sigma.write(sorted(sigma.topics)[0], {peers[0]: 1, peers[1]: -1})
    assert state_hash(saved(game)) != before and sigma._S.flags.writeable
    snap = captured.load()
    assert np.array_equal(snap["components"]["facts"]["sigma"]["S"], frozen)  # the write did not reach it
    assert isinstance(game.facts.get_state()["sigma"]["S"], list)
    game.restore(snap["engine"], snap["components"])
    assert state_hash(saved(game)) == before
