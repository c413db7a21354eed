"""A small map of the places the player has been, drawn on a grid from the directions of the
exits taken (read from the player's own move events in the transcript)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.widgets import Static

from game.core.types import PLAYER

if TYPE_CHECKING:
    from game.play.session import Game

STEP = {
    "north": (0, -1),
    "south": (0, 1),
    "east": (1, 0),
    "west": (-1, 0),
    "northeast": (1, -1),
    "northwest": (-1, -1),
    "southeast": (1, 1),
    "southwest": (-1, 1),
    "up": (1, -1),
    "down": (-1, 1),
    "in": (1, 1),
    "out": (-1, -1),
}
CELL = 8  # the narrowest grid column: a 7-character label and a connector


class MapTracker:
    """Places seen and exits taken, with a grid position for each place."""

    def __init__(self) -> None:
        self.at: dict[str, tuple[int, int]] = {}
        self.edges: set[tuple[str, str, str]] = set()  # (from, direction, to)
        self.names: dict[str, str] = {}
        self.here: str | None = None
        self._read = 0
        self._transcript: Any = None

    def _place(self, loc: str, near: str | None = None, direction: str | None = None) -> None:
        if loc in self.at:
            return
        if near is None or near not in self.at:
            x, y = (0, 0) if not self.at else (max(p[0] for p in self.at.values()) + 2, 0)
        else:
            dx, dy = STEP.get(direction or "", (1, 0))
            x, y = self.at[near][0] + dx, self.at[near][1] + dy
        taken = set(self.at.values())
        ring = 0
        while (x, y) in taken:  # the nearest free cell
            ring += 1
            free = [
                (x + dx, y + dy)
                for dy in range(-ring, ring + 1)
                for dx in range(-ring, ring + 1)
                if (x + dx, y + dy) not in taken
            ]
            if free:
                x, y = min(free, key=lambda p: (abs(p[0] - x) + abs(p[1] - y), p[1], p[0]))
        self.at[loc] = (x, y)

    def moved(self, src: str, direction: str, dst: str) -> None:
        self._place(src)
        self._place(dst, src, direction)
        self.edges.add((src, direction, dst))

    def track(self, game: Game) -> None:
        """Read the player's moves recorded since the last call (from the start for a new game)."""
        transcript = game.transcript
        if transcript is not self._transcript:
            self.__init__()
            self._transcript = transcript
        for line in transcript.records[self._read :]:
            if '"move"' not in line:
                continue
            rec = json.loads(line)
            data = rec.get("data") or {}
            if (
                rec.get("type") == "event"
                and rec.get("kind") == "move"
                and rec.get("actor") == PLAYER
                and data.get("from")
                and data.get("to")
            ):
                self.moved(data["from"], str(data.get("dir", "")), data["to"])
        self._read = len(transcript.records)
        self.here = game.engine.state.where[PLAYER]
        self._place(self.here)
        for loc in self.at:
            self.names[loc] = game.engine.name(loc)

    def arrows(self, loc: str) -> str:
        """↑, ↓ or ↕: the ways up and down from ``loc`` the player has taken (either way)."""
        up = any((a == loc and d == "up") or (b == loc and d == "down") for a, d, b in self.edges)
        down = any((a == loc and d == "down") or (b == loc and d == "up") for a, d, b in self.edges)
        return "↕" if up and down else "↑" if up else "↓" if down else ""


ARTICLES = ("the", "a", "an")
VERTICAL = ("up", "down")


def label(name: str, width: int) -> str:
    """A place's name in at most ``width`` characters, readable: the whole name (without a leading
    article), else its words shortened to initials but the last ("H. Office" for Harbormaster's
    Office), else its last word, else its first, else cut with "…". ``legend`` says what a short
    one stands for."""
    words = name.split()
    if len(words) > 1 and words[0].lower() in ARTICLES:
        words = words[1:]
    whole = " ".join(words)
    tries = [whole]
    if len(words) > 1:
        tries += [" ".join(w[0] + "." for w in words[:-1]) + " " + words[-1], words[-1], words[0]]
    for t in tries:
        if len(t) <= width:
            return t
    return whole[: max(1, width - 1)] + "…"


def legend(tracker: MapTracker, width: int, shown: set[str] | None = None) -> list[str]:
    """ "short = full name" for each place (of ``shown``, default all) whose label is shortened."""
    out = []
    for loc in sorted(shown if shown is not None else tracker.at, key=lambda p: tracker.at[p][::-1]):
        name = tracker.names.get(loc, loc)
        short = label(name, width - len(tracker.arrows(loc)))
        if short != name and short != " ".join(name.split()[1:]):
            out.append(f"{short} = {name}")
    return out


