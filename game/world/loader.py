"""Load a world folder: TOML files → validated ``WorldSpec``.

A world folder holds ``world.toml`` and, optionally, ``npcs/*.toml``,
``items/*.toml``, ``locations/*.toml``, ``quests/*.toml`` and ``scenes/*.toml``;
each extra file defines one entry whose id is the file's stem. Every problem
found is reported (file, line/column or field path, bad value, hint), never
just the first.
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from game.errors import Problem, WorldError

EXTRA_SECTIONS = ("locations", "items", "npcs", "quests", "scenes", "facts")
_TOML_POS = re.compile(r"\(at line (\d+), column (\d+)\)")


@dataclass(frozen=True)
class World:
    """A loaded world: its spec, where it came from and a hash of its content."""

    spec: Any  # WorldSpec (typed loosely to keep pydantic out of hot imports' annotations)
    folder: Path
    content_hash: str

    @property
    def id(self) -> str:
        return self.spec.id


def resolve_world_path(path: str | Path) -> Path:
    """Accept a folder, a world.toml, or a bare world name under ./worlds."""
    p = Path(path)
    if p.is_file():
        return p.parent
    if p.is_dir():
        return p
    for base in (Path("worlds"), Path(__file__).resolve().parents[2] / "worlds"):
        cand = base / str(path)
        if cand.is_dir():
            return cand
        stem = str(path).rsplit("-v", 1)[0]
        if (base / stem).is_dir():
            return base / stem
    from game.errors import InputError, did_you_mean
    names = [d.name for d in Path("worlds").iterdir() if d.is_dir()] if Path("worlds").is_dir() else []
    raise InputError(f"no world at {str(path)!r}", hint=did_you_mean(Path(path).name, names)
                     or "give a folder that holds world.toml")


def _read_toml(path: Path, problems: list[Problem]) -> dict[str, Any] | None:
    try:
        raw = path.read_bytes()
    except OSError as e:
        problems.append(Problem(f"cannot read: {e.strerror}", file=str(path)))
        return None
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        problems.append(Problem(f"not UTF-8 text (byte {e.start})", file=str(path)))
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = _TOML_POS.search(msg)
        line, col = (int(m.group(1)), int(m.group(2))) if m else (None, None)
        problems.append(Problem(f"TOML syntax error: {_TOML_POS.sub('', msg).strip()}",
                                file=str(path), line=line, column=col,
                                hint="check quotes, brackets and commas on that line"))
    return None


def _gather(folder: Path, problems: list[Problem]) -> tuple[dict[str, Any] | None, dict[tuple[str, str], str], list[Path]]:
    """Merge world.toml and the extra files. Returns data, origin map, files read."""
    main = folder / "world.toml"
    origins: dict[tuple[str, str], str] = {}
    if not main.is_file():
        problems.append(Problem("missing world.toml", file=str(folder),
                                hint="a world folder needs world.toml; `parley new-world NAME` scaffolds one"))
        return None, origins, []
    files = [main]
    data = _read_toml(main, problems)
    for section in EXTRA_SECTIONS:
        sub = folder / section
        if not sub.is_dir():
            continue
        for f in sorted(sub.glob("*.toml")):
            files.append(f)
            entry = _read_toml(f, problems)
            if entry is None or data is None:
                continue
            table = data.setdefault(section, {})
            if not isinstance(table, dict):
                continue  # the schema check reports the wrong type
            if f.stem in table:
                problems.append(Problem(f"{section[:-1]} {f.stem!r} is defined twice",
                                        file=str(f), hint=f"also defined in {main.name}"))
                continue
            table[f.stem] = entry
            origins[(section, f.stem)] = str(f)
    return data, origins, files


def _loc_str(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _pydantic_problems(err: Any, data: dict[str, Any], main: str,
                       origins: dict[tuple[str, str], str]) -> list[Problem]:
    from game.errors import did_you_mean
    problems = []
    for e in err.errors(include_url=False):
        loc = _strip_union_tags(e["loc"])
        file = origins.get(tuple(loc[:2]), main) if len(loc) >= 2 else main
        hint = None
        msg = e["msg"]
        if e["type"] == "extra_forbidden":
            msg = f"unknown key {loc[-1]!r}"
            parent = _model_fields_at(loc[:-1])
            hint = did_you_mean(loc[-1], parent) if parent else None
        elif e["type"] == "missing":
            msg = f"missing required key {loc[-1]!r}"
        else:
            if "input" in e and not isinstance(e["input"], dict | list):
                msg += f", got {e['input']!r}"
        problems.append(Problem(msg, file=file, path=_loc_str(loc), hint=hint))
    return problems


_TAGS = {"has", "at", "item_at", "gave", "opened", "scene", "negotiation", "council",
         "function-after[_ids_disjoint(), WorldSpec]"}


def _strip_union_tags(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """Pydantic inserts the discriminator tag into loc for tagged unions; drop it."""
    out = []
    for i, part in enumerate(loc):
        if isinstance(part, str) and part in _TAGS and i > 0 and (
                isinstance(loc[i - 1], int) or (i >= 2 and loc[i - 2] == "scenes")):
            continue
        out.append(part)
    return tuple(out)


def _model_fields_at(loc: tuple[Any, ...]) -> list[str]:
    """Field names of the model found at a loc path (for 'did you mean' on unknown keys)."""
    from game.world import spec as S
    model: Any = S.WorldSpec
    for part in loc:
        if isinstance(part, int):
            continue
        fields = getattr(model, "model_fields", None)
        if fields is None:
            return []
        if part in fields:
            ann = fields[part].annotation
            model = _inner_model(ann)
        else:
            continue  # a dict key such as an id
        if model is None:
            return []
    return list(getattr(model, "model_fields", {}))


def _inner_model(ann: Any) -> Any:
    from typing import get_args
    from pydantic import BaseModel
    if isinstance(ann, type) and issubclass(ann, BaseModel):
        return ann
    for a in get_args(ann):
        m = _inner_model(a)
        if m is not None:
            return m
    return None


def content_hash(files: list[Path]) -> str:
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(f.name.encode())
        h.update(b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


def collect_problems(path: str | Path) -> tuple[World | None, list[Problem]]:
    """Load a world and return it with every problem found (world is None if any)."""
    from pydantic import ValidationError

    from game.world.checks import cross_reference
    from game.world.spec import WorldSpec

    folder = Path(path)
    if folder.is_file():
        folder = folder.parent
    problems: list[Problem] = []
    if not folder.is_dir():
        return None, [Problem("no such world folder", file=str(path))]
    data, origins, files = _gather(folder, problems)
    if data is None:
        return None, problems
    data.pop("$schema", None)
    main = str(folder / "world.toml")
    try:
        spec = WorldSpec.model_validate(data)
    except ValidationError as e:
        problems.extend(_pydantic_problems(e, data, main, origins))
        return None, problems
    for p in cross_reference(spec):
        if p.file is None:
            key = tuple(p.path.split(".")[:2]) if p.path else ()
            p.file = origins.get(key, main)  # type: ignore[arg-type]
        problems.append(p)
    if problems:
        return None, problems
    return World(spec=spec, folder=folder, content_hash=content_hash(files)), []


def load_world(path: str | Path) -> World:
    """Load and validate a world; raise ``WorldError`` listing every problem."""
    folder = resolve_world_path(path)
    world, problems = collect_problems(folder)
    if world is None:
        raise WorldError(problems, source=str(folder))
    return world
