"""``ParleyApp``: the terminal app. It holds one ``Game``, runs every turn in a worker thread
(the embedder, NPCs and LLMs never block the screen), and hands each ``Reply`` to the screens.

Screens (``game/tui/screens/``) are opened by name (``open_screen``); the negotiation and
council screens open by themselves when the player's observation shows a trade or a council.
Keys: F1 help, F2 journal and trust, F3 memory inspector, F4 saves, F6 theme, Ctrl+Q quit.

Every line the player submits joins ``pending`` and is played in order, one turn at a time
(``CommandStarted`` tells the play screen, and a scene screen shown, when each begins, so its reply appears under it).
Start-up notes (``Notes``) are shown in the notification area; an autosave of the world
(``Resume``) is offered in a question before the game is built.

A screen over the play screen (a question, the help) never takes keys meant for the command
line (``typed_ahead``) unless the player opened it (F1, F4): keys typed before it was shown or
within ``QUIET`` seconds of it, or in the same run of typing as a line (less than ``QUIET``
seconds apart), go on to the command line; it answers keys only once it has been seen and the
typing has paused.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual import _time, events, work
from textual.app import App
from textual.binding import Binding
from textual.message import Message

from game.core.types import PLAYER
from game.play.reply import Reply

if TYPE_CHECKING:
    from game.play.session import Game

# screen name -> "module:Class" (imported when first opened)
SCREENS_BY_NAME = {
    "play": "game.tui.screens.play:PlayScreen",
    "help": "game.tui.screens.help:HelpScreen",
    "journal": "game.tui.screens.journal:JournalScreen",
    "memory": "game.tui.screens.memory:MemoryScreen",
    "saves": "game.tui.screens.saves:SavesScreen",
    "negotiation": "game.tui.screens.negotiation:NegotiationScreen",
    "council": "game.tui.screens.council:CouncilScreen",
    "watch": "game.tui.screens.watch:WatchScreen",
}
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
QUIET = 0.4  # seconds without typing before a screen over the play screen takes a typed key
LINE_KEYS = ("enter", "backspace")  # with the printable keys: the keys that make up a line
BIDDEN = 0.5  # a screen pushed this soon after a key or click not on the command line: the player opened it


def stderr_redirected() -> bool:
    """stderr is not a terminal while stdout is (``parley play 2>log``)."""

    def tty(stream: Any) -> bool:
        try:
            return bool(stream.isatty())
        except (AttributeError, ValueError, OSError):
            return False

    return tty(sys.__stdout__) and not tty(sys.__stderr__)


class GameReady(Message):
    """The game is built (the first screen painted before it, while models loaded)."""


class CommandStarted(Message):
    """A submitted line (typed, clicked, or typed ahead and queued) is being played now."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text


class Notes:
    """Where start-up notes go (an extra missing, no display for the map, an LLM a save used):
    kept until the app opens, then shown in its notification area (``attach``). Callable from
    any thread: ``notes("text")``."""

    def __init__(self) -> None:
        self.kept: list[str] = []
        self.show: Callable[[str], None] | None = None
        self.lock = threading.Lock()

    def __call__(self, text: str) -> None:
        with self.lock:
            if self.show is None:
                self.kept.append(text)
                return
            show = self.show
        show(text)

    def attach(self, show: Callable[[str], None]) -> None:
        with self.lock:
            self.show, kept, self.kept = show, self.kept, []
        for text in kept:
            show(text)


@dataclass(frozen=True)
class Resume:
    """An autosave of the world the player is about to start: ``name``, its ``turn``, and how
    to load it (``load()`` returns the game)."""

    name: str
    turn: int
    load: Callable[[], Any]


class ReplyReady(Message):
    """A submission was answered."""

    def __init__(self, reply: Reply) -> None:
        super().__init__()
        self.reply = reply


class TurnFailed(Message):
    """A turn played by ``run_turn`` raised a ParleyError (a seat failed, or the turn was cancelled)."""

    def __init__(self, error: Exception) -> None:
        super().__init__()
        self.error = error


