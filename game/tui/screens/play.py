"""The play screen: the story, the command line (history and completion), clarification
questions as buttons, and side panels for the place, the player, the quests and a map."""

from __future__ import annotations

import importlib.util
from collections import deque
from typing import Any

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Input, LoadingIndicator

from game.core.types import PLAYER
from game.tui.app import GameReady, ReplyReady
from game.tui.screens.saves import GameLoaded, load_game, save_game
from game.tui.widgets.command_input import CommandInput
from game.tui.widgets.minimap import Minimap
from game.tui.widgets.sidebar import Pick, Sidebar
from game.tui.widgets.story import NOTE_STYLE, Story

READY = "What do you do?  (help: F1 or 'help')"
THINKING = "…thinking"
OVER = "The game is over. (save, load, quit, journal still work)"


class PlayScreen(Screen):
    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._nouns: tuple[str, ...] = ()
        self._echoed: deque[str] = deque()  # commands echoed here whose replies have not come
        self._drawn: deque[Any] = deque(maxlen=8)  # the last replies drawn (a scene screen passes them on too)

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="story-column"):
            yield Story(id="story")
            yield Horizontal(id="clarify")
            yield LoadingIndicator(id="thinking")
            yield CommandInput(self.nouns, placeholder="Loading the world…", id="command", disabled=True)
        with Vertical(id="side-column"):
            yield Sidebar(id="sidebar")
            yield Minimap(id="minimap")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#thinking").display = False
        self.query_one("#clarify").display = False
        self.query_one(Minimap).border_title = "Map"

    @property
    def story(self) -> Story:
        return self.query_one(Story)

    @property
    def command_line(self) -> CommandInput:
        return self.query_one(CommandInput)

    def nouns(self) -> tuple[str, ...]:
        return self._nouns

    # --- the game ------------------------------------------------------------------------
    async def on_game_ready(self, _: GameReady) -> None:
        game = self.app.game
        game.saves_base = self.app.saves_base  # where `transcript on` writes
        self.story.facts = game.facts
        self.story.note(game.intro())
        box = self.command_line
        box.disabled, box.placeholder = False, self.ready_text()
        box.focus()
        await self.refresh_panels()

    async def on_game_loaded(self, message: GameLoaded) -> None:
        self.thinking(self.app.busy or bool(self.app.pending))
        self.story.facts = self.app.game.facts
        self.story.note(message.text, "" if message.text.startswith("Loaded") else NOTE_STYLE)
        await self.refresh_panels()

    async def refresh_panels(self) -> None:
        game = self.app.game
        if game is None:
            return
        scope = game.engine.observe(PLAYER).scope
        found = tuple(getattr(scope, "nouns", ()))
        nouns = [n.name for n in found] + [a for n in found for a in n.aliases]
        self._nouns = (
            tuple(nouns)
            + tuple(getattr(scope, "exits", ()))
            + tuple(t.replace("_", " ") for t in getattr(scope, "topics", ()))
        )
        await self.query_one(Sidebar).show(game)
        self.query_one(Minimap).update_from(game)
        self.story.refresh_marks()

    # --- typing --------------------------------------------------------------------------
    def submit(self, text: str) -> None:
        """Play what the player typed (or clicked)."""
        if not text.strip() or self.app.game is None:
            return
        if self.app.quitting:
            self.notify("Finishing the turn…", severity="warning")
            return
        self.command_line.remember(text)
        self.story.command(text)
        self._echoed.append(text)
        self.show_options((), {})
        self.app.send(text)  # queued while a turn is played
        self.thinking(self.app.busy)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value
        event.input.value = ""
        self.submit(text)

    def thinking(self, on: bool) -> None:
        self.query_one("#thinking").display = on
        box = self.command_line
        if not box.disabled:
            box.placeholder = THINKING if on else self.ready_text()

    def ready_text(self) -> str:
        game = self.app.game
        return OVER if game is not None and game.engine.done else READY

    def on_pick_chosen(self, message: Pick.Chosen) -> None:
        box = self.command_line
        box.value = message.command
        box.cursor_position = len(box.value)
        box.focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        answer = getattr(event.button, "answer", None)
        if answer is not None:
            event.stop()
            self.submit(answer)

    def show_options(self, options: tuple[str, ...], names: dict[str, str]) -> None:
        """A clarification's options as buttons (each answers with the option's name, or its
        number when two options share a name)."""
        row = self.query_one("#clarify", Horizontal)
        row.remove_children()
        row.display = bool(options)
        labels = [names.get(o, o) for o in options]
        for i, label in enumerate(labels):
            button = Button(label, classes="clarify-option", compact=True)
            button.answer = label if labels.count(label) == 1 else str(i + 1)
            row.mount(button)

    # --- answers -------------------------------------------------------------------------
    async def on_reply_ready(self, message: ReplyReady) -> None:
        reply, game, story = message.reply, self.app.game, self.story
        if any(reply is r for r in self._drawn):  # sent on by a scene screen as well as by the app
            return
        self._drawn.append(reply)
        if reply.typed or reply.kind != "turn":  # not a seat's move played by ``run_turn``
            self.echo(reply.said)
        self.thinking(self.app.busy or bool(self.app.pending))
        if reply.kind == "meta":
            self.meta(reply)
        elif reply.kind == "turn" and reply.events:
            for ev in reply.events:
                story.event(ev, game)
        else:
            for line in reply.lines:
                story.note(line, NOTE_STYLE if reply.kind != "turn" else "")
        if reply.kind == "clarify":
            scope = game.engine.observe(PLAYER).scope
            names = {n.id: n.name for n in getattr(scope, "nouns", ())}
            self.show_options(reply.options, {o: names.get(o) or game.engine.name(o) for o in reply.options})
        await self.refresh_panels()

    def saved(self, line: str) -> None:
        self.story.note(line, NOTE_STYLE)
        self.thinking(self.app.busy or bool(self.app.pending))

    def echo(self, said: str) -> None:
        """Show the command a reply answers, unless this screen showed it when it was typed
        (a command sent from a trade or council screen is shown when its reply comes)."""
        if said in self._echoed:
            while self._echoed and self._echoed.popleft() != said:
                pass
        elif said.strip():
            self.story.command(said)

    def meta(self, reply: Any) -> None:
        """help, journal, save, load and quit, typed; the answers of the game's other meta commands."""
        story, app = self.story, self.app
        if reply.meta == "help":
            app.action_open_screen("help")
        elif reply.meta == "journal":
            if importlib.util.find_spec("game.tui.screens.journal") is None:  # else the app opens it
                for line in reply.lines:
                    story.note(line)
        elif reply.meta in ("save", "load") and app.quitting:
            return
        elif reply.meta == "save":
            save_game(app, reply.arg or "quicksave", self.saved)
        elif reply.meta == "load":
            load_game(app, reply.arg or "quicksave")
        elif reply.meta == "quit":
            app.action_quit_game()
        else:  # undo, again, oops, transcript (game.play.meta): the game's answer
            for line in reply.lines:
                story.note(line, NOTE_STYLE)
