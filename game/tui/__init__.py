"""The Textual terminal app (``parley play`` on a terminal; ``--plain`` keeps the line console).

It only draws ``Reply``s and observations and sends commands through ``Game.submit`` /
``Game.play_turn``: no game logic lives here. Textual is imported only when the app runs;
without it (a core install) importing this package raises ``game.core.extras.ExtraMissing`` naming the
'tui' extra.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, NoReturn

from game.core.extras import require

# every screen comes through this package: without textual, say which extra brings it (exit 2 at the CLI)
require("tui", "the terminal app", hint="parley play --plain plays in the line console without it")


def run_tui(
    make_game: Callable[[], Any],
    saves_base: str | Path | None = None,
    spectate: str | None = None,
    notes: Any = None,
    resume: Any = None,
) -> int:
    """Run the app until the player quits; then, as the line console does, say the score and
    autosave an unfinished game (also after a crash, Ctrl-C or SIGTERM/SIGHUP). ``notes``
    (``game.tui.app.Notes``) are shown in the app; ``resume`` (``game.tui.app.Resume``): an
    autosave the player is asked to continue."""
    from game.tui.app import ParleyApp

    app = ParleyApp(make_game, saves_base=saves_base, spectate=spectate, notes=notes, resume=resume)
    try:
        code = app.run()
    finally:
        if app.game is not None:
            from game.play.autosave import farewell as _farewell

            if not app.turn_lock.acquire(blocking=False):  # never save a game a turn is changing
                print("Finishing the turn…")
                app.turn_lock.acquire()
            try:
                _farewell(app.game, saves_base, print)
            finally:
                app.turn_lock.release()
    if app.start_error is not None:  # the CLI says it as any bad input: one line, exit 2
        raise app.start_error
    return int(code or 0)


def leave_now(code: int) -> NoReturn:
    """End the process once the terminal app has closed and the game is saved. Python's own
    shutdown frees every loaded module one by one, which takes seconds once the embedding model
    (torch) is loaded: 1.2 s on a quiet machine, 4.4 s on a busy one, after Ctrl+Q. Nothing is
    left to do by then, so the output is flushed and the process ends at once."""
    import logging
    import os

    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # the terminal is gone
            pass
    os._exit(int(code or 0))


@contextmanager
def leaving() -> Iterator[list[int]]:
    """``parley play`` and ``parley watch`` on a terminal: the block runs the app (appending its
    exit code to the list it is handed), then the process ends at once (``leave_now``), also when a
    signal (SIGTERM, SIGHUP: ``SystemExit``) ended the app after its autosave. A process that left
    through Python's shutdown while the model still loaded in a background thread could spin on."""
    code: list[int] = []
    try:
        yield code
    except SystemExit as stop:
        code.append(stop.code if isinstance(stop.code, int) else 1)
    leave_now(code[-1] if code else 0)
