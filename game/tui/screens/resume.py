"""The question at start when the world has an autosave: continue it, or start anew.

Keys: Enter or C continues the autosave; N starts a new game (the autosave is kept as
``autosave-<world>-previous`` when the new game autosaves); Esc continues (nothing is lost).
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Label, Static

from game.tui.screens.saves import ConfirmScreen


class ResumeScreen(ConfirmScreen, inherit_bindings=False):
    """Dismissed with True to continue the autosave, False for a new game."""

    DEFAULT_CSS = """
    #resume-detail {
        color: $text-muted;
    }
    """

    BINDINGS = [
        Binding("c", "answer(True)", "Continue"),
        Binding("n", "answer(False)", "New game"),
        Binding("escape", "answer(True)", "Continue"),
    ]

    def __init__(self, resume: Any) -> None:
        super().__init__(f"Autosave found (turn {resume.turn}) — continue or start anew?")
        self.resume = resume

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Label(self.question, id="confirm-question", markup=False)
            yield Static(
                f"Enter or C continues it; N starts a new game, which keeps it as {self.resume.name}-previous.",
                id="resume-detail",
                markup=False,
            )
            with Horizontal(id="confirm-buttons"):
                yield Button("Continue (c)", id="confirm-yes", variant="primary")
                yield Button("New game (n)", id="confirm-no")

    def on_mount(self, event: events.Mount) -> None:
        event.prevent_default()  # not ConfirmScreen's, which focuses its "no"
        self.query_one("#confirm-yes", Button).focus()  # Enter continues
