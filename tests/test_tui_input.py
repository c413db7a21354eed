"""The terminal app's input and start: lines typed ahead in a burst each run, in order, under
their own command; keys typed while the world loads are kept; PageUp / PageDown scroll the
story from the command line; an autosave is offered at start and start-up notes show in the
app; ``parley play 2>log`` draws on the terminal (a real process on a pseudo-terminal)."""

from __future__ import annotations

import os
import sys
import threading
import time

import pytest
from conftest import ROOT, WORLDS
from test_tui_play import quiet, wait_for

from game.play.session import Game

pytestmark = pytest.mark.tui
SIZE = (120, 40)
AHEAD = ("ask jory about treasure", "ask jory about weather", "look")


@pytest.fixture
def anyio_backend():
    return "asyncio"


def type_fast(app, text: str) -> None:
    """Keys as a terminal delivers quick typing: all of them queued at once, none waiting for
    the one before it to be handled (``pilot.press`` waits after each key)."""
    from textual import events

    for ch in text:
        app.post_message(events.Key({"\n": "enter", " ": "space"}.get(ch, ch), "\r" if ch == "\n" else ch))


def story_lines(app) -> list[str]:
    from game.tui.widgets.story import Story

    play = next(s for s in app.screen_stack if type(s).__name__ == "PlayScreen")
    return [line.text for line in play.query_one(Story).lines]


def under_each_command(lines: list[str]) -> dict[str, str]:
    """The story after the intro, cut at each echoed command: command -> what follows it (one line)."""
    blocks: dict[str, str] = {}
    current = None
    for line in lines:
        if line.startswith("> "):
            current = line[2:]
            assert current not in blocks, f"{current!r} echoed twice"
            blocks[current] = ""
        elif current is not None:
            blocks[current] += " " + line
    return {k: " ".join(v.split()) for k, v in blocks.items()}


def slow_harbor(gate: threading.Event, when: str = "turn"):
    """A harbor game whose building (``when="build"``) or every turn waits for ``gate``: a slow
    model, released when the test says, so the keys surely arrive while it works."""

    def make():
        if when == "build":
            gate.wait(30)
        game = Game(WORLDS / "harbor", seed=0)
        if when == "turn":
            submit = game.submit
            game.submit = lambda text: (gate.wait(30), submit(text))[1]
        return game

    return make


@pytest.mark.anyio
async def test_lines_typed_ahead_in_a_burst_each_run_in_order_under_their_own_command(tmp_path):
    from game.tui.app import ParleyApp

    gate = threading.Event()
    app = ParleyApp(slow_harbor(gate), saves_base=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.game is not None and not app.busy)
        type_fast(app, "".join(line + "\n" for line in AHEAD))
        await wait_for(pilot, lambda: len(app.pending) == 2)
        assert app.busy and list(app.pending) == list(AHEAD[1:])  # the first is played, two wait
        assert "queued: ask jory about weather  ·  look" in str(app.screen.query_one("#queued").render())
        gate.set()
        await wait_for(pilot, lambda: not app.busy and not app.pending)
        blocks = under_each_command(story_lines(app))
        assert list(blocks) == list(AHEAD)  # all three ran, in the order typed
        same = Game(WORLDS / "harbor", seed=0)
        for line in AHEAD:
            for said in same.submit(line).lines:  # each reply sits under its own command
                assert " ".join(said.split()) in blocks[line], (line, said, blocks)
        assert app.game.engine.state_hash() == same.engine.state_hash()
        assert app.screen.query_one("#command").history == list(AHEAD)
        assert not app.screen.query_one("#queued").display


