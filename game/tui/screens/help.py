"""The help screen (F1): the command language and the app's keys; and the entries the command
palette (Ctrl+P) adds for the game's screens and a few actions."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

from rich.table import Table
from rich.text import Text
from textual.actions import parse
from textual.app import ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

KEYS_EXTRA = (
    ("Enter", "play the line (lines typed during a turn wait their turn, in order)"),
    ("Right", "take the suggested completion (as Tab does)"),
    ("Home / End, Ctrl+← / →", "move along the command line (Ctrl+U, Ctrl+K, Ctrl+W: delete)"),
    ("Ctrl+P", "command palette: screens and actions"),
    ("Escape", "leave a screen (watching or replaying: pause)"),
)


def key_names(app: Any, binding: Binding) -> str:
    """How the keys of a binding are written: "s or →" for ``s,right``."""
    return " or ".join(app.get_key_display(replace(binding, key=k.strip())) for k in binding.key.split(","))


def own_keys(screen: Any) -> list[Binding]:
    """The keys the screen handles itself, shown in its footer or not (the play screen's PgUp /
    PgDn), and those of its command line (history, completion) when it has one."""
    bindings = [b for b in getattr(screen, "BINDINGS", ()) if b.show or b.description]
    if type(screen).__name__ == "PlayScreen":
        from game.tui.widgets.command_input import CommandInput

        bindings += [b for b in CommandInput.BINDINGS if b.description]
    return bindings


def key_table(app: Any, below: Any = None) -> Table:
    """The keys: those of the screen the help was opened from (``below``: the play screen's page
    keys and its command line's, a watch's space, s, +, - and Esc), the app's, and the line's
    editing keys."""
    table = Table(show_header=True, header_style="bold", box=None, padding=(0, 2))
    table.add_column("Key")
    table.add_column("Does")
    for b in own_keys(below):
        table.add_row(key_names(app, b), b.description or b.action)
    for b in app.BINDINGS:
        _, action, params = parse(b.action)
        listed = action == "open_screen" and params == ("help",)  # F1, though the help is what is showing
        if listed or app.check_action(action, params):  # what the app offers (a replay has no journal)
            table.add_row(key_names(app, b), b.description or b.action)
    for key, desc in KEYS_EXTRA:
        table.add_row(key, desc)
    return table


class HelpScreen(Screen):
    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("q", "app.pop_screen", "Back", show=False)]

    def opened_from(self) -> Any:
        """The screen under this one (the play or a watch screen), if any."""
        stack = self.app.screen_stack
        return stack[stack.index(self) - 1] if self in stack and stack.index(self) > 0 else None

    def compose(self) -> ComposeResult:
        from game.engine.parser import HELP_TEXT
        from game.play.meta import META_HELP

        yield Header()
        with VerticalScroll(id="help-body"):
            yield Static(Text("Commands", style="bold underline"), classes="help-heading")
            yield Static(Text(commands_text(HELP_TEXT)), id="help-commands")
            yield Static(Text(META_HELP), id="help-meta")
            yield Static(Text("Keys", style="bold underline"), classes="help-heading")
            yield Static(key_table(self.app, self.opened_from()), id="help-keys")
            yield Static(
                Text(
                    "In the story, a claim someone made is marked: · told, ? held (unconfirmed or disputed), ✓ verified, ✗ false.",
                    style="italic",
                ),
                id="help-marks",
            )
        yield Footer()


def commands_text(help_text: str) -> str:
    """The command language under the screen's own "Commands" heading: the text's first line,
    "Commands (case doesn't matter; ...):", keeps only its note, so the word is not said twice."""
    first, _, rest = help_text.partition("\n")
    if not first.startswith("Commands"):
        return help_text
    note = first.removeprefix("Commands").strip(" :()")
    return f"{note[:1].upper()}{note[1:]}.\n{rest}" if note else rest


def palette_commands(app: Any) -> Iterator[SystemCommand]:
    """The command palette's entries for the game (added to Textual's own). A spectator (watch,
    replay) and ``inspect --tui`` get no commands to play; a replay, which has no live game, only
    the help; ``inspect --tui``, which loads nothing, no saves."""
    spectating = getattr(app, "spectate", None) is not None
    replaying = getattr(app, "replay", None) is not None
    inspecting = getattr(app, "inspecting", False)
    screens = (
        ("Play", "play", "Back to the story"),
        ("Help", "help", "Commands and keys"),
        ("Journal", "journal", "What you were told, what is disputed, whom to trust"),
        (
            "Memory",
            "memory",
            "What the player or an NPC remembers this turn, and why"
            if spectating
            else "What you remember this turn, and why",
        ),
        ("Saves", "saves", "Load or delete saves"),
    )
    for title, name, helptext in screens:
        if (replaying and name not in ("play", "help")) or (inspecting and name in ("play", "saves")):
            continue
        if name == "play":
            yield SystemCommand(title, helptext, lambda: _back_to_play(app))
        else:
            yield SystemCommand(f"{title} screen", helptext, lambda n=name: app.action_open_screen(n))
    if not (spectating or inspecting):
        for title, command, helptext in (
            ("Look", "look", "Look around"),
            ("Inventory", "inventory", "What you carry"),
            ("Wait", "wait", "Let a turn pass"),
        ):
            yield SystemCommand(title, helptext, lambda c=command: _play(app, c))
    yield SystemCommand("Toggle theme", "Switch between the dark and the light theme", app.action_toggle_theme)
    if spectating or inspecting:
        yield SystemCommand("Quit", "Leave", app.action_quit_game)
    else:
        yield SystemCommand("Save and quit", "Quit; an unfinished game is autosaved", app.action_quit_game)


def _back_to_play(app: Any) -> None:
    while len(app.screen_stack) > 2 and type(app.screen).__name__ != "PlayScreen":
        app.pop_screen()


def _play(app: Any, command: str) -> None:
    """Play a command as if typed on the play screen."""
    _back_to_play(app)
    submit = getattr(app.screen, "submit", None)
    if submit is not None:
        submit(command)
    else:
        app.send(command)
