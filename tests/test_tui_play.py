"""The play screen under Pilot: typing a winning game, claim marks, history and completion,
clarification buttons, clicking the side panel, saving, quitting and loading (typed and from
the saves screen); snapshots of the play, help and saves screens."""

from __future__ import annotations

import os
import time

import pytest
from conftest import SCRIPTS, WORLDS

from game.core.types import PLAYER
from game.play.session import Game

pytestmark = pytest.mark.tui
SIZE = (120, 40)


@pytest.fixture
def anyio_backend():
    return "asyncio"


def harbor_app(base, make=None):
    from game.tui.app import ParleyApp

    return ParleyApp(make or (lambda: Game(WORLDS / "harbor", seed=0)), saves_base=base)


async def wait_for(pilot, done, rounds: int = 500) -> None:
    """Let the app run until ``done()`` holds (or ``rounds`` short pauses have passed), then
    let it draw."""
    for _ in range(rounds):
        if done():
            break
        await pilot.pause(0.02)
    await pilot.pause()
    await pilot.pause()


async def ready(pilot) -> None:
    await wait_for(pilot, lambda: pilot.app.game is not None and not pilot.app.busy)


async def settle(pilot, before) -> None:
    """Wait for the answer to what was just submitted (and for the screen to draw it)."""
    await wait_for(pilot, lambda: pilot.app.last_reply is not before and not pilot.app.busy)


async def type_command(pilot, text: str, keys: bool = True) -> None:
    """Type ``text`` into the command line (``keys=False``: paste it) and press Enter."""
    from textual.widgets import Input

    app = pilot.app
    before = app.last_reply
    box = app.screen.query(Input).first()  # the play screen's, or a scene screen's (a trade)
    box.focus()
    if keys:
        await pilot.press(*text)
    else:
        box.value = text
    await pilot.press("enter")
    await settle(pilot, before)


def play_screen(app):
    return next(s for s in app.screen_stack if type(s).__name__ == "PlayScreen")


def story_text(app) -> str:
    from game.tui.widgets.story import Story

    return "\n".join(line.text for line in play_screen(app).query_one(Story).lines)


def script(name: str) -> list[str]:
    lines = (SCRIPTS / name).read_text().splitlines()
    return [s.strip() for s in lines if s.strip() and not s.startswith("#")]


@pytest.mark.anyio
async def test_typing_the_walkthrough_wins_harbor_and_marks_claims(tmp_path):
    from game.tui.widgets.story import Story

    app = harbor_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        for line in script("harbor_win.txt"):
            await type_command(pilot, line, keys=False)
        assert app.game.engine.state.won
        story = play_screen(app).query_one(Story)
        text = story_text(app)
        assert "> ask ilse about strongbox" in text
        # Ilse's claim about the strongbox was marked when told, and verified once the box was opened
        assert "verified" in story.marks()
        assert "✓" in text
        assert "The game is over" in str(play_screen(app).query_one("#command").placeholder)
        for line in ("save won", "look"):  # a meta command, and a move after the end
            await type_command(pilot, line)
            await wait_for(pilot, lambda: not app.busy)
            assert "The game is over" in str(play_screen(app).query_one("#command").placeholder)


@pytest.mark.anyio
async def test_history_completion_and_a_claim_mark(tmp_path):
    app = harbor_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await type_command(pilot, "go east")
        await type_command(pilot, "ask ilse about strongbox")
        assert story_text(app).rstrip().endswith("?")  # a stranger's news: held by the gate, marked disputed
        box = app.screen.query_one("#command")
        await pilot.press("up")
        assert box.value == "ask ilse about strongbox"
        await pilot.press("up")
        assert box.value == "go east"
        await pilot.press("down", "down")
        assert box.value == ""
        await pilot.press(*"talk to il")
        await pilot.pause()
        await pilot.press("tab")
        assert box.value == "talk to Ilse Quarrow"
        box.value = ""
        await pilot.press(*"ex")
        await pilot.pause()
        await pilot.press("tab")
        assert box.value == "examine"


