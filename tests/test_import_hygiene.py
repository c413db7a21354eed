"""`import game.engine.loop` (and the light packages) must not load heavy libraries."""

import subprocess
import sys

import pytest

from tests.conftest import ROOT

HEAVY = ["textual", "pygame", "chromadb", "torch", "openai", "sentence_transformers", "pettingzoo"]


@pytest.mark.parametrize(
    "module",
    [
        "game.engine.loop",
        "game.cli.main",
        "game.play.session",
        "agents",
        "memory",
        "game.world.loader",
        "game.engine.parser",
    ],
)
def test_no_heavy_imports(module):
    code = f"import sys, {module}; heavy = {HEAVY!r}; print(','.join(h for h in heavy if h in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"{module} loaded {out.stdout.strip()}"


def test_cli_help_loads_neither_pydantic_nor_numpy():
    code = (
        "import sys, contextlib, io\nfrom game.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try: main(['--help'])\n    except SystemExit: pass\n"
        "print(','.join(m for m in ('pydantic', 'numpy') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
