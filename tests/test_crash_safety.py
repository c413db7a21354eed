"""Saves survive kill -9 at any instant, and odd names or text never break saving.

- real SIGKILLs at seeded random instants, to a process that loads and saves in a loop
  (forked from a warm process, so many kills stay cheap) and to the real `parley play`;
- a deterministic crash at every file-system step of a save and of a load's clean-up;
- Hypothesis: any save name is saved inside the saves folder or refused with an
  InputError/SaveError; any text in the state (lone surrogates included) saves and loads.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import game.core.files as files_mod
import game.play.save_files as saves_mod
from game.core.errors import InputError
from game.core.types import PLAYER, Action, Verb
from game.play.persistence import replay
from game.play.save_files import LOCK_FILE, SAVE_FILE, TRANSCRIPT_FILE
from game.play.session import Game
from tests.conftest import ROOT

MINI = ROOT / "tests" / "fixtures" / "mini"
CLEAN = {SAVE_FILE, TRANSCRIPT_FILE, LOCK_FILE}


def leftovers(folder: Path) -> set[str]:
    """Files of ours that a finished save would not keep."""
    return {p.name for p in folder.iterdir()} - CLEAN if folder.is_dir() else set()


def check_whole(base: Path, name: str) -> Game | None:
    """If the save exists, it loads, replays to its saved state, and the load cleaned up."""
    folder = base / name
    if not (folder / SAVE_FILE).exists():
        return None
    game = Game.load(name, base)
    ok, got, want = replay(name, base)
    assert ok, f"replay diverged: {got} vs {want}"
    assert leftovers(folder) == set(), sorted(folder.iterdir())
    return game


# --- real kill -9 ------------------------------------------------------------------------------

# A warm process that forks one saver per round. The saver loads the save if there is one
# (finishing an interrupted write), then plays and saves to the same name until killed.
ZYGOTE = textwrap.dedent("""
    import os, sys, traceback
    sys.path.insert(0, sys.argv[1])
    from pathlib import Path
    from game.engine.parser import Command
    from game.play.persistence import replay
    from game.play.session import Game
    world, base, name = sys.argv[2], sys.argv[3], sys.argv[4]
    LINES = [ln for ln in Path(sys.argv[5]).read_text().splitlines()
             if ln.strip() and not ln.startswith("#")] + ["wait", "look", "wait"]
    Game(world, seed=0).save("warm-up", base)  # import everything before the first fork
    Game.load("warm-up", base)
    replay("warm-up", base)
    print("ready", flush=True)
    for cmd in sys.stdin:
        cmd = cmd.split()
        if cmd[0] == "fork":
            pid = os.fork()
            if pid == 0:
                try:
                    if (Path(base) / name / "save.json").exists():
                        game = Game.load(name, base)  # must work: a failure ends the child early
                    else:
                        game = Game(world, seed=0)
                    i, games = game.engine.state.turn, 0
                    while True:
                        if game.engine.done:
                            games += 1
                            game = Game(world, seed=games)
                        parsed = game.parser.parse(LINES[i % len(LINES)], game.engine.scope())
                        i += 1
                        if isinstance(parsed, Command):
                            game.act(parsed.action)
                        game.save(name, base)
                except BaseException:
                    traceback.print_exc()
                finally:
                    os._exit(3)
            print(pid, flush=True)
        elif cmd[0] == "reap":
            print(os.waitpid(int(cmd[1]), 0)[1], flush=True)