@pytest.mark.anyio
async def test_clarify_buttons_and_clicking_the_side_panel(tmp_path):
    from textual.widgets import Button

    from game.tui.widgets.sidebar import Pick

    app = harbor_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await type_command(pilot, "talk")
        assert app.last_reply.kind == "clarify"
        buttons = {b.label.plain: b for b in app.screen.query(".clarify-option").results(Button)}
        assert set(buttons) == {"Constable Dray", "Jory Flint"}
        before = app.last_reply
        await pilot.click(buttons["Jory Flint"])
        await settle(pilot, before)
        assert app.last_reply.kind == "turn" and "Jory Flint says" in story_text(app)
        assert not app.screen.query(".clarify-option")
        picks = {p.command: p for p in app.screen.query(Pick)}
        assert {"go north", "examine mooring post"} <= set(picks)
        assert "take mooring post" not in picks  # fixed to the quay
        where = app.game.engine.state.where  # Jory wanders: he is offered while he is still here
        assert ("talk to Jory Flint" in picks) == (where["jory"] == where[PLAYER])
        await pilot.click(picks["go north"])
        assert app.screen.query_one("#command").value == "go north"
        await pilot.click(picks["examine mooring post"])
        assert app.screen.query_one("#command").value == "examine mooring post"


@pytest.mark.anyio
async def test_save_quit_and_load_typed_and_from_the_saves_screen(tmp_path):
    from game.tui.screens.saves import ConfirmScreen, SavesScreen

    app = harbor_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await type_command(pilot, "go east")
        await type_command(pilot, "save slot1")
        await wait_for(pilot, lambda: "Saved to" in story_text(app))
        assert "Saved to" in story_text(app)
        state = app.game.engine.state_hash()
        await type_command(pilot, "quit")
    assert app.return_code == 0
    # a new app continues the saved game
    again = harbor_app(tmp_path, lambda: Game.load("slot1", tmp_path))
    async with again.run_test(size=SIZE) as pilot:
        await ready(pilot)
        assert again.game.engine.state_hash() == state
        await type_command(pilot, "go west")
        assert again.game.engine.state.turn == 2
    # a fresh game loads it from the saves screen, and asks before overwriting a save it did not write
    third = harbor_app(tmp_path)
    async with third.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f4")
        await pilot.pause()
        assert isinstance(third.screen, SavesScreen)
        await pilot.press("l")
        await wait_for(pilot, lambda: type(third.screen).__name__ == "PlayScreen" and not third.busy)
        assert third.game.engine.state_hash() == state
        assert "Loaded. Turn 1." in story_text(third)
        third.screen.query_one("#command").focus()
        await pilot.press(*"save slot1", "enter")
        await wait_for(pilot, lambda: isinstance(third.screen, ConfirmScreen))
        assert isinstance(third.screen, ConfirmScreen)
        await pilot.pause(quiet())  # read, then answered (keys typed on at once go to the command line)
        await pilot.press("n")
        await wait_for(pilot, lambda: "left as it was" in story_text(third))
        assert "Not saved; 'slot1' was left as it was." in story_text(third)
        # delete it from the saves screen, after a confirmation
        await pilot.press("f4")
        await pilot.pause()
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(third.screen, ConfirmScreen)
        await pilot.press("y")
        await pilot.pause()
        assert not (tmp_path / "slot1" / "save.json").exists()


@pytest.mark.anyio
async def test_palette_lists_the_screens(tmp_path):
    app = harbor_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert {"Help screen", "Journal screen", "Saves screen", "Look", "Inventory", "Toggle theme"} <= set(titles)
        await type_command(pilot, "help")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen"
        await pilot.press("escape")
        assert type(app.screen).__name__ == "PlayScreen"


