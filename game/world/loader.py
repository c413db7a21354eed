"""Load a world folder: TOML files → validated ``WorldSpec``.

A world folder holds ``world.toml`` and, optionally, ``npcs/*.toml``,
``items/*.toml``, ``locations/*.toml``, ``quests/*.toml`` and ``scenes/*.toml``;
each extra file defines one entry whose id is the file's stem. Every problem
found is reported (file, line/column or field path, bad value, hint), never
just the first.

The loader reads hostile folders safely: only regular files of at most
``MAX_FILE_BYTES`` are opened (through ``game.core.files``: checked with ``stat`` first, opened
non-blocking and read with a bounded read), so a named pipe, a device, a
symlink to ``/dev/zero`` or a folder named ``world.toml`` is reported, never
read. Symlinks are followed only when they resolve inside the world folder.
Data nested deeper than ``MAX_DEPTH`` is refused. Every string read (keys
included) is normalised with ``game.core.text.clean``.

NPC agent kinds and parameters are checked against the ``agent_kinds`` given to
``collect_problems`` / ``load_world`` (a ``game.core.protocols.AgentKinds``, required): this
package never imports ``agents``. ``game.play.worlds`` loads worlds with the standard kinds
(``agents.registry``); front ends and tests go through it.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from game.core.errors import InputError, Problem, WorldError, did_you_mean
from game.core.files import MAX_FILE_BYTES, kind_of, path_problem, read_limited, stat_of  # noqa: F401 (re-exported)
from game.core.protocols import AgentKinds
from game.core.text import clean, shown
from game.world import limits

EXTRA_SECTIONS = ("locations", "items", "npcs", "quests", "scenes", "facts")
MAX_NUMBER = 10**12
"""The largest whole number a world file may hold (gold, scores, values): bigger ones overflow play."""
MAX_DEPTH = 32
"""How deeply tables and arrays may nest in a world file (worlds need about 6 levels)."""
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

    @cached_property
    def exits(self) -> dict[str, dict[str, str]]:
        """Each location's exits (direction -> location), made once per world and shared,
        read-only, by its moving agents (one copy per NPC made building them NPCs × locations)."""
        return {lid: dict(loc.exits) for lid, loc in self.spec.locations.items()}


def resolve_world_path(path: str | Path) -> Path:
    """Accept a folder, a world.toml, a world name under ./worlds, or a shipped world's id, name or
    repository path (``harbor-v1``, ``harbor``, ``worlds/harbor``: ``game.world.shipped``, so these
    work from any folder and from an installed wheel). A path that exists wins. Only stats paths."""
    p = Path(path)
    st, why = stat_of(p)
    if st is not None and stat.S_ISDIR(st.st_mode):
        if p.name == "world.toml" and not os.path.lexists(p / "world.toml"):
            return p.parent  # a folder named world.toml: the loader says so
        return p
    if st is not None or why != "missing":
        if p.name == "world.toml" or (st is not None and stat.S_ISREG(st.st_mode)):
            return p.parent  # the loader says what is wrong with the file itself
        what = f"is {kind_of(st.st_mode)}" if st is not None else f"is {why}"
        raise InputError(f"{shown(str(path))!r} {what}, not a world folder", hint="give a folder that holds world.toml")
    base = Path("worlds")  # the worlds of the folder Parley runs in (parley new-world makes them here)
    for cand in (base / str(path), base / str(path).rsplit("-v", 1)[0]):
        if cand.is_dir():
            return cand
    from game.world.shipped import find_shipped, shipped_names, shipped_worlds

    shipped = find_shipped(str(path))  # a shipped world by id, name or repo path, from a wheel too
    if shipped is not None:
        return shipped
    mine = sorted(d.name for d in base.iterdir() if (d / "world.toml").is_file()) if base.is_dir() else []
    ids = list(shipped_worlds())
    listing = f"shipped worlds: {', '.join(ids)}" if ids else "no shipped worlds were found (a broken install?)"
    close = did_you_mean(Path(path).name, [*ids, *mine, *shipped_names()])
    raise InputError(
        f"no world at {shown(str(path))!r}",
        hint=f"{close} ({listing})" if close else f"give a folder that holds world.toml, or a world id ({listing})",
    )


# --- parsing --------------------------------------------------------------------------


def _clean_tree(obj: Any, where: list[str], clashes: list[tuple[str, str]]) -> Any:
    """``obj`` with every string (keys included) passed through ``game.core.text.clean``. Keys that
    become equal once cleaned (the later one is dropped) and numbers beyond ``MAX_NUMBER`` are
    recorded in ``clashes`` as (field path, message)."""
    if isinstance(obj, str):
        return clean(obj)
    if isinstance(obj, int) and not isinstance(obj, bool) and abs(obj) > MAX_NUMBER:
        clashes.append(
            (
                ".".join(where),
                f"the number has {len(str(abs(obj)))} digits; numbers in a world are at most {MAX_NUMBER:,}",
            )
        )
        return 0
    if isinstance(obj, list):
        return [_clean_tree(v, where, clashes) for v in obj]
    if isinstance(obj, dict):
        out: dict[str, Any] = {}
        for k, v in obj.items():
            ck = clean(k)
            if ck in out:
                clashes.append(
                    (".".join([*where, ck]), "key defined twice once invisible or control characters are removed")
                )
                continue
            out[ck] = _clean_tree(v, [*where, ck], clashes)
        return out
    return obj


def _parse_toml(raw: bytes, path: Path, problems: list[Problem]) -> dict[str, Any] | None:
    """Parse, bound and clean one file's bytes; problems are located in ``path``."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        line = raw[: e.start].count(b"\n") + 1
        problems.append(
            Problem(f"not UTF-8 text (byte {e.start})", file=str(path), line=line, hint="save the file as UTF-8")
        )
        return None
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        msg = str(e)
        m = _TOML_POS.search(msg)
        line, col = (int(m.group(1)), int(m.group(2))) if m else (None, None)
        problems.append(
            Problem(
                f"TOML syntax error: {_TOML_POS.sub('', msg).strip()}",
                file=str(path),
                line=line,
                column=col,
                hint="check quotes, brackets and commas on that line",
            )
        )
        return None
    except RecursionError:  # brackets nested far beyond MAX_DEPTH: say on which line, under which key
        line = limits.bracket_line(text, MAX_DEPTH)
        problems.append(
            Problem(
                f"nested more than {MAX_DEPTH} levels deep (tables or arrays nested too deeply)",
                file=str(path),
                path=limits.path_text(limits.keys_at(text, line), deeper=True) or None,
                line=line,
                hint="a world needs only a few levels of nesting",
            )
        )
        return None
    except (ValueError, OverflowError) as e:  # e.g. an integer with more digits than Python converts
        problems.append(Problem(f"TOML value error: {e}", file=str(path), hint="check the numbers in this file"))
        return None
    shape = limits.shape_problem(data, MAX_DEPTH)
    if shape is not None:  # too deep, or a table or array too long: where, by line and key path
        where, message = shape
        problems.append(
            Problem(
                message,
                file=str(path),
                path=limits.path_text(where) or None,
                line=limits.line_of(text, where),
                hint="a world needs only a few levels of nesting" if "nested" in message else None,
            )
        )
        return None
    clashes: list[tuple[str, str]] = []
    data = _clean_tree(data, [], clashes)
    for where, message in clashes:
        problems.append(
            Problem(
                message, file=str(path), path=where or None, hint="remove the duplicate" if "twice" in message else None
            )
        )
    return data


