"""A game the app cannot build (a save whose world changed, a bad world) ends the app with exit
code 2 and the error, said once by the CLI; never a worker's traceback with its locals."""

from __future__ import annotations

import asyncio

from game.core.errors import SaveError
from game.tui.app import ParleyApp


def test_a_save_that_cannot_be_played_closes_the_app_with_exit_2_and_its_error():
    def unplayable():
        raise SaveError("saves/x/save.json: world 'harbor-v1' changed since this save", hint="restore the world")

    async def run() -> ParleyApp:
        app = ParleyApp(unplayable)
        async with app.run_test() as pilot:
            await pilot.pause(0.5)
        return app

    app = asyncio.run(run())  # a worker that failed would raise WorkerFailed here
    assert app.return_code == 2 and isinstance(app.start_error, SaveError)
    assert "changed since this save" in str(app.start_error)
