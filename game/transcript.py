"""JSONL transcripts: one canonical JSON record per line (start, action, event, round).

Records hold no timestamps or host details, so the same game gives the same
bytes. ``read_actions`` recovers the inputs for a replay.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import IO, Any

from game.errors import SaveError
from game.state import canonical_json


class Transcript:
    """Collects records in memory and, when given a path, appends them to a file."""

    def __init__(self, path: str | Path | None = None, keep: bool = True):
        self.path = Path(path) if path is not None else None
        self.keep = keep
        self.records: list[str] = []
        self._fh: IO[str] | None = None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fh = self.path.open("w", encoding="utf-8", newline="\n")

    def write(self, record: dict[str, Any]) -> None:
        line = canonical_json(record)
        if self.keep:
            self.records.append(line)
        if self._fh is not None:
            self._fh.write(line + "\n")

    def text(self) -> str:
        return "".join(r + "\n" for r in self.records)

    def flush(self) -> None:
        if self._fh is not None:
            self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """Parse a transcript, reporting the first bad line by number."""
    p = Path(path)
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except OSError as e:
        raise SaveError(f"cannot read transcript {str(p)!r}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise SaveError(f"{p}: not UTF-8 text", hint="the transcript is damaged") from None
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise SaveError(f"{p}:{n}: not valid JSON ({e.msg} at column {e.colno})",
                            hint="the transcript is truncated or damaged") from None
        if not isinstance(rec, dict) or "type" not in rec:
            raise SaveError(f"{p}:{n}: not a transcript record", hint="each line needs a 'type' key")
        out.append(rec)
    return out