def _read_toml(
    path: Path, problems: list[Problem], root: Path | None = None, raws: dict[Path, bytes] | None = None
) -> dict[str, Any] | None:
    raw, why = read_limited(path, root)
    if raw is None:
        message, hint = why  # type: ignore[misc]
        problems.append(Problem(message, file=str(path), hint=hint))
        return None
    if raws is not None:
        raws[path] = raw
    return _parse_toml(raw, path, problems)


def _size(path: Path) -> int:
    """The bytes of ``path`` that would be read: 0 for what is not a regular file or is over the
    limit of one file (each is reported, unread, as such)."""
    st, _ = stat_of(path)
    return st.st_size if st is not None and stat.S_ISREG(st.st_mode) and st.st_size <= MAX_FILE_BYTES else 0


def _gather(
    folder: Path, problems: list[Problem], raws: dict[Path, bytes] | None = None
) -> tuple[dict[str, Any] | None, dict[tuple[str, str], str], list[Path]]:
    """Merge world.toml and the extra files. Returns data, origin map, files read."""
    main = folder / "world.toml"
    origins: dict[tuple[str, str], str] = {}
    why = path_problem(main, folder)
    if why is not None and why[0] == "missing":
        problems.append(
            Problem(
                "missing world.toml",
                file=str(folder),
                hint="a world folder needs world.toml; `parley new-world NAME` scaffolds one",
            )
        )
        return None, origins, []
    files = [main]
    refused = False  # a section folder over its size limit: the world is not validated further
    listed: list[tuple[str, list[Path]]] = []
    for section in EXTRA_SECTIONS:
        sub = folder / section
        if not os.path.lexists(sub):
            continue
        bad = path_problem(sub, folder, want="folder")
        if bad is not None:
            problems.append(
                Problem(bad[0], file=str(sub), hint=bad[1] or f"{section}/ should be a folder of .toml files")
            )
            continue
        entries = sorted(sub.glob("*.toml"))
        limit, what = limits.SECTIONS.get(section, (None, section))
        if (
            limit is not None and len(entries) > limit and not limits.are_lifted()
        ):  # refused before reading a single one
            message = f"{len(entries):,} files in {section}/; a world holds at most {limit:,} {what} ({limits.DOC})"
            problems.append(Problem(message, file=str(sub)))
            refused = True
            continue
        listed.append((section, entries))
    total = sum(_size(f) for f in [main, *(f for _, entries in listed for f in entries)])
    if total > limits.MAX_WORLD_BYTES:  # each file may be large, but not all of them: none is read
        problems.append(Problem(limits.too_large(total), file=str(folder)))
        return None, origins, files
    data = _read_toml(main, problems, folder, raws)
    for section, entries in listed:
        for f in entries:
            files.append(f)
            entry = _read_toml(f, problems, folder, raws)
            if entry is None or data is None:
                continue
            table = data.setdefault(section, {})
            if not isinstance(table, dict):
                continue  # the schema check reports the wrong type
            stem = clean(f.stem)
            if stem in table:
                problems.append(
                    Problem(
                        f"{section[:-1]} {stem!r} is defined twice", file=str(f), hint=f"also defined in {main.name}"
                    )
                )
                continue
            table[stem] = entry
            origins[(section, stem)] = str(f)
    return (None if refused else data), origins, files