class ParleyApp(App):
    """Plays one game. ``make_game`` builds it in a worker (so the screen paints at once);
    ``saves_base``: where saves go; ``spectate``: a seat name to watch play instead of a person."""

    CSS_PATH = "parley.tcss"
    TITLE = "Parley"
    BINDINGS = [
        Binding("f1", "open_screen('help')", "Help"),
        Binding("f2", "open_screen('journal')", "Journal"),
        Binding("f3", "open_screen('memory')", "Memory"),
        Binding("f4", "open_screen('saves')", "Saves"),
        Binding("f6", "toggle_theme", "Theme", show=False),
        Binding("ctrl+q", "quit_game", "Quit", priority=True),
    ]

    def __init__(
        self,
        make_game: Callable[[], Any],
        saves_base: str | Path | None = None,
        spectate: str | None = None,
        notes: Notes | None = None,
        resume: Resume | None = None,
    ) -> None:
        super().__init__()
        self.make_game = make_game
        self.saves_base = saves_base
        self.spectate = spectate
        self.notes = notes or Notes()
        self.resume = resume
        self.game: Game | None = None
        self.start_error: Exception | None = None  # why no game could be built (``run_tui`` raises it)
        self.busy = False
        self.last_reply: Reply | None = None
        self.saved_by_us: dict[str, tuple[str, str]] = {}  # save slug -> what this session last wrote there
        self.clean_hash: str | None = None  # the state of the save last loaded (no unsaved moves)
        self.pending: deque[str] = deque()  # commands typed while a turn was played, in order
        self.turn_lock = threading.Lock()  # held while a worker changes or saves the game
        self.quitting = False  # Ctrl+Q while busy: leave once the turn is over
        self.questions: list[Callable[[], None]] = []  # how to answer "no" to the questions a worker waits on
        self.typed_at = float("-inf")  # when the last key went to the play screen's command line
        self.last_input = (float("-inf"), False)  # when the last key or click came, and if it was the line's
        self.quiet = QUIET

    # --- start -------------------------------------------------------------------------------
    def get_driver_class(self) -> Any:
        """Textual draws on stderr; when only stderr is redirected (``parley play 2>log``) the
        screen is drawn on stdout instead, and the log keeps what is written to stderr."""
        driver = super().get_driver_class()
        if not stderr_redirected():
            return driver

        class StdoutDriver(driver):
            def __init__(self, *args: Any, **kw: Any) -> None:
                super().__init__(*args, **kw)
                self._file = sys.__stdout__

        return StdoutDriver

    def on_load(self) -> None:
        if stderr_redirected():  # from the start: what is written to stderr goes to the log
            self.begin_capture_print(self, stdout=False, stderr=True)

    def on_mount(self) -> None:
        self.push_screen(self.make_screen("watch" if self.spectate else "play"))
        self.set_interval(0.1, self._spin)
        self.notes.attach(self.say)
        if self.resume is None or self.spectate:
            self.start_game(False)
            return
        from game.tui.screens.resume import ResumeScreen

        self.push_screen(ResumeScreen(self.resume), self.start_game)  # Ctrl+Q meanwhile leaves at once

    def start_game(self, resume: bool | None) -> None:
        self.busy = True  # the world (and its models) load in a worker: the spinner turns meanwhile
        self.build_game(resume)

    def on_print(self, event: events.Print) -> None:
        """Written to stderr while the app runs (a warning, a log record): on to the redirected
        stderr, instead of nowhere (Textual writes it there itself when headless)."""
        if self.is_headless:
            return
        try:
            sys.__stderr__.write(event.text)
            sys.__stderr__.flush()
        except (OSError, ValueError, AttributeError):
            pass

    def say(self, text: str) -> None:
        """Show a note in the notification area (from any thread)."""
        if threading.get_ident() == self._thread_id:
            self.notify(text, timeout=12, markup=False)
        else:
            self.later(self.say, text)

    @work(thread=True, exclusive=True, group="game")
    def build_game(self, resume: bool | None) -> None:
        """Build the game: the autosave ``resume`` names when the player chose to continue it,
        else a new one (an autosave that cannot be loaded is said, and a new game starts). No turn
        waits for the embedding model: it loads in the background (``game.play.warmup``)."""
        from game.core.errors import ParleyError
        from game.play.warmup import background_memory

        game = None
        with background_memory():
            if resume and self.resume is not None:
                try:
                    game = self.resume.load()
                    self.say(f"Continuing {self.resume.name} at turn {self.resume.turn}.")
                except (ParleyError, OSError) as e:
                    why = getattr(e, "message", None) or e
                    self.say(f"Could not continue {self.resume.name}: {why}; a new game starts.")
            elif self.resume is not None:
                self.say(f"A new game; the autosave (turn {self.resume.turn}) is kept as {self.resume.name}-previous.")
            if game is None:
                try:
                    game = self.make_game()
                except ParleyError as e:  # a save or world that cannot be played: said after the app closes
                    self.later(self._cannot_start, e)
                    return
        self.later(self._game_built, game)

    def _cannot_start(self, error: Exception) -> None:
        self.start_error = error
        self.exit(return_code=2)

    def later(self, callback: Callable[..., Any], *args: Any) -> None:
        """From a worker thread: run ``callback(*args)`` on the app's thread, without waiting
        for it (so a worker never blocks on an app that has stopped)."""
        try:
            self.post_message(events.Callback(callback=partial(callback, *args)))
        except RuntimeError:  # the app's loop is closed: nothing is left to tell
            pass

    def _game_built(self, game: Game) -> None:
        self.game, self.busy = game, False
        self.sub_title = self.world_title()
        game.warmup.on_ready(lambda: self.later(self._memory_warm))
        self.call_after_refresh(game.warmup.start)  # the model loads once this screen is drawn
        (self.stacked("PlayScreen", "WatchScreen") or self.screen).post_message(GameReady())  # under the help too
        self.follow_scene()  # a save made during a trade or a council opens its screen at once
        self.idle()

    # --- keys --------------------------------------------------------------------------------
    def push_screen(self, screen: Any, *args: Any, **kw: Any) -> Any:
        """Push ``screen``; ``shown_at`` is when it was first drawn (keys read before were typed
        before the player could see it); ``bidden``: the player opened it with a key or a click
        just now (F1, F4, Delete on the saves screen), so it takes the keys that follow at once."""
        at, on_line = self.last_input
        screen.bidden = not on_line and _time.get_time() - at < BIDDEN
        screen.shown_at = float("inf")

        def shown() -> None:
            screen.shown_at = _time.get_time()

        pushed = super().push_screen(screen, *args, **kw)
        self.call_after_refresh(shown)
        return pushed

    async def on_event(self, event: events.Event) -> None:
        """Keys typed for the command line reach it though a screen has opened over it
        (``typed_ahead``); the time of each key that reaches it is kept (``typed_at``)."""
        if isinstance(event, events.MouseDown) and not event.is_forwarded:
            self.last_input = (event.time, False)
        if isinstance(event, events.Key) and not event.is_forwarded:
            line = self.command_line()
            of_line = event.is_printable or event.key in LINE_KEYS
            if line is not None and self.typed_ahead(event, line):
                self.typed_at, self.last_input = event.time, (event.time, True)
                line._forward_event(event)
                return
            self.last_input = (event.time, of_line and line is not None and self.focused is line)
            if self.last_input[1]:
                self.typed_at = event.time
        await super().on_event(event)

    def command_line(self) -> Any:
        """The command line typing goes to: a scene screen's when one is open, else the play
        screen's (None while watching or replaying)."""
        scene = self.stacked("NegotiationScreen", "CouncilScreen")
        if scene is not None:
            return scene.command_line()
        play = self.stacked("PlayScreen")
        return None if play is None else play.command_line

    def typed_ahead(self, key: events.Key, line: Any) -> bool:
        """A key of a line (a letter, Enter, Backspace) that belongs on the command line though a
        screen the player did not open is on top (a question; the help a typed ``help`` opened):
        typed before it was drawn or within ``quiet`` seconds (nobody reads and answers faster),
        or within ``quiet`` seconds of the last key the line took (the same run of typing).
        Scene screens and screens with a line of their own keep their keys."""
        from textual.widgets import Input

        screen = self.screen
        if screen is line.screen or self._scene_shown() is not None or isinstance(self.focused, Input):
            return False
        if getattr(screen, "bidden", False) or not (key.is_printable or key.key in LINE_KEYS):
            return False
        return key.time - max(getattr(screen, "shown_at", float("-inf")), self.typed_at) < self.quiet

    # --- screens -----------------------------------------------------------------------------
    def make_screen(self, name: str, *args: Any) -> Any:
        module, _, cls = SCREENS_BY_NAME[name].partition(":")
        return getattr(importlib.import_module(module), cls)(*args)

    def stacked(self, *names: str) -> Any:
        """The first screen in the stack of one of these classes (by name), or None."""
        return next((s for s in self.screen_stack if type(s).__name__ in names), None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The key of the screen already shown (F1 on the help) is not offered: it would do nothing;
        nor are saves to ``inspect --tui``, which loads nothing."""
        if action == "open_screen" and parameters == ("saves",) and getattr(self, "inspecting", False):
            return False
        if action == "open_screen" and parameters and parameters[0] in SCREENS_BY_NAME:
            return type(self.screen).__name__ != SCREENS_BY_NAME[str(parameters[0])].partition(":")[2]
        return True

    def action_open_screen(self, name: str) -> None:
        if self.game is None and name not in ("help",):
            self.notify("The world is still loading.")
            return
        if type(self.screen).__name__ == SCREENS_BY_NAME[name].partition(":")[2]:
            return
        self.push_screen(self.make_screen(name))

    def scene_screen(self) -> str | None:
        """The scene screen the player's situation calls for: a trade in progress, or a council here."""
        if self.game is None:
            return None
        scene = self.game.engine.observe(PLAYER).scene
        return None if scene is None else scene.get("type") if scene.get("type") in ("negotiation", "council") else None

    def _scene_shown(self) -> str | None:
        names = {SCREENS_BY_NAME[n].partition(":")[2]: n for n in ("negotiation", "council")}
        return names.get(type(self.screen).__name__)

    def follow_scene(self) -> None:
        """Open the scene screen ``scene_screen`` names when it is not shown; close the one shown
        when its scene has ended (not while spectating: the watch screen shows every seat)."""
        wanted, shown = self.scene_screen(), self._scene_shown()
        if self.spectate or wanted == shown:
            return
        if shown is not None:
            self.pop_screen()
        if wanted is not None and self._scene_shown() is None:
            self.push_screen(self.make_screen(wanted))

    # --- turns -------------------------------------------------------------------------------
    def send(self, text: str) -> None:
        """Submit what the player typed: it joins ``pending`` and is played when every line
        before it has been answered (at once when nothing is played and the world is built)."""
        if self.quitting:
            return
        self.pending.append(text)
        self.idle()

    def idle(self) -> None:
        """Nothing is being played or saved any more (called on the app's thread): leave if
        the player quit meanwhile, else play the next line waiting in ``pending``."""
        if self.busy:
            return
        if self.quitting:
            self.exit(0)
        elif self.pending and self.game is not None:
            self.busy = True
            text = self.pending.popleft()
            for screen in (self.stacked("PlayScreen"), self.stacked("NegotiationScreen", "CouncilScreen")):
                if screen is not None:  # each echoes the line, so its reply appears under it
                    screen.post_message(CommandStarted(text))
            self._submit(text)

    @work(thread=True, exclusive=True, group="game")
    def _submit(self, text: str) -> None:
        from game.core.errors import ParleyError

        with self.turn_lock:
            try:
                reply = self.game.submit(text)
            except ParleyError as e:  # the turn was taken back (a bug, a model that failed to load)
                reply = Reply("meta", said=text, lines=(self.turn_failed(e),), meta="failed")
        self.later(self._answered, reply)

    def turn_failed(self, error: Exception) -> str:
        """A turn raised and was taken back (``game.play.session.TurnError``): from the worker,
        under the turn lock, save the game as it was before the turn and write the traceback to
        a log (``report_failed_turn``); the message is shown in the story and as a notice, and the
        app plays on with the game as it was (the player may go on, or quit: it is saved)."""
        from game.core.errors import ParleyError
        from game.play.autosave import report_failed_turn
        from game.play.session import TurnError

        text = report_failed_turn(error, self.saves_base) if isinstance(error, TurnError) else ""
        text = text or (error.render() if isinstance(error, ParleyError) else str(error))
        self.later(partial(self.notify, text, title="The turn failed", severity="error", timeout=30, markup=False))
        return text

    def run_turn(self, step: Callable[[], Reply], origin: Any = None) -> bool:
        """Play one turn with ``step`` (a watched seat's ``game.play_turn``, a replay's next round)
        in a worker; ``origin`` (the screen that asked) gets the reply even when another screen
        is on top. False while a turn is being played."""
        if self.busy:
            return False
        self.busy = True
        self._run_turn(step, origin)
        return True

    @work(thread=True, exclusive=True, group="game")
    def _run_turn(self, step: Callable[[], Reply], origin: Any) -> None:
        from game.core.errors import ParleyError
        from game.play.autosave import report_failed_turn
        from game.play.session import TurnError

        try:
            with self.turn_lock:
                try:
                    reply = step()
                except TurnError as e:  # saved and logged while the game is still held
                    report_failed_turn(e, self.saves_base)
                    raise
        except ParleyError as e:
            self.later(self._failed, e, origin)
            return
        self.later(self._answered, reply, origin)

    def _failed(self, error: Exception, origin: Any) -> None:
        self.busy = False
        (origin or self.screen).post_message(TurnFailed(error))
        self.idle()

    def _answered(self, reply: Reply, origin: Any = None) -> None:
        self.last_reply = reply
        # a typed save or load is carried out by the play screen, which ends the wait (``idle``)
        self.busy = not self.quitting and reply.kind == "meta" and reply.meta in ("save", "load")
        if reply.outage is not None:
            self._outage(reply.outage)
        self.screen.post_message(ReplyReady(reply))
        play = self.stacked("PlayScreen")
        if play is not None and play is not self.screen and play is not origin:
            play.post_message(ReplyReady(reply))  # the story keeps every reply (it skips one drawn twice)
        if self._scene_shown() is None:  # a scene screen calls follow_scene once it has drawn the reply
            self.follow_scene()
        if origin is not None and origin is not self.screen:
            origin.post_message(ReplyReady(reply))
        if reply.kind == "meta" and reply.meta == "journal":  # typed `journal`: the journal screen
            self.action_open_screen("journal")
        if not (reply.kind == "meta" and reply.meta == "quit"):  # typed quit: queued commands are dropped
            self.idle()
        if not self.busy and not self.pending and self.game is not None and not self.game.warmup.warming:
            self._warm_memory()

    def _outage(self, error: Any) -> None:
        """The LLM endpoint failed during a turn (its NPCs finished it scripted): say so, and
        autosave as the line console does when it stops."""
        from game.core.errors import ParleyError
        from game.play.autosave import write_autosave

        try:
            folder, _kept = write_autosave(self.game, self.saves_base)
            self.game.loaded_from = folder.resolve()  # this game continues that save from now on
            saved = f"Progress saved to {folder}."
        except (ParleyError, OSError) as e:
            saved = f"Could not autosave: {getattr(e, 'message', e)}"
        self.notify(
            f"{getattr(error, 'message', error)}\n{saved}",
            title="LLM outage",
            severity="error",
            timeout=10,
            markup=False,
        )

    def _spin(self) -> None:
        """A spinner in the header while a turn is played or the world loads."""
        base = self.world_title()
        if self.busy:
            self._frame = ((getattr(self, "_frame", None) or 0) + 1) % len(SPINNER)
            self.sub_title = f"{base}  {SPINNER[self._frame]} working…".strip()
        elif getattr(self, "_frame", None) is not None:  # the spinner was showing: the plain title again
            self._frame = None
            self.sub_title = base

    def world_title(self) -> str:
        title = self.game.spec.title if self.game is not None else ""
        status = self.memory_status()
        return f"{title} · {status}" if status else title

    # --- memory warming in the background (game.play.warmup) -----------------------------------
    def memory_status(self) -> str:
        """'warming memory…' while the game's embedding model loads in the background, else ''."""
        warmup = getattr(self.game, "warmup", None)
        return "warming memory…" if warmup is not None and warmup.warming else ""

    def _memory_warm(self) -> None:
        """The model is loaded: the status goes, and what memory kept waiting is applied now."""
        if not self.busy:
            self.sub_title = self.world_title()
        self._warm_memory()

    @work(thread=True, group="memory")
    def _warm_memory(self) -> None:
        """Between turns (under the turn lock): apply the memory calls that waited for the model, and
        embed the memories written since into the embedder's cache, so no later turn pays for them."""
        if self.game is None or self.quitting:
            return
        with self.turn_lock:
            self.game.warmup.drain()
            memory = self.game.memory
            if memory is not None and not self.game.warmup.warming:
                memory.bank.embed_ahead()
        self.later(lambda: getattr(self.screen, "memory_warm", lambda: None)())  # the memory inspector redraws

    def get_system_commands(self, screen: Any) -> Any:
        """The command palette (Ctrl+P): Textual's entries, the game's screens and a few actions."""
        yield from super().get_system_commands(screen)
        from game.tui.screens.help import palette_commands

        yield from palette_commands(self)

    # --- leaving -----------------------------------------------------------------------------
    def action_quit_game(self) -> None:
        """Leave; while a turn is played (or a save made) wait for it to end first, so the
        autosave holds it: a question a save waits on is answered "no"."""
        self.pending.clear()
        if not self.busy:
            self.exit(0)
            return
        if not self.quitting:
            self.quitting = True
            self.notify("Finishing the turn…", timeout=30)
        for answer_no in list(self.questions):
            answer_no()

    def action_toggle_theme(self) -> None:
        self.theme = "textual-light" if self.theme == "textual-dark" else "textual-dark"
