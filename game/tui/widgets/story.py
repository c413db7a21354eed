"""The story log: what happened, speakers in their own colours, and a mark on each claim for
how the consistency gate holds it (told ·, disputed ?, verified ✓, false ✗)."""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.events import Resize
from textual.widgets import RichLog

from game.core.types import PLAYER, EventKind

if TYPE_CHECKING:
    from game.play.session import Game

PLAYER_STYLE = "bold #5fafff"
PLAYER_WORDS = "#87afd7"
NOTE_STYLE = "italic #d7af5f"
# NPC names: one colour each, the same in every game (picked by a hash of the NPC's id)
SPEAKER_COLOURS = (
    "#ff8787",
    "#87d787",
    "#d7af87",
    "#d787d7",
    "#5fd7d7",
    "#ffaf5f",
    "#afafff",
    "#d7d75f",
    "#ff87af",
    "#87d7af",
)
MARKS = {
    "told": ("·", "dim"),
    "disputed": ("?", "bold yellow"),
    "verified": ("✓", "bold green"),
    "false": ("✗", "bold red"),
}
STATUS_MARK = {
    "admitted": "told",
    "quarantined": "disputed",
    "superseded": "disputed",
    "verified": "verified",
    "purged": "false",
    "rejected": "false",
}
SPEECH = (EventKind.SAY, EventKind.TALK, EventKind.SPEECH, EventKind.OFFER)
MAX_ENTRIES = 600
ECHO_CHARS = 200  # a command longer than this is echoed cut, with an ellipsis
REWRAP_DELAY = 0.15  # seconds after the last resize before the story is wrapped again


def speaker_colour(npc: str) -> str:
    return SPEAKER_COLOURS[zlib.crc32(npc.encode("utf-8")) % len(SPEAKER_COLOURS)]


def claim_status(facts: Any, claim: Any) -> str:
    """How the gate holds ``claim``: told, disputed, verified or false (told when it has no
    entry yet, or the game keeps no world-fact memory)."""
    gate = getattr(facts, "gate", None)
    if gate is None:
        return "told"
    from memory.gate import norm

    want = (norm(claim.subject), norm(claim.relation), norm(claim.object))
    found = [f for f in gate.facts.values() if f.triple == want]
    if not found:
        return "told"
    verified = [f for f in found if f.status == "verified"]
    if verified:
        return "verified" if verified[-1].truth else "false"
    return STATUS_MARK.get(found[-1].status, "told")


def speaker_of(ev: Any, npcs: Any) -> str | None:
    """The NPC whose words an event reports (None when nobody speaks)."""
    if ev.kind not in SPEECH:
        return None
    if ev.actor != PLAYER and ev.actor in npcs:
        return ev.actor
    npc = (ev.data or {}).get("npc")
    return npc if npc in npcs else None


class Story(RichLog):
    """A ``RichLog`` that keeps what it shows, so claim marks can be redrawn when the gate's
    view of a claim changes (a claim proved true or false later), and wrapped again at a new
    width when the terminal is resized."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(wrap=True, markup=False, highlight=False, min_width=20, **kw)
        self.entries: list[tuple[str, Any]] = []  # ("text", (line, style)) or ("event", (event, names))
        self.facts: Any = None
        self._marks: list[str] = []
        self._drawn_width = 0  # the width the lines were wrapped at
        self._rewrap: Any = None

    # --- adding ---------------------------------------------------------------------------
    def note(self, text: str, style: str = "") -> None:
        self._add(("text", (text, style)))

    def command(self, text: str) -> None:
        if self.entries:
            self.note("")
        if len(text) > ECHO_CHARS:
            text = text[: ECHO_CHARS - 1] + "…"
        self.note(f"> {text}", PLAYER_STYLE)

    def event(self, ev: Any, game: Game) -> None:
        self._add(("event", (ev, game.engine.name, set(game.spec.npcs))))

    def _add(self, entry: tuple[str, Any]) -> None:
        self.entries.append(entry)
        if len(self.entries) > MAX_ENTRIES:
            del self.entries[: len(self.entries) - MAX_ENTRIES]
        self.write(self.render_entry(entry))

    def reset(self) -> None:
        self.entries.clear()
        self.clear()

    # --- drawing --------------------------------------------------------------------------
    def render_entry(self, entry: tuple[str, Any]) -> Text:
        kind, payload = entry
        if kind == "text":
            line, style = payload
            return Text(line, style=style)
        ev, name, npcs = payload
        line = ev.seen_by(PLAYER)
        text = Text(line)
        who = speaker_of(ev, npcs)
        if who is not None:
            shown = name(who)
            at = line.find(shown)
            if 0 <= at <= 2:
                text.stylize(f"bold {speaker_colour(who)}", at, at + len(shown))
        elif ev.actor == PLAYER and ev.kind in SPEECH:
            text.stylize(PLAYER_WORDS)
        for claim in ev.claims:
            mark, style = MARKS[claim_status(self.facts, claim)]
            text.append(" ")
            text.append(mark, style=style)
        return text

    def marks(self) -> list[str]:
        return [claim_status(self.facts, c) for kind, p in self.entries if kind == "event" for c in p[0].claims]

    def refresh_marks(self) -> None:
        """Redraw the log if any claim changed its mark since it was drawn."""
        marks = self.marks()
        if marks == self._marks:
            return
        if len(marks) != len(self._marks) and marks[: len(self._marks)] == self._marks:
            self._marks = marks  # only new claims, already drawn with their marks
            return
        self._marks = marks
        self.redraw()

    def redraw(self) -> None:
        """Draw every entry again (at the current width)."""
        self._drawn_width = self.scrollable_content_region.width
        with self.app.batch_update():
            self.clear()
            for entry in self.entries:
                self.write(self.render_entry(entry))

    def on_resize(self, event: Resize) -> None:
        """A new width: wrap the story again once the resizing stops (RichLog's own handler
        draws what was written before the size was known)."""
        width = self.scrollable_content_region.width
        if not self._drawn_width:
            self._drawn_width = width
            return
        if width == self._drawn_width:
            return
        if self._rewrap is not None:
            self._rewrap.stop()
        self._rewrap = self.set_timer(REWRAP_DELAY, self._rewrap_now)

    def _rewrap_now(self) -> None:
        self._rewrap = None
        if self.scrollable_content_region.width != self._drawn_width:
            self.redraw()
