"""Memory that warms in the background (``game.play.warmup``): while the embedding model loads,
turns and loads go on at once, and the game that results is the one that waited for the model.

The warm-up is held with ``background_memory(until=...)`` so the tests decide when the model
counts as loaded (this process may have loaded it already); a turn that waited for it would
hang, so each turn runs with a deadline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from game.play.session import Game
from game.play.warmup import LaterContext, background_memory

ROOT = Path(__file__).resolve().parents[1]
HARBOR = ROOT / "worlds" / "harbor"
MINILM = {"embedder": "minilm"}
COMMANDS = ["ask jory about treasure", "n", "s", "ask constable dray about keys", "e", "w", "talk jory flint", "s"]


def within(seconds: float, fn, *args):
    """``fn(*args)``, failing the test if it has not returned in ``seconds`` (it waited for the model)."""
    out: list = []
    worker = threading.Thread(target=lambda: out.append(fn(*args)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), f"{getattr(fn, '__name__', fn)}{args} waited for the memory model"
    return out[0]


def saved(game: Game, name: str, base: Path) -> tuple[dict, str]:
    folder = game.save(name, base)
    data = json.loads((folder / "save.json").read_text())
    return data, game.transcript.text()


def test_turns_go_on_while_the_model_loads_and_the_game_is_the_one_that_waited(tmp_path):
    hold = threading.Event()
    with background_memory(until=hold.wait):
        warm = Game(HARBOR, seed=0, memory=MINILM)
    for line in COMMANDS:
        within(20, warm.submit, line)
    assert warm.warmup.warming and warm.warmup.deferred > 0  # every memory call so far waited in the queue
    hold.set()
    waited = Game(HARBOR, seed=0, memory=MINILM)
    for line in COMMANDS:
        waited.submit(line)
    got, want = saved(warm, "warm", tmp_path), saved(waited, "waited", tmp_path)
    assert got[0]["state_hash"] == want[0]["state_hash"]
    assert got[0]["components"] == want[0]["components"]
    assert got[1] == want[1]
    assert warm.journal().text() == waited.journal().text()


def test_a_save_loads_and_plays_before_the_model_is_loaded(tmp_path):
    first = Game(HARBOR, seed=3, memory=MINILM)
    for line in COMMANDS:
        first.submit(line)
    first.save("midway", tmp_path)
    hold = threading.Event()

    def load():
        with background_memory(until=hold.wait):  # a context variable: set in the thread that loads
            return Game.load("midway", tmp_path)

    loaded = within(20, load)
    for line in ("ask ilse quarrow about weather", "look"):
        within(20, loaded.submit, line)
    assert loaded.warmup.warming
    hold.set()
    again = Game.load("midway", tmp_path)
    for line in ("ask ilse quarrow about weather", "look"):
        again.submit(line)
    assert saved(loaded, "a", tmp_path)[0]["components"] == saved(again, "b", tmp_path)[0]["components"]


def test_the_autopilot_plays_before_the_model_is_loaded_and_as_if_it_had_waited():
    """The autopilot is handed the player's memory context (built in its turn in the queue) and
    reads Σ-Mem's trust (which settles the queue first): the watched game is the same."""
    hold = threading.Event()
    with background_memory(until=hold.wait):
        watched = Game(HARBOR, seed=1, memory=MINILM, player_kind="autopilot")
    first = within(20, watched.play_turn)
    assert watched.warmup.warming and first.kind == "turn"
    threading.Timer(1.0, hold.set).start()  # a read of trust before then waits for it
    for _ in range(14):
        watched.play_turn()
    waited = Game(HARBOR, seed=1, memory=MINILM, player_kind="autopilot")
    for _ in range(15):
        waited.play_turn()
    assert watched.transcript.text() == waited.transcript.text()
    assert watched.components() == waited.components()


def test_a_context_read_while_the_model_loads_is_built_in_its_turn():
    hold = threading.Event()
    with background_memory(until=hold.wait):
        game = Game(HARBOR, seed=0, memory=MINILM)
    game.submit("ask jory about treasure")
    ctx = game.engine.context_provider("player", game.engine.observe("player"))
    assert isinstance(ctx, LaterContext) and not ctx.done
    game.submit("n")  # written after the context was asked for: not in it
    threading.Timer(0.5, hold.set).start()
    text = ctx.text()  # reading it waits for the model, then builds it where it was asked for
    assert ctx.done and "crypt" in text.lower()
    assert not game.warmup.warming and game.warmup.pending == 0


def test_games_outside_the_app_do_not_queue():
    game = Game(HARBOR, seed=0, memory=MINILM)
    game.submit("ask jory about treasure")
    assert not game.warmup.warming and game.warmup.deferred == 0


def test_embedding_ahead_leaves_the_memory_as_it_was():
    """Between turns the app embeds the pending memories into the embedder's cache: the next flush
    then encodes nothing, and the bank is the one it would have been."""
    ahead, plain = Game(HARBOR, seed=0, memory=MINILM), Game(HARBOR, seed=0, memory=MINILM)
    for game in (ahead, plain):
        for line in COMMANDS[:4]:
            game.submit(line)
    bank = ahead.memory.bank
    assert bank.embed_ahead() > 0
    encoded = bank.embedder.stats()["encoded"]
    bank.flush()
    assert bank.embedder.stats()["encoded"] == encoded
    plain.memory.bank.flush()
    assert ahead.memory.get_state() == plain.memory.get_state()


@pytest.mark.parametrize("code", [0, 3])
def test_leaving_after_the_app_ends_the_process_at_once_with_its_output(code):
    """``parley play`` on a terminal ends with ``leave_now`` once the game is saved: the exit code and
    what was printed survive skipping Python's shutdown."""
    script = (
        "import memory.embedder as e; e.MiniLMEmbedder().load()\n"
        "from game.tui import leave_now\n"
        "print('Progress saved.', end='')\n"
        f"leave_now({code})\n"
        "print('never')\n"
    )
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == code
    assert out.stdout == "Progress saved."


def test_the_model_runs_on_one_thread_unless_told_otherwise():
    """A game embeds a few short texts at a time: one thread each call, never a pool of threads
    that waits for its slowest member on busy cores (the multi-second stalls on plain moves)."""
    script = (
        "import torch, memory.embedder as e; e.MiniLMEmbedder().load()\nprint(torch.get_num_threads(), e.THREADS)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PARLEY_EMBEDDER_THREADS"}
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert out.stdout.split() == ["1", "1"]
    env["PARLEY_EMBEDDER_THREADS"] = "2"
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert out.stdout.split() == ["2", "2"]


def test_moves_while_warming_never_wait_to_be_kept_for_undo_and_undo_says_why_it_cannot():
    """Keeping a move for ``undo`` reads every component, memory too: while the model loads it is
    not kept (no move waits for the model), undo says so, and once warm undo works again."""
    hold = threading.Event()
    with background_memory(until=hold.wait):
        game = Game(HARBOR, seed=0, memory={"embedder": "hash"})
    game.warmup.start()
    within(20, game.submit, "n")
    reply = within(20, game.submit, "undo")
    assert "warming up" in " ".join(reply.lines) and game.engine.state.turn == 1
    hold.set()
    game.warmup.settle()
    game.submit("s")
    undone = game.submit("undo")
    assert "Undone" in " ".join(undone.lines) and game.engine.state.turn == 1