def _loc_str(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out


def _tagged_unions() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Discriminator key -> (what it tags, its choices), read from the spec's tagged unions."""
    from typing import get_args

    from game.world import spec as S

    out = {}
    for what, union in (("scene type", S.Scene), ("condition kind", S.Condition)):
        members, field = get_args(union)
        key = field.discriminator
        out[key] = (what, tuple(get_args(m.model_fields[key].annotation)[0] for m in get_args(members)))
    return out


def _choices(tags: tuple[str, ...]) -> str:
    return tags[0] if len(tags) == 1 else f"{', '.join(tags[:-1])} or {tags[-1]}"


def _tag_hint(key: str, tags: tuple[str, ...], given: Any) -> str | None:
    """'did you mean type = "negotiation"?' when another key of ``given`` holds a choice."""
    if not isinstance(given, dict):
        return None
    for k, v in given.items():
        if k != key and isinstance(v, str) and v in tags:
            return f'did you mean {key} = "{v}"?'
    for k, v in given.items():
        if k != key and isinstance(v, str) and did_you_mean(v, tags):
            close = did_you_mean(v, tags).split("'")[1]  # type: ignore[union-attr]
            return f'did you mean {key} = "{close}"?'
    return None


def _pydantic_problems(err: Any, data: dict[str, Any], main: str, origins: dict[tuple[str, str], str]) -> list[Problem]:
    unions = _tagged_unions()
    problems = []
    for e in err.errors(include_url=False):
        loc = _strip_union_tags(e["loc"])
        file = origins.get(tuple(loc[:2]), main) if len(loc) >= 2 else main
        hint = None
        msg = e["msg"].removeprefix("Value error, ")
        ctx = e.get("ctx") or {}
        key = str(ctx.get("discriminator", "")).strip("'")
        if e["type"] == "extra_forbidden":
            msg = f"unknown key {loc[-1]!r}"
            parent = _model_fields_at(loc[:-1])
            hint = did_you_mean(loc[-1], parent) if parent else None
        elif e["type"] == "missing":
            msg = f"missing required key {loc[-1]!r}"
        elif e["type"] == "too_long" and "max_length" in ctx:
            count, most = ctx.get("actual_length"), ctx["max_length"]
            msg = (
                f"{f'{count:,} entries' if count is not None else 'too many entries'}; at most {most:,} ({limits.DOC})"
            )
        elif e["type"] == "union_tag_not_found" and key in unions:
            what, tags = unions[key]
            msg = f"missing key {key!r} ({_choices(tags)})"
            hint = _tag_hint(key, tags, e.get("input"))
        elif e["type"] == "union_tag_invalid" and key in unions:
            what, tags = unions[key]
            loc = (*loc, key)
            msg = f"unknown {what} {ctx.get('tag')!r} ({_choices(tags)})"
            hint = did_you_mean(ctx.get("tag"), tags)
        else:
            if e["type"] == "literal_error":
                hint = did_you_mean(e.get("input"), re.findall(r"'([^']*)'", str(ctx.get("expected", ""))))
            if "input" in e and not isinstance(e["input"], dict | list):
                msg += f", got {e['input']!r}"
        problems.append(Problem(msg, file=file, path=_loc_str(loc), hint=hint))
    return problems


_TAGS = {
    "has",
    "at",
    "item_at",
    "gave",
    "opened",
    "scene",
    "negotiation",
    "council",
    "function-after[_ids_disjoint(), WorldSpec]",
}


def _strip_union_tags(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """Pydantic inserts the discriminator tag into loc for tagged unions; drop it."""
    out = []
    for i, part in enumerate(loc):
        if (
            isinstance(part, str)
            and part in _TAGS
            and i > 0
            and (isinstance(loc[i - 1], int) or (i >= 2 and loc[i - 2] == "scenes"))
        ):
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


def content_hash(files: list[Path], raws: dict[Path, bytes] | None = None) -> str:
    """A short hash of the world's files (names and bytes); ``raws``: bytes already read."""
    h = hashlib.sha256()
    for f in sorted(files):
        raw = raws[f] if raws is not None and f in raws else read_limited(f)[0]
        h.update(f.name.encode())
        h.update(b"\0")
        h.update(raw or b"")
        h.update(b"\0")
    return h.hexdigest()[:16]


def collect_problems(path: str | Path, agent_kinds: AgentKinds) -> tuple[World | None, list[Problem]]:
    """Load a world and return it with every problem found (world is None if any).
    ``agent_kinds``: the kinds an NPC's agent may be (``game.play.worlds`` passes the standard ones)."""
    from pydantic import ValidationError

    from game.world.checks import cross_reference

    folder = Path(path)
    st, why = stat_of(folder)
    if (
        st is not None
        and stat.S_ISDIR(st.st_mode)
        and folder.name == "world.toml"
        and not os.path.lexists(folder / "world.toml")
    ):
        folder = folder.parent  # a folder named world.toml, given for its world: reported below
    if (st is not None and not stat.S_ISDIR(st.st_mode)) or why not in (None, "missing"):
        if folder.name == "world.toml" or (
            st is not None
            and stat.S_ISREG(st.st_mode)
            and folder.suffix == ".toml"
            and os.path.lexists(folder.parent / "world.toml")
        ):
            folder = folder.parent  # a world.toml (or one of its world's files) given for its folder
        else:
            what = (
                "is a file"
                if st is not None and stat.S_ISREG(st.st_mode)
                else (f"is {kind_of(st.st_mode)}" if st is not None else f"is {why}")
            )
            return None, [
                Problem(f"{what}, not a world folder", file=str(path), hint="give a folder that holds world.toml")
            ]
    problems: list[Problem] = []
    if st is None and why == "missing":
        try:  # the same resolution as load_world: ./worlds/NAME first, then a shipped world
            folder = resolve_world_path(path)
        except InputError:
            return None, [Problem("no such world folder", file=str(path))]
    raws: dict[Path, bytes] = {}
    data, origins, files = _gather(folder, problems, raws)
    if data is None:
        return None, problems
    if not isinstance(data, dict):  # pragma: no cover - TOML documents are tables
        return None, [Problem("not a TOML table", file=str(folder / "world.toml"))]
    data.pop("$schema", None)
    main = str(folder / "world.toml")
    oversize = limits.section_problems(data, main)
    if oversize:  # a world over its size limits is not validated entry by entry
        return None, problems + oversize
    try:
        spec = limits.world_model().model_validate(data)
    except ValidationError as e:
        problems.extend(_pydantic_problems(e, data, main, origins))
        return None, problems
    for p in cross_reference(spec, agent_kinds):
        if p.file is None:
            key = tuple(p.path.split(".")[:2]) if p.path else ()
            p.file = origins.get(key, main)  # type: ignore[arg-type]
        problems.append(p)
    if problems:
        return None, problems
    return World(spec=spec, folder=folder, content_hash=content_hash(files, raws)), []


def load_world(path: str | Path, agent_kinds: AgentKinds) -> World:
    """Load and validate a world; raise ``WorldError`` listing every problem.
    ``agent_kinds``: the kinds an NPC's agent may be (``game.play.worlds.load_world`` passes the
    standard ones)."""
    folder = resolve_world_path(path)
    world, problems = collect_problems(folder, agent_kinds)
    if world is None:
        raise WorldError(problems, source=str(folder))
    return world
