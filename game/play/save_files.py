"""Saves: ``saves/<slug>/save.json`` plus ``transcript.jsonl``, written as one unit.

A save holds the format version, the world id and content hash, the seed and
RNG state, the turn, the full engine state, each component's ``get_state()``,
a state hash over all of that, and the sha256 digest of its transcript.
Loading validates everything and reports a corrupt or truncated file clearly,
leaving it untouched.

Crash safety: a save survives ``kill -9`` (or a power cut) at any instant.
The two files cannot be replaced together by one system call, so ``save.json``
is the single commit point and the transcript is found through it:

1. the transcript goes to a new file ``transcript-<digest>.jsonl`` (temp file,
   fsync, rename, fsync of the folder); ``save.json`` still names the old
   transcript, so the old save is whole;
2. ``save.json`` is replaced atomically (temp file, fsync, ``os.replace``,
   fsync of the folder). This is the commit: from here the new save is whole,
   because its transcript is on disk under the name its digest gives;
3. ``transcript-<digest>.jsonl`` is renamed over ``transcript.jsonl`` (fsync of
   the folder), so users and tools keep one stable file name;
4. leftovers are deleted: other ``transcript-<hex>.jsonl`` files and our
   ``.save.json.*.tmp`` / ``.transcript*.tmp`` temp files.

A reader takes ``transcript.jsonl`` if its digest is the one ``save.json``
names, else ``transcript-<digest>.jsonl`` (a kill between steps 2 and 3), and
then finishes the interrupted write: it renames the pending transcript into
place and deletes leftovers. Nothing that the current ``save.json`` needs is
ever deleted, and files that do not match our own names are never touched. A
save from before this scheme is simply the case "transcript.jsonl matches".

Why this design rather than generation files named from ``save.json``: it keeps
``transcript.jsonl`` as the one transcript a user finds in a save folder (and
every existing save and tool that reads it keeps working), and the pointer
needs no new key: the digest already in ``save.json`` names the pending file.
Saving a transcript into ``save.json`` itself would make one atomic file, but a
large, line-oriented transcript is better kept as plain JSONL.

Writers and readers of one folder hold an exclusive lock on its ``.lock`` file
(``filelock``: an ``flock`` on POSIX, released by the kernel when a process
dies), so a load's clean-up never deletes the pending file of a save in
progress in another process. Every file is written by
``game.core.files.write_atomic``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from game.core.errors import InputError, ParleyError, SaveError, did_you_mean
from game.core.files import folder_problem, fsync_dir, open_dir, read_text, write_atomic
from game.core.text import clean, escape_surrogates, shown

FORMAT_VERSION = 2  # 2: agents' decisions are recorded in the transcript
SAVE_FILE = "save.json"
SAVE_LIMIT = 1024 * 1024 * 1024  # a save file larger than 1 GB is not read
TRANSCRIPT_FILE = "transcript.jsonl"
LOCK_FILE = ".lock"  # the folder's lock (empty; kept between saves, deleted with the save)
_PENDING = re.compile(r"transcript-[0-9a-f]{16}\.jsonl")  # a transcript written before its commit
_TEMP = re.compile(r"\.(?:save\.json|transcript(?:-[0-9a-f]{16})?\.jsonl)\..+\.tmp")  # our temp files
NAME_RULE = "a save name needs a letter or digit; use letters, digits, spaces, - or _"


def saves_dir(base: str | Path | None = None) -> Path:
    """``base``, else ``$PARLEY_SAVES``, else ``./saves``. A ``$PARLEY_SAVES`` that is not a folder
    (a file, a named pipe, a path below a file) is an ``InputError``, as ``--saves-dir`` is."""
    if base:
        return Path(base)
    env = os.environ.get("PARLEY_SAVES", "")
    if env.strip():
        why = folder_problem(env)
        if why:
            raise InputError(f"PARLEY_SAVES: {why}", hint="point PARLEY_SAVES at a folder, or unset it")
        return Path(env)
    return Path("saves")


def _shown(name: object) -> str:
    return shown(name)


def slugify(name: str) -> str:
    """The folder name for a save name: cleaned (``game.core.text.clean``), case-folded, and runs of
    characters other than letters, digits (of any script), ``_`` and ``-`` turned into ``-``;
    at most 64 characters and 128 bytes of UTF-8 (``save é``, ``save 日本`` work).

    A name with no letter or digit (``.``, ``..``, ``...``, ``--``, ``/``) is refused: it would
    otherwise become an empty or meaningless folder name."""
    if not isinstance(name, str):
        raise InputError(f"{name!r} is not a usable save name", hint=NAME_RULE)
    slug = re.sub(r"[^\w-]+", "-", clean(name, newlines=False).strip().casefold()).strip("-")[:64]
    while len(slug.encode("utf-8")) > 128:
        slug = slug[:-1]
    slug = slug.strip("-")
    if not re.search(r"[^\W_]", slug):
        raise InputError(f"{_shown(repr(name))} is not a usable save name", hint=NAME_RULE)
    return slug


def save_folder(name: str, base: str | Path | None = None) -> Path:
    """Where ``save NAME`` writes: ``<saves>/<slug>``. A folder there that is a symlink leading
    out of the saves folder is refused (in-game ``load`` would not follow it either)."""
    root = saves_dir(base)
    folder = root / slugify(name)
    if folder.is_symlink() and folder.resolve().parent != root.resolve():
        raise SaveError(
            f"{folder} is a link to {_shown(str(folder.resolve()))}, outside the saves folder",
            hint="remove the link, or save under another name",
        )
    return folder


@contextlib.contextmanager
def _folder(folder: Path) -> Iterator[int | None]:
    """An open descriptor of ``folder`` (for fsync), holding the folder's lock."""
    with open_dir(folder) as fd, _locked(folder):
        yield fd


