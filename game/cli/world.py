"""`parley validate`, `parley schema` and `parley new-world`: authoring worlds."""

from __future__ import annotations

import json
import sys
from argparse import Namespace
from pathlib import Path

from game.core.errors import InputError
from game.core.files import write_atomic, write_output


def cmd_validate(args: Namespace) -> int:
    """Validate world folders (or folders of worlds). Paths are only stat-ed here: a named pipe,
    a device or a symlink loop is reported by the loader, never opened."""
    import os
    import stat

    from game.core.text import shown
    from game.play.worlds import collect_problems

    folders: list[Path] = []
    for raw in args.paths:
        p = Path(raw)
        try:
            st = os.stat(p)
        except OSError:
            st = None
        if st is None or not stat.S_ISDIR(st.st_mode) or os.path.lexists(p / "world.toml"):
            folders.append(p)  # a world (or a file, or nothing): the loader says what is wrong
            continue
        try:
            subs = sorted(d for d in p.iterdir() if os.path.lexists(d / "world.toml"))
        except OSError:
            subs = []
        folders.extend(subs or [p])
    bad = 0
    for folder in folders:
        world, problems = collect_problems(folder)
        if world is not None:
            s = world.spec
            print(
                f"ok   {shown(folder)}  ({shown(s.id)}: {len(s.locations)} locations, {len(s.npcs)} NPCs, "
                f"{len(s.quests)} quests, {len(s.scenes)} scenes)"
            )
        else:
            bad += 1
            print(f"FAIL {shown(folder)}  ({len(problems)} problem{'s' if len(problems) != 1 else ''})")
            for pr in problems:
                print(f"  {pr.render()}")
    if bad:
        print(f"{bad} of {len(folders)} world(s) failed", file=sys.stderr)
        return 2
    return 0


def schema_text() -> str:
    from game.play.worlds import json_schema

    return json.dumps(json_schema(), indent=2, sort_keys=True) + "\n"


def cmd_schema(args: Namespace) -> int:
    text = schema_text()
    if args.check:
        from game.core.files import read_text

        current = read_text(args.check)
        if current != text:
            print(f"{args.check} is stale; regenerate it with `parley schema --out {args.check}`", file=sys.stderr)
            return 2
        print(f"{args.check} is up to date")
        return 0
    if args.out:
        write_output(Path(args.out), text)
        print(f"wrote {args.out}")
    else:
        sys.stdout.write(text)
    return 0


def cmd_new_world(args: Namespace) -> int:
    import os
    import re

    from game.core.text import shown
    from game.play.worlds import collect_problems
    from game.world.scaffold import scaffold_text

    name = args.name.strip().lower()
    if not re.fullmatch(r"[a-z][a-z0-9-]*", name):
        raise InputError(
            f"world name {shown(args.name)!r} must be lowercase letters, digits and dashes",
            hint="e.g. parley new-world my-keep",
        )
    template = getattr(args, "template", None) or "adventure"
    text = scaffold_text(name, template)  # an unknown template is an input error, before any folder is made
    folder = Path(args.dir) / name
    if os.path.lexists(folder):
        raise InputError(f"{shown(folder)} already exists", hint="pick another name or remove the folder")
    try:
        folder.mkdir(parents=True)
    except OSError as e:
        raise InputError(
            f"cannot create {folder}: {e.strerror}", hint="--dir must be a folder you can write to"
        ) from None
    try:
        write_atomic(folder / "world.toml", text)
    except OSError:
        os.rmdir(folder)  # nothing half-made is left behind
        raise
    world, problems = collect_problems(folder)
    if world is None:  # pragma: no cover - every template is tested to validate
        for p in problems:
            print(p.render(), file=sys.stderr)
        return 1
    print(
        f"created {shown(folder / 'world.toml')} ({world.spec.id}, {template} template); "
        f"try: parley play {shown(folder)}"
    )
    return 0
