"""The README and the documentation site: the README stays short, its links and its API example
work, every benchmark command the docs give names a real module, and ``mkdocs build --strict``
passes (broken links, anchors and pages outside the nav fail it)."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def test_the_readme_is_at_most_300_lines():
    lines = _readme().splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines; move the detail into docs/"


def test_the_readme_links_to_files_that_exist():
    targets = [t for t in LINK.findall(_readme()) if not re.match(r"[a-z]+:", t) and not t.startswith("#")]
    assert any(t.startswith("docs/") for t in targets), "the README links to no docs page"
    missing = [t for t in targets if not (ROOT / t.split("#")[0]).exists()]
    assert not missing, f"README.md links to missing files: {missing}"


def test_the_readme_api_example_runs(capsys):
    """The example under "Using it from Python", run as written (the MEMO library example under it is
    run by tests/test_memo_library.py; the docs include it from the README)."""
    section = _readme().split("## Using it from Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert "Game(" in code and "play_episode(" in code
    exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})
    out = capsys.readouterr().out
    assert out.startswith("turn\n") and "agreement" in out


def test_benchmark_commands_in_the_docs_name_real_modules():
    pages = [README, ROOT / "CHANGELOG.md", *DOCS.rglob("*.md")]
    command = re.compile(r"-m (benchmarks\.[a-z0-9_.]*[a-z0-9_])")
    named = {m for p in pages for m in command.findall(p.read_text(encoding="utf-8"))}
    assert named, "no `python -m benchmarks.NAME` command found in the docs"
    missing = sorted(n for n in named if importlib.util.find_spec(n) is None)
    assert not missing, f"the docs run benchmark modules that do not exist: {missing}"


def test_the_docs_site_builds_strictly(tmp_path):
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        pytest.importorskip(module, reason="the docs tools: pip install -e '.[docs]'")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-4000:]
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / "reference" / "game.play.session" / "index.html").is_file()
