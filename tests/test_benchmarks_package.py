"""The benchmarks are one package: every runnable one answers ``python -m benchmarks.NAME --help``
from the repository root, and none edits ``sys.path`` to find the code it measures."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"


def _runnable() -> list[str]:
    """Top-level modules of ``benchmarks`` that define ``main`` (the helpers live in subpackages)."""
    out = []
    for path in sorted(BENCH.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(isinstance(n, ast.FunctionDef) and n.name == "main" for n in tree.body):
            out.append(path.stem)
    return out


def test_every_benchmark_with_a_main_is_found():
    names = _runnable()
    assert {"engine_bench", "agents_bench", "tournament_bench", "gate_bench", "context_bench"} <= set(names)
    assert not [p for p in BENCH.glob("*/*.py") if "def main(" in p.read_text(encoding="utf-8")], (
        "a helper in a subpackage has a main: runnable benchmarks sit at the top of benchmarks/"
    )


@pytest.mark.parametrize("name", _runnable())
def test_help_runs_as_a_module(name):
    """Import cost only (about a second at most): ``--help`` runs before any work."""
    env = {**os.environ, "PYTHONPATH": ""}
    proc = subprocess.run(
        [sys.executable, "-m", f"benchmarks.{name}", "--help"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "usage:" in proc.stdout


def test_no_benchmark_edits_sys_path():
    offenders = [str(p.relative_to(ROOT)) for p in BENCH.rglob("*.py") if "sys.path" in p.read_text(encoding="utf-8")]
    assert not offenders
