"""Golden files: a text (a transcript) pinned byte for byte."""

from __future__ import annotations

import os
from pathlib import Path

from game.core.files import write_atomic

UPDATE = "PARLEY_UPDATE_GOLDEN"


def updating() -> bool:
    """Whether ``PARLEY_UPDATE_GOLDEN`` asks to rewrite golden files (1, true, yes; 0 or empty: no)."""
    return os.environ.get(UPDATE, "").strip().lower() in ("1", "true", "yes")


def assert_golden(text: str, path: str | Path) -> None:
    """Fail unless ``text`` equals the golden file at ``path``, naming the first line that differs.
    With the environment variable ``PARLEY_UPDATE_GOLDEN=1`` the file is (re)written first: do it
    once after a deliberate change, and review the diff. Holds under ``python -O`` too."""
    path = Path(path)
    if updating():
        write_atomic(path, text)
    if not path.is_file():
        raise AssertionError(f"no golden file {path}: run once with {UPDATE}=1 to create it")
    want = path.read_text(encoding="utf-8")
    if text == want:
        return
    got_lines, want_lines = text.split("\n"), want.split("\n")
    for i, (g, w) in enumerate(zip(got_lines, want_lines), 1):
        if g != w:
            raise AssertionError(f"{path}:{i} differs\n  golden: {w[:300]!r}\n  now:    {g[:300]!r}")
    extra = "the golden file" if len(want_lines) > len(got_lines) else "the text now"
    raise AssertionError(
        f"{path}: {extra} goes on after line {min(len(got_lines), len(want_lines))} "
        f"(golden {len(want)} characters, now {len(text)}; a final newline counts)"
    )
