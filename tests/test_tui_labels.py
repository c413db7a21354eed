"""Labels that say what happens: every key a footer shows does something on its screen (watch,
replay, play, help), Esc in a watch is a pause and says so, F1 help says "Commands" once, the
palette's Memory entry says whose memory it shows, and the side panel offers take only for
things that can be carried."""

from __future__ import annotations

import pytest
from conftest import ROOT, WORLDS
from test_tui_watch import scripted_save, until, watch_app

from game.play.session import Game
from game.tui.app import ParleyApp
from game.tui.screens.watch import ReplayApp, ReplayRun, WatchScreen

pytestmark = [pytest.mark.tui, pytest.mark.anyio]
SIZE = (120, 40)
MINI = ROOT / "tests" / "fixtures" / "mini"


@pytest.fixture
def anyio_backend():
    return "asyncio"


def footer(app) -> dict[str, tuple[str, str]]:
    """The keys the footer shows on the current screen: action -> (key, label), one key per action."""
    shown: dict[str, tuple[str, str]] = {}
    for key, active in app.screen.active_bindings.items():
        b = active.binding
        if b.show and active.enabled:
            shown.setdefault(b.action, (key, b.description))
    return shown


def observed(app) -> tuple:
    """What a key can change that a player sees: the screens, the theme, leaving, a watch's
    controls (paused, speed, moves shown, the state it says), the focus and where things are scrolled."""
    s = app.screen
    watch = tuple(getattr(s, name, None) for name in ("paused", "speed", "turns", "state"))
    scrolled = tuple(tuple(w.scroll_offset) for w in s.query("*") if w.is_scrollable)
    return tuple(type(x).__name__ for x in app.screen_stack), app.theme, app._exit, watch, app.focused, scrolled


LEAVING = ("pop_screen", "close", "quit_game")  # keys that leave the screen (or the app): pressed last


async def every_shown_key_does_something(pilot, where: str) -> list[str]:
    """Press each key the footer shows, keys that leave last (Back, then Quit); after each of
    the others, back to the screen it was on. Returns the labels pressed."""
    app = pilot.app
    depth, shown = len(app.screen_stack), footer(app)
    assert shown, f"{where}: the footer shows no keys"
    order = sorted(shown.items(), key=lambda kv: next((i for i, a in enumerate(LEAVING) if a in kv[0]), -1))
    for action, (key, label) in order:
        if app._exit or len(app.screen_stack) < depth:
            break  # left the screen (Back): the keys that quit the app are another screen's now
        before = observed(app)
        await pilot.press(key)
        await pilot.pause(0.1)
        assert observed(app) != before, f"{where}: the footer shows {key} {label!r}, and pressing it changes nothing"
        if "quit_game" in action:
            assert app._exit, f"{where}: {key} {label!r} did not leave"
        while len(app.screen_stack) > depth:
            app.pop_screen()
            await pilot.pause()
    return [label for _, (_, label) in order]


async def test_every_key_the_replay_footer_shows_does_something(tmp_path):
    """Was: a replay's footer listed F2-F4 (journal, memory, saves), which only said there is no
    live game."""
    app = ReplayApp(ReplayRun(scripted_save(tmp_path, 4), tmp_path), speed=0.5)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, WatchScreen)
        labels = await every_shown_key_does_something(pilot, "replay")
    assert not {"Journal", "Memory", "Saves"} & set(labels)


async def test_every_key_the_watch_footer_shows_does_something(tmp_path):
    app = watch_app(tmp_path, speed=0.5, memory={"embedder": "hash"})
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.game is not None and isinstance(app.screen, WatchScreen))
        labels = await every_shown_key_does_something(pilot, "watch")
    assert {"Help", "Journal", "Memory", "Saves", "Step"} <= set(labels)


