"""Golden files: a text (a transcript) pinned byte for byte."""

from __future__ import annotations

import os
from pathlib import Path

from game.core.files import write_atomic

UPDATE = "PARLEY_UPDATE_GOLDEN"


def assert_golden(text: str, path: str | Path) -> None:
    """Fail unless ``text`` equals the golden file at ``path``, naming the first line that differs.
    With the environment variable ``PARLEY_UPDATE_GOLDEN=1`` the file is (re)written first: do it
    once after a deliberate change, and review the diff."""
    path = Path(path)
    if os.environ.get(UPDATE):
        write_atomic(path, text)
    assert path.is_file(), f"no golden file {path}: run once with {UPDATE}=1 to create it"
    want = path.read_text(encoding="utf-8")
    if text == want:
        return
    got_lines, want_lines = text.splitlines(), want.splitlines()
    for i, (g, w) in enumerate(zip(got_lines, want_lines), 1):
        if g != w:
            raise AssertionError(f"{path}:{i} differs\n  golden: {w[:300]}\n  now:    {g[:300]}")
    raise AssertionError(f"{path}: {len(want_lines)} lines golden, {len(got_lines)} now (one is a prefix of the other)")
