"""An on-disk cache of LLM replies, keyed by what was asked (never by who asked).

The key is a sha256 over canonical JSON of the model, the messages and the
sampling parameters. The API key and base URL are never part of it, and
nothing secret is written: a file holds only the reply.
Files live at ``folder/ab/<hash>.json`` and are written atomically.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from game.core.files import read_limited, write_atomic


def cache_key(model: str, messages: list[dict[str, Any]], params: dict[str, Any]) -> str:
    """The sha256 hex digest of the canonical request (``None`` params dropped)."""
    payload = {"model": model, "messages": messages, "params": {k: v for k, v in params.items() if v is not None}}
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class ResponseCache:
    """Reply dicts on disk; a missing or corrupt file is a miss, never a crash."""

    def __init__(self, folder: str | os.PathLike[str]):
        self.folder = Path(folder)

    def __repr__(self) -> str:
        return f"ResponseCache({str(self.folder)!r})"

    def path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        raw, _why = read_limited(self.path(key))  # a pipe, a device or a huge file is a miss
        if raw is None:
            return None
        try:
            data = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError):
            return None
        return data if isinstance(data, dict) else None

    def put(self, key: str, value: dict[str, Any]) -> None:
        write_atomic(self.path(key), json.dumps(value, ensure_ascii=False, sort_keys=True))
