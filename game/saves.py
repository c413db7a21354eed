"""Saves: ``saves/<slug>/save.json`` plus ``transcript.jsonl``, written atomically.

A save holds the format version, the world id and content hash, the seed and
RNG state, the turn, the full engine state and each component's
``get_state()``. Loading validates everything and reports a corrupt or
truncated file clearly, leaving it untouched.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from game.errors import InputError, SaveError

FORMAT_VERSION = 1
SAVE_FILE = "save.json"
TRANSCRIPT_FILE = "transcript.jsonl"
_REQUIRED = {"format_version": int, "world": dict, "seed": int, "turn": int, "engine": dict,
             "components": dict, "state_hash": str}


def saves_dir(base: str | Path | None = None) -> Path:
    return Path(base or os.environ.get("PARLEY_SAVES", "saves"))


def slugify(name: str) -> str:
    slug = re.sub(r"[^a-z0-9_-]+", "-", name.strip().lower()).strip("-")
    if not slug:
        raise InputError(f"{name!r} is not a usable save name", hint="use letters, digits, - or _")
    return slug[:64]


def atomic_write(path: Path, text: str) -> None:
    """Write via a temp file in the same folder and ``os.replace``: never a half-written file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass(frozen=True)
class SaveInfo:
    slug: str
    folder: Path
    world_id: str
    turn: int
    score: int
    done: bool
    modified: float


def resolve(ref: str | Path, base: str | Path | None = None) -> Path:
    """A save folder from a slug, a folder path or a save.json path."""
    p = Path(ref)
    if p.name == SAVE_FILE and p.is_file():
        return p.parent
    if (p / SAVE_FILE).is_file():
        return p
    cand = saves_dir(base) / str(ref)
    if (cand / SAVE_FILE).is_file():
        return cand
    from game.errors import did_you_mean
    known = [i.slug for i in list_saves(base)]
    raise SaveError(f"no save {str(ref)!r}", hint=did_you_mean(str(ref), known)
                    or (f"saves: {', '.join(known)}" if known else "no saves yet"))


def write_save(folder: Path, payload: dict[str, Any], transcript_text: str) -> Path:
    payload = {"format_version": FORMAT_VERSION, **payload}
    atomic_write(folder / TRANSCRIPT_FILE, transcript_text)
    atomic_write(folder / SAVE_FILE, json.dumps(payload, indent=1, sort_keys=True) + "\n")
    return folder


def read_save(folder: Path) -> dict[str, Any]:
    path = folder / SAVE_FILE
    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SaveError(f"{path}: missing", hint="a save folder holds save.json") from None
    except UnicodeDecodeError:
        raise SaveError(f"{path}: not UTF-8 text", hint="the file is damaged; it was left as it is") from None
    if not raw.strip():
        raise SaveError(f"{path}: empty file", hint="the save is truncated; it was left as it is")
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as e:
        raise SaveError(f"{path}:{e.lineno}:{e.colno}: corrupt save ({e.msg})",
                        hint="the save is truncated or damaged; it was left as it is") from None
    if not isinstance(data, dict):
        raise SaveError(f"{path}: not a save (expected a JSON object)")
    for key, typ in _REQUIRED.items():
        if key not in data:
            raise SaveError(f"{path}: missing key {key!r}", hint="the save is damaged; it was left as it is")
        if not isinstance(data[key], typ) or (typ is int and isinstance(data[key], bool)):
            raise SaveError(f"{path}: {key} should be {typ.__name__}, got {type(data[key]).__name__}")
    if data["format_version"] != FORMAT_VERSION:
        raise SaveError(f"{path}: save format {data['format_version']} is not supported "
                        f"(this Parley reads format {FORMAT_VERSION})")
    for key in ("id", "hash", "path"):
        if not isinstance(data["world"].get(key), str):
            raise SaveError(f"{path}: world.{key} missing or not a string")
    return data


def list_saves(base: str | Path | None = None) -> list[SaveInfo]:
    root = saves_dir(base)
    out = []
    if not root.is_dir():
        return out
    for d in sorted(root.iterdir()):
        f = d / SAVE_FILE
        if not f.is_file():
            continue
        try:
            data = read_save(d)
            st = data["engine"]["state"]
            out.append(SaveInfo(d.name, d, data["world"]["id"], data["turn"], st.get("score", 0),
                                bool(st.get("done")), f.stat().st_mtime))
        except (SaveError, KeyError, TypeError, AttributeError):
            out.append(SaveInfo(d.name, d, "(corrupt)", -1, 0, False, f.stat().st_mtime))
    return out


def remove(ref: str, base: str | Path | None = None) -> Path:
    folder = resolve(ref, base)
    shutil.rmtree(folder)
    return folder
