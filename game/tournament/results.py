"""The results file: one JSON line per finished match, appended, flushed and fsynced.

A tournament killed at any instant leaves whole lines and at most one torn last line (a write cut
short). The file is read line by line by ``ResultLines`` with the safe loader's checks (a regular
file of bounded size; a named pipe, a device or a folder is refused, never read). ``finished_ids``
reads what is there, cutting a torn tail off the file (the match it held was not finished, so it
is played again); a bad line in the middle is corruption and stops the run with its line number,
losing nothing. Rows are appended through a handle that is refused unless it is a regular file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from game.core.errors import InputError
from game.core.files import MAX_FILE_BYTES, open_regular, path_problem, stat_of, write_atomic
from game.tournament import DEFAULT_MAX_MATCHES

RESULTS = "results.jsonl"
SCENARIOS = "scenarios.json"
CONFIG = "tournament.json"
ROW_BYTES = 4096
"""Room per match in a results file: a file larger than this times the tournament's match limit is
refused (a negotiation row is about 700 bytes)."""


def results_limit(max_matches: int = DEFAULT_MAX_MATCHES) -> int:
    """The largest results file read: ``ROW_BYTES`` for each match a tournament may have (at least
    ``MAX_FILE_BYTES``)."""
    return max(MAX_FILE_BYTES, max_matches * ROW_BYTES)


class ResultLines:
    """The rows of a results file, read line by line (never the whole file at once) through the
    safe loader's checks: a regular file of at most ``limit`` bytes (a named pipe, a device, a
    folder or a larger file is an ``InputError`` naming it, and is never read).

    Iterating yields (line number, row). Blank lines are skipped. The last line that is not blank
    may be torn (a write cut short): when it is not a JSON object with an id it is skipped and kept
    in ``torn`` as (line number, byte offset, its bytes); any other line that is not a row is
    damage in the middle, an ``InputError`` naming it. ``ends_with_newline`` tells whether the file
    ends with one (a whole last row may lack it)."""

    def __init__(self, path: Path, limit: int = MAX_FILE_BYTES):
        self.path, self.limit = Path(path), limit
        self.torn: tuple[int, int, bytes] | None = None
        self.ends_with_newline = True

    def _problem(self, why: tuple[str, str | None]) -> InputError:
        message, hint = why
        if message == "missing":
            return InputError(
                f"{self.path}: no such results file", hint="run the tournament first; it writes results.jsonl"
            )
        return InputError(f"{self.path}: {message}", hint=hint or "a results file is the tournament's own JSONL file")

    def check(self) -> None:
        """An ``InputError`` when the file is there but is not one to read (a folder, a named pipe,
        a device, a symlink loop, over the limit); a missing file is fine."""
        why = path_problem(self.path, limit=self.limit)
        if why is not None and why[0] != "missing":
            raise self._problem(why)

    def _lines(self) -> Iterator[bytes]:
        why = path_problem(self.path, limit=self.limit)
        fd, why = (None, why) if why is not None else open_regular(self.path)
        if fd is None:
            raise self._problem(why or ("cannot read", None))
        with os.fdopen(fd, "rb") as fh:
            total = 0
            while line := fh.readline(self.limit + 1 - total):
                total += len(line)
                if total > self.limit:  # it grew while being read
                    raise self._problem((f"is larger than the limit of {self.limit:,} bytes", None))
                yield line

    def __iter__(self) -> Iterator[tuple[int, dict[str, Any]]]:
        pending: tuple[int, int, bytes, str] | None = None  # a line that is not a row: torn if it is the last
        offset, last = 0, b""
        for n, line in enumerate(self._lines(), 1):
            start, offset, last = offset, offset + len(line), line
            body = line[:-1] if line.endswith(b"\n") else line
            if not body.strip():
                continue
            if pending is not None:
                raise InputError(
                    f"{self.path}:{pending[0]}: corrupt line, not a result row ({pending[3]}); "
                    "the file is damaged in the middle",
                    hint="only the last line may be torn by a crash: move the file aside and re-run "
                    "without --resume, or delete the bad line",
                )
            try:
                row = json.loads(body)
            except (ValueError, RecursionError) as e:  # UnicodeDecodeError is a ValueError
                row, why = None, (str(e).splitlines() or [type(e).__name__])[0][:120]
            else:
                why = "not a JSON object with an id"
            if isinstance(row, dict) and isinstance(row.get("id"), str):
                yield n, row
            else:
                pending = (n, start, body, why)
        self.ends_with_newline = not last or last.endswith(b"\n")
        self.torn = pending[:3] if pending is not None else None


def finished_ids(path: Path, repair: bool = True, limit: int | None = None) -> tuple[list[tuple[int, str]], str | None]:
    """(line number, match id) of each row in ``path``, and a note when a torn last line was found
    (and, with ``repair``, cut off the file, so appending goes on after the last whole row). Only
    the ids are kept, so memory grows with the rows' count, not their size."""
    if stat_of(path)[1] == "missing":
        return [], None
    lines = ResultLines(path, results_limit() if limit is None else limit)
    ids = [(n, row["id"]) for n, row in lines]
    note = None
    if lines.torn:
        note = f"{path}: the last line was cut short by an interrupted write; its match is played again"
    if repair and (lines.torn or not lines.ends_with_newline):
        fd = _append_handle(path)
        try:
            if lines.torn:
                os.ftruncate(fd, lines.torn[1])
            else:  # a whole row without its newline
                os.write(fd, b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
    return ids, note


def _append_handle(path: Path) -> int:
    """A descriptor appending to the regular file ``path``: a named pipe, a device or a folder
    there is an ``InputError`` and is never written."""
    fd, why = open_regular(path, write=True)
    if fd is None:
        message, hint = why or ("cannot write", None)
        raise InputError(f"{path}: {message}", hint=hint)
    return fd


class ResultsWriter:
    """Appends rows; each ``write`` ends with flush and fsync, so a finished match is on disk."""

    def __init__(self, path: Path):
        self.path = path
        self._f = os.fdopen(_append_handle(path), "a", encoding="utf-8")

    def write(self, rows: Iterable[dict[str, Any]]) -> None:
        for row in rows:
            self._f.write(json.dumps(row, sort_keys=True, separators=(",", ":")) + "\n")
        self._f.flush()
        os.fsync(self._f.fileno())

    def close(self) -> None:
        self._f.close()

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_json(path: Path, data: Any) -> None:
    """Write through a temporary file and rename, so the file is whole or absent."""
    write_atomic(path, json.dumps(data, indent=1, sort_keys=True))
