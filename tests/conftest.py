"""Shared fixtures: project paths and small worlds built on the fly."""

from __future__ import annotations

import gc
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORLDS = ROOT / "worlds"
SHIPPED = sorted(p.parent for p in WORLDS.glob("*/world.toml"))
SCRIPTS = ROOT / "tests" / "scripts"


def warnings_raised(fn, *args, **kw) -> list[str]:
    """The warnings `fn(*args, **kw)` raises. ResourceWarnings are left out: they come from the
    garbage collector finalizing whatever an earlier test in the same worker left open (a socket
    of a closed server), not from `fn`; a collection first makes that less likely still."""
    gc.collect()
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        fn(*args, **kw)
    return [str(w.message) for w in got if not issubclass(w.category, ResourceWarning)]


def write_world(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "world.toml").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture
def demo_world(tmp_path: Path):
    """The `parley new-world` scaffold: a small, valid, winnable world."""
    from game.play.worlds import load_world
    from game.world.scaffold import scaffold_text

    return load_world(write_world(tmp_path / "demo", scaffold_text("demo")))


@pytest.fixture
def harbor():
    from game.play.worlds import load_world

    return load_world(WORLDS / "harbor")


def typed(lines, prompts: list[str] | None = None):
    """A ``read`` for ``run_console`` that types ``lines`` one by one, then ends input (EOFError);
    the prompts it was shown go into ``prompts`` when given."""
    feed = iter(lines)

    def read(prompt: str) -> str:
        if prompts is not None:
            prompts.append(prompt)
        try:
            return next(feed)
        except StopIteration:
            raise EOFError from None

    return read


def parley(*args: str, cwd: Path = ROOT, input: str | None = None, env: dict | None = None):
    """Run the real CLI in a subprocess; returns CompletedProcess."""
    import os
    import subprocess
    import tempfile

    e = dict(os.environ)
    e.setdefault("PARLEY_SAVES", tempfile.mkdtemp(prefix="parley-saves-"))  # never write into the repo
    e.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "game.cli.main", *args],
        cwd=cwd,
        input=input,
        capture_output=True,
        text=True,
        env=e,
        timeout=300,
    )


@pytest.fixture
def serve():
    """serve(replies=None, responder=None, **kw) -> a running local scripted OpenAI-compatible
    server (game.testing.scripted_server), closed after the test."""
    from game.testing.scripted_server import ScriptedServer

    servers: list = []

    def start(replies=None, **kw):
        s = ScriptedServer(replies, **kw)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _chroma_heartbeat(port: int) -> bool:
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://localhost:{port}/api/v2/heartbeat", timeout=1) as r:
            return r.status == 200
    except OSError:
        return False


@pytest.fixture(scope="session")
def chroma_server(tmp_path_factory):
    """A real ``chroma run`` server on a free port with a temporary data folder, shared by the
    session's tests (each game has its own collection); stopped afterwards. ``{"host", "port"}``."""
    import os
    import shutil
    import subprocess
    import time

    exe = Path(sys.executable).parent / "chroma"
    exe = str(exe) if exe.exists() else shutil.which("chroma")
    if exe is None:
        pytest.skip("the chroma CLI is not installed (chromadb's `chroma run` is needed)")
    port = free_port()
    data = tmp_path_factory.mktemp("chroma-data")
    log = open(data.parent / "chroma.log", "w")
    proc = subprocess.Popen(
        [exe, "run", "--path", str(data), "--host", "localhost", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "ANONYMIZED_TELEMETRY": "False"},
    )
    try:
        deadline = time.monotonic() + 30
        while not _chroma_heartbeat(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                pytest.skip(f"`chroma run` did not start here (exit {proc.poll()}); see {log.name}")
            time.sleep(0.1)
        yield {"host": "localhost", "port": port}
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def reseal_transcript(folder, text: str) -> None:
    """Make ``save.json`` agree with an edited transcript ``text``: a consistent forgery, which
    only a replay can expose."""
    import json

    from game.play.save_files import transcript_digest

    path = Path(folder) / "save.json"
    data = json.loads(path.read_text())
    data["transcript"] = transcript_digest(text)
    path.write_text(json.dumps(data))


def forge_save(folder, edit) -> dict:
    """Edit a save's ``save.json`` in place with ``edit(data)`` and recompute its state hash, as
    anyone can (the hash has no secret): a consistent forgery that only the save's schema, the
    load checks or a replay can expose. Returns the edited data."""
    import json

    from game.play.persistence import save_hash, save_header

    path = Path(folder) / "save.json"
    data = json.loads(path.read_text())
    edit(data)
    data["state_hash"] = save_hash(data["engine"], data["components"], save_header(data))
    path.write_text(json.dumps(data))
    return data


def forge_transcript(folder, text: str) -> None:
    """Replace a save's transcript with ``text`` and reseal it."""
    (Path(folder) / "transcript.jsonl").write_text(text)
    reseal_transcript(folder, text)


@pytest.fixture
def snap_compare(snap_compare):
    """The snapshot fixture with steady cursors: a blinking cursor is drawn or not by the clock, so a
    snapshot taken on a slow machine could differ from one taken on a fast one by the cursor alone."""
    import inspect

    def compare(app, *args, run_before=None, **kwargs):
        async def steady(pilot):
            if run_before is not None:
                result = run_before(pilot)
                if inspect.isawaitable(result):
                    await result
            from textual.widgets import Input

            for widget in pilot.app.screen.query(Input):
                widget.cursor_blink = False
            await pilot.pause()

        return snap_compare(app, *args, run_before=steady, **kwargs)

    return compare
