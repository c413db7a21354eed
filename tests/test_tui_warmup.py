"""The app while the embedding model warms in the background: the header says "warming
memory…", the first `ask` is answered at once, and the status goes once the model is ready
(and what memory kept waiting is applied then)."""

from __future__ import annotations

import threading

import pytest
from conftest import WORLDS

from game.play.session import Game
from game.play.warmup import background_memory

pytestmark = pytest.mark.tui
SIZE = (120, 40)


@pytest.fixture
def anyio_backend():
    return "asyncio"


async def wait_for(pilot, done, rounds: int = 1000) -> None:
    for _ in range(rounds):
        if done():
            break
        await pilot.pause(0.02)
    await pilot.pause()


@pytest.mark.anyio
async def test_the_first_ask_does_not_wait_for_the_model_and_the_status_says_so(tmp_path):
    from textual.widgets import Header

    from game.tui.app import ParleyApp

    hold = threading.Event()

    def make():
        with background_memory(until=hold.wait):  # the model counts as loading until the test says
            return Game(WORLDS / "harbor", seed=0, memory={"embedder": "minilm"})

    app = ParleyApp(make, saves_base=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.game is not None and not app.busy)
        assert app.game.warmup.warming
        assert "warming memory…" in app.sub_title
        assert "warming memory…" in str(app.screen.query_one(Header).screen_sub_title)
        before = app.last_reply
        app.screen.submit("ask jory about treasure")
        await wait_for(pilot, lambda: app.last_reply is not before and not app.busy)
        assert app.last_reply is not before and "crypt" in " ".join(app.last_reply.lines)
        assert app.game.warmup.warming and app.game.warmup.pending > 0  # its memory writes wait
        hold.set()
        await wait_for(pilot, lambda: "warming" not in app.sub_title and app.game.warmup.pending == 0)
        assert "warming" not in app.sub_title
        assert app.sub_title == app.game.spec.title
        assert app.game.warmup.pending == 0  # applied once the model was ready, before any next turn
