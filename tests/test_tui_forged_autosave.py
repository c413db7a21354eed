"""The terminal app's offer to continue an autosave, when the autosave is a consistent forgery
(well-typed, its hash recomputed, but naming what its world lacks): continuing says why it
cannot, a new game starts, and the autosave is left byte for byte as it was."""

from __future__ import annotations

import pytest
from conftest import WORLDS, forge_save
from test_tui_input import SIZE, notes_of, start_like_parley_play
from test_tui_play import quiet, wait_for

from game.play.session import Game


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.anyio
async def test_a_forged_autosave_offered_at_start_is_refused_with_its_field_and_left_as_it_was(tmp_path):
    from game.play.autosave import autosave_name
    from game.tui.screens.resume import ResumeScreen

    game = Game(WORLDS / "harbor", seed=0)
    for line in ("go east", "go west"):
        game.submit(line)
    folder = game.save(autosave_name(game), tmp_path)
    (folder / ".lock").unlink(missing_ok=True)
    forge_save(folder, lambda d: d["engine"]["state"]["where"].__setitem__("Dray", "quay"))
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    app = start_like_parley_play(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, ResumeScreen))
        assert isinstance(app.screen, ResumeScreen)  # the file's shape is a save's: it is offered
        await pilot.pause(quiet())
        await pilot.press("enter")  # continue
        await wait_for(pilot, lambda: app.game is not None and not app.busy)
        assert app.game.engine.state.turn == 0 and app.game.loaded_from is None
        said = notes_of(app)
        assert "Could not continue autosave-harbor-v1" in said and "engine.state.where.Dray" in said, said
        for line in ("look", "wait"):
            app.game.submit(line)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
