"""How big a world may be: the limits every world load checks (``parley validate`` and every game).

Real worlds sit far inside them (the shipped ones have at most 14 rooms, 10 NPCs and 30 facts); they
exist so that a world file cannot make a turn, a save or the trust memory slow or huge. The costs
they bound: a turn's engine work grows with the NPCs that act and what they perceive (the people in
the rooms they stand in); a saved game keeps each entity's last ``RECENT_EVENTS`` events with their
witnesses, so it grows with NPCs times the people in a room; Σ-Mem keeps a peer-by-peer matrix
(``NPCs²`` numbers, saved with the game). Documented in docs/guide/limits.md ("World sizes").

``SECTIONS``: entries per top-level table. ``MAX_NPCS_PER_LOCATION``: NPCs that start in one
location. The lists inside an entry carry their own ``max_length`` in ``game.world.spec``.
``MAX_ENTRIES``: any table or array in a world file, whatever it is (a catch-all for agent
parameters and negotiation issues), checked on the raw file before the schema.

``lifted()``: a context manager for benchmarks and tests that measure the engine past the limits
(benchmarks/npc_scaling.py loads a 10,000-NPC world with it). Python code only: no world key,
environment variable or command-line flag reaches it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from copy import copy
from functools import cache
from typing import Any

from game.core.errors import Problem

MAX_NPCS = 1_000
MAX_LOCATIONS = 1_000
MAX_ITEMS = 2_000
MAX_FACTS = 2_000
MAX_RELATIONS = 200
MAX_QUESTS = 200
MAX_SCENES = 200
MAX_UNITS = 100
MAX_CLOCK = 100
MAX_NPCS_PER_LOCATION = 50
"""NPCs that may start in one location (a crowd's every event is seen by all of it)."""

MAX_ALIASES = 32
"""Other words for one thing (an item, an NPC, a piece of scenery, a relation, a unit)."""
MAX_SCENERY = 64
"""Pieces of scenery in one location."""
MAX_HELD = 500
"""Items in one location, an inventory or a container; facts an NPC knows, an item reveals or shows;
items an NPC wants; an NPC's per-topic honesty."""
MAX_LINES = 100
"""Dialogue lines for one intent of an NPC."""
MAX_GOALS = 32
"""Conditions in one quest's goal, and items in its reward."""
MAX_PARTICIPANTS = 64
"""Members of one council scene."""
MAX_ARGUMENTS = 100
"""Arguments in one member's bank, and items that persuade it."""
MAX_ENTRIES = 10_000
"""Entries in any one table or array of a world file."""
MAX_WORLD_BYTES = 32 * 1024 * 1024
"""All the files of a world together (each may be up to ``game.core.files.MAX_FILE_BYTES``): a world
is read and parsed whole, at several times its size in memory."""
MAX_PAIRS = 250_000
"""Actions that multiply: give each item to each NPC, ask each NPC about each fact topic (the
action catalogue of an agent that is shown the commands open to it, ``game.engine.catalogue``)."""

SECTIONS: dict[str, tuple[int, str]] = {
    "locations": (MAX_LOCATIONS, "locations"),
    "items": (MAX_ITEMS, "items"),
    "npcs": (MAX_NPCS, "NPCs"),
    "facts": (MAX_FACTS, "facts"),
    "relations": (MAX_RELATIONS, "relations"),
    "quests": (MAX_QUESTS, "quests"),
    "scenes": (MAX_SCENES, "scenes"),
    "units": (MAX_UNITS, "units"),
    "clock": (MAX_CLOCK, "clock times"),
}
DOC = "docs/guide/limits.md, World sizes"

_LIFTED: ContextVar[bool] = ContextVar("world_size_limits_lifted", default=False)


@contextmanager
def lifted() -> Iterator[None]:
    """Inside this block, world loads skip the size limits that count whole things: the entries
    of a top-level table (``SECTIONS``, also the files of a folder such as ``npcs/``), NPCs per
    starting location, ``MAX_PAIRS`` and ``MAX_ENTRIES``. The limits inside one entry (aliases,
    inventories, ...) and the nesting depth still hold. For benchmarks and tests that measure
    what the limits protect against; users' loads (``parley validate``, every game) never run
    inside it. Per thread and task (a context variable); restored on leaving."""
    token = _LIFTED.set(True)
    try:
        yield
    finally:
        _LIFTED.reset(token)


def are_lifted() -> bool:
    """Whether the code runs inside ``lifted()``."""
    return _LIFTED.get()


def world_model() -> type:
    """The schema a world validates against: ``WorldSpec``, or inside ``lifted()`` a subclass
    whose top-level tables have no ``max_length``."""
    from game.world.spec import WorldSpec

    return _unbounded_world() if are_lifted() else WorldSpec


@cache
def _unbounded_world() -> type:
    from annotated_types import MaxLen
    from pydantic import create_model

    from game.world.spec import WorldSpec

    fields: dict[str, Any] = {}
    for name in SECTIONS:
        info = WorldSpec.model_fields[name]
        if any(isinstance(m, MaxLen) for m in info.metadata):
            free = copy(info)
            free.metadata = [m for m in info.metadata if not isinstance(m, MaxLen)]
            fields[name] = (info.annotation, free)
    return create_model("WorldSpec", __base__=WorldSpec, __module__=__name__, **fields)


def too_large(total: int) -> str:
    """The message for a world whose files hold ``total`` bytes, more than ``MAX_WORLD_BYTES``."""
    return f"the world's files hold {total:,} bytes; a world is at most {MAX_WORLD_BYTES // 2**20} MB ({DOC})"


def too_many(count: int, limit: int, what: str) -> str:
    """The message for ``count`` things where at most ``limit`` may be."""
    return f"{count:,} {what}; a world holds at most {limit:,} ({DOC})"


def section_problems(data: dict[str, Any], main: str) -> list[Problem]:
    """Top-level tables with more entries than their limit (checked before the schema, so a huge
    world is refused without validating every entry)."""
    out: list[Problem] = []
    if are_lifted():
        return out
    for section, (limit, what) in SECTIONS.items():
        table = data.get(section)
        if isinstance(table, dict) and len(table) > limit:
            out.append(Problem(too_many(len(table), limit, what), file=main, path=section))
    return out


def crowd_problems(npcs: dict[str, Any]) -> list[Problem]:
    """Locations where more than ``MAX_NPCS_PER_LOCATION`` NPCs start (``npcs``: id -> NpcSpec)."""
    if are_lifted():
        return []
    count = Counter(n.location for n in npcs.values())
    out = []
    for loc, n in count.items():
        if n > MAX_NPCS_PER_LOCATION:
            first = next(k for k, v in npcs.items() if v.location == loc)
            out.append(
                Problem(
                    f"{n:,} NPCs start in location {loc!r}; at most {MAX_NPCS_PER_LOCATION:,} may start in one ({DOC})",
                    path=f"npcs.{first}.location",
                    hint="spread them over more locations",
                )
            )
    return out


def pair_problems(spec: Any) -> list[Problem]:
    """The give and ask actions NPCs, items and fact topics multiply into, over ``MAX_PAIRS``."""
    npcs, items = len(spec.npcs), len(spec.items)
    topics = len({f.topic for f in spec.facts.values()})
    pairs = npcs * (items + topics)
    if pairs <= MAX_PAIRS or are_lifted():
        return []
    return [
        Problem(
            f"{npcs:,} NPCs × ({items:,} items + {topics:,} fact topics) = {pairs:,} give and ask actions;"
            f" a world has at most {MAX_PAIRS:,} ({DOC})",
            path="npcs",
            hint="fewer NPCs, items or topics",
        )
    ]


def shape_problem(data: Any, max_depth: int) -> tuple[list[str | int], str] | None:
    """The first place (a key path, depth first in file order) where ``data`` nests more than
    ``max_depth`` tables/arrays deep or holds a table/array of more than ``MAX_ENTRIES`` entries,
    and what is wrong there; None when neither happens. Iterative: any depth is safe."""
    stack: list[tuple[Any, list[str | int]]] = [(data, [])]
    while stack:
        obj, path = stack.pop()
        if not isinstance(obj, dict | list):
            continue
        if len(path) >= max_depth:
            return path, f"nested more than {max_depth} levels deep (tables or arrays nested too deeply)"
        if len(obj) > MAX_ENTRIES and not are_lifted():
            return path, f"{len(obj):,} entries; a table or array holds at most {MAX_ENTRIES:,} ({DOC})"
        pairs = list(obj.items()) if isinstance(obj, dict) else list(enumerate(obj))
        stack.extend((v, [*path, k]) for k, v in reversed(pairs))
    return None


def path_text(path: list[str | int], shown: int = 8, deeper: bool = False) -> str:
    """A key path as the field paths of problems read (``agent.params.x[0]``), the first ``shown``
    parts of a long one followed by an ellipsis (also when ``deeper``: the trouble lies below it);
    empty for no path."""
    out = ""
    for part in path[:shown]:
        out += f"[{part}]" if isinstance(part, int) else ("." if out else "") + str(part)
    return out + ("…" if out and (deeper or len(path) > shown) else "")


# --- where in the file ----------------------------------------------------------------------


def _split_key(text: str) -> list[str]:
    """A TOML key (``a."b.c".d``) as its parts; quotes are dropped, a malformed key is read loosely."""
    parts, cur, quote = [], "", ""
    for ch in text:
        if quote:
            if ch == quote:
                quote = ""
            else:
                cur += ch
        elif ch in "\"'":
            quote = ch
        elif ch == ".":
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return parts


def _assignment_key(line: str) -> str | None:
    """The key left of the first ``=`` outside quotes, or None when the line assigns nothing."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "=":
            return line[:i]
        elif ch == "#":
            return None
    return None


def _keyed_lines(text: str) -> Iterator[tuple[int, list[str]]]:
    """``(line, keys)`` for each table header and key assignment: the keys it writes to."""
    table: list[str] = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("["):
            inner = line.lstrip("[").split("]", 1)[0]
            table = _split_key(inner)
            yield n, table
        else:
            key = _assignment_key(line)
            if key is not None:
                yield n, table + _split_key(key)


def line_of(text: str, path: list[str | int]) -> int | None:
    """The line that writes ``path`` (a key path from the parsed file): the first table header or
    key assignment whose keys match most of the path's keys. Array positions are not counted;
    a value spread over several lines is placed on the line of its key."""
    want = [p for p in path if isinstance(p, str)]
    best, best_line = 0, None
    for n, keys in _keyed_lines(text):
        shared = 0
        for a, b in zip(keys, want, strict=False):
            if a != b:
                break
            shared += 1
        if shared > best:
            best, best_line = shared, n
            if shared == len(want):
                break
    return best_line


def keys_at(text: str, line: int | None) -> list[str | int]:
    """The keys written by the last header or assignment at or before ``line`` (none for None)."""
    found: list[str | int] = []
    for n, keys in _keyed_lines(text):
        if line is None or n > line:
            break
        found = list(keys)
    return found


def bracket_line(text: str, max_depth: int) -> int | None:
    """The line where brackets and braces (outside strings and comments) first nest more than
    ``max_depth`` deep: where a file too deep to parse goes wrong."""
    depth, quote = 0, ""
    for n, line in enumerate(text.splitlines(), 1):
        for ch in line:
            if quote:
                quote = "" if ch == quote else quote
            elif ch in "\"'":
                quote = ch
            elif ch == "#":
                break
            elif ch in "[{":
                depth += 1
                if depth > max_depth:
                    return n
            elif ch in "]}":
                depth = max(0, depth - 1)
        quote = ""  # strings close on their line (multi-line strings are read loosely)
    return None
