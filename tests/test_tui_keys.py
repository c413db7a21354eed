"""Keys under Pilot: a question or the help opened by a typed-ahead line never takes the keys
of the lines typed after it; F1 help lists every key the play screen and its command line
handle; ``parley watch``'s start-up notes are shown in the app."""

from __future__ import annotations

import asyncio
import sys

import pytest
from conftest import WORLDS
from test_tui_play import SIZE, harbor_app, play_screen, ready, story_text, wait_for

from game.play.session import Game

pytestmark = pytest.mark.tui
SLOW = 2.0  # the pause a question waits for (a slow typist's; Pilot on a busy machine is one)


@pytest.fixture
def anyio_backend():
    return "asyncio"


def command_value(app) -> str:
    return play_screen(app).command_line.value


async def until_shown(app, name: str) -> None:
    """Wait (in short steps, not for the app to idle) until the screen ``name`` is on top, so
    the next key comes as soon after it as a person typing on would send it."""
    for _ in range(2000):
        if type(app.screen).__name__ == name:
            return
        await asyncio.sleep(0.005)


@pytest.mark.anyio
async def test_keys_typed_ahead_never_answer_the_overwrite_question(tmp_path):
    from game.tui.screens.saves import ConfirmScreen

    Game(WORLDS / "harbor", seed=0).save("slot1", tmp_path)  # a save this game did not write: it asks
    app = harbor_app(tmp_path)
    app.quiet = SLOW
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        play_screen(app).command_line.focus()
        await pilot.press(*"save slot1", "enter")
        await until_shown(app, "ConfirmScreen")
        await pilot.press(*"north", "enter")  # typed straight on: the next command, not "n" for No
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert list(app.pending) == ["north"]
        await pilot.pause(SLOW)  # the player stops, reads the question, answers it
        await pilot.press("y")
        await wait_for(pilot, lambda: app.last_reply is not None and app.last_reply.said == "north" and not app.busy)
        assert "Saved to" in story_text(app)
        assert app.last_reply.said == "north" and not app.pending


@pytest.mark.anyio
async def test_a_help_opened_by_a_typed_ahead_line_leaves_the_next_keys_to_the_command_line(tmp_path):
    app = harbor_app(tmp_path)
    app.quiet = SLOW
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        play_screen(app).command_line.focus()
        await pilot.press(*"help", "enter")
        await until_shown(app, "HelpScreen")
        await pilot.press(*"qu")  # the next line, typed on: it does not close the help
        await pilot.pause()
        assert type(app.screen).__name__ == "HelpScreen"
        assert command_value(app) == "qu"
        await pilot.pause(SLOW)
        await pilot.press("q")  # after a pause, q closes the help as its footer says
        await pilot.pause()
        assert type(app.screen).__name__ == "PlayScreen"
        assert command_value(app) == "qu"


@pytest.mark.anyio
async def test_f1_help_lists_every_key_of_the_play_screen_and_its_command_line(tmp_path):
    from textual.widgets import Static

    from game.tui.screens.help import key_names
    from game.tui.widgets.command_input import CommandInput

    app = harbor_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        play = app.screen
        await pilot.press("f1")
        await pilot.pause()
        table = app.screen.query_one("#help-keys", Static).content  # the table the help shows
        listed = [" | ".join(str(cell) for cell in column._cells) for column in table.columns]
        keys, does = listed[0], listed[1]
        for binding in (*type(play).BINDINGS, *CommandInput.BINDINGS, *app.BINDINGS):
            assert key_names(app, binding) in keys, binding.key
        assert "pgup" in keys and "shift+pgup" in keys and "pgdn" in keys
        assert "scroll the story up" in does


@pytest.mark.anyio
async def test_watch_start_notes_show_in_the_app_not_before_it(tmp_path, monkeypatch, capsys):
    from game.cli.arguments import build_parser
    from game.cli.commands import watch_start
    from game.tui.app import Notes, ParleyApp

    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # the 'memory' extra is not installed
    args = build_parser().parse_args(["watch", "harbor", "--saves-dir", str(tmp_path)])
    start, _llm = watch_start(args, Notes())
    assert "agent memory is off" not in capsys.readouterr().err  # nothing printed under the app
    app = ParleyApp(start["make_game"], saves_base=tmp_path, spectate=start["seat"], notes=start["notes"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.game is not None)
        shown = "\n".join(str(n.message) for n in app._notifications)
        assert "agent memory is off" in shown and "'memory' extra" in shown