@pytest.mark.anyio
async def test_keys_typed_while_the_world_loads_are_kept(tmp_path):
    from game.tui.app import ParleyApp

    gate = threading.Event()
    app = ParleyApp(slow_harbor(gate, when="build"), saves_base=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        box = app.screen.query_one("#command")
        assert app.game is None and app.focused is box
        type_fast(app, "go east\nlo")
        await wait_for(pilot, lambda: box.value == "lo")
        assert list(app.pending) == ["go east"] and box.value == "lo"
        gate.set()
        await wait_for(pilot, lambda: app.game is not None and not app.busy and not app.pending)
        type_fast(app, "ok\n")
        await wait_for(pilot, lambda: "look" in under_each_command(story_lines(app)) and not app.busy)
        assert list(under_each_command(story_lines(app))) == ["go east", "look"]
        same = Game(WORLDS / "harbor", seed=0)
        for line in ("go east", "look"):
            same.submit(line)
        assert app.game.engine.state_hash() == same.engine.state_hash()
        assert story_lines(app)[0] == "The Brinewick Strongbox"  # the intro came first


@pytest.mark.anyio
async def test_a_paste_of_several_lines_runs_each_line(tmp_path):
    from textual import events

    from game.tui.app import ParleyApp

    app = ParleyApp(lambda: Game(WORLDS / "harbor", seed=0), saves_base=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.game is not None and not app.busy)
        box = app.screen.query_one("#command")
        app.post_message(events.Paste("look\r\ninventory\nexam"))
        await wait_for(pilot, lambda: "inventory" in under_each_command(story_lines(app)) and not app.busy)
        assert list(under_each_command(story_lines(app))) == ["look", "inventory"]
        assert box.value == "exam" and box.history == ["look", "inventory"]


@pytest.mark.anyio
async def test_page_keys_scroll_the_story_while_the_command_line_has_the_focus(tmp_path):
    from game.tui.app import ParleyApp
    from game.tui.widgets.story import Story

    app = ParleyApp(lambda: Game(WORLDS / "harbor", seed=0), saves_base=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.game is not None and not app.busy)
        story, box = app.screen.query_one(Story), app.screen.query_one("#command")
        for n in range(120):
            story.note(f"line {n}")
        await pilot.pause()
        bottom = story.scroll_y
        assert bottom > 60 and app.focused is box
        await pilot.press("pageup")
        await pilot.pause()
        once = story.scroll_y
        assert once < bottom
        await pilot.press("shift+pageup")
        await pilot.pause()
        assert story.scroll_y < once
        await pilot.press("pagedown", "shift+pagedown")
        await pilot.pause()
        assert story.scroll_y == bottom and app.focused is box


def start_like_parley_play(tmp_path, *flags: str):
    """``parley play``'s start-up as on a terminal: its checks and notes, then the app."""
    from game.cli.arguments import build_parser
    from game.cli.play import app_start, play_setup
    from game.tui.app import Notes, ParleyApp

    args = build_parser().parse_args(["play", "harbor", "--no-memory", "--saves-dir", str(tmp_path), *flags])
    notes = Notes()
    seed, llm = play_setup(args, notes)
    return ParleyApp(**app_start(args, seed, llm, notes, []))


def an_autosave(tmp_path) -> bytes:
    from game.play.autosave import autosave_name

    game = Game(WORLDS / "harbor", seed=0)
    for line in ("go east", "go west"):
        game.submit(line)
    folder = game.save(autosave_name(game), tmp_path)
    return (folder / "save.json").read_bytes()


def notes_of(app) -> str:
    return "\n".join(str(n.message) for n in app._notifications)


@pytest.mark.anyio
async def test_an_autosave_is_offered_at_start_and_start_notes_show_in_the_app(tmp_path, monkeypatch):
    from textual.widgets import Label

    from game.tui.screens.resume import ResumeScreen

    an_autosave(tmp_path)
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)  # the map window cannot open: said in the app
    app = start_like_parley_play(tmp_path, "--map")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ResumeScreen))
        assert isinstance(app.screen, ResumeScreen) and app.game is None
        asked = " ".join(str(label.render()) for label in app.screen.query(Label))
        assert "Autosave found (turn 2) — continue or start anew?" in asked
        assert "map: " in notes_of(app) and "playing on without it" in notes_of(app)
        await pilot.pause(quiet())  # the player reads the question (keys before that go to the command line)
        await pilot.press("enter")  # continue
        await wait_for(pilot, lambda: app.game is not None and not app.busy)
        assert app.game.engine.state.turn == 2
        assert app.game.loaded_from == (tmp_path / "autosave-harbor-v1").resolve()
        assert "Continuing autosave-harbor-v1 at turn 2." in notes_of(app)
        assert app.focused is app.screen.query_one("#command")


@pytest.mark.anyio
async def test_starting_anew_keeps_the_autosave_and_ctrl_q_at_the_question_leaves(tmp_path):
    from game.tui.screens.resume import ResumeScreen

    kept = an_autosave(tmp_path)
    app = start_like_parley_play(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ResumeScreen))
        await pilot.pause(quiet())
        await pilot.press("n")
        await wait_for(pilot, lambda: app.game is not None and not app.busy)
        assert app.game.engine.state.turn == 0 and app.game.loaded_from is None
        assert "kept as autosave-harbor-v1-previous" in notes_of(app)
    assert (tmp_path / "autosave-harbor-v1" / "save.json").read_bytes() == kept
    app = start_like_parley_play(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ResumeScreen))
        await pilot.press("ctrl+q")  # leaves at once: nothing is being built yet
        await wait_for(pilot, lambda: app.return_code is not None, rounds=50)
        assert app.return_code == 0 and app.game is None


def test_play_with_stderr_redirected_draws_the_app_on_the_terminal(tmp_path):
    """``parley play 2>log`` on a terminal: the screen is drawn (on stdout), the log keeps what
    is written to stderr meanwhile and no screen output, and Ctrl+Q leaves as usual."""
    pty = pytest.importorskip("pty")
    import fcntl
    import select
    import struct
    import subprocess
    import termios

    site = tmp_path / "site"  # in the process: a line written to stderr while the app runs
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        "import sys, threading, time\n"
        "def later():\n"
        "    while sys.stderr is sys.__stderr__:\n"
        "        time.sleep(0.05)\n"
        "    print('a line for the log', file=sys.stderr)\n"
        "threading.Thread(target=later, daemon=True).start()\n"
    )
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    paths = os.pathsep.join((str(site), str(ROOT)))
    env = {**os.environ, "PARLEY_SAVES": str(tmp_path), "TERM": "xterm-256color", "PYTHONPATH": paths}
    log = tmp_path / "log"
    with log.open("wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "game.cli", "play", "harbor", "--no-memory"],
            stdin=slave,
            stdout=slave,
            stderr=err,
            cwd=ROOT,
            env=env,
            start_new_session=True,
        )
    os.close(slave)
    end = time.monotonic() + 120

    def read_until(done) -> bytes:
        """What the app draws, read until ``done(read)`` or the process ends (read on while
        waiting: a terminal nobody reads fills up and blocks the app)."""
        got = b""
        while not done(got) and proc.poll() is None and time.monotonic() < end:
            if select.select([master], [], [], 0.2)[0]:
                try:
                    got += os.read(master, 1 << 16)
                except OSError:
                    break
        return got

    try:
        shown = read_until(lambda got: b"Brinewick" in got)
        assert b"Brinewick" in shown, f"nothing drawn on the terminal; the log has {log.read_bytes()[:200]!r}"
        os.write(master, b"\x11")  # Ctrl+Q
        read_until(lambda got: False)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    assert b"\x1b[" not in log.read_bytes() and b"a line for the log" in log.read_bytes()
