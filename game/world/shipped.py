"""The worlds shipped with Parley (the ``worlds`` package's data), found by id or folder name.

They are found the same way in the repository, an editable install and an installed wheel: the
``worlds`` folder beside the ``game`` package (the repository root, or site-packages where the
wheel puts both), else wherever ``importlib`` finds a ``worlds`` package that is Parley's (its
``__init__.py`` sets ``PARLEY_WORLDS``). Only the standard library is used and nothing is
imported: the package is located with ``importlib.util.find_spec``, so no ``__pycache__`` is
written into the shipped folder.

    shipped_worlds()        -> {"bazaar-v1": Path(...), "council-v1": ..., "harbor-v1": ...}
    find_shipped("harbor-v1"), find_shipped("harbor"), find_shipped("worlds/harbor") -> Path
"""

from __future__ import annotations

import functools
import importlib.util
import tomllib
from pathlib import Path, PurePath

from game.core.files import read_limited

MARKER = "PARLEY_WORLDS"


def _ours(folder: Path) -> bool:
    raw, _ = read_limited(folder / "__init__.py")  # never a pipe or a device
    return raw is not None and MARKER.encode() in raw


def shipped_root() -> Path | None:
    """The folder that holds the shipped worlds, or None if there is none (a broken install)."""
    beside = Path(__file__).resolve().parents[2] / "worlds"
    if _ours(beside):
        return beside
    try:
        spec = importlib.util.find_spec("worlds")
    except (ImportError, ValueError):
        spec = None
    for loc in (spec.submodule_search_locations or []) if spec is not None else []:
        if _ours(Path(loc)):
            return Path(loc)
    return None


@functools.lru_cache(maxsize=8)
def _index(root: Path) -> tuple[tuple[str, Path], ...]:
    out = []
    for main in sorted(root.glob("*/world.toml")):
        raw, _ = read_limited(main)
        try:
            wid = tomllib.loads(raw.decode("utf-8")).get("id") if raw is not None else None
        except (tomllib.TOMLDecodeError, ValueError, RecursionError):
            continue  # a shipped world that does not parse (or nests too deeply to) is not offered by id
        if isinstance(wid, str) and wid:
            out.append((wid, main.parent))
    return tuple(out)


def shipped_worlds() -> dict[str, Path]:
    """Every shipped world's id and folder, sorted by id."""
    root = shipped_root()
    return dict(sorted(_index(root))) if root is not None else {}


def find_shipped(name: str | PurePath) -> Path | None:
    """The shipped world's folder that ``name`` names, or None: its id (``harbor-v1``), its folder
    name (``harbor``), or a relative path to it as in the repository (``worlds/harbor``,
    ``worlds/harbor/world.toml``, ``./worlds/harbor``)."""
    p = PurePath(name)
    if p.is_absolute():
        return None
    parts = [x for x in p.parts if x not in ("", ".")]
    if parts and parts[-1] == "world.toml":
        parts.pop()
    if len(parts) == 2 and parts[0] == "worlds":
        parts.pop(0)
    if len(parts) != 1 or parts[0] in ("..", "schema", "broken") or parts[0].startswith(("_", ".")):
        return None
    key = parts[0]
    worlds = shipped_worlds()
    if key in worlds:
        return worlds[key]
    for folder in worlds.values():
        if folder.name == key:
            return folder
    return None


def shipped_names() -> list[str]:
    """What :func:`find_shipped` accepts, for hints: the ids, then the folder names."""
    worlds = shipped_worlds()
    return [*worlds, *(f.name for f in worlds.values())]