# --- the review's findings ------------------------------------------------------------------------
def gated_harbor():
    """A harbor game factory whose submissions wait until the returned gate is opened (a slow
    model whose answer the test decides when to release), so no assertion races the clock."""
    import threading

    gate = threading.Event()

    def make():
        game = Game(WORLDS / "harbor", seed=0)
        submit = game.submit
        game.submit = lambda text: (gate.wait(30), submit(text))[1]
        return game

    return make, gate


@pytest.mark.anyio
async def test_quitting_answers_an_open_overwrite_question(tmp_path):
    from game.tui.screens.saves import ConfirmScreen

    Game(WORLDS / "harbor", seed=0).save("slot1", tmp_path)  # a save this session did not write
    kept = (tmp_path / "slot1" / "save.json").read_bytes()
    app = harbor_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await type_command(pilot, "go east")
        app.screen.query_one("#command").value = "save slot1"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen))
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: app.return_code is not None)
    assert app.return_code == 0
    assert app.turn_lock.acquire(timeout=5)  # the save's thread was answered "no" and has ended
    assert (tmp_path / "slot1" / "save.json").read_bytes() == kept


@pytest.mark.anyio
async def test_quitting_during_a_turn_waits_for_the_turn(tmp_path):
    make, gate = gated_harbor()
    app = harbor_app(tmp_path, make)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        app.screen.query_one("#command").value = "go east"
        await pilot.press("enter")
        assert app.busy
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert app.return_code is None and app.game.engine.state.turn == 0
        assert any("Finishing the turn" in str(n.message) for n in app._notifications)
        gate.set()
        await wait_for(pilot, lambda: app.return_code is not None)
        assert app.game.engine.state.turn == 1
    assert app.return_code == 0


def test_run_tui_saves_only_once_the_turn_is_over(tmp_path, monkeypatch, capsys):
    import threading

    from game.tui import run_tui
    from game.tui.app import ParleyApp

    def quit_during_a_turn(self):  # the app returns while its worker is still playing
        self.game = Game(WORLDS / "harbor", seed=0)
        started = threading.Event()

        def turn():
            with self.turn_lock:
                started.set()
                time.sleep(0.3)
                self.game.submit("go east")

        threading.Thread(target=turn).start()
        assert started.wait(5)
        return 0

    monkeypatch.setattr(ParleyApp, "run", quit_during_a_turn)
    assert run_tui(lambda: None, saves_base=tmp_path) == 0
    assert "Finishing the turn" in capsys.readouterr().out
    assert Game.load("autosave-harbor-v1", tmp_path).engine.state.turn == 1


@pytest.mark.anyio
async def test_commands_typed_during_a_turn_wait_their_turn(tmp_path):
    make, gate = gated_harbor()  # the first turn lasts until all three commands are typed
    app = harbor_app(tmp_path, make)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        box = app.screen.query_one("#command")
        for line in ("go east", "go west", "go east"):
            box.value = line
            await pilot.press("enter")
        assert app.busy and list(app.pending) == ["go west", "go east"]
        await pilot.pause()
        assert story_text(app).count("> go ") == 1  # each is echoed when its turn starts
        assert "queued: go west  ·  go east" in str(app.screen.query_one("#queued").render())
        gate.set()
        assert box.history == ["go east", "go west", "go east"]
        await wait_for(pilot, lambda: app.game.engine.state.turn == 3 and not app.busy)
        assert app.game.engine.state.turn == 3 and not app.pending
        assert [r for r in story_text(app).splitlines() if r.startswith(">")] == ["> go east", "> go west", "> go east"]
        same = Game(WORLDS / "harbor", seed=0)
        for line in ("go east", "go west", "go east"):
            same.submit(line)
        assert app.game.engine.state_hash() == same.engine.state_hash()  # played in the order typed


@pytest.mark.anyio
async def test_a_huge_paste_is_cut_to_the_longest_command(tmp_path):
    from textual import events

    from game.engine.parser import MAX_INPUT

    app = harbor_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        box = app.screen.query_one("#command")
        assert box.max_length == MAX_INPUT
        started = time.perf_counter()
        box.post_message(events.Paste("x" * 20_000))
        await pilot.pause()
        await pilot.press(*"yyyy")
        assert box.value == "x" * MAX_INPUT
        assert time.perf_counter() - started < 5
        await type_command(pilot, "look " + "z" * 5000, keys=False)  # set in the box past its limit
        echo = next(e[1][0] for e in play_screen(app).story.entries if e[1][0].startswith("> look"))
        assert len(echo) <= 202 and echo.endswith("…")


