"""``ParleyApp``: the terminal app. It holds one ``Game``, runs every turn in a worker thread
(the embedder, NPCs and LLMs never block the screen), and hands each ``Reply`` to the screens."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual import work
from textual.app import App
from textual.binding import Binding
from textual.message import Message

from game.reply import Reply


class GameReady(Message):
    """The game is built (the first screen painted before it, while models loaded)."""


class ReplyReady(Message):
    """A submission was answered."""

    def __init__(self, reply: Reply) -> None:
        super().__init__()
        self.reply = reply


class ParleyApp(App):
    """Plays one game. ``make_game`` builds it in a worker (so the screen paints at once);
    ``saves_base``: where saves go; ``spectate``: a seat name to watch play instead of a person."""

    CSS_PATH = "parley.tcss"
    TITLE = "Parley"
    BINDINGS = [
        Binding("f1", "help", "Help"),
        Binding("ctrl+j", "screen('journal')", "Journal", show=False),
        Binding("ctrl+q", "quit_game", "Quit", priority=True),
    ]

    def __init__(self, make_game: Callable[[], Any], saves_base: str | Path | None = None,
                 spectate: str | None = None) -> None:
        super().__init__()
        self.make_game = make_game
        self.saves_base = saves_base
        self.spectate = spectate
        self.game: Any = None
        self.busy = False
        self.saved_by_us: dict[str, tuple[str, str]] = {}  # save slug -> what this session last wrote there

    # --- start -------------------------------------------------------------------------------
    def on_mount(self) -> None:
        from game.tui.screens.play import PlayScreen
        self.push_screen(PlayScreen())
        self.build_game()

    @work(thread=True, exclusive=True, group="game")
    def build_game(self) -> None:
        game = self.make_game()
        self.call_from_thread(self._game_built, game)

    def _game_built(self, game: Any) -> None:
        self.game = game
        self.sub_title = game.spec.title
        self.screen.post_message(GameReady())

    # --- turns -------------------------------------------------------------------------------
    def send(self, text: str) -> None:
        """Submit what the player typed (ignored while a turn is being played)."""
        if self.game is None or self.busy:
            return
        self.busy = True
        self._submit(text)

    @work(thread=True, exclusive=True, group="game")
    def _submit(self, text: str) -> None:
        try:
            reply = self.game.submit(text)
        finally:
            self.busy = False
        self.call_from_thread(self.screen.post_message, ReplyReady(reply))

    # --- leaving -----------------------------------------------------------------------------
    def action_quit_game(self) -> None:
        self.exit(0)

    def action_help(self) -> None:
        from game.parser import HELP_TEXT
        self.notify(HELP_TEXT, title="Commands", timeout=20)
