"""Autosave slots: a person's autosave (``autosave-<world>``, one generation kept as ``-previous``)
is written only by that person's games. A watched game has its own slot (``watch-<world>``);
replays, headless runs and tournaments write none. The check, the keeping and the write happen
under the saves folder's lock, so two games that stop at the same moment keep both (two real
``parley play --plain`` processes, stopped by the end of input or by SIGHUP)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from game.play.autosave import farewell
from game.play.session import Game
from tests.conftest import ROOT, parley

MINI = ROOT / "tests" / "fixtures" / "mini"
SLOT = "autosave-mini-v1"


def files(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (path -> bytes), locks left out."""
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != ".lock"
    }


def persons_game(saves: Path, moves: tuple[str, ...] = ("look", "take iron key")) -> dict[str, bytes]:
    """A person plays a little and leaves: their autosave. Returns the saves folder's files."""
    game = Game(MINI, seed=0)
    for line in moves:
        game.submit(line)
    farewell(game, saves, lambda _text: None)
    assert (saves / SLOT / "save.json").is_file()
    return files(saves)


@pytest.mark.tui
@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_watching_twice_never_writes_or_moves_the_persons_autosave(tmp_path, anyio_backend):
    from game.tui.app import ParleyApp

    saves = tmp_path / "saves"
    before = persons_game(saves)
    said: list[str] = []
    for watched in (1, 2):
        app = ParleyApp(lambda: Game(MINI, seed=0, player_kind="autopilot"), saves_base=saves, spectate="autopilot")
        app.speed = 8.0
        async with app.run_test(size=(100, 30)) as pilot:
            end = time.monotonic() + 30
            while app.game is None or app.game.engine.state.turn < 1 + watched:
                assert time.monotonic() < end, "the watched game never moved"
                await pilot.pause(0.05)
            app.exit(0)
        farewell(app.game, saves, said.append)  # what `parley watch` does on leaving (game.tui.run_tui)
        mine = {k: v for k, v in files(saves).items() if k.startswith(SLOT)}
        assert mine == before, f"watched game {watched} touched the person's autosave"
        watched_save = json.loads((saves / "watch-mini-v1" / "save.json").read_text())
        assert watched_save["turn"] == app.game.engine.state.turn
    assert sorted(p.name for p in saves.iterdir() if p.is_dir()) == [SLOT, "watch-mini-v1"]
    assert any("your own autosave is untouched" in line and "watch-mini-v1" in line for line in said)


def test_replay_run_and_tournament_leave_the_saves_alone(tmp_path):
    saves = tmp_path / "saves"
    before = persons_game(saves)
    env = {"PARLEY_SAVES": str(saves)}
    r = parley("replay", SLOT, env=env)
    assert r.returncode == 0 and "replay ok" in r.stdout, r.stderr
    r = parley("run", str(MINI), "--autopilot", "--no-memory", "--turns", "5", "--quiet", env=env)
    assert r.returncode == 0, r.stderr
    config = tmp_path / "t.toml"
    config.write_text(
        'name = "slots"\nkind = "adventure"\nseeds = [0]\nturns = 5\n[[competitors]]\nname = "a"\nagent = "autopilot"\n'
        f"[[scenarios]]\nworld = {json.dumps(str(MINI))}\n"
    )
    r = parley("tournament", str(config), "--out", str(tmp_path / "t"), "--quiet", "--no-report", env=env)
    assert r.returncode == 0, r.stderr
    assert files(saves) == before


@pytest.mark.tui
@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_replay_in_the_app_leaves_the_saves_alone(tmp_path, anyio_backend):
    from game.tui.screens.watch import ReplayApp, ReplayRun

    saves = tmp_path / "saves"
    before = persons_game(saves, ("look", "take iron key", "n", "s"))
    app = ReplayApp(ReplayRun(SLOT, saves), speed=8.0)
    async with app.run_test(size=(100, 30)) as pilot:
        end = time.monotonic() + 30
        while app.replay.engine.state.turn < 2:
            assert time.monotonic() < end, "the replay never moved"
            await pilot.pause(0.05)
        app.exit(0)
    assert files(saves) == before


# --- two games stopping at the same moment ---------------------------------------------------


class Player:
    """``parley play worlds/harbor --plain --seed N`` in a real process, fed through a pipe."""

    def __init__(self, seed: int, saves: Path) -> None:
        env = {**os.environ, "PARLEY_SAVES": str(saves), "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "game.cli.main", "play", "worlds/harbor", "--plain", "--no-memory"]
            + ["--seed", str(seed)],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.out = ""
        self.prompts = threading.Semaphore(0)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while chunk := self.proc.stdout.read(1):
            self.out += chunk
            if self.out.endswith("\n> "):
                self.prompts.release()

    def play(self, line: str) -> None:
        """Type ``line`` and wait for the next prompt (the turn is played and the game waits)."""
        assert self.prompts.acquire(timeout=60), self.out
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def ready(self) -> None:
        assert self.prompts.acquire(timeout=60), self.out


def race(tmp_path: Path, stop) -> list[int]:
    """Two games (seeds 0 and 1) play a move each, then ``stop`` ends both at once; the seeds of
    the autosaves left in the saves folder."""
    saves = tmp_path / f"saves-{time.monotonic_ns()}"
    players = [Player(seed, saves) for seed in (0, 1)]
    for p in players:
        p.play("north" if p is players[0] else "east")
    for p in players:
        p.ready()
    stop([p.proc for p in players])
    for p in players:
        p.proc.wait(timeout=60)
        assert "Traceback" not in p.proc.stderr.read()
    return sorted(json.loads((d / "save.json").read_text())["seed"] for d in saves.iterdir() if d.is_dir())


def end_of_input(procs) -> None:
    for proc in procs:
        proc.stdin.close()


def hang_up(procs) -> None:
    """What closing two terminals does: SIGHUP, and their input ends."""
    for proc in procs:
        proc.send_signal(signal.SIGHUP)
    end_of_input(procs)


@pytest.mark.parametrize("stop", [end_of_input, hang_up], ids=["end-of-input", "sighup"])
def test_two_games_stopping_together_keep_both_autosaves(tmp_path, stop):
    for _ in range(4):
        assert race(tmp_path, stop) == [0, 1]  # autosave-harbor-v1 and its -previous: one game each
