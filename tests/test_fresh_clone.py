"""A fresh clone of the committed tree holds everything the suite needs (nothing untracked)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.mark.slow
def test_fresh_clone_passes_core_suite(tmp_path):
    if os.environ.get("PARLEY_IN_FRESH_CLONE"):
        pytest.skip("already inside the fresh-clone check")
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    env = dict(os.environ, PARLEY_IN_FRESH_CLONE="1")
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-x",
            "-p",
            "no:cacheprovider",
            "tests/test_world_loader.py",
            "tests/test_worlds_play.py",
            "tests/test_cli.py",
            "tests/test_engine.py",
        ],
        cwd=clone,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    # the CLI in the clone validates the shipped worlds
    r = subprocess.run(
        [sys.executable, "-m", "game.cli.main", "validate", "worlds"], cwd=clone, capture_output=True, text=True
    )
    assert r.returncode == 0, r.stdout + r.stderr
