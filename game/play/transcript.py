"""Transcripts. ``Transcript``: the game's record, one canonical JSON record per line (start,
action, event, round); records hold no timestamps or host details, so the same game gives the same
bytes, and ``game.play.persistence.replay`` re-applies them. ``ReadableTranscript``: what a person
typed and what the game answered, as plain text (``transcript on`` in a game).
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

    def mark(self) -> tuple[int, int | None]:
        """Where the record stands now (records kept, bytes written), for ``cut``."""
        if self._fh is not None:
            self._fh.flush()
        return len(self.records), (self._fh.tell() if self._fh is not None else None)

    def cut(self, mark: tuple[int, int | None]) -> None:
        """Forget every record written since ``mark`` (an undone turn), in memory and in the file."""
        kept, where = mark
        del self.records[kept:]
        if self._fh is not None and where is not None:
            self._fh.flush()
            self._fh.seek(where)
            self._fh.truncate()

    def flush(self) -> None:
        if self._fh is not None:
            self._fh.flush()

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None


class ReadableTranscript:
    """A transcript a person reads: each command as typed (``> take key``) and the lines the game
    answered, in plain text, appended to ``path`` and flushed after every command."""

    def __init__(self, path: str | Path, heading: str):
        self.path = Path(path).expanduser().resolve()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh: IO[str] | None = self.path.open("a", encoding="utf-8", newline="\n")
        self.write(heading)

    def write(self, text: str) -> None:
        if self._fh is not None:
            self._fh.write(text.rstrip("\n") + "\n\n")
            self._fh.flush()

    def command(self, said: str, lines: tuple[str, ...] | list[str]) -> None:
        """One command and its answer."""
        self.write("\n".join([f"> {said}", *lines]))

    def close(self) -> None:
        if self._fh is not None:
            self._fh.close()
            self._fh = None