LOCK_WAIT = 15.0  # seconds to wait for another process's save or load of the same folder


@contextlib.contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold the folder's lock, waiting up to ``LOCK_WAIT`` seconds for another process's save or
    load; then a clear error instead of a silent hang. A folder where the lock file cannot be
    made (read-only: such a save still loads) goes unlocked."""
    lock = FileLock(folder / LOCK_FILE, timeout=LOCK_WAIT)
    try:
        lock.acquire()
        held = True
    except Timeout:  # before OSError: a Timeout is a TimeoutError
        raise SaveError(
            f"{folder}: in use by another process for more than {LOCK_WAIT:g} s",
            hint="another Parley (or a tool) holds this save; try again when it is done",
        ) from None
    except OSError:
        held = False
    try:
        yield
    finally:
        if held:
            lock.release()


@contextlib.contextmanager
def saves_locked(base: str | Path | None = None) -> Iterator[Path]:
    """Hold the saves folder's own lock (``<saves>/.lock``) for a step that reads and then writes
    more than one save, such as the autosave's check, keep and write: two games that stop at the
    same moment then take turns instead of both finding the slot free. Yields the saves folder
    (made if missing). Each save's folder keeps its own lock for the write itself."""
    root = saves_dir(base)
    root.mkdir(parents=True, exist_ok=True)
    with _locked(root):
        yield root


@dataclass(frozen=True)
class SaveInfo:
    slug: str
    folder: Path
    world_id: str
    turn: int
    score: int
    done: bool
    modified: float


def _is_path(ref: str) -> bool:
    return (
        ref in (".", "..")
        or ref.startswith("~")
        or Path(ref).is_absolute()
        or any(sep in ref for sep in ("/", "\\", os.sep, os.altsep or "/"))
    )


def resolve(ref: str | Path, base: str | Path | None = None, inside: bool = False) -> Path:
    """A save folder from a slug, a save name, a folder path or a save.json path.

    ``inside``: only a save directly in the saves folder, by name (what a player types in
    the game); paths (absolute, ``..``, with separators) are refused."""
    root = saves_dir(base)
    ref_s = str(ref)
    if inside:
        if _is_path(ref_s):
            raise SaveError(
                f"load takes the name of a save in {root}, not a path: {_shown(ref_s)}",
                hint="to play a save from elsewhere, start with: parley play --load PATH",
            )
        slugify(ref_s)  # a name with no letter or digit is an InputError, as when saving
    else:
        p = Path(ref)
        try:
            if p.name == SAVE_FILE and p.is_file():
                return p.parent
            if (p / SAVE_FILE).is_file():
                return p
        except (OSError, ValueError):  # not a usable path (NUL byte, too long): try it as a name
            pass
    names = [ref_s]
    with contextlib.suppress(InputError):
        names.append(slugify(ref_s))  # `load My Game` finds the save `save My Game` wrote
    real_root = root.resolve()
    for name in names:
        cand = root / name
        try:
            if inside and cand.resolve().parent != real_root:
                continue
            if (cand / SAVE_FILE).is_file():
                return cand
        except (OSError, ValueError):
            continue
    known = [i.slug for i in list_saves(base)]
    raise SaveError(
        f"no save {_shown(ref_s)!r}",
        hint=did_you_mean(ref_s, known) or (f"saves: {', '.join(known)}" if known else "no saves yet"),
    )


