"""The minimap under Pilot: readable labels (whole names, or word-abbreviated ones with what they
stand for), up/down exits drawn as such, and a map that still shows the places around the player
after the council has voted."""

from __future__ import annotations

import time

import pytest

from game.play.session import Game
from tests.conftest import WORLDS

pytestmark = [pytest.mark.tui, pytest.mark.anyio]


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def play(world: str, commands: list[str], size=(120, 40)) -> tuple[str, str]:
    """Type ``commands`` into the app; the minimap's text and its tooltip afterwards."""
    from game.tui.app import ParleyApp
    from game.tui.widgets.minimap import Minimap

    app = ParleyApp(lambda: Game(WORLDS / world, seed=0, memory=None))
    async with app.run_test(size=size) as pilot:
        end = time.monotonic() + 60
        for command in [None, *commands]:
            before = app.last_reply
            if command is not None:
                app.send(command)
            while app.game is None or app.busy or (command is not None and app.last_reply is before):
                assert time.monotonic() < end, "the app never answered"
                await pilot.pause(0.02)
            await pilot.pause()
        if type(app.screen).__name__ != "PlayScreen":
            await pilot.press("escape")
            await pilot.pause()
        minimap = app.screen.query_one(Minimap)
        return str(minimap.render()), str(minimap.tooltip or "")


async def test_labels_are_readable_and_up_down_exits_are_drawn():
    text, tooltip = await play("harbor", ["north", "east", "west", "north", "down"])
    assert "MarRo" not in text and "VosCh" not in text and "SeaCh" not in text
    assert "Market Row" in text and "Chandlery" in text and "Quay" in text
    assert "Crypt↑" in text and "Chapel↓" in text  # a way up from the crypt, down from the chapel
    crypt_row = next(line for line in text.splitlines() if "Crypt" in line)
    assert not crypt_row.split("Crypt↑")[1].lstrip().startswith("─")  # the stair is no sideways corridor
    assert "↕" in text  # it is drawn as a way up and down
    assert "Seafarers' Chapel" in text + tooltip  # what the short label stands for


async def test_the_minimap_still_shows_the_town_after_the_council_votes():
    text, _ = await play("council", ["north", "vote yes"], size=(80, 24))
    lines = text.splitlines()
    assert "Town Hall" in text and "Town Square" in text
    assert lines[0].strip(), text  # no empty band at the top
