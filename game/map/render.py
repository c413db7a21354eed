"""The world map: where each location goes on a grid, what is where now, and the drawing.

* ``layout(spec)``: a grid cell per location. A location's ``map = { x = .., y = .. }`` is
  used as given; the rest are placed from the exits, breadth-first from the start (north is
  y - 1, east is x + 1; up, down, in and out go to a diagonal cell); a cell already taken
  sends the location to the nearest free one. The same world always gets the same layout.
* ``map_state(...)``: everything a drawing needs, as plain JSON (rooms and their cells, exits
  and whether they are still locked, where the player and the NPCs are, how far each NPC is
  trusted, the items lying in each room). ``world_map_state``, ``game_map_state`` and
  ``save_map_state`` build it for a world's start, a running game and a save.
* ``geometry(state)``: where each room's box is in the picture; ``draw(state)`` draws it on a
  pygame surface and ``save_png`` writes it to a file without opening a window.

pygame is imported only inside the drawing functions, so the rest of the game never loads it.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from game.core.errors import InputError
from game.core.types import DIRECTIONS, PLAYER

if TYPE_CHECKING:
    from game.play.session import Game

STATE_VERSION = 1
OFFSETS: dict[str, tuple[int, int]] = {
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
assert set(OFFSETS) == set(DIRECTIONS)

# picture sizes (pixels)
CELL_W, CELL_H = 190, 120
BOX_W, BOX_H = 160, 84
MARGIN, TITLE_H, LEGEND_LINE = 24, 40, 20
NAME_SIZES, LEGEND_SIZE = (22, 20, 18, 16), 18  # font sizes: a room's name (largest that fits), the legend
MIN_WIDTH = 620
MAX_SPAN = 60  # cells across or down, after long empty stretches are shortened
MAX_PIXELS = 40_000_000  # the largest picture ``save_png`` draws (4 bytes a pixel in memory)

# colours (RGB)
BACKGROUND = (30, 34, 46)
ROOM = (236, 228, 206)
ROOM_EDGE = (96, 86, 64)
HERE_EDGE = (240, 184, 40)
TEXT_DARK = (40, 34, 28)
TEXT_LIGHT = (226, 226, 232)
OPEN_EXIT = (150, 156, 170)
LOCKED_EXIT = (214, 96, 60)
STAIRS = (96, 86, 140)  # the arrows in a room with a way up or down
PLAYER_DOT = (70, 130, 236)
ITEM_DOT = (200, 150, 30)
TRUST = {"trusted": (52, 168, 84), "lying": (210, 52, 52), "unknown": (150, 150, 150)}


# --- layout ---------------------------------------------------------------------------


def _free_near(
    cell: tuple[int, int], taken: set[tuple[int, int]], source: tuple[int, int] | None = None
) -> tuple[int, int]:
    """``cell`` if free, else the nearest free cell, ring by ring around it; within a ring the
    cells closest to ``source`` (the room it is reached from) first, then in a fixed order."""
    if cell not in taken:
        return cell
    x, y = cell
    sx, sy = source if source is not None else cell
    r = 1
    while True:
        ring = [
            (x + dx, y + dy)
            for dy in range(-r, r + 1)
            for dx in range(-r, r + 1)
            if max(abs(dx), abs(dy)) == r and (x + dx, y + dy) not in taken
        ]
        if ring:
            return min(
                ring, key=lambda c: (abs(c[0] - x) + abs(c[1] - y), max(abs(c[0] - sx), abs(c[1] - sy)), c[1], c[0])
            )
        r += 1


def _neighbours(spec: Any) -> dict[str, list[tuple[str, tuple[int, int]]]]:
    """Per location, the locations next to it and the grid step to them: its own exits first
    (in the order of ``DIRECTIONS``), then exits that lead into it (the step reversed)."""
    order = {d: i for i, d in enumerate(DIRECTIONS)}
    out: dict[str, list[tuple[int, str, str, tuple[int, int]]]] = {lid: [] for lid in spec.locations}
    for lid, loc in spec.locations.items():
        for d, to in loc.exits.items():
            if to not in out or to == lid:
                continue
            dx, dy = OFFSETS[d]
            out[lid].append((0, str(order[d]).zfill(2), to, (dx, dy)))
            out[to].append((1, str(order[d]).zfill(2) + lid, lid, (-dx, -dy)))
    return {lid: [(to, step) for _, _, to, step in sorted(rows)] for lid, rows in out.items()}


def layout(spec: Any) -> dict[str, tuple[int, int]]:
    """A grid cell ``(x, y)`` for every location of a world (see the module docstring)."""
    cells: dict[str, tuple[int, int]] = {}
    taken: set[tuple[int, int]] = set()
    for lid, loc in spec.locations.items():  # the author's cells first (a clash moves the later one)
        if loc.map is not None:
            cells[lid] = _free_near((loc.map.x, loc.map.y), taken)
            taken.add(cells[lid])
    near = _neighbours(spec)
    start = spec.start if spec.start in spec.locations else next(iter(spec.locations))
    seeds = [start, *(lid for lid in spec.locations if lid in cells), *spec.locations]
    for seed in seeds:
        if seed in cells and seed != start and all(n in cells for n, _ in near[seed]):
            continue
        if seed not in cells:
            if not cells:
                cell = (0, 0)
            else:  # another part of the world: below what is drawn so far
                cell = (min(x for x, _ in taken), max(y for _, y in taken) + 2)
            cells[seed] = _free_near(cell, taken)
            taken.add(cells[seed])
        queue = [seed]
        while queue:
            here = queue.pop(0)
            for to, step in near[here]:
                if to in cells:
                    continue
                x, y = cells[here]
                cells[to] = _free_near((x + step[0], y + step[1]), taken, (x, y))
                taken.add(cells[to])
                queue.append(to)
    return {lid: cells[lid] for lid in spec.locations}


# --- what is where --------------------------------------------------------------------


def trust_level(row: dict[str, float] | None) -> str:
    """``lying`` if the NPC was caught lying on any topic, ``trusted`` if it was found right on
    some topic and never wrong, else ``unknown``."""
    scores = list((row or {}).values())
    if any(s < -1e-9 for s in scores):
        return "lying"
    if any(s > 1e-9 for s in scores):
        return "trusted"
    return "unknown"


def map_state(
    spec: Any, state: Any = None, trust: dict[str, dict[str, float]] | None = None, label: str = ""
) -> dict[str, Any]:
    """What a drawing needs (plain JSON): ``state`` is a ``game.engine.state.GameState`` (None: the
    world's start), ``trust`` a Σ-Mem trust table (None: nothing known yet)."""
    if state is None:
        from game.engine.state import GameState

        state = GameState.from_spec(spec)
    cells = layout(spec)
    rooms = {lid: {"name": str(loc.name), "cell": list(cells[lid])} for lid, loc in spec.locations.items()}
    exits: dict[tuple[str, str], bool] = {}
    for lid, loc in spec.locations.items():
        for d, to in loc.exits.items():
            if to not in rooms or to == lid:
                continue
            key = (lid, to) if lid < to else (to, lid)
            locked = d in loc.locked and f"{lid}:{d}" not in state.unlocked
            exits[key] = exits.get(key, False) or locked
    levels = sorted(
        {
            (lid, to) if d == "up" else (to, lid)
            for lid, loc in spec.locations.items()
            for d, to in loc.exits.items()
            if d in ("up", "down") and to in rooms and to != lid
        }
    )  # (lower, upper): joined by stairs, a ladder or a climb, drawn apart from the level exits
    marks = npc_marks({nid: str(npc.name) for nid, npc in spec.npcs.items()})
    npcs = [
        {
            "id": nid,
            "name": str(npc.name),
            "mark": marks[nid],
            "at": state.where.get(nid),
            "trust": trust_level((trust or {}).get(nid)),
        }
        for nid, npc in spec.npcs.items()
    ]
    items: dict[str, list[str]] = {}
    for iid, at in state.item_at.items():
        if at in rooms and iid in spec.items:
            items.setdefault(at, []).append(str(spec.items[iid].name))
    return {
        "version": STATE_VERSION,
        "world": spec.id,
        "title": str(spec.title),
        "label": label,
        "turn": state.turn,
        "rooms": rooms,
        "exits": [[a, b, "locked" if lk else "open"] for (a, b), lk in sorted(exits.items())],
        "levels": [list(pair) for pair in levels],
        "player": state.where.get(PLAYER),
        "npcs": npcs,
        "items": items,
    }


def npc_marks(names: dict[str, str]) -> dict[str, str]:
    """One letter per NPC, no two alike (in the order given): the initial of the first word of its
    name, else of a later word, else any other letter of its name, else a digit. Orla Gannet is G
    beside Old Hobb's O; the legend says who is who."""
    marks: dict[str, str] = {}
    for nid, name in names.items():
        words = [w for w in name.split() if w[:1].isalpha()] or [nid]
        letters = [w[0] for w in words] + [c for c in "".join(words) if c.isalpha()]
        free = [c.upper() for c in letters if c.upper() not in marks.values()]
        marks[nid] = free[0] if free else next(str(n) for n in range(10**6) if str(n) not in marks.values())
    return marks


def world_map_state(world: Any) -> dict[str, Any]:
    """A world at its start (nobody trusted or distrusted yet)."""
    return map_state(world.spec, label="start")


def game_map_state(game: Game, label: str = "") -> dict[str, Any]:
    """A running ``game.play.session.Game`` now."""
    trust = game.facts.trust_table() if getattr(game, "facts", None) is not None else None
    return map_state(game.spec, game.engine.state, trust, label=label)


def save_map_state(
    ref: str | Path, base: str | Path | None = None, world_path: str | Path | None = None
) -> tuple[dict[str, Any], Any, Path]:
    """A save as it stands: (map state, its world, its folder). The save is loaded exactly as
    ``parley play --load`` loads it (``Game.load``: the same checks, and world-fact memory built
    with the settings the game was made with, so Σ-Mem's trust reads back whatever embedder it
    used); nothing is written. A damaged save is a ``SaveError``."""
    from game.play.session import Game

    game = Game.load(ref, base, world_path=world_path)
    folder = game.loaded_from if game.loaded_from is not None else Path(ref)
    return game_map_state(game, label=f"save {folder.name}"), game.world, folder


# --- geometry ---------------------------------------------------------------------------


def _squeeze(values: list[int]) -> dict[int, int]:
    """Column (or row) numbers to positions from 0, with any run of empty ones shortened to one."""
    pos, out, last = 0, {}, None
    for v in sorted(set(values)):
        if last is not None:
            pos += 1 if v - last == 1 else 2
        out[v] = pos
        last = v
    return out


@dataclass(frozen=True)
class Geometry:
    """Where things are in the picture: ``rooms`` maps a location id to its box
    ``(left, top, width, height)``; ``size`` is the picture's (width, height); ``legend`` holds the
    legend's entries ``(kind, text, left, row)`` (see ``legend``), below ``legend_top``."""

    size: tuple[int, int]
    rooms: dict[str, tuple[int, int, int, int]]
    legend_top: int
    legend: tuple[tuple[str, str, int, int], ...] = ()

    def centre(self, lid: str) -> tuple[int, int]:
        left, top, w, h = self.rooms[lid]
        return left + w // 2, top + h // 2

    def legend_y(self, row: int) -> int:
        """The middle of legend row ``row``."""
        return self.legend_top + 14 + row * LEGEND_LINE


def geometry(state: dict[str, Any]) -> Geometry:
    """Box positions, the legend's rows and the picture size for a map state (see ``map_state``):
    the picture is tall enough for every row of the legend."""
    rooms = state["rooms"]
    if not rooms:
        raise InputError("the world has no locations to draw")
    xs = _squeeze([r["cell"][0] for r in rooms.values()])
    ys = _squeeze([r["cell"][1] for r in rooms.values()])
    cols, rows = max(xs.values()) + 1, max(ys.values()) + 1
    if cols > MAX_SPAN or rows > MAX_SPAN:
        raise InputError(
            f"the map is {cols} x {rows} cells; at most {MAX_SPAN} x {MAX_SPAN} can be drawn",
            hint="give the locations' map cells closer together",
        )
    width = max(MIN_WIDTH, 2 * MARGIN + cols * CELL_W)
    left0 = (width - cols * CELL_W) // 2
    boxes = {}
    for lid, r in rooms.items():
        cx = left0 + xs[r["cell"][0]] * CELL_W + (CELL_W - BOX_W) // 2
        cy = TITLE_H + ys[r["cell"][1]] * CELL_H + (CELL_H - BOX_H) // 2
        boxes[lid] = (cx, cy, BOX_W, BOX_H)
    legend_top = TITLE_H + rows * CELL_H
    entries = tuple(legend(state, width))
    height = legend_top + 14 + (max(row for *_, row in entries) + 1) * LEGEND_LINE + MARGIN // 2
    return Geometry(size=(width, height), rooms=boxes, legend_top=legend_top, legend=entries)


# --- drawing ---------------------------------------------------------------------------


def require_pygame() -> Any:
    """The pygame module, or an ``InputError`` saying how to install it."""
    os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
    try:
        import pygame
    except ImportError:
        from game.core.extras import ExtraMissing

        raise ExtraMissing("the map", "map", ["pygame"]) from None
    return pygame


@functools.lru_cache(maxsize=16)
def font(size: int, bold: bool = False) -> Any:
    """pygame's default font at ``size`` (the same in every drawing and measurement)."""
    pg = require_pygame()
    if not pg.font.get_init():
        pg.font.init()
    f = pg.font.Font(None, size)
    f.set_bold(bold)
    return f


def _fit(font: Any, text: str, width: int) -> str:
    """``text`` shortened with '...' until it fits in ``width`` pixels."""
    if font.size(text)[0] <= width:
        return text
    while text and font.size(text + "...")[0] > width:
        text = text[:-1]
    return text.rstrip() + "..."


def room_name(name: str, width: int = BOX_W - 14) -> tuple[int, list[str]]:
    """(font size, lines) for a room's name in its box: whole words on at most two lines, in the
    largest of the name sizes that fits ``width`` pixels (only a word wider than the box at the
    smallest size is cut, with '...')."""
    words = name.split() or [""]
    for size in NAME_SIZES:
        f, lines = font(size), [words[0]]
        for w in words[1:]:
            if f.size(f"{lines[-1]} {w}")[0] <= width:
                lines[-1] += f" {w}"
            else:
                lines.append(w)
        if len(lines) <= 2 and all(f.size(line)[0] <= width for line in lines):
            return size, lines
    f = font(NAME_SIZES[-1])
    return NAME_SIZES[-1], [_fit(f, line, width) for line in (lines[0], " ".join(lines[1:]))]


SYMBOLS = ("you", "trusted", "caught lying", "unknown", "item", "locked", "up / down")


def legend(state: dict[str, Any], width: int) -> list[tuple[str, str, int, int]]:
    """The legend's entries as (kind, text, left, row): the symbols (kind ``symbol``), then every
    NPC's mark and full name (kind ``npc:<id>``), wrapped into rows that fit ``width`` pixels."""
    small, right = font(LEGEND_SIZE), width - MARGIN
    out, x, row = [], MARGIN, 0
    items = [("symbol", t) for t in SYMBOLS] + [(f"npc:{n['id']}", n["name"]) for n in state["npcs"]]
    for n, (kind, text) in enumerate(items):
        lead = 34 if text in ("locked", "up / down") else 18  # a line sample, else a dot
        span = lead + small.size(text)[0] + 14
        if n and (x + span > right or (kind.startswith("npc") and items[n - 1][0] == "symbol")):
            x, row = MARGIN, row + 1  # the NPCs start a row of their own
        out.append((kind, text, x, row))
        x += span
    return out


def _dashed(pg: Any, surface: Any, colour: tuple, a: tuple[int, int], b: tuple[int, int], width: int) -> None:
    length = math.dist(a, b)
    if length < 1:
        return
    dash, gap = 10, 7
    ux, uy = (b[0] - a[0]) / length, (b[1] - a[1]) / length
    t = 0.0
    while t < length:
        e = min(t + dash, length)
        pg.draw.line(
            surface,
            colour,
            (round(a[0] + ux * t), round(a[1] + uy * t)),
            (round(a[0] + ux * e), round(a[1] + uy * e)),
            width,
        )
        t = e + gap


def _link(pg: Any, surface: Any, a: tuple[int, int], b: tuple[int, int], locked: bool, stairs: bool) -> None:
    """An exit between two rooms: a solid line, dashed when locked; up/down as a double line."""
    colour = LOCKED_EXIT if locked else OPEN_EXIT
    length = math.dist(a, b) or 1.0
    nx, ny = (b[1] - a[1]) / length, (a[0] - b[0]) / length  # the unit normal
    for off in (-3, 3) if stairs else (0,):
        p = (round(a[0] + nx * off), round(a[1] + ny * off))
        q = (round(b[0] + nx * off), round(b[1] + ny * off))
        if locked:
            _dashed(pg, surface, colour, p, q, 2 if stairs else 3)
        else:
            pg.draw.line(surface, colour, p, q, 2 if stairs else 3)


def _arrow(pg: Any, surface: Any, box: tuple[int, int, int, int], up: bool, colour: tuple = STAIRS) -> None:
    """A small triangle at a box's right edge, below its name: the way up (pointing up) or, beside
    it, the way down."""
    x, y = box[0] + box[2] - (26 if up else 12), box[1] + box[3] // 2 + 8
    pts = [(x - 5, y + 4), (x + 5, y + 4), (x, y - 4)] if up else [(x - 5, y - 4), (x + 5, y - 4), (x, y + 4)]
    pg.draw.polygon(surface, colour, pts)


def marker_positions(
    box: tuple[int, int, int, int], here: bool, npcs: list[dict[str, Any]], items: list[str]
) -> list[tuple[str, str, tuple[int, int]]]:
    """Where the markers go along the bottom of a room's box, as (kind, id, centre): the player
    (``player``), each NPC (``npc``, its id) and each item (``item``, its name), as many as fit."""
    left, top, w, h = box
    y, x, right = top + h - 13, left + 12, left + w - 8
    out: list[tuple[str, str, tuple[int, int]]] = []
    if here:
        out.append(("player", PLAYER, (x, y)))
        x += 20
    for n in npcs:
        if x > right - 8:
            return out
        out.append(("npc", n["id"], (x, y)))
        x += 20
    for name in items:
        if x > right - 3:
            break
        out.append(("item", name, (x, y)))
        x += 9
    return out


def markers(state: dict[str, Any], geo: Geometry | None = None) -> dict[str, list[tuple[str, str, tuple[int, int]]]]:
    """``marker_positions`` for every room of a map state."""
    geo = geo or geometry(state)
    by_room: dict[str, list[dict[str, Any]]] = {}
    for n in state["npcs"]:
        by_room.setdefault(n.get("at"), []).append(n)
    return {
        lid: marker_positions(
            geo.rooms[lid], lid == state.get("player"), by_room.get(lid, []), state["items"].get(lid, [])
        )
        for lid in state["rooms"]
    }


def mark_of(npc: dict[str, Any]) -> str:
    """The letter on an NPC's marker (``map_state``'s ``mark``; the initial in an older state)."""
    return str(npc.get("mark") or (npc["name"][:1] or "?").upper())


def _npc_dot(pg: Any, surface: Any, npc: dict[str, Any], at: tuple[int, int]) -> None:
    pg.draw.circle(surface, TRUST.get(npc["trust"], TRUST["unknown"]), at, 8)
    letter = font(18, bold=True).render(mark_of(npc), True, (255, 255, 255))
    surface.blit(letter, letter.get_rect(center=(at[0], at[1] + 1)))


def _markers(pg: Any, surface: Any, state: dict[str, Any], geo: Geometry) -> None:
    """The player, the NPCs (coloured by trust, with their mark) and the items."""
    npcs = {n["id"]: n for n in state["npcs"]}
    for row in markers(state, geo).values():
        for kind, ident, at in row:
            if kind == "player":
                pg.draw.circle(surface, PLAYER_DOT, at, 8)
            elif kind == "item":
                pg.draw.circle(surface, ITEM_DOT, at, 3)
            else:
                _npc_dot(pg, surface, npcs[ident], at)


def labels(state: dict[str, Any], geo: Geometry | None = None) -> list[tuple[str, str, tuple[int, int, int, int]]]:
    """Every text the picture holds, as (where, text, box): ``title``, ``room:<id>`` (one per line of
    a room's name) and ``legend`` (one per entry); boxes are (left, top, width, height)."""
    geo = geo or geometry(state)
    out = []
    turn = f"turn {state.get('turn', 0)}" + (f", {state['label']}" if state.get("label") else "")
    title_font = font(28)
    title = _fit(title_font, f"{state.get('title', '')} ({turn})", geo.size[0] - 2 * MARGIN)
    w, h = title_font.size(title)
    out.append(("title", title, (MARGIN, (TITLE_H - h) // 2 + 4, w, h)))
    for lid, room in state["rooms"].items():
        left, top, bw, _ = geo.rooms[lid]
        size, lines = room_name(room["name"])
        for n, line in enumerate(lines):
            w, h = font(size).size(line)
            out.append((f"room:{lid}", line, (left + (bw - w) // 2, top + 6 + n * (h - 2), w, h)))
    small = font(LEGEND_SIZE)
    for kind, text, x, row in geo.legend:
        w, h = small.size(text)
        lead = 34 if text in ("locked", "up / down") else 18
        out.append(("legend", text, (x + lead, geo.legend_y(row) - h // 2, w, h)))
    return out


def _legend_symbols(pg: Any, surface: Any, state: dict[str, Any], geo: Geometry) -> None:
    npcs = {f"npc:{n['id']}": n for n in state["npcs"]}
    dots = {"you": PLAYER_DOT, "trusted": TRUST["trusted"], "caught lying": TRUST["lying"]}
    dots |= {"unknown": TRUST["unknown"], "item": ITEM_DOT}
    for kind, text, x, row in geo.legend:
        y = geo.legend_y(row)
        if kind in npcs:
            _npc_dot(pg, surface, npcs[kind], (x + 8, y))
        elif text in dots:
            pg.draw.circle(surface, dots[text], (x + 7, y), 3 if text == "item" else 7)
        else:
            _link(pg, surface, (x, y), (x + 28, y), text == "locked", text == "up / down")


def draw(state: dict[str, Any]) -> Any:
    """The map of a map state on a new pygame surface (no window needed)."""
    pg = require_pygame()
    geo = geometry(state)
    surface = pg.Surface(geo.size)
    surface.fill(BACKGROUND)
    levels = {tuple(sorted(pair)) for pair in state.get("levels", ())}
    for a, b, kind in state["exits"]:
        if a in geo.rooms and b in geo.rooms:
            _link(pg, surface, geo.centre(a), geo.centre(b), kind == "locked", tuple(sorted((a, b))) in levels)
    for lid in state["rooms"]:
        box = geo.rooms[lid]
        here = lid == state.get("player")
        pg.draw.rect(surface, ROOM, pg.Rect(box))
        pg.draw.rect(surface, HERE_EDGE if here else ROOM_EDGE, pg.Rect(box), 4 if here else 2)
    for lower, upper in state.get("levels", ()):
        if lower in geo.rooms and upper in geo.rooms:
            _arrow(pg, surface, geo.rooms[lower], up=True)
            _arrow(pg, surface, geo.rooms[upper], up=False)
    sizes = {f"room:{lid}": room_name(r["name"])[0] for lid, r in state["rooms"].items()}
    for where, text, box in labels(state, geo):
        size = 28 if where == "title" else LEGEND_SIZE if where == "legend" else sizes[where]
        colour = TEXT_DARK if where.startswith("room:") else TEXT_LIGHT
        surface.blit(font(size).render(text, True, colour), box[:2])
    _markers(pg, surface, state, geo)
    _legend_symbols(pg, surface, state, geo)
    return surface


def save_png(state: dict[str, Any], path: str | Path) -> Path:
    """Draw a map state into a PNG file without a window (``game.core.files.write_atomic``: an
    old file is never half-replaced; a failed write is a ``WriteError`` naming ``path``). A
    picture over ``MAX_PIXELS`` is an ``InputError``, refused before it is drawn."""
    import io

    from game.core.files import write_atomic

    os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
    pg = require_pygame()
    width, height = geometry(state).size
    if width * height > MAX_PIXELS:
        raise InputError(
            f"the map of {state.get('world', 'the world')} would be {width} x {height} pixels; "
            f"the limit is {MAX_PIXELS:,}",
            hint="a world this large has no map picture",
        )
    png = io.BytesIO()
    pg.image.save(draw(state), png, "png")
    return write_atomic(path, png.getvalue())
