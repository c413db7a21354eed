"""The game's meta commands in the app, under Pilot: ``undo`` takes the last move back and says
so in the story; ``again`` (``g``) repeats the last command; ``score`` and ``quests`` answer in
the story and spend no turn."""

from __future__ import annotations

import pytest
from test_tui_play import harbor_app, ready, story_text, type_command

pytestmark = pytest.mark.tui
SIZE = (120, 40)


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_undo_and_again_in_the_app(tmp_path):
    app = harbor_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await type_command(pilot, "go north")
        assert app.game.engine.state.where["player"] == "market_row"
        await type_command(pilot, "undo")
        assert app.game.engine.state.where["player"] == "quay" and app.game.engine.state.turn == 0
        assert "[Undone: 'go north'; back to turn 0, nothing more to undo.]" in story_text(app)
        await type_command(pilot, "wait")
        await type_command(pilot, "g")
        assert app.game.engine.state.turn == 2 and app.last_reply.command == "wait"
        assert story_text(app).count("Time passes.") == 2


@pytest.mark.anyio
async def test_score_and_quests_in_the_app(tmp_path):
    app = harbor_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await type_command(pilot, "score", keys=False)
        await type_command(pilot, "quests", keys=False)
        story = story_text(app)
        assert app.game.engine.state.turn == 0
        assert "You have 0 of 110 points, in 0 turns. Quests done: 0 of 3." in story
        assert "A Promise Kept: Captain Gannet swore" in story and "[ ] Open the strongbox" in story