def transcript_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def pending_name(digest: str) -> str:
    """The file a transcript with this digest is written to before its save.json commits."""
    return f"transcript-{digest}.jsonl"


def write_save(folder: Path, payload: dict[str, Any], transcript_text: str) -> Path:
    """Write a save as one unit (see the module docstring): transcript under a new name,
    then save.json (the commit), then the transcript to its stable name, then clean up."""
    transcript_text = escape_surrogates(transcript_text)  # records are canonical JSON: escape, never fail
    digest = transcript_digest(transcript_text)
    payload = {"format_version": FORMAT_VERSION, **payload, "transcript": digest}
    size = len(transcript_text.encode("utf-8", "surrogatepass"))
    if size > SAVE_LIMIT:  # never write what a load would refuse; the previous save stays whole
        raise SaveError(
            f"{folder}: the transcript would be {size:,} bytes; a save holds at most {SAVE_LIMIT:,}",
            hint="the previous save in this folder was kept",
        )
    text = json.dumps(payload, indent=1, sort_keys=True) + "\n"  # ASCII: every string escaped
    if len(text) > SAVE_LIMIT:
        raise SaveError(
            f"{folder}: save.json would be {len(text):,} bytes; a save holds at most {SAVE_LIMIT:,}",
            hint="the previous save in this folder was kept",
        )
    folder.mkdir(parents=True, exist_ok=True)
    with _folder(folder) as dfd:
        pending = folder / pending_name(digest)
        write_atomic(pending, transcript_text, dir_fd=dfd)  # 1. the new transcript, beside the old
        write_atomic(folder / SAVE_FILE, text, dir_fd=dfd)  # 2. commit
        os.replace(pending, folder / TRANSCRIPT_FILE)  # 3. the stable name
        fsync_dir(dfd)
        _tidy(folder, dfd, digest)  # 4. leftovers of this or earlier writes
    return folder


def _tidy(folder: Path, dfd: int | None, digest: str) -> list[str]:
    """Delete what interrupted writes left (call with the folder locked, after the transcript
    named ``digest`` is in ``transcript.jsonl``): pending transcripts and our temp files."""
    removed = []
    for p in folder.iterdir():
        if _PENDING.fullmatch(p.name) or _TEMP.fullmatch(p.name):
            with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
                if p.is_file() and not p.is_symlink():
                    os.unlink(p)
                    removed.append(p.name)
    if removed:
        fsync_dir(dfd)
    return removed


def _read_text(path: Path, missing_hint: str) -> str:
    """A save file's text: a regular file (never a pipe or a device) of at most ``SAVE_LIMIT``."""
    return read_text(
        path,
        limit=SAVE_LIMIT,
        error=SaveError,
        missing_hint=missing_hint,
        hint="the file is damaged; it was left as it is",
    )


