"""Run llama.cpp's OpenAI-compatible server on a GGUF file, in this process, until told to stop.

``agents.llm.local.LocalServer`` starts this module as a child process with ``--watch-stdin``:
it exits when its parent closes the pipe or dies. ``parley model serve`` calls :func:`serve`
in the foreground: it runs until Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from typing import Any


def params(path: str, port: int, threads: int, batch_threads: int, ctx: int, parallel: int) -> Any:
    """xllamacpp's server parameters: loopback only, passive waiting, prompt cache on."""
    import xllamacpp

    p = xllamacpp.CommonParams()
    p.model.path = path
    p.model_alias = os.path.splitext(os.path.basename(path))[0]
    p.hostnames = ["127.0.0.1"]
    p.port = port
    p.n_ctx = ctx
    p.n_parallel = parallel
    p.cpuparams.n_threads = threads
    p.cpuparams_batch.n_threads = batch_threads
    p.cpuparams.poll = 0  # busy-waiting threads stall generation on a small machine
    p.cpuparams_batch.poll = 0
    p.cache_prompt = True  # reuse the unchanged prefix (system prompt, briefing) between turns
    p.warmup = False
    return p


def serve(
    path: str,
    port: int,
    *,
    threads: int = 1,
    batch_threads: int = 2,
    ctx: int = 8192,
    parallel: int = 1,
    watch_stdin: bool = False,
    announce: Any = None,
) -> None:
    """Serve ``path`` on 127.0.0.1:``port`` until stdin closes (``watch_stdin``) or Ctrl-C."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import xllamacpp

    server = xllamacpp.Server(params(path, port, threads, batch_threads, ctx, parallel))
    # llama.cpp installs its own SIGINT/SIGTERM handlers; Python's take them back, so Ctrl-C and
    # a plain kill stop the server through the ``finally`` below
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _terminate)
    try:  # from here on a Ctrl-C, even one right after the announcement, stops the server cleanly
        if announce is not None:
            announce(f"http://127.0.0.1:{port}/v1")
        if watch_stdin:
            while sys.stdin.buffer.read(4096):  # returns b"" when the parent closes the pipe or dies
                pass
        else:
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        held = [server]
        del server  # ``held`` has the last reference now
        _stop(held, wait=STOP_WAIT)


STOP_WAIT = 15.0  # seconds the server may take to finish a request in flight before the process leaves


def _stop(held: list[Any], wait: float) -> None:
    """Stop the server held in ``held`` (its destructor stops llama.cpp's threads). A destructor
    still waiting after ``wait`` seconds (a request in flight, a connection kept open) does not
    keep a Ctrl-C from ending the process: it leaves at once with exit code 0."""
    done = threading.Event()

    def drop() -> None:
        held.clear()  # the last reference: the destructor runs in this thread
        done.set()

    threading.Thread(target=drop, name="parley-model-stop", daemon=True).start()
    if not done.wait(wait):
        sys.stdout.flush()
        os._exit(0)


def _terminate(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.llm.local_serve", description=__doc__)
    ap.add_argument("path", help="the GGUF model file")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch-threads", type=int, default=2)
    ap.add_argument("--ctx", type=int, default=8192)
    ap.add_argument("--parallel", type=int, default=1)
    ap.add_argument("--watch-stdin", action="store_true", help="exit when stdin closes (the parent is gone)")
    a = ap.parse_args(argv)
    serve(
        a.path,
        a.port,
        threads=a.threads,
        batch_threads=a.batch_threads,
        ctx=a.ctx,
        parallel=a.parallel,
        watch_stdin=a.watch_stdin,
        announce=lambda url: print(f"serving on {url}", flush=True),
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
