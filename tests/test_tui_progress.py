"""``score`` and ``quests`` typed in the app, under Pilot: the answers show in the story and no
turn is spent."""

from __future__ import annotations

import pytest
from test_tui_play import harbor_app, ready, story_text, type_command

pytestmark = pytest.mark.tui
SIZE = (120, 40)


@pytest.fixture
def anyio_backend():
    return "asyncio"


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
