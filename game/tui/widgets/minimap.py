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
CELL = 6  # characters per grid column: a 5-character label and a connector


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


def label(name: str) -> str:
    words = [w for w in name.split() if w.lower() not in ("the", "a", "an", "of")] or [name]
    if len(words) == 1:
        return words[0][:5]
    return (words[0][:3] + words[-1][:2]) if len(words[0]) > 2 else "".join(w[:2] for w in words)[:5]


def draw(tracker: MapTracker, width: int, height: int) -> Text:
    """The map as text, ``width`` x ``height`` characters at most, centred on the player."""
    if not tracker.at:
        return Text("(nowhere yet)", style="dim")
    cols, rows = max(1, width // CELL), max(1, (height + 1) // 2)
    hx, hy = tracker.at.get(tracker.here or "", (0, 0))
    xs = sorted(p[0] for p in tracker.at.values())
    ys = sorted(p[1] for p in tracker.at.values())
    x0 = xs[0] if xs[-1] - xs[0] < cols else hx - cols // 2  # all of it when it fits
    y0 = ys[0] if ys[-1] - ys[0] < rows else hy - rows // 2
    where = {p: loc for loc, p in tracker.at.items()}
    linked = {(a, b) for a, _, b in tracker.edges} | {(b, a) for a, _, b in tracker.edges}
    vertical = {(a, b) for a, d, b in tracker.edges if d in ("up", "down")}
    vertical |= {(b, a) for a, b in vertical}
    out = Text(no_wrap=True, overflow="crop")
    for y in range(y0, y0 + rows):
        line, under = Text(), Text()
        for x in range(x0, x0 + cols):
            loc = where.get((x, y))
            if loc is None:
                line.append(" " * CELL)
            else:
                style = "reverse bold" if loc == tracker.here else "bold"
                mark = "↕" if any(a == loc for a, _ in vertical) else ""
                line.append(f"{(label(tracker.names.get(loc, loc)) + mark)[:5]:^5}", style=style)
                east = where.get((x + 1, y))
                line.append("─" if east and (loc, east) in linked else " ", style="dim")
            south = where.get((x, y + 1))
            under.append(f"{'│' if loc and south and (loc, south) in linked else ' ':^5} ", style="dim")
        out.append_text(line)
        if y < y0 + rows - 1:
            out.append("\n")
            out.append_text(under)
            out.append("\n")
    return out


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

    def on_resize(self) -> None:
        self.refresh_map()
