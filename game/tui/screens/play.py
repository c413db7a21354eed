"""The play screen: the story, the command line (history and completion), clarification
questions as buttons, and side panels for the place, the player, the quests and a map.

Lines typed while a turn is played wait in the app's queue (shown above the command line) and
are echoed when their turn starts, so each reply sits under its own command. PageUp / PageDown
(also with Shift) scroll the story while the command line has the focus."""

from __future__ import annotations

import importlib.util
from collections import deque
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import Button, Footer, Header, Input, LoadingIndicator

from game.core.types import PLAYER
from game.tui.app import CommandStarted, GameReady, ReplyReady
from game.tui.screens.saves import GameLoaded, load_game, save_game
from game.tui.widgets.command_input import CommandInput, QueuedLine
from game.tui.widgets.minimap import Minimap
from game.tui.widgets.sidebar import Pick, Sidebar
from game.tui.widgets.story import NOTE_STYLE, Story

READY = "What do you do?  (help: F1 or 'help')"
THINKING = "…thinking"
OVER = "The game is over. (save, load, quit, journal still work)"
LOADING = "Loading the world… (type away: commands wait their turn)"


class PlayScreen(Screen):
    BINDINGS = [
        Binding("pageup,shift+pageup", "page(-1)", "scroll the story up a page (from the command line)", show=False),
        Binding("pagedown,shift+pagedown", "page(1)", "scroll the story down a page", show=False),
    ]

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
            yield QueuedLine(id="queued")
            yield CommandInput(self.nouns, placeholder=LOADING, id="command")
        with Vertical(id="side-column"):
            yield Sidebar(id="sidebar")
            yield Minimap(id="minimap")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#thinking").display = False
        self.query_one("#clarify").display = False
        self.query_one(Minimap).border_title = "Map"
        self.command_line.focus()  # typed before the world is built, a line waits its turn

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
        self.show_queue()
        self.command_line.focus()
        await self.refresh_panels()

    async def on_game_loaded(self, message: GameLoaded) -> None:
        self.show_queue()
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
    def submit(self, text: str, typed: bool = False) -> None:
        """Play what the player clicked (or ``typed``: the command line keeps its own history):
        it waits in the app's queue while a turn is played (or the world loads), and is echoed
        when its turn starts."""
        if not text.strip():
            return
        if self.app.quitting:
            self.notify("Finishing the turn…", severity="warning")
            return
        if not typed:
            self.command_line.remember(text)
        self.show_options((), {})
        self.app.send(text)
        self.show_queue()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.submit(event.value, typed=True)  # the line emptied itself and was remembered on Enter

    def on_command_started(self, message: CommandStarted) -> None:
        self.story.command(message.text)
        self._echoed.append(message.text)
        self.show_queue()

    def show_queue(self) -> None:
        self.query_one(QueuedLine).show(self.app.pending)
        self.thinking(self.app.busy or bool(self.app.pending))

    def action_page(self, step: int) -> None:
        """PageUp / PageDown: scroll the story a page (the command line keeps the focus)."""
        if step < 0:
            self.story.scroll_page_up()
        else:
            self.story.scroll_page_down()

    def thinking(self, on: bool) -> None:
        self.query_one("#thinking").display = on and self.app.game is not None
        self.command_line.placeholder = THINKING if on and self.app.game is not None else self.ready_text()

    def ready_text(self) -> str:
        game = self.app.game
        return LOADING if game is None else OVER if game.engine.done else READY

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
        self.show_queue()
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
        self.show_queue()

    def echo(self, said: str) -> None:
        """Show the command a reply answers, unless this screen showed it when its turn
        started (``CommandStarted``)."""
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
