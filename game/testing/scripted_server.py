"""A local, scripted, OpenAI-compatible HTTP server (stdlib only) for tests and demos.

Each ``POST /v1/chat/completions`` consumes the next scripted *spec* (or asks
``responder(body)`` for one). A spec is a string (the assistant's content) or a
dict:

    {"content": "..."}                       a normal reply ("" or None: empty reply)
    {"status": 429, "retry_after": 0.05}      an error status, optional Retry-After seconds
    {"status": 400, "error": "..."}           an error with this message
    {"delay": 2.0, "content": "..."}          answer late (past a client timeout)
    {"raw": "not json"}                       a 200 whose body is not JSON
    {"die": True}                             shut the server down; later connections are refused
    {"content": "...", "usage": False}        omit the ``usage`` block
    {"content": "...", "usage": {"prompt_tokens": 7, "completion_tokens": 3}}
    {"content": "...", "encoding": "gzip"}    the body compressed ("gzip", "deflate", or a list
                                              of them applied in order: ["gzip", "gzip"])
    {"bomb": 2**31, "encoding": "gzip"}       a body of that many spaces, compressed

Faults of the connection itself, for the transport's bounds (each stops when the client
hangs up, the server closes, or after ``hold`` seconds, 120 by default):

    {"fault": "silent"}                       read the request, send nothing
    {"fault": "drip_headers", "every": 0.4}   the status line, then one header byte at a time
    {"fault": "stall_after_headers"}          the headers of a reply, then nothing
    {"fault": "stall_mid_body"}               the headers and half the body, then nothing
    {"fault": "drip_body", "every": 0.05}     the headers, then one body byte at a time
    {"fault": "huge_headers", "lines": 5000, "line_bytes": 40}   that many header lines first
    {"fault": "endless_chunks", "every": 0}   a chunked body of one-byte chunks, never ending
    {"fault": "redirect_loop"}                307 back to the same path

When the script runs out: start over if ``loop``, else answer 500 saying so.

    python -m game.testing.scripted_server --replies replies.json [--port 8089] [--loop]
"""

from __future__ import annotations

import argparse
import gzip
import json
import socket
import sys
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Spec = str | dict[str, Any]


@dataclass
class Received:
    """One request the server saw. The Authorization header's value is never kept."""

    method: str
    path: str
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    authorized: bool = False  # an Authorization header was present


_FAULTS = frozenset(
    ("silent", "drip_headers", "stall_after_headers", "stall_mid_body", "drip_body")
    + ("huge_headers", "endless_chunks", "redirect_loop")
)
_bombs: dict[tuple[int, tuple[str, ...]], bytes] = {}


def _codings(spec: dict[str, Any]) -> tuple[str, ...]:
    value = spec.get("encoding") or ()
    return (value,) if isinstance(value, str) else tuple(str(v) for v in value)


def encode(data: bytes, codings: tuple[str, ...]) -> bytes:
    """``data`` with each content coding applied in turn (``gzip``, ``deflate``; ``identity``
    leaves it; any other name is only sent as a header)."""
    for coding in codings:
        if coding == "gzip":
            data = gzip.compress(data, mtime=0)
        elif coding == "deflate":
            data = zlib.compress(data)
    return data


def bomb(size: int, codings: tuple[str, ...] = ("gzip",)) -> bytes:
    """``size`` spaces, compressed with ``codings`` (the first in a stream, so 2 GB take seconds,
    not memory); kept for the next call with the same arguments."""
    key = (size, codings)
    if key not in _bombs:
        first = codings[0] if codings else "gzip"
        z = zlib.compressobj(9, zlib.DEFLATED, 31 if first == "gzip" else zlib.MAX_WBITS)
        block, parts, left = b" " * (1 << 20), [], size
        while left > 0:
            parts.append(z.compress(block[: min(left, len(block))]))
            left -= len(block)
        parts.append(z.flush())
        _bombs[key] = encode(b"".join(parts), codings[1:])
    return _bombs[key]


def _rough_tokens(text: str) -> int:
    return max(1, len(text) // 4) if text else 0


def _error_body(status: int, message: str) -> dict[str, Any]:
    kind = {
        400: "invalid_request_error",
        401: "authentication_error",
        403: "permission_error",
        404: "not_found_error",
        429: "rate_limit_error",
    }.get(status, "server_error")
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


class _HTTPServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], OSError):  # a client that hung up is no error here
            super().handle_error(request, client_address)


