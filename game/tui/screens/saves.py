"""The saves screen (F4): the saves on disk, to load (asking first when the game in play has
unsaved progress) or delete (asking first). Also what ``save NAME`` / ``load NAME`` typed in
the play screen do: the same as the line console (``game.cli.console``), with questions asked
through a ``ConfirmScreen``."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import Button, DataTable, Footer, Header, Label, Static

from game.core.types import PLAYER


class GameLoaded(Message):
    """A save was loaded into ``app.game`` (``text``: what to tell the player)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class ConfirmScreen(ModalScreen[bool]):
    """A yes / no question; dismissed with True for yes. Its buttons say which keys answer; keys
    typed for the command line never answer it (``ParleyApp.typed_ahead``)."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n", "answer(False)", "No"),
        Binding("escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label(self.question, id="confirm-question", markup=False)
            with Horizontal(id="confirm-buttons"):
                yield Button("Yes (y)", id="confirm-yes", variant="warning")
                yield Button("No (n)", id="confirm-no", variant="primary")

    def on_mount(self) -> None:
        self.query_one("#confirm-no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


# --- saving and loading, off the screen's thread -----------------------------------------------
def ask(app: Any, question: str) -> str:
    """Ask through a ``ConfirmScreen`` from a worker thread; "y" or "n" (what ``_save`` reads).
    Quitting answers "no" (``app.questions``), and so does an app that has stopped: the
    thread never waits for an answer that cannot come."""
    answered, answer = threading.Event(), ["n"]
    screen = ConfirmScreen(question.strip())

    def got(yes: bool | None) -> None:
        answer[0] = "y" if yes else "n"
        answered.set()

    def answer_no() -> None:
        got(False)
        if app.screen is screen:
            app.pop_screen()

    def show() -> None:
        if app.quitting:
            got(False)
            return
        app.questions.append(answer_no)
        app.push_screen(screen, got)

    app.later(show)
    while not answered.wait(0.2):
        if not app.is_running:
            break
    app.later(lambda: answer_no in app.questions and app.questions.remove(answer_no))
    return answer[0]


def save_game(app: Any, name: str, done: Callable[[str], None]) -> None:
    """``save NAME``: the console's save (asks before overwriting a save this session did not
    write); ``done(line)`` is called on the app's thread with the line to show."""
    game = app.game
    app.busy = True

    def work() -> None:
        from game.play.autosave import save_as as _save

        with app.turn_lock:
            line = _save(game, name, app.saves_base, lambda q: ask(app, q), app.saved_by_us)
        app.later(finish, line)

    def finish(line: str) -> None:
        app.busy = False
        done(line)
        app.idle()

    app.run_worker(work, thread=True, group="saves")


def load_game(app: Any, name: str) -> None:
    """``load NAME``: load the save into ``app.game`` (with the LLM and insights of the game in
    play, as the console does); every screen is told with ``GameLoaded``."""
    game = app.game
    app.busy = True

    def work() -> None:
        from game.core.errors import ParleyError
        from game.play.session import Game

        loaded, line = None, ""
        try:
            loaded = Game.load(name, app.saves_base, llm=game.llm, llm_npcs=game.llm_npcs or "all", inside=True)
            game.hand_on(loaded)  # insights, the saves folder, a transcript being written
            if app.spectate:  # the watched seat plays the loaded game on: its slot, never a person's autosave
                loaded.player_kind = game.player_kind
            line = f"Loaded. Turn {loaded.engine.state.turn}.\n" + loaded.engine.describe(
                PLAYER, loaded.engine.state.where[PLAYER]
            )
        except ParleyError as e:
            line = f"Could not load: {e.render()}"
        except OSError as e:
            line = f"Could not load: {e}"
        app.later(finish, loaded, line)

    def finish(loaded: Any, line: str) -> None:
        app.busy = False
        if loaded is not None:
            app.game, app.last_reply = loaded, None
            app.clean_hash = loaded.engine.state_hash()
            app.sub_title = loaded.spec.title
            while len(app.screen_stack) > 2:  # back to the play screen: what was above showed the old game
                app.pop_screen()
        for screen in app.screen_stack:
            screen.post_message(GameLoaded(line))
        if loaded is not None:
            app.follow_scene()  # a trade or council in the save opens its screen; a stale one is closed
        app.idle()

    app.run_worker(work, thread=True, group="saves")


