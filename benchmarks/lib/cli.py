"""Command-line helpers the benchmarks share: seed lists and JSON result files."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any


def seed_range(spec: str) -> range:
    """``100-129`` or ``3`` as a range of seeds. An argparse ``type``: a malformed or empty range is an
    ``ArgumentTypeError``."""
    lo, _, hi = spec.strip().partition("-")
    try:
        a, b = int(lo), int(hi or lo)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a seed or seed range: {spec.strip()!r}") from None
    if b < a:
        raise argparse.ArgumentTypeError(f"empty seed range {spec.strip()!r}")
    return range(a, b + 1)


def seed_list(spec: str) -> list[int]:
    """``100-129``, ``3`` or ``1,4,7-9`` as a list of seeds; ``none`` or nothing for no seeds. An
    argparse ``type``, as ``seed_range``."""
    if spec.strip().lower() in ("", "none"):
        return []
    return [seed for part in spec.split(",") for seed in seed_range(part)]


def write_json(path: str | Path, data: Any, indent: int = 2) -> Path:
    """Write ``data`` to ``path`` as UTF-8 JSON (non-JSON values as their ``str``); returns the path."""
    path = Path(path)
    path.write_text(json.dumps(data, indent=indent, ensure_ascii=False, default=str) + "\n", encoding="utf-8")
    return path