class ScriptedServer:
    """An OpenAI-compatible server answering from a script. Use as a context manager."""

    def __init__(
        self,
        replies: list[Spec] | None = None,
        responder: Callable[[dict[str, Any]], Spec] | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        loop: bool = False,
    ):
        self.replies: list[Spec] = list(replies or [])
        self.responder = responder
        self.loop = loop
        self.requests: list[dict[str, Any]] = []  # chat-completion request bodies, in order
        self.received: list[Received] = []  # every request, with headers (minus Authorization)
        self.in_flight = 0
        self.max_in_flight = 0
        self.dead = False
        self._next = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._conns: set[socket.socket] = set()
        self._closed = False
        self._httpd = _HTTPServer((host, port), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.owner = self  # type: ignore[attr-defined]
        h, p = self._httpd.server_address[:2]
        self.host, self.port = str(h), int(p)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"scripted-llm-{self.port}",
            daemon=True,
        )
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def __enter__(self) -> ScriptedServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "dead" if self.dead else "closed" if self._closed else "serving"
        return f"ScriptedServer({self.base_url!r}, {state}, {len(self.requests)} requests)"

    def close(self) -> None:
        """Stop serving; drop open connections. Safe to call twice."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._stop.set()
        self._stop_listening()
        self._drop_connections()
        self._thread.join(timeout=5)

    # -- internals -----------------------------------------------------------

    def _stop_listening(self) -> None:
        if threading.current_thread() is not self._thread:
            self._httpd.shutdown()  # returns once serve_forever has left its loop
        self._httpd.server_close()  # new connections are refused from here on

    def _drop_connections(self, keep: socket.socket | None = None) -> None:
        with self._lock:
            conns = [c for c in self._conns if c is not keep]
        for c in conns:
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _die(self, conn: socket.socket) -> None:
        with self._lock:
            self.dead = True
            self._closed = True
        self._stop.set()
        self._stop_listening()
        self._drop_connections(keep=conn)

    def _next_spec(self, body: dict[str, Any]) -> Spec:
        if self.responder is not None:
            return self.responder(body)
        with self._lock:
            if self._next >= len(self.replies) and self.loop and self.replies:
                self._next = 0
            if self._next >= len(self.replies):
                return {"status": 500, "error": f"scripted server: script exhausted after {len(self.replies)} replies"}
            spec = self.replies[self._next]
            self._next += 1
            return spec


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real servers do
    server_version = "ScriptedServer/1.0"
    disable_nagle_algorithm = True  # else small replies wait ~40 ms for a delayed ACK

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence stderr
        return None

    @property
    def owner(self) -> ScriptedServer:
        return self.server.owner  # type: ignore[attr-defined]

    def setup(self) -> None:
        super().setup()
        with self.owner._lock:
            self.owner._conns.add(self.connection)

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass
        with self.owner._lock:
            self.owner._conns.discard(self.connection)

    def _record(self, body: Any) -> None:
        headers = {k.lower(): v for k, v in self.headers.items() if k.lower() != "authorization"}
        rec = Received(
            self.command, self.path, body, headers, "authorization" in {k.lower() for k in self.headers.keys()}
        )
        with self.owner._lock:
            self.owner.received.append(rec)
            if self.command == "POST" and isinstance(body, dict):
                self.owner.requests.append(body)

    def _send(
        self, status: int, payload: Any = None, raw: bytes | None = None, headers: dict[str, str] | None = None
    ) -> None:
        data = raw if raw is not None else json.dumps(payload).encode()
        try:  # one write for head and body: no small-packet stalls
            self.wfile.write(self._head(status, headers, len(data)) + data)
        except OSError:  # the client gave up (timeout) or the server is closing
            self.close_connection = True

    def _head(self, status: int, headers: dict[str, str] | None, length: int | None) -> bytes:
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = ""
        lines = [
            f"HTTP/1.1 {status} {phrase}",
            f"Server: {self.server_version}",
            f"Date: {self.date_time_string()}",
            "Content-Type: application/json",
        ]
        lines += [f"Content-Length: {length}"] if length is not None else []
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")

    def _fault(self, spec: dict[str, Any], reply: bytes) -> None:
        """Misbehave as ``spec["fault"]`` says (see the module's docstring), with ``reply`` as the
        body where one is sent."""
        kind, every = spec["fault"], float(spec.get("every", 0.4 if spec["fault"] == "drip_headers" else 0.05))
        end = time.monotonic() + float(spec.get("hold", 120))
        self.close_connection = kind != "redirect_loop"
        stop = self.owner._stop

        def write(data: bytes) -> bool:
            try:
                self.wfile.write(data)
                self.wfile.flush()
                return True
            except OSError:
                return False

        def trickle(data: bytes, forever: bool = False) -> None:
            i = 0
            while (forever or i < len(data)) and time.monotonic() < end and not stop.is_set():
                if not write(data[i % len(data) : i % len(data) + 1]) or (every and stop.wait(every)):
                    return
                i += 1

        if kind == "drip_headers":
            if write(b"HTTP/1.1 200 OK\r\n"):
                trickle(b"X-Drip: " + b"a" * 60 + b"\r\n", forever=True)
        elif kind == "huge_headers":
            size = max(8, int(spec.get("line_bytes", 40)))
            lines = b"".join(b"X-H%d: %s\r\n" % (i, b"h" * size) for i in range(int(spec.get("lines", 5000))))
            head = self._head(200, None, len(reply))
            write(head[:-2] + lines + b"\r\n" + reply)
        elif kind == "endless_chunks":
            if write(self._head(200, {"Transfer-Encoding": "chunked"}, None)):
                while time.monotonic() < end and not stop.is_set():
                    if not write(b"1\r\n \r\n" * (1 if every else 4096)) or (every and stop.wait(every)):
                        return
        elif kind == "redirect_loop":
            write(self._head(307, {"Location": self.path}, 0))
        else:
            body = b"" if kind == "silent" else self._head(200, None, len(reply))
            if kind == "stall_mid_body":
                body += reply[: len(reply) // 2]
            if kind == "drip_body":
                if write(body):
                    trickle(reply)
                return
            if not body or write(body):
                stop.wait(max(0.0, end - time.monotonic()))

    def _hang_up(self) -> None:
        self.close_connection = True

    def do_GET(self) -> None:
        if self.owner.dead:
            return self._hang_up()
        self._record(None)
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            return self._send(
                200,
                {"object": "list", "data": [{"id": "scripted", "object": "model", "created": 0, "owned_by": "parley"}]},
            )
        self._send(404, _error_body(404, f"no route {self.path}"))

    def do_POST(self) -> None:
        owner = self.owner
        if owner.dead:
            return self._hang_up()
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._record(raw.decode("utf-8", "replace"))
            return self._send(400, _error_body(400, "request body is not JSON"))
        self._record(body)
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            return self._send(404, _error_body(404, f"no route {self.path}"))
        with owner._lock:
            owner.in_flight += 1
            owner.max_in_flight = max(owner.max_in_flight, owner.in_flight)
        try:
            self._answer(body)
        finally:
            with owner._lock:
                owner.in_flight -= 1

    def _answer(self, body: dict[str, Any]) -> None:
        owner = self.owner
        try:
            spec = owner._next_spec(body)
        except Exception as exc:  # a responder bug: say so over HTTP
            spec = {"status": 500, "error": f"scripted responder failed: {exc!r}"}
        if isinstance(spec, str):
            spec = {"content": spec}
        if not isinstance(spec, dict):
            spec = {"status": 500, "error": f"scripted server: bad spec {spec!r}"}
        if spec.get("delay"):
            if owner._stop.wait(float(spec["delay"])):
                return self._hang_up()
        if spec.get("die"):
            owner._die(self.connection)
            return self._hang_up()
        headers = {str(k): str(v) for k, v in (spec.get("headers") or {}).items()}
        if spec.get("retry_after") is not None:
            headers["Retry-After"] = str(spec["retry_after"])
        codings = _codings(spec)
        if codings:
            headers["Content-Encoding"] = ", ".join(codings)
        if "raw" in spec:
            raw = encode(str(spec["raw"]).encode(), codings)
            return self._send(int(spec.get("status", 200)), raw=raw, headers=headers)
        if "bomb" in spec:
            return self._send(int(spec.get("status", 200)), raw=bomb(int(spec["bomb"]), codings), headers=headers)
        status = int(spec.get("status", 200))
        if status >= 400:
            message = spec.get("error") or f"scripted error {status}"
            return self._send(status, _error_body(status, str(message)), headers=headers)
        content = spec.get("content", "")
        prompt = "".join(str(m.get("content") or "") for m in body.get("messages") or [] if isinstance(m, dict))
        with owner._lock:
            n = len(owner.requests)
        reply: dict[str, Any] = {
            "id": f"chatcmpl-scripted-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": str(spec.get("model") or body.get("model") or "scripted"),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": spec.get("finish_reason", "stop"),
                    "logprobs": None,
                }
            ],
        }
        usage = spec.get("usage", True)
        if usage is not False:
            usage = usage if isinstance(usage, dict) else {}
            pt = int(usage.get("prompt_tokens", _rough_tokens(prompt)))
            ct = int(usage.get("completion_tokens", _rough_tokens(content or "")))
            reply["usage"] = {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}
        data = json.dumps(reply).encode()
        if spec.get("fault") in _FAULTS:
            return self._fault(spec, data)
        self._send(status, raw=encode(data, codings), headers=headers)


def load_replies(path: str | Path) -> list[Spec]:
    """A JSON list of specs, or JSONL (one spec per line; blank lines skipped)."""
    from game.core.files import read_text

    text = read_text(path)
    stripped = text.strip()
    if stripped.startswith("["):
        data = json.loads(stripped)
        if not isinstance(data, list):
            raise ValueError(f"{path}: expected a JSON list of replies")
        return data
    specs: list[Spec] = []
    for i, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                specs.append(json.loads(line))
            except ValueError as exc:
                raise ValueError(f"{path}:{i}: not JSON: {exc}") from None
    return specs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m game.testing.scripted_server",
        description="Serve scripted replies as an OpenAI-compatible endpoint.",
    )
    ap.add_argument("--replies", required=True, help="JSON list of reply specs, or JSONL")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0 picks a free port")
    ap.add_argument("--loop", action="store_true", help="start the script over when it runs out")
    args = ap.parse_args(argv)
    try:
        replies = load_replies(args.replies)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    server = ScriptedServer(replies, host=args.host, port=args.port, loop=args.loop)
    print(server.base_url, flush=True)
    try:
        while not server.dead:
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
