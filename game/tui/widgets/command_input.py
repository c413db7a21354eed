"""The command line: history (up / down) and completion of verbs and of the nouns in scope
(right arrow or Tab takes the completion). Keys act in the order they were typed, however fast
they come: Enter empties the line at once, so what is typed after it starts the next command;
a paste of several lines submits each line."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from textual import events
from textual.binding import Binding
from textual.suggester import Suggester
from textual.widgets import Input, Static

from game.engine.parser import MAX_INPUT

VERBS = (
    "go",
    "look",
    "examine",
    "take",
    "drop",
    "give",
    "open",
    "unlock",
    "talk to",
    "ask",
    "say",
    "inventory",
    "wait",
    "trade with",
    "offer",
    "accept",
    "reject",
    "walk away",
    "vote yes",
    "vote no",
    "journal",
    "save",
    "load",
    "help",
    "quit",
)


class GameSuggester(Suggester):
    """Completes the first word from ``VERBS`` and any later word from ``nouns()`` (the names,
    aliases, exits and topics in scope), keeping what was typed as it was typed."""

    def __init__(self, nouns: Callable[[], Iterable[str]]) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.nouns = nouns

    async def get_suggestion(self, value: str) -> str | None:
        return complete(value, self.nouns())


def complete(value: str, nouns: Iterable[str]) -> str | None:
    """``value`` completed, or None. The longest tail of the typed words that begins a noun is
    completed (so ``talk to jo`` gives ``talk to Jory Flint``)."""
    if not value.strip() or value.endswith(" "):
        return None
    folded = value.casefold()
    if " " not in value.strip():
        for verb in VERBS:
            if verb.startswith(folded) and verb != folded:
                return value + verb[len(value) :]
        return None
    names = list(dict.fromkeys(n for n in nouns if n))  # in the order given: display names first
    starts = [i + 1 for i, ch in enumerate(value) if ch == " "]
    for start in starts:  # the longest tail first
        tail = folded[start:]
        if not tail:
            continue
        for name in names:
            if name.casefold().startswith(tail) and len(name) > len(tail):
                return value[:start] + name  # the name as the game spells it
    return None


class OrderedInput(Input):
    """An ``Input`` whose own keys (Enter, Backspace, the arrows...) act in the order typed.

    Textual runs a widget's key bindings only once the key has bubbled up to the app, while
    printable keys are inserted as soon as the widget reads them: typed fast (a burst the
    terminal delivers at once), ``look⏎take lamp⏎`` would submit ``looktake lamp`` twice. Here
    the widget runs its bindings itself, in the same queue as the letters; and Enter takes the
    line and empties it before the next key is read."""

    async def _on_key(self, event: events.Key) -> None:
        if not event.is_printable:
            for binding in self._bindings.key_to_bindings.get(event.key, ()):
                if not binding.priority and await self.app.run_action(binding.action, self):
                    event.stop()
                    event.prevent_default()
                    return
        # any other key goes on to Input's own handler (Textual calls each class's in turn)

    async def _on_paste(self, event: events.Paste) -> None:
        """A paste of several lines: each whole line is submitted in order, as if Enter
        followed it; what follows the last line break stays on the line. (Input keeps only
        the first line of a paste.)"""
        *whole, rest = event.text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
        if not whole:
            return  # one line: Input's own handler pastes it
        event.stop()
        event.prevent_default()
        for line in whole:
            self._put(line)
            await self.action_submit()
        self._put(rest)

    def _put(self, text: str) -> None:
        """``text`` in place of the selection, or at the cursor."""
        if not text:
            return
        if self.selection.is_empty:
            self.insert_text_at_cursor(text)
        else:
            self.replace(text, *self.selection)

    async def action_submit(self) -> None:
        text = self.value
        self.value = ""
        self.submitted(text)
        self.post_message(self.Submitted(self, text))

    def submitted(self, text: str) -> None:
        """Called with each line as Enter takes it (before the screen hears of it)."""


class QueuedLine(Static):
    """The commands typed ahead that wait for the turn being played, oldest first."""

    DEFAULT_CSS = """
    QueuedLine {
        height: auto;
        max-height: 3;
        padding: 0 1;
        color: $text-muted;
    }
    """

    def __init__(self, **kw) -> None:
        super().__init__("", markup=False, **kw)
        self.shown = ""
        self.display = False

    def show(self, waiting: Iterable[str]) -> None:
        waiting = [w if len(w) <= 40 else w[:39] + "…" for w in waiting]
        text = "queued: " + "  ·  ".join(waiting) if waiting else ""
        if text != self.shown:  # unchanged (nothing waits, as most of the time): no new layout
            self.shown = text
            self.display = bool(waiting)
            self.update(text)


class CommandInput(OrderedInput):
    """An ``OrderedInput`` that remembers what was submitted: up / down walk the history."""

    BINDINGS = [
        Binding("up", "history(-1)", "earlier command in the command line", show=False),
        Binding("down", "history(1)", "later command in the command line", show=False),
        Binding("tab", "complete", "take the suggested completion (none: the next panel)", show=False),
    ]

    def __init__(self, nouns: Callable[[], Iterable[str]], **kw) -> None:
        kw.setdefault("max_length", MAX_INPUT)
        super().__init__(suggester=GameSuggester(nouns), **kw)
        self.history: list[str] = []
        self._at = 0  # index into history; len(history) means the line being typed
        self._draft = ""

    def remember(self, text: str) -> None:
        if text.strip() and (not self.history or self.history[-1] != text):
            self.history.append(text)
        self._at, self._draft = len(self.history), ""

    def submitted(self, text: str) -> None:
        self.remember(text)  # at once: Up right after Enter brings it back

    def action_history(self, step: int) -> None:
        if not self.history:
            return
        if self._at == len(self.history):
            self._draft = self.value
        self._at = max(0, min(len(self.history), self._at + step))
        self.value = self._draft if self._at == len(self.history) else self.history[self._at]
        self.cursor_position = len(self.value)

    def replace(self, text: str, start: int, end: int) -> None:
        """Typed or pasted text, cut to the room ``max_length`` leaves (Input would refuse a
        long paste whole, and ring for each key): keys past the limit cost nothing."""
        if self.max_length:
            low, high = sorted((max(0, start), min(len(self.value), end)))
            text = text[: max(0, self.max_length - len(self.value) + high - low)]
            if not text and low == high:
                return
        super().replace(text, start, end)

    def action_complete(self) -> None:
        if self._suggestion and len(self._suggestion) > len(self.value):
            self.value = self._suggestion
            self.cursor_position = len(self.value)
        else:
            self.screen.focus_next()
