"""Saves: ``saves/<slug>/save.json`` plus ``transcript.jsonl``, written atomically.

A save holds the format version, the world id and content hash, the seed and
RNG state, the turn, the full engine state and each component's
``get_state()``. Loading validates everything and reports a corrupt or
truncated file clearly, leaving it untouched.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from game.errors import InputError, SaveError

FORMAT_VERSION = 2  # 2: agents' decisions are recorded in the transcript
SAVE_FILE = "save.json"
TRANSCRIPT_FILE = "transcript.jsonl"
_REQUIRED = {"format_version": int, "world": dict, "seed": int, "turn": int, "engine": dict,
             "components": dict, "state_hash": str, "transcript": str}


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


def transcript_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def write_save(folder: Path, payload: dict[str, Any], transcript_text: str) -> Path:
    """Write the transcript, then save.json naming the transcript's digest (so a torn pair is detected)."""
    payload = {"format_version": FORMAT_VERSION, **payload, "transcript": transcript_digest(transcript_text)}
    atomic_write(folder / TRANSCRIPT_FILE, transcript_text)
    atomic_write(folder / SAVE_FILE, json.dumps(payload, indent=1, sort_keys=True) + "\n")
    return folder


def _read_text(path: Path, missing_hint: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SaveError(f"{path}: missing", hint=missing_hint) from None
    except UnicodeDecodeError:
        raise SaveError(f"{path}: not UTF-8 text", hint="the file is damaged; it was left as it is") from None


def read_save(folder: Path) -> dict[str, Any]:
    path = folder / SAVE_FILE
    raw = _read_text(path, "a save folder holds save.json")
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
                        f"(this Parley reads format {FORMAT_VERSION})",
                        hint="the save was made by another version of Parley; it was left as it is")
    for key in ("id", "hash", "path"):
        if not isinstance(data["world"].get(key), str):
            raise SaveError(f"{path}: world.{key} missing or not a string")
    if data["seed"] < 0:
        raise SaveError(f"{path}: seed {data['seed']} is negative")
    if not isinstance(data["engine"].get("state"), dict):
        raise SaveError(f"{path}: engine.state missing or not an object", hint="the save is damaged; it was left as it is")
    if not isinstance(data["components"].get("agents", {}), dict):
        raise SaveError(f"{path}: components.agents should be an object")
    return data


def read_transcript(folder: Path, data: dict[str, Any]) -> str:
    """The save's transcript text, checked against the digest in save.json."""
    path = folder / TRANSCRIPT_FILE
    text = _read_text(path, "a save needs its transcript")
    if transcript_digest(text) != data["transcript"]:
        raise SaveError(f"{path}: does not match save.json (digest {transcript_digest(text)}, "
                        f"expected {data['transcript']})", hint="the transcript was edited, truncated or "
                        "belongs to another save")
    return text


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
    """Delete a save by slug. Only folders directly inside the saves folder, only the save's own files."""
    root = saves_dir(base).resolve()
    folder = (root / str(ref)).resolve()
    if folder.parent != root or not (folder / SAVE_FILE).is_file():
        known = [i.slug for i in list_saves(base)]
        from game.errors import did_you_mean
        raise SaveError(f"no save named {str(ref)!r} in {root}",
                        hint=did_you_mean(str(ref), known) or "give a save's name as `parley saves list` shows it")
    for name in (SAVE_FILE, TRANSCRIPT_FILE):
        (folder / name).unlink(missing_ok=True)
    for tmp in folder.glob(".*.tmp"):
        tmp.unlink()
    try:
        folder.rmdir()
    except OSError:
        pass  # the folder holds files that are not ours: leave them
    return folder
