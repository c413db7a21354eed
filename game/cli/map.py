"""``parley map``: draw a world (at its start) or a save (as it stands) into a PNG file."""

from __future__ import annotations

import os
import stat
from argparse import Namespace
from pathlib import Path
from typing import Any

from game.core.errors import InputError
from game.core.text import shown


def _is_save(p: Path) -> bool:
    try:
        return (p.name == "save.json" and p.is_file()) or (p / "save.json").is_file()
    except (OSError, ValueError):
        return False


def map_target(target: str, saves_dir: str | None = None) -> tuple[dict[str, Any], Path]:
    """The map state for ``target`` (a world folder or name, or a save folder or name) and the
    folder whose files the picture must never replace."""
    from game.core.errors import SaveError
    from game.map.render import save_map_state, world_map_state
    from game.play.worlds import load_world

    p = Path(target)
    if not target.strip():
        raise InputError("no world or save given", hint="e.g. parley map worlds/harbor --png harbor.png")
    if _is_save(p):
        state, _world, folder = save_map_state(p, saves_dir)
        return state, folder
    if os.path.lexists(p):
        if p.is_dir() and not (p / "world.toml").exists():
            raise InputError(
                f"{shown(target)!r} holds neither world.toml nor save.json",
                hint="give a world folder or a save (folder or name)",
            )
        world = load_world(p)
        return world_map_state(world), world.folder
    try:  # a bare name: a save in the saves folder, else a world under ./worlds
        state, _world, folder = save_map_state(target, saves_dir)
        return state, folder
    except SaveError as e:
        if not str(e).startswith("no save"):
            raise
    try:
        world = load_world(target)
    except InputError:
        raise InputError(
            f"no world or save named {shown(target)!r}",
            hint="give a world folder (with world.toml), a save folder, or a save's name",
        ) from None
    return world_map_state(world), world.folder


def check_png_path(out: str, keep: Path) -> Path:
    """``--png FILE``: a file name ending in .png, not a folder or device, and not inside the
    world's or save's folder when a file of that name already exists there."""
    if not out.strip():
        raise InputError("--png is empty", hint="give a file name, e.g. --png map.png")
    path = Path(out)
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise InputError(f"--png {shown(out)}: is a folder", hint="give a file name")
    if mode is not None and not stat.S_ISREG(mode):
        raise InputError(f"--png {shown(out)}: is not a regular file", hint="give a file name")
    if path.suffix.lower() != ".png":
        raise InputError(f"--png {shown(out)}: the file name must end in .png", hint="e.g. --png map.png")
    if mode is not None or os.path.islink(path):
        real, base = os.path.realpath(path), os.path.realpath(keep)
        if real.startswith(base.rstrip(os.sep) + os.sep):
            raise InputError(
                f"--png {shown(out)}: would overwrite a file in {shown(str(keep))}",
                hint="write the picture somewhere else",
            )
    parent = path.parent
    if not parent.is_dir():
        raise InputError(f"--png {shown(out)}: no folder {shown(str(parent))}", hint="create it first")
    return path


def cmd_map(args: Namespace) -> int:
    """``parley map TARGET --png FILE``."""
    from game.map.render import require_pygame, save_png

    if args.png is None:
        raise InputError("say where to draw the map", hint="e.g. parley map worlds/harbor --png harbor.png")
    require_pygame()
    state, keep = map_target(args.target, args.saves_dir)
    path = check_png_path(args.png, keep)
    save_png(state, path)
    where = "at the start" if state["label"] == "start" else f"at turn {state['turn']}"
    print(shown(f"map of {state['world']} {where}: {path} ({len(state['rooms'])} locations)"))
    return 0
