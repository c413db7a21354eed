"""The results file: one JSON line per finished match, appended, flushed and fsynced.

A tournament killed at any instant leaves whole lines and at most one torn last line (a write cut
short). ``finished_ids`` reads what is there, cutting a torn tail off the file (the match it held
was not finished, so it is played again); a bad line in the middle is corruption and stops the
run with its line number, losing nothing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from game.errors import InputError

RESULTS = "results.jsonl"
SCENARIOS = "scenarios.json"
CONFIG = "tournament.json"


def _row(line: bytes) -> dict[str, Any] | None:
    try:
        row = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    return row if isinstance(row, dict) and isinstance(row.get("id"), str) else None


def finished_ids(path: Path, repair: bool = True) -> tuple[list[dict[str, Any]], str | None]:
    """The rows in ``path``, and a note when a torn last line was found (and, with ``repair``, cut
    off the file)."""
    if not path.exists():
        return [], None
    raw = path.read_bytes()
    *whole, tail = raw.split(b"\n")  # tail: the bytes after the last newline (b"" when none)
    rows: list[dict[str, Any]] = []
    for n, line in enumerate(whole, 1):
        row = _row(line)
        if row is None:
            raise InputError(f"{path}:{n}: not a result row (the file is damaged in the middle)",
                             hint="move the file aside and re-run without --resume, or delete the bad line")
        rows.append(row)
    if not tail:
        return rows, None
    row = _row(tail)
    if row is not None:  # a whole row cut before its newline: keep it
        rows.append(row)
        fix, note = b"\n", None
    else:
        fix, note = None, (f"{path}: line {len(whole) + 1} was cut short by an interrupted write; "
                           "its match is played again")
    if repair:
        with open(path, "r+b") as f:
            if fix is None:
                f.truncate(len(raw) - len(tail))
            else:
                f.seek(0, os.SEEK_END)
                f.write(fix)
            f.flush()
            os.fsync(f.fileno())
    return rows, note


class ResultsWriter:
    """Appends rows; each ``write`` ends with flush and fsync, so a finished match is on disk."""

    def __init__(self, path: Path):
        self.path = path
        self._f = open(path, "a", encoding="utf-8")

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
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=1, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
