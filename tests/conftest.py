"""Shared fixtures: project paths and small worlds built on the fly."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORLDS = ROOT / "worlds"
SHIPPED = sorted(p.parent for p in WORLDS.glob("*/world.toml"))
SCRIPTS = ROOT / "tests" / "scripts"


def write_world(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "world.toml").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def demo_world(tmp_path: Path):
    """The `parley new-world` scaffold: a small, valid, winnable world."""
    from game.world.loader import load_world
    from game.world.scaffold import scaffold_text
    return load_world(write_world(tmp_path / "demo", scaffold_text("demo")))


@pytest.fixture
def harbor():
    from game.world.loader import load_world
    return load_world(WORLDS / "harbor")


def parley(*args: str, cwd: Path = ROOT, input: str | None = None, env: dict | None = None):
    """Run the real CLI in a subprocess; returns CompletedProcess."""
    import os
    import subprocess
    import tempfile
    e = dict(os.environ)
    e.setdefault("PARLEY_SAVES", tempfile.mkdtemp(prefix="parley-saves-"))  # never write into the repo
    e.update(env or {})
    return subprocess.run([sys.executable, "-m", "game.cli", *args], cwd=cwd, input=input,
                          capture_output=True, text=True, env=e, timeout=300)


@pytest.fixture
def serve():
    """serve(replies=None, responder=None, **kw) -> a running local scripted OpenAI-compatible
    server (agents.llm.scripted_server), closed after the test."""
    from agents.llm.scripted_server import ScriptedServer
    servers: list = []

    def start(replies=None, **kw):
        s = ScriptedServer(replies, **kw)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()


def reseal_transcript(folder, text: str) -> None:
    """Make ``save.json`` agree with an edited transcript ``text``: a consistent forgery, which
    only a replay can expose."""
    import json

    from game.saves import transcript_digest
    path = Path(folder) / "save.json"
    data = json.loads(path.read_text())
    data["transcript"] = transcript_digest(text)
    path.write_text(json.dumps(data))


def forge_transcript(folder, text: str) -> None:
    """Replace a save's transcript with ``text`` and reseal it."""
    (Path(folder) / "transcript.jsonl").write_text(text)
    reseal_transcript(folder, text)