@pytest.mark.anyio
async def test_the_story_wraps_again_when_the_terminal_is_resized(tmp_path):
    from game.tui.widgets.story import Story

    app = harbor_app(tmp_path)
    async with app.run_test(size=(200, 40)) as pilot:
        await ready(pilot)
        story = play_screen(app).query_one(Story)
        story.note("word " * 30)
        await pilot.pause()
        rows = len(story.lines)
        await pilot.resize_terminal(80, 40)
        await wait_for(pilot, lambda: len(story.lines) > rows, rounds=100)
        width = story.scrollable_content_region.width
        assert len(story.lines) > rows
        assert max(line.cell_length for line in story.lines) <= width


@pytest.mark.anyio
async def test_loading_opens_and_closes_the_trade_screen_and_trade_commands_are_echoed(tmp_path):
    game = Game(WORLDS / "bazaar", seed=0)
    game.save("before", tmp_path)
    for line in ("go north", "go west", "trade with tavish"):
        game.submit(line)
    game.save("mid-trade", tmp_path)
    app = harbor_app(tmp_path, lambda: Game.load("mid-trade", tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await wait_for(pilot, lambda: type(app.screen).__name__ == "NegotiationScreen")
        assert type(app.screen).__name__ == "NegotiationScreen"  # opened at once
        await type_command(pilot, "offer price=45 lining=wool")
        assert "> offer price=45 lining=wool" in story_text(app)
        assert story_text(app).count("> offer price=45") == 1
        await type_command(pilot, "load before")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "PlayScreen" and not app.busy)
        assert type(app.screen).__name__ == "PlayScreen"  # the stale trade screen closed
        assert app.game.engine.state.turn == 0
        await pilot.press("f4")
        await pilot.pause()
        table = app.screen.query_one("#saves-table")
        table.move_cursor(row=table.get_row_index("mid-trade"))
        await pilot.press("l")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "NegotiationScreen" and not app.busy)
        assert type(app.screen).__name__ == "NegotiationScreen"
        assert [type(s).__name__ for s in app.screen_stack[1:]] == ["PlayScreen", "NegotiationScreen"]


# --- snapshots ---------------------------------------------------------------------------------
def _fixed_time(monkeypatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


def test_snapshot_play_screen(snap_compare, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    async def before(pilot):
        await ready(pilot)
        for line in ("go east", "ask ilse about strongbox", "go west"):
            await type_command(pilot, line)

    assert snap_compare(harbor_app("saves"), terminal_size=SIZE, run_before=before)


def test_snapshot_help_screen(snap_compare, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    async def before(pilot):
        await ready(pilot)
        await pilot.press("f1")
        await pilot.pause()

    assert snap_compare(harbor_app("saves"), terminal_size=SIZE, run_before=before)


def test_snapshot_saves_screen(snap_compare, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _fixed_time(monkeypatch)
    for name, moves in (("harbor-start", ()), ("by-the-office", ("go east",))):
        game = Game(WORLDS / "harbor", seed=0)
        for move in moves:
            game.submit(move)
        folder = game.save(name, "saves")
        os.utime(folder / "save.json", (1_700_000_000, 1_700_000_000))

    async def before(pilot):
        await ready(pilot)
        await pilot.press("f4")
        await pilot.pause()

    try:
        assert snap_compare(harbor_app("saves"), terminal_size=SIZE, run_before=before)
    finally:
        monkeypatch.undo()
        time.tzset()


def quiet() -> float:
    """How long a question waits for the typing to pause before it takes a key (``ParleyApp``)."""
    from game.tui.app import QUIET

    return QUIET