""")


def test_kill_9_at_random_instants_never_loses_the_save(tmp_path):
    """60 SIGKILLs at instants drawn from a seeded Generator: after each, the save loads,
    replays, and its folder holds exactly save.json and transcript.jsonl once loaded."""
    rng = np.random.default_rng(20240917)
    kills = 60
    # mostly anywhere in a few dozen saves; some early, during the load that starts each round
    delays = np.where(rng.random(kills) < 0.25, rng.uniform(0.0, 0.03, kills), rng.uniform(0.0, 0.25, kills))
    base = tmp_path / "saves"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            ZYGOTE,
            str(ROOT),
            str(MINI),
            str(base),
            "k",
            str(ROOT / "tests" / "fixtures" / "mini_win.txt"),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    seen_mid_write, turns = 0, []

    def fail(why: str) -> None:
        proc.kill()  # first, so that reading its stderr cannot wait forever
        pytest.fail(f"{why}:\n{proc.communicate(timeout=30)[1]}")

    try:
        if proc.stdout.readline().strip() != "ready":
            fail("the saver process did not start")
        for delay in delays:
            proc.stdin.write("fork\n")
            proc.stdin.flush()
            pid = int(proc.stdout.readline())
            time.sleep(float(delay))
            os.kill(pid, signal.SIGKILL)
            proc.stdin.write(f"reap {pid}\n")
            proc.stdin.flush()
            status = int(proc.stdout.readline())
            if not (os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL):
                fail(f"the saver stopped on its own (status {status}), e.g. its load failed")
            seen_mid_write += bool(leftovers(base / "k"))
            game = check_whole(base, "k")
            if game is not None:
                turns.append(game.engine.state.turn)
    finally:
        proc.kill()
        proc.wait()
    # most rounds get to save at least once (a loaded machine saves less often before the kill; what
    # matters above is that no kill ever left a save that does not load)
    assert len(turns) >= kills * 3 // 4, "most rounds get to save at least once"
    assert len(set(turns)) > 5, f"the saves moved on between kills: {turns}"
    print(f"{kills} kills; {seen_mid_write} left an interrupted write behind; turns {turns}")
    # one more save after all that: still exactly the two files
    Game.load("k", base).save("k", base)
    assert leftovers(base / "k") == set()


def test_kill_9_of_parley_play_saving_from_stdin(tmp_path):
    """The real front end: `parley play` reading `save k` lines, killed at seeded instants.
    A new session asks before overwriting a save it did not write, so each script says y."""
    rng = np.random.default_rng(7)
    base = tmp_path / "saves"
    script = tmp_path / "in.txt"
    script.write_text("save k\ny\n" + "wait\nsave k\nsave k\n" * 140 + "quit\n")
    env = {**os.environ, "PARLEY_SAVES": str(base), "PYTHONUNBUFFERED": "1"}
    killed = 0
    for n, delay in enumerate(rng.uniform(0.0, 0.4, 8)):
        out, err = tmp_path / f"out{n}.txt", tmp_path / f"err{n}.txt"
        with script.open() as stdin, out.open("w") as fout, err.open("w") as ferr:
            proc = subprocess.Popen(
                [sys.executable, "-m", "game.cli.main", "play", "--no-memory", "worlds/harbor"],
                cwd=ROOT,
                stdin=stdin,
                stdout=fout,
                stderr=ferr,
                env=env,
            )
            deadline = time.monotonic() + 60
            while not out.read_text() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.005)  # the title is out: the game is built and reads its input
            time.sleep(float(delay))
            proc.kill()
            proc.wait(timeout=60)
        killed += proc.returncode == -signal.SIGKILL
        assert "Traceback" not in err.read_text(), err.read_text()
        check_whole(base, "k")
    assert killed >= 6, "most runs were killed while playing"
    r = subprocess.run(
        [sys.executable, "-m", "game.cli.main", "replay", "k"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0 and "replay ok" in r.stdout, r.stderr


# --- a crash at every step, deterministically -------------------------------------------------


class Crash(BaseException):
    """The process stops here: nothing after it runs (not even clean-up handlers' file calls)."""


class FaultyOS:
    """``os`` for game.play.save_files and the file writer it uses (game.core.files), where the
    ``at``-th replace/fsync/unlink 'kills the process': that call and every later one of them
    fail, as if nothing ran after it."""

    FAULTED = ("replace", "fsync", "unlink")

    def __init__(self, at: int):
        self.at, self.calls, self.crashed = at, 0, False

    def __getattr__(self, name):
        real = getattr(os, name)
        if name not in self.FAULTED:
            return real

        def call(*a, **kw):
            if self.crashed or self.calls == self.at:
                self.crashed = True
                raise Crash(name)
            self.calls += 1
            return real(*a, **kw)

        return call


def use_os(monkeypatch, fake) -> None:
    """Give the save code (game.play.save_files, game.core.files) ``fake`` as its ``os``."""
    for mod in (saves_mod, files_mod):
        monkeypatch.setattr(mod, "os", fake)


def played(turns: int, seed: int = 0) -> Game:
    game = Game(MINI, seed=seed)
    for _ in range(turns):
        game.act(Action(PLAYER, Verb.WAIT))
    return game


def crash_save_at(monkeypatch, game: Game, base: Path, at: int) -> bool:
    """Save with a crash at step ``at``; True if the save finished before reaching it."""
    use_os(monkeypatch, FaultyOS(at))
    try:
        game.save("s", base)
        return True
    except Crash:
        return False
    finally:
        use_os(monkeypatch, os)


@pytest.mark.parametrize("before", ["clean", "pending"])
def test_a_crash_at_every_step_of_a_save_leaves_the_old_or_the_new_save(tmp_path, monkeypatch, before):
    """``before="pending"``: the previous save itself stopped right after its commit, so the
    folder starts with save.json pointing at transcript-<digest>.jsonl, not yet renamed."""
    old, new = played(2), played(5)
    hashes = {"old": old.engine.state_hash(), "new": new.engine.state_hash()}
    seen, at = [], 0
    while True:
        base = tmp_path / f"{before}-{at}"
        played(1).save("s", base)  # an older save, whose files the next ones replace
        if before == "pending":
            steps = 0
            while crash_save_at(monkeypatch, old, base, steps) is False:
                data = saves_mod.read_save(base / "s")
                if data["transcript"] == saves_mod.transcript_digest(old.transcript.text()):
                    break  # committed: stopped between the commit and the rename
                steps += 1
            assert (base / "s" / saves_mod.pending_name(data["transcript"])).is_file()
        else:
            old.save("s", base)
        finished = crash_save_at(monkeypatch, new, base, at)
        loaded = Game.load("s", base)
        which = next(k for k, h in hashes.items() if h == loaded.engine.state_hash())
        assert loaded.transcript.text() == (old if which == "old" else new).transcript.text()
        assert replay("s", base)[0]
        assert leftovers(base / "s") == set()
        seen.append(which)
        if finished:
            break
        at += 1
    assert seen[-1] == "new" and "old" in seen, seen
    switch = seen.index("new")
    assert set(seen[switch:]) == {"new"}, f"once committed, the new save stays: {seen}"
    assert at >= 7, "the save has at least 7 steps that can be interrupted"


def test_a_crash_while_a_load_cleans_up_leaves_a_save_that_loads(tmp_path, monkeypatch):
    """A load that finishes an interrupted save (rename, deletions) can itself be killed."""
    old, new = played(2), played(5)
    at = 0
    while True:
        base = tmp_path / str(at)
        old.save("s", base)
        folder = base / "s"
        (folder / ".save.json.abc123.tmp").write_text("{")  # what earlier kills leave
        (folder / ".transcript-0123456789abcdef.jsonl.x.tmp").write_text("")
        (folder / "transcript-fedcba9876543210.jsonl").write_text("old pending\n")
        steps = 0
        while crash_save_at(monkeypatch, new, base, steps) is False:
            if saves_mod.read_save(folder)["transcript"] == saves_mod.transcript_digest(new.transcript.text()):
                break
            steps += 1
        use_os(monkeypatch, FaultyOS(at))
        try:
            Game.load("s", base)
            finished = True
        except Crash:
            finished = False
        finally:
            use_os(monkeypatch, os)
        assert check_whole(base, "s").engine.state_hash() == new.engine.state_hash()
        if finished:
            break
        at += 1
    assert at >= 3


# --- Hypothesis ----------------------------------------------------------------------------

ANY_TEXT = st.text(
    st.one_of(
        st.characters(codec=None, exclude_categories=()),  # any code point
        st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, exclude_categories=()),
        st.sampled_from(["\ud83d", "\ude00", "\U0001f600", "\\", '"', "\n", "\x1b", "\u202e"]),
    ),
    max_size=40,
)
NAMES = st.one_of(
    ANY_TEXT,
    st.sampled_from(
        [
            ".",
            "..",
            "...",
            "/",
            "../x",
            "/tmp/x",
            "~",
            "~/x",
            "a/../../b",
            "\x00",
            "-",
            "_",
            " ",
            "CON",
            "x" * 300,
            "..\\x",
            "save.json",
        ]
    ),
    st.text(st.sampled_from("./\\-_ ~aZ9"), max_size=12),
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(name=NAMES)
def test_any_save_name_saves_inside_the_saves_folder_or_is_refused(tmp_path_factory, name):
    top = tmp_path_factory.mktemp("names")
    base = top / "saves"
    game = played(1)
    try:
        folder = game.save(name, base)
    except InputError as e:  # SaveError is an InputError
        assert e.hint, "a refused name says what would do"
        folder = None
    try:
        Game.load(name, base, inside=True)
    except InputError:
        pass
    try:
        saves_mod.remove(name, base)
    except InputError:
        pass
    made = [p for p in top.rglob("*")]
    assert all(p == base or base in p.parents for p in made), made
    if folder is not None:
        assert folder.parent == base and folder.name != "quicksave"
        assert not (folder / SAVE_FILE).exists(), "remove by the same name deleted it"


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(texts=st.lists(ANY_TEXT.filter(lambda t: t.strip()), min_size=1, max_size=3))
def test_any_text_in_the_state_saves_loads_and_replays(tmp_path_factory, texts):
    base = tmp_path_factory.mktemp("text")
    game = played(1)
    for t in texts:  # straight into the engine, past the input edge's clean-up
        game.act(Action(PLAYER, Verb.SAY, text=t))
    game.save("odd", base)
    loaded = Game.load("odd", base)
    assert loaded.engine.state_hash() == game.engine.state_hash()
    assert replay("odd", base)[0]
    loaded.save("odd", base)  # and again from the loaded state
    assert Game.load("odd", base).engine.state_hash() == game.engine.state_hash()