def unsaved(app: Any) -> bool:
    """The game in play has moves no save holds (by this session's saves and the save it came from)."""
    game = app.game
    if game is None or game.engine.state.turn == 0:
        return False
    state = game.engine.state_hash()
    kept = {stamp[0] for _, stamp in app.saved_by_us.values() if stamp}
    return state not in kept and state != getattr(app, "clean_hash", None)


# --- the screen -----------------------------------------------------------------------------
class SavesScreen(Screen):
    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        Binding("l", "load", "Load"),
        Binding("d", "delete", "Delete"),
        Binding("delete", "delete", "Delete", show=False),
        Binding("r", "refresh", "Refresh"),
    ]

    def compose(self) -> ComposeResult:
        yield Header()
        with Vertical(id="saves-body"):
            yield Static("Saves", id="saves-title")
            yield DataTable(id="saves-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="saves-status", markup=False)
            with Horizontal(id="saves-buttons"):
                yield Button("Load", id="saves-load", variant="primary")
                yield Button("Delete", id="saves-delete", variant="error")
                yield Button("Back", id="saves-back")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("Name", "World", "Turn", "Score", "Saved")
        self.action_refresh()
        table.focus()

    def action_refresh(self) -> None:
        from game.core.text import shown
        from game.play.save_files import list_saves, saves_dir

        table = self.query_one(DataTable)
        table.clear()
        rows = list_saves(self.app.saves_base)
        for r in rows:
            turn = "?" if r.turn < 0 else ("won" if r.done else str(r.turn))
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(r.modified))
            table.add_row(shown(r.slug), shown(r.world_id), turn, shown(r.score), when, key=r.slug)
        self.status(
            f"{len(rows)} save{'s' * (len(rows) != 1)} in {shown(saves_dir(self.app.saves_base))}"
            if rows
            else f"No saves yet in {shown(saves_dir(self.app.saves_base))}."
        )

    def status(self, text: str) -> None:
        self.query_one("#saves-status", Static).update(text)

    def chosen(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    def on_button_pressed(self, event: Button.Pressed) -> None:
        {"saves-load": self.action_load, "saves-delete": self.action_delete, "saves-back": self.app.pop_screen}[
            event.button.id or "saves-back"
        ]()

    def on_data_table_row_selected(self, _: DataTable.RowSelected) -> None:
        self.action_load()

    def action_load(self) -> None:
        slug = self.chosen()
        if slug is None or self.app.game is None or self.app.busy:
            return
        if unsaved(self.app):
            turn = self.app.game.engine.state.turn
            self.app.push_screen(
                ConfirmScreen(f"The game in play has unsaved moves (turn {turn}). Load '{slug}' anyway?"),
                lambda yes: self._load(slug) if yes else None,
            )
        else:
            self._load(slug)

    def _load(self, slug: str) -> None:
        self.status(f"Loading {slug}…")
        load_game(self.app, slug)

    def on_game_loaded(self, message: GameLoaded) -> None:
        self.status(message.text)  # a failed load (a load closes this screen)

    def action_delete(self) -> None:
        slug = self.chosen()
        if slug is not None:
            self.app.push_screen(
                ConfirmScreen(f"Delete the save '{slug}'? This cannot be undone."),
                lambda yes: self._delete(slug) if yes else None,
            )

    def _delete(self, slug: str) -> None:
        from game.core.errors import ParleyError
        from game.play.save_files import remove

        try:
            remove(slug, self.app.saves_base)
            self.app.saved_by_us.pop(slug, None)
            self.action_refresh()
            self.status(f"Deleted {slug}.")
        except (ParleyError, OSError) as e:
            self.status(f"Could not delete: {getattr(e, 'message', e)}")