async def test_watch_escape_is_labelled_pause_and_pauses(tmp_path):
    """Was: the footer said "esc Stop", but Esc pauses: space carries on."""
    app = watch_app(tmp_path, speed=20.0)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.game is not None and isinstance(app.screen, WatchScreen))
        screen = app.screen
        key, label = footer(app)["stop"]
        assert key == "escape" and label == "Pause"
        await pilot.press("escape")
        await until(pilot, lambda: not app.busy)
        moves = screen.turns
        await pilot.pause(0.3)
        assert screen.paused and not screen.ended and screen.turns == moves  # paused, not over
        await pilot.press("space")
        await until(pilot, lambda: screen.turns > moves)  # and space carries on


async def test_every_key_the_play_and_help_footers_show_does_something(tmp_path):
    app = ParleyApp(lambda: Game(MINI, seed=0, memory={"embedder": "hash"}), saves_base=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.game is not None and not app.busy)
        await pilot.press("f1")
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen"
        await every_shown_key_does_something(pilot, "help")  # Esc goes back
        assert type(app.screen).__name__ == "PlayScreen"
        await every_shown_key_does_something(pilot, "play")


async def test_f1_help_says_commands_once(tmp_path):
    """Was: the heading "Commands" and then the command list's own first line "Commands (case...)"."""
    from textual.widgets import Static

    app = ParleyApp(lambda: Game(MINI, seed=0), saves_base=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.game is not None and not app.busy)
        await pilot.press("f1")
        await pilot.pause()
        texts = [str(w.content) for w in app.screen.query("#help-body Static").results(Static)]
        body = "\n".join(texts)
        assert body.count("Commands") == 1
        assert "Case doesn't matter" in body and "go north" in body  # the note and the list stay


def test_the_palette_says_a_player_sees_their_own_memory():
    """Was: "What the NPCs remember and why", though a player's Memory screen shows only their own."""
    from game.tui.screens.help import palette_commands

    def entries(app) -> dict[str, str]:
        return {c.title: c.help for c in palette_commands(app)}

    player = entries(ParleyApp(lambda: None))
    assert player["Memory screen"] == "What you remember this turn, and why"
    assert {"Look", "Inventory", "Wait", "Save and quit"} <= set(player)
    spectator = entries(ParleyApp(lambda: None, spectate="autopilot"))
    assert "NPC" in spectator["Memory screen"]
    assert not {"Look", "Inventory", "Wait"} & set(spectator)  # nothing to play for a spectator
    from game.tui.screens.memory import InspectApp

    inspect = InspectApp(Game(MINI, seed=0))
    assert not {"Look", "Inventory", "Wait", "Saves screen", "Save and quit"} & set(entries(inspect))
    assert inspect.check_action("open_screen", ("saves",)) is False  # F4: inspect --tui loads nothing


async def test_the_side_panel_offers_take_only_for_things_that_can_be_carried(tmp_path):
    """Was: take mooring post (fixed to the quay) was offered like take lighthouse key."""
    from game.tui.widgets.sidebar import Pick

    app = ParleyApp(lambda: Game(WORLDS / "harbor", seed=0), saves_base=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.game is not None and not app.busy)
        picks = {p.command for p in app.screen.query(Pick)}
        assert "examine mooring post" in picks and "take mooring post" not in picks
        app.send("west")  # the net sheds: a key to carry and nets nailed to the wall
        await until(pilot, lambda: "take lighthouse key" in {p.command for p in app.screen.query(Pick)})
        picks = {p.command for p in app.screen.query(Pick)}
        assert "examine tangle of drying nets" in picks and "take tangle of drying nets" not in picks


async def test_f1_help_in_a_replay_lists_its_keys_and_no_screens_it_lacks(tmp_path):
    """Was: the help listed only the app's keys (F2-F4 too, which a replay lacks), not space, s,
    + and - or Esc."""
    app = ReplayApp(ReplayRun(scripted_save(tmp_path, 2), tmp_path), speed=0.5)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        keys, does = (list(column._cells) for column in app.screen.query_one("#help-keys").content.columns)
        listed = dict(zip(keys, does, strict=True))
        assert listed["space"] == "Play/pause" and listed["s or →"] == "Step" and listed["esc"] == "Pause"
        assert listed["f1"] == "Help" and not {"Journal", "Memory", "Saves"} & set(does)
