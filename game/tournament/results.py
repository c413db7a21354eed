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

from game.core.errors import InputError
from game.core.files import write_atomic

RESULTS = "results.jsonl"
SCENARIOS = "scenarios.json"
CONFIG = "tournament.json"


def parse_results(raw: bytes, path: Path | str) -> tuple[list[dict[str, Any]], list[int], bytes]:
    """The rows of a results file's bytes with their line numbers, and its torn tail: the bytes
    after the last newline when they are not a JSON object (b"" when there are none, or when they
    are a whole row that only lacks its newline; that row is kept). Blank lines are skipped; any
    other line that is not a JSON object is damage in the middle, an ``InputError`` naming it."""
    *whole, tail = raw.split(b"\n")
    if not tail.strip() and whole and any(w.strip() for w in whole):  # blank lines after the last line: a
        while whole and not whole[-1].strip():  # torn line with a newline added by
            whole.pop()  # an editor counts as the last line
        tail = whole.pop()
    rows: list[dict[str, Any]] = []
    numbers: list[int] = []
    for n, line in enumerate([*whole, tail], 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except (ValueError, RecursionError) as e:  # UnicodeDecodeError is a ValueError
            row, why = None, (str(e).splitlines() or [type(e).__name__])[0][:120]
        else:
            why = "not a JSON object with an id"
        if isinstance(row, dict) and isinstance(row.get("id"), str):
            rows.append(row)
            numbers.append(n)
        elif n == len(whole) + 1:
            return rows, numbers, line
        else:
            raise InputError(
                f"{path}:{n}: corrupt line, not a result row ({why}); the file is damaged in the middle",
                hint="only the last line may be torn by a crash: move the file aside and re-run "
                "without --resume, or delete the bad line",
            )
    return rows, numbers, b""


def finished_ids(path: Path, repair: bool = True) -> tuple[list[dict[str, Any]], str | None]:
    """The rows in ``path``, and a note when a torn last line was found (and, with ``repair``, cut
    off the file, so appending goes on after the last whole row)."""
    if not path.exists():
        return [], None
    raw = path.read_bytes()
    rows, _, torn = parse_results(raw, path)
    note = None
    if torn:
        note = f"{path}: the last line was cut short by an interrupted write; its match is played again"
    if repair and (torn or raw and not raw.endswith(b"\n")):
        with open(path, "r+b") as f:
            if torn:
                f.truncate(raw.rfind(torn))
            else:  # a whole row without its newline
                f.seek(0, os.SEEK_END)
                f.write(b"\n")
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
    write_atomic(path, json.dumps(data, indent=1, sort_keys=True))