def _window(tracker: MapTracker, cols: int, rows: int) -> tuple[int, int]:
    """The top-left grid cell of the part of the map shown: all of it when it fits, else the part
    that holds the player and the most other places (never an empty band beside them)."""
    hx, hy = tracker.at.get(tracker.here or "", (0, 0))
    cells = list(tracker.at.values())

    def best(axis: int, here: int, size: int) -> int:
        lo = min(c[axis] for c in cells)
        hi = max(c[axis] for c in cells)
        if hi - lo < size:
            return lo
        starts = range(max(lo, here - size + 1), min(here, hi - size + 1) + 1)
        return max(starts, key=lambda s: (sum(s <= c[axis] < s + size for c in cells), -abs(s + size // 2 - here)))

    return best(0, hx, cols), best(1, hy, rows)


def draw(tracker: MapTracker, width: int, height: int) -> Text:
    """The map as text, ``width`` x ``height`` characters at most: each place under a readable
    label (``label``), a way up or down marked on the place (↑ ↓ ↕) and its link drawn as ↕, other
    links as ─ │ ╱ ╲; under it, as room allows, what the shortened labels stand for."""
    if not tracker.at:
        return Text("(nowhere yet)", style="dim")
    cell = max(8, min(14, width // 3))
    cols, rows = max(1, width // cell), max(1, (height + 1) // 2)
    x0, y0 = _window(tracker, cols, rows)
    where = {p: loc for loc, p in tracker.at.items()}
    links: dict[frozenset, str] = {}
    for a, d, b in tracker.edges:
        if a != b:
            links[frozenset((a, b))] = "↕" if d in VERTICAL else links.get(frozenset((a, b)), "")
    used = [y for y in range(y0, y0 + rows) if any((x, y) in where for x in range(x0, x0 + cols))]
    out, shown = Text(no_wrap=True, overflow="crop"), set()
    for y in range(y0, (used[-1] if used else y0) + 1):
        line, under = Text(), Text()
        for x in range(x0, x0 + cols):
            loc = where.get((x, y))
            if loc is None:
                line.append(" " * cell)
            else:
                shown.add(loc)
                arrows = tracker.arrows(loc)
                text = label(tracker.names.get(loc, loc), cell - 1 - len(arrows)) + arrows
                line.append(f"{text:^{cell - 1}}", style="reverse bold" if loc == tracker.here else "bold")
                line.append(_link(links, loc, where.get((x + 1, y)), "─"), style="dim")
            below = _link(links, loc, where.get((x, y + 1)), "│")
            cross = _link(links, loc, where.get((x + 1, y + 1)), "╲")
            if cross == " ":
                cross = _link(links, where.get((x + 1, y)), where.get((x, y + 1)), "╱")
            under.append(f"{below:^{cell - 1}}{cross}", style="dim")
        if out:
            out.append("\n")
        out.append_text(line)
        if y < y0 + rows - 1 and (y + 1) in used:
            out.append("\n")
            out.append_text(under)
    lines = str(out).count("\n") + 1
    for text in legend(tracker, cell - 1, shown)[: max(0, height - lines)]:
        out.append("\n" + text, style="dim")
    return out


def _link(links: dict[frozenset, str], a: str | None, b: str | None, glyph: str) -> str:
    """The connector between two places in neighbouring cells: ``glyph``, or ↕ for a way up or down
    (whatever side the other place was drawn on), or a space."""
    kind = links.get(frozenset((a, b))) if a and b else None
    return " " if kind is None else (kind or glyph)


class Minimap(Static):
    """Draws a ``MapTracker`` to fit the widget."""

    def __init__(self, **kw: Any) -> None:
        super().__init__("", **kw)
        self.tracker = MapTracker()

    def update_from(self, game: Game) -> None:
        self.tracker.track(game)
        here = self.tracker.names.get(self.tracker.here or "", "")
        self.border_subtitle = here
        self.refresh_map()

    def refresh_map(self) -> None:
        width = max(CELL, (self.content_size.width or 36))
        height = max(3, (self.content_size.height or 7))
        self.update(draw(self.tracker, width, height))
        self.tooltip = "\n".join(legend(self.tracker, max(CELL, min(14, width // 3)) - 1)) or None

    def on_resize(self) -> None:
        self.refresh_map()
