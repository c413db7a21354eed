"""Lint, format and types, as CI checks them: ruff's rules and formatter over the code, and mypy over
the core and the public API (the files listed under ``[tool.mypy]`` in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

BIN = Path(sys.executable).parent
CODE = ["game", "agents", "memory", "benchmarks", "tests", "docs", "examples", "README.md"]


def run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_finds_nothing():
    out = run(str(BIN / "ruff"), "check", "--no-cache", *CODE)
    assert out.returncode == 0, out.stdout[-4000:]


def test_the_code_is_formatted():
    out = run(str(BIN / "ruff"), "format", "--check", "--no-cache", *CODE)
    assert out.returncode == 0, "run `ruff format`:\n" + out.stdout[-4000:]


def test_mypy_passes_on_the_core_and_the_public_api():
    out = run(str(BIN / "mypy"), "--no-incremental")
    assert out.returncode == 0, out.stdout[-4000:]
