"""The play screen: the story, the command input, and side panels for the place, the player
and the quests."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Header, Input, RichLog, Static

from game.tui.app import GameReady, ReplyReady
from game.types import PLAYER


class PlayScreen(Screen):
    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="story-column"):
            yield RichLog(id="story", wrap=True, markup=False)
            yield Input(placeholder="Loading the world…", id="command", disabled=True)
        yield Static("", id="sidebar")
        yield Footer()

    def on_game_ready(self, _: GameReady) -> None:
        game = self.app.game
        self.query_one(RichLog).write(game.intro())
        box = self.query_one(Input)
        box.disabled, box.placeholder = False, "What do you do?"
        box.focus()
        self.refresh_sidebar()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value
        event.input.value = ""
        if text.strip():
            self.query_one(RichLog).write(f"> {text}")
            self.app.send(text)

    def on_reply_ready(self, message: ReplyReady) -> None:
        reply = message.reply
        log = self.query_one(RichLog)
        for line in reply.lines:
            log.write(line)
        if reply.kind == "meta" and reply.meta == "quit":
            self.app.exit(0)
        elif reply.kind == "meta" and reply.meta == "help":
            pass
        self.refresh_sidebar()

    def refresh_sidebar(self) -> None:
        game = self.app.game
        if game is None:
            return
        obs = game.engine.observe(PLAYER)
        lines = [obs.name(obs.location), "", "Exits: " + (", ".join(obs.exits) or "none"),
                 "Here: " + (", ".join(map(obs.name, obs.visible)) or "nobody, nothing"),
                 "Carrying: " + (", ".join(map(obs.name, obs.inventory)) or "nothing"),
                 f"Gold {obs.gold}   Score {obs.score}   Turn {obs.turn}/{obs.max_turns}", "", "Quests:"]
        lines += [("✓ " if q.done else "• ") + q.title for q in obs.quests]
        self.query_one("#sidebar", Static).update("\n".join(lines))