class DuplicateKey(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _distinct_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys are distinct: a repeated key would silently keep its last value,
    so the save read would not be the save checked by anyone reading the first."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(key)
            seen.add(key)
    return out


def read_save(folder: Path) -> dict[str, Any]:
    path = folder / SAVE_FILE
    raw = _read_text(path, "a save folder holds save.json")
    if not raw.strip():
        raise SaveError(f"{path}: empty file", hint="the save is truncated; it was left as it is")
    try:
        data = json.loads(raw, object_pairs_hook=_distinct_keys)
    except DuplicateKey as e:
        raise SaveError(f"{path}: corrupt save (key {shown(repr(e.key))} appears twice in one object)") from None
    except json.JSONDecodeError as e:
        raise SaveError(
            f"{path}:{e.lineno}:{e.colno}: corrupt save ({e.msg})",
            hint="the save is truncated or damaged; it was left as it is",
        ) from None
    except RecursionError:
        raise SaveError(f"{path}: corrupt save (nested too deeply)") from None
    except ValueError as e:  # e.g. an integer of thousands of digits
        raise SaveError(f"{path}: corrupt save ({e})", hint="the save is damaged; it was left as it is") from None
    if not isinstance(data, dict):
        raise SaveError(f"{path}: not a save (expected a JSON object)")
    version = data.get("format_version")
    if isinstance(version, int) and not isinstance(version, bool) and version != FORMAT_VERSION:
        raise SaveError(
            f"{path}: save format {version} is not supported (this Parley reads format {FORMAT_VERSION})",
            hint="the save was made by another version of Parley; it was left as it is",
        )
    from game.play.save_schema import check_save

    check_save(data, path)  # the whole file's shape, before any of it is used
    return data


def _transcript_text(folder: Path, data: dict[str, Any]) -> tuple[str, Path]:
    """The transcript ``save.json`` names, and the file it was found in."""
    want = data["transcript"]
    path = folder / TRANSCRIPT_FILE
    try:
        text = _read_text(path, "a save needs its transcript")
    except SaveError as e:
        text, missing = None, e
    if text is not None and transcript_digest(text) == want:
        return text, path
    pending = folder / pending_name(want)
    if pending.is_file():  # the last save committed save.json and was stopped before the rename
        try:
            ptext = _read_text(pending, "")
            if transcript_digest(ptext) == want:
                return ptext, pending
        except SaveError:
            pass
    if text is None:
        raise missing
    raise SaveError(
        f"{path}: does not match save.json (digest {transcript_digest(text)}, expected {want})",
        hint="the transcript was edited, truncated or belongs to another save",
    )


def read_transcript(folder: Path, data: dict[str, Any]) -> str:
    """The save's transcript text, checked against the digest in save.json (read only)."""
    return _transcript_text(folder, data)[0]


def open_save(folder: Path, check: Callable[[dict[str, Any], str], Any] | None = None) -> tuple[dict[str, Any], str]:
    """Read and check ``save.json`` (``read_save``: its schema) and its transcript under the
    folder's lock, run ``check(data, transcript)`` (the checks that need the world), and only then finish an
    interrupted write (the pending transcript renamed into place, leftovers deleted). A save
    that does not pass is left exactly as it is."""
    folder = Path(folder)
    made_lock = not (folder / LOCK_FILE).exists()
    with _folder(folder) as dfd:
        try:
            data = read_save(folder)
            text, found = _transcript_text(folder, data)
            if check is not None:
                check(data, text)
        except ParleyError:
            if made_lock:  # a save refused leaves its folder as it found it: no lock file either
                with contextlib.suppress(OSError):
                    os.unlink(folder / LOCK_FILE)
            raise
        with contextlib.suppress(OSError):  # clean-up is a courtesy: a read-only folder still loads
            if found.name != TRANSCRIPT_FILE:
                os.replace(found, folder / TRANSCRIPT_FILE)
                fsync_dir(dfd)
            _tidy(folder, dfd, data["transcript"])
    return data, text


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
            out.append(
                SaveInfo(
                    d.name,
                    d,
                    data["world"]["id"],
                    data["turn"],
                    st.get("score", 0),
                    bool(st.get("done")),
                    f.stat().st_mtime,
                )
            )
        except (SaveError, KeyError, TypeError, AttributeError, ValueError):
            out.append(SaveInfo(d.name, d, "(corrupt)", -1, 0, False, f.stat().st_mtime))
    return out


def remove(ref: str, base: str | Path | None = None) -> Path:
    """Delete a save by slug. Only folders directly inside the saves folder, only the save's own
    files (save.json first: from then on there is no save; then its transcripts, temp files and lock)."""
    root = saves_dir(base).resolve()
    names = [str(ref)]
    with contextlib.suppress(InputError):
        names.append(slugify(str(ref)))  # `saves rm "My Game"` finds my-game
    folder = None
    for name in names:
        try:
            cand = (root / name).resolve()
            if cand.parent == root and (cand / SAVE_FILE).is_file():
                folder = cand
                break
        except (OSError, ValueError):
            continue
    if folder is None:
        known = [i.slug for i in list_saves(base)]
        raise SaveError(
            f"no save named {_shown(str(ref))!r} in {root}",
            hint=did_you_mean(str(ref), known) or "give a save's name as `parley saves list` shows it",
        )
    with _folder(folder) as dfd:
        for name in (SAVE_FILE, TRANSCRIPT_FILE):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(folder / name)
        _tidy(folder, dfd, "")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(folder / LOCK_FILE)  # last, still held: a waiting process then finds no save
        fsync_dir(dfd)
    try:
        folder.rmdir()
    except OSError:
        pass  # the folder holds files that are not ours: leave them
    return folder
