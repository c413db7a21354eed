"""Line-mode play in the terminal (the Textual TUI builds on the same session)."""

from __future__ import annotations

from collections.abc import Callable

from game.core.types import PLAYER
from game.play.autosave import autosave_name, farewell, journal, keep_other_autosave, save_as  # noqa: F401  (re-exported)


def run_console(
    game,
    saves_base: str | None = None,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    on_reply: Callable[..., None] | None = None,
) -> int:
    """Read commands until quit or the end of the game, showing each ``Reply``; save, load and
    quit are carried out here (undo, again, oops and transcript by the game: ``game.play.meta``). A
    turn that fails through a bug is taken back, saved and said (``report_failed_turn``), and the
    game goes on. ``on_reply(reply)`` is called with each reply as it comes (and
    ``on_reply(reply, game)`` after a load, with the loaded game). Returns the exit code: 2 when
    the game's autosave could not be written (``farewell`` said where and why)."""
    from game.core.errors import ParleyError
    from game.play.autosave import report_failed_turn
    from game.play.session import Game, TurnError

    game.saves_base = saves_base if saves_base is not None else game.saves_base
    write(game.intro())
    ours: dict[str, tuple[str, str]] = {}  # save slug -> what this session last wrote there
    saved = True
    try:
        while not game.engine.done:
            try:
                line = read("\n> ")
            except EOFError:
                write("")
                break
            try:
                reply = game.submit(line)
            except TurnError as e:  # a bug: the turn was taken back; say so, save, and play on
                write(report_failed_turn(e, saves_base))
                continue
            if on_reply is not None and reply.meta != "load":
                on_reply(reply)
            if reply.kind != "meta" or reply.meta not in ("quit", "save", "load"):  # help, journal, undo...
                for text in reply.lines:
                    write(text)
                if reply.outage is not None:  # an LLM outage: the finished turn was shown; stop
                    raise reply.outage
            elif reply.meta == "quit":
                break
            elif reply.meta == "save":
                write(save_as(game, reply.arg or "quicksave", saves_base, read, ours))
            elif reply.meta == "load":
                try:
                    loaded = Game.load(
                        reply.arg or "quicksave", saves_base, llm=game.llm, llm_npcs=game.llm_npcs or "all", inside=True
                    )
                    game.hand_on(loaded)
                    game = loaded
                    if on_reply is not None:
                        on_reply(reply, game)
                    write(
                        f"Loaded. Turn {game.engine.state.turn}.\n"
                        + game.engine.describe(PLAYER, game.engine.state.where[PLAYER])
                    )
                except ParleyError as e:
                    write(f"Could not load: {e.render()}")
                except OSError as e:
                    write(f"Could not load: {e}")
    finally:
        game.meta.end()
        saved = farewell(game, saves_base, write)
    return 0 if saved else 2
