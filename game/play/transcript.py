"""JSONL transcripts: one canonical JSON record per line (start, action, event, round).

Records hold no timestamps or host details, so the same game gives the same
bytes; ``game.play.session.replay`` re-applies the action records.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any

from game.engine.state import canonical_json


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
