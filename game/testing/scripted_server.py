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

When the script runs out: start over if ``loop``, else answer 500 saying so.

    python -m game.testing.scripted_server --replies replies.json [--port 8089] [--loop]
"""

from __future__ import annotations

import argparse
import json
import socket
import sys
import threading
import time
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
        self._httpd = ThreadingHTTPServer((host, port), _Handler)
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
        try:
            phrase = HTTPStatus(status).phrase
        except ValueError:
            phrase = ""
        lines = [
            f"HTTP/1.1 {status} {phrase}",
            f"Server: {self.server_version}",
            f"Date: {self.date_time_string()}",
            "Content-Type: application/json",
            f"Content-Length: {len(data)}",
        ]
        lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
        try:  # one write for head and body: no small-packet stalls
            self.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + data)
        except OSError:  # the client gave up (timeout) or the server is closing
            self.close_connection = True

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
        if "raw" in spec:
            return self._send(int(spec.get("status", 200)), raw=str(spec["raw"]).encode(), headers=headers)
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
        self._send(status, reply, headers=headers)


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
