"""An HTTP transport that bounds a request as a whole: its total time and its size.

httpx's timeouts apply to each socket operation, so a server that drips one byte
of its headers or body every few tenths of a second would hold a game for ever,
and httpx decodes ``Content-Encoding`` after any cap on the stream, so a 2 MB
gzip reply could grow to gigabytes in memory. Here:

- one deadline, ``--llm-timeout`` seconds from the moment a request is sent,
  covers connecting, sending, the status line, the headers, every redirect and
  the body. Every socket operation waits at most the time that is left (the
  network backend of httpcore's connection pool is wrapped), so a request ends
  within the timeout plus one scheduling slice, whatever the server does;
- the headers may take ``MAX_HEAD_BYTES``; the bytes read off the wire for a
  request, and the body, ``MAX_REPLY_BYTES``;
- the transport asks for ``gzip, deflate`` only and decodes the body itself,
  piece by piece (``zlib`` with ``max_length``), nested codings too, stopping at
  ``MAX_REPLY_BYTES`` of output: memory stays bounded by the cap, never by the
  ratio of a compression bomb. Any other coding is refused;
- the decoded body may hold ``MAX_REPLY_NODES`` JSON objects and arrays (``{``
  and ``[`` bytes, counted as they arrive): the SDK builds a Python object for
  each after the deadline, so a few megabytes of ``{}`` would take it far longer
  than the timeout.

A breach raises an httpx error that also is a ``Breach`` (its text says which
bound); the OpenAI SDK wraps it, and the client retries and then reports it like
any other failed request (``agents.llm.client``). Each attempt has its own deadline.
"""

from __future__ import annotations

import logging
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpcore
import httpx

log = logging.getLogger("parley.llm")

MAX_REPLY_BYTES = 16 * 1024 * 1024  # an LLM reply is kilobytes; 16 MB is generous
MAX_HEAD_BYTES = 64 * 1024  # the status line and all header lines of one response
MAX_CODINGS = 4  # content codings applied on top of each other ("gzip, gzip")
MAX_REDIRECTS = 5
MAX_REPLY_NODES = 20_000  # JSON objects and arrays in one reply ('{' and '[' bytes): a reply has tens
ACCEPT_ENCODING = "gzip, deflate"  # what _Inflate decodes
_PIECE = 64 * 1024  # the largest piece one decompression step may produce


class Breach(Exception):
    """Mixed into the httpx/httpcore error raised when a bound of the transport is reached."""


class _ConnectLate(Breach, httpcore.ConnectTimeout):
    pass


class _WriteLate(Breach, httpcore.WriteTimeout):
    pass


class _ReadLate(Breach, httpcore.ReadTimeout):
    pass


class _WireTooLarge(Breach, httpcore.ReadError):
    pass


class _BodyLate(Breach, httpx.ReadTimeout):
    pass


class _BodyTooLarge(Breach, httpx.ReadError):
    pass


class _BadCoding(Breach, httpx.DecodingError):
    pass


class _TooManyNodes(Breach, httpx.DecodingError):
    pass


def _mb(n: int) -> str:
    return f"{n / (1024 * 1024):g} MB" if n >= 1024 * 1024 else f"{n} bytes"


class _Budget:
    """What one request (with its redirects and its body) may still spend."""

    __slots__ = ("deadline", "head", "limit", "total", "wire")

    def __init__(self, total: float, limit: int):
        self.total, self.limit = total, limit
        self.deadline = time.monotonic() + total
        self.wire = 0  # bytes read off the wire
        self.head: int | None = None  # bytes read while waiting for headers; None once they came

    def late(self) -> str:
        return (
            f"no complete reply within {self.total:g} s "
            "(timeout for the whole request: connect, send, headers and body)"
        )

    def left(self, timeout: float | None, late: type[Exception]) -> float:
        """The time a socket operation may take: ``timeout``, at most what is left."""
        rest = self.deadline - time.monotonic()
        if rest <= 0:
            raise late(self.late())
        return rest if timeout is None else min(float(timeout), rest)

    def passed(self) -> bool:
        return time.monotonic() >= self.deadline


_local = threading.local()


def _current() -> _Budget | None:
    return getattr(_local, "budget", None)


@contextmanager
def _spending(budget: _Budget) -> Iterator[None]:
    before = _current()
    _local.budget = budget
    try:
        yield
    finally:
        _local.budget = before


def _timed(budget: _Budget | None, late: type[Exception], fn: Callable[..., Any], *args: Any, **kw: Any) -> Any:
    """``fn(*args, timeout=..., **kw)`` with its timeout cut to what ``budget`` has left."""
    if budget is None:
        return fn(*args, **kw)
    kw["timeout"] = budget.left(kw.get("timeout"), late)
    try:
        return fn(*args, **kw)
    except httpcore.TimeoutException as exc:
        if budget.passed() and not isinstance(exc, Breach):
            raise late(budget.late()) from exc
        raise


# -- the socket level: httpcore's network backend, wrapped ---------------------------------


class _DeadlineStream(httpcore.NetworkStream):
    """A connection whose reads and writes wait at most for what the current request has left."""

    def __init__(self, inner: httpcore.NetworkStream):
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        budget = _current()
        if budget is None:
            return self._inner.read(max_bytes, timeout)
        if budget.head is not None:  # still in the status line and headers
            room = MAX_HEAD_BYTES - budget.head
            if room <= 0:
                raise _WireTooLarge(f"the reply's headers are larger than {MAX_HEAD_BYTES // 1024} KB")
            max_bytes = min(max_bytes, room)
        data = _timed(budget, _ReadLate, self._inner.read, max_bytes, timeout=timeout)
        budget.wire += len(data)
        if budget.head is not None:
            budget.head += len(data)
        if budget.wire > budget.limit + MAX_HEAD_BYTES:
            raise _WireTooLarge(f"the reply is larger than {_mb(budget.limit)}")
        return data

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        budget = _current()
        for at in range(0, len(buffer), _PIECE // 4):  # the deadline is checked between pieces
            _timed(budget, _WriteLate, self._inner.write, buffer[at : at + _PIECE // 4], timeout=timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None) -> Any:
        tls = _timed(_current(), _ConnectLate, self._inner.start_tls, ssl_context, server_hostname, timeout=timeout)
        return _DeadlineStream(tls)

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self, inner: httpcore.NetworkBackend):
        self._inner = inner

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, **kw: Any) -> httpcore.NetworkStream:
        return _DeadlineStream(
            _timed(_current(), _ConnectLate, self._inner.connect_tcp, host, port, timeout=timeout, **kw)
        )

    def connect_unix_socket(self, path: str, timeout: float | None = None, **kw: Any) -> httpcore.NetworkStream:
        return _DeadlineStream(
            _timed(_current(), _ConnectLate, self._inner.connect_unix_socket, path, timeout=timeout, **kw)
        )

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def guard_pool(transport: Any) -> bool:
    """Wrap the network backend of ``transport``'s httpcore pool (httpx's ``HTTPTransport``, a
    proxy's too); False when its layout is not httpx's (then only the body is bounded)."""
    pool = getattr(transport, "_pool", None)
    backend = getattr(pool, "_network_backend", None)
    if not isinstance(backend, httpcore.NetworkBackend):
        return False
    if not isinstance(backend, _DeadlineBackend):
        pool._network_backend = _DeadlineBackend(backend)  # type: ignore[union-attr]
    return True


# -- the body: content codings, decoded within the cap -----------------------------------------


class _Inflate:
    """One ``gzip`` or ``deflate`` coding, decoded in pieces of at most ``_PIECE`` bytes, at most
    ``limit`` bytes in all (``gzip`` may hold several members, one after another)."""

    def __init__(self, coding: str, limit: int):
        self.gzip = coding in ("gzip", "x-gzip")
        self.limit, self.out, self.started = limit, 0, False
        self.raw = False  # deflate without the zlib header, as some servers send it
        self._z = self._new()

    def _new(self) -> Any:
        wbits = 16 + zlib.MAX_WBITS if self.gzip else -zlib.MAX_WBITS if self.raw else zlib.MAX_WBITS
        return zlib.decompressobj(wbits)

    def _step(self, data: bytes) -> bytes:
        try:
            return self._z.decompress(data, _PIECE)
        except zlib.error as exc:
            if self.gzip or self.raw or self.started:
                raise _BadCoding(f"the reply's {'gzip' if self.gzip else 'deflate'} body is corrupt: {exc}") from None
            self.raw = True
            self._z = self._new()
            return self._step(data)

    def feed(self, data: bytes) -> Iterator[bytes]:
        while True:
            if self._z.eof:
                if not (self.gzip and data):
                    return  # bytes after the end of a deflate stream are ignored
                self._z = self._new()
            piece = self._step(data)
            self.started = True
            data = self._z.unused_data if self._z.eof else self._z.unconsumed_tail
            if not piece:
                if self._z.eof:
                    continue
                return  # all input taken, nothing more to give until more comes
            self.out += len(piece)
            if self.out > self.limit:
                raise _BodyTooLarge(f"the reply decompresses to more than {_mb(self.limit)}")
            yield piece


def _codings(value: str) -> list[str]:
    """The content codings of a reply, the last applied first (as they are to be undone)."""
    names = [c.strip().lower() for c in value.split(",")]
    names = [c for c in names if c and c != "identity"]
    if len(names) > MAX_CODINGS:
        raise _BadCoding(f"the reply has {len(names)} content codings; at most {MAX_CODINGS} are read")
    unknown = [c for c in names if c not in ("gzip", "x-gzip", "deflate")]
    if unknown:
        raise _BadCoding(f"the reply's content coding {unknown[0][:40]!r} was not asked for ({ACCEPT_ENCODING} were)")
    return names[::-1]


def _through(stages: list[_Inflate], data: bytes) -> Iterator[bytes]:
    if not stages:
        if data:
            yield data
        return
    for piece in stages[0].feed(data):
        yield from _through(stages[1:], piece)


class ContentDecoder:
    """Undoes the content codings named in a ``Content-Encoding`` value (``""``: none), fed the
    body piece by piece; every stage gives at most ``limit`` bytes, in pieces of at most 64 KB.
    An unknown coding, more than ``MAX_CODINGS`` or a corrupt stream: ``httpx.DecodingError``;
    more than ``limit`` bytes: ``httpx.ReadError``. Both are ``Breach`` errors."""

    def __init__(self, coding: str, limit: int = MAX_REPLY_BYTES):
        self._stages = [_Inflate(c, limit) for c in _codings(coding)]

    def feed(self, data: bytes) -> Iterator[bytes]:
        return _through(self._stages, data)


class _BoundedStream(httpx.SyncByteStream):
    """A reply body read within the request's budget and decoded within the cap."""

    def __init__(self, inner: Any, budget: _Budget, coding: str):
        self.inner, self.budget, self.coding = inner, budget, coding

    def __iter__(self) -> Iterator[bytes]:
        budget = self.budget
        decoder = ContentDecoder(self.coding, budget.limit)
        raw, seen, nodes, done = iter(self.inner), 0, 0, object()
        while True:
            with _spending(budget):  # the socket reads of a streamed body keep the request's deadline
                chunk = next(raw, done)
            if chunk is done:
                return
            assert isinstance(chunk, bytes)
            if budget.passed():
                raise _BodyLate(budget.late())
            seen += len(chunk)
            if seen > budget.limit:
                raise _BodyTooLarge(f"the reply is larger than {_mb(budget.limit)}")
            for piece in decoder.feed(chunk):
                nodes += piece.count(b"{") + piece.count(b"[")
                if nodes > MAX_REPLY_NODES:
                    raise _TooManyNodes(
                        f"the reply has more than {MAX_REPLY_NODES:,} JSON objects and arrays (an LLM reply has a few)"
                    )
                yield piece

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()


class BoundedTransport(httpx.BaseTransport):
    """``inner`` (default: httpx's own) with every request bounded in total seconds and bytes."""

    def __init__(self, total: float, limit: int = MAX_REPLY_BYTES, inner: httpx.BaseTransport | None = None):
        self.total, self.limit = float(total), int(limit)
        self.inner = inner or httpx.HTTPTransport()
        if not guard_pool(self.inner):
            log.warning("LLM transport: cannot bound connect and headers of %r; the body is bounded", self.inner)

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        budget = _current() or _Budget(self.total, self.limit)  # a client's send() starts it
        request.headers["Accept-Encoding"] = ACCEPT_ENCODING
        with _spending(budget):
            budget.head = 0
            try:
                response = self.inner.handle_request(request)
            finally:
                budget.head = None
        coding = ", ".join(response.headers.get_list("content-encoding"))
        if coding:  # decoded here, within the cap; httpx must not decode it again
            del response.headers["content-encoding"]
            response.headers.pop("content-length", None)
        response.stream = _BoundedStream(response.stream, budget, coding)
        return response

    def close(self) -> None:
        self.inner.close()


class BoundedClient(httpx.Client):
    """An ``httpx.Client`` whose every ``send`` (redirects and the body included) has one budget."""

    def __init__(self, total: float, limit: int = MAX_REPLY_BYTES, **kw: Any):
        super().__init__(timeout=total, follow_redirects=True, max_redirects=MAX_REDIRECTS, **kw)
        self.bound_total, self.bound_limit = float(total), int(limit)
        self._transport = BoundedTransport(total, limit, self._transport)
        self._mounts = {
            k: BoundedTransport(total, limit, t) if t is not None else None for k, t in self._mounts.items()
        }

    def send(self, request: httpx.Request, **kw: Any) -> httpx.Response:
        with _spending(_Budget(self.bound_total, self.bound_limit)):
            return super().send(request, **kw)


def bounded_client(total: float, limit: int = MAX_REPLY_BYTES) -> httpx.Client:
    """An ``httpx.Client`` as the OpenAI SDK would make it (proxies from the environment,
    redirects followed) whose transports, proxy ones included, bound every request."""
    return BoundedClient(total, limit)


def breach_text(exc: BaseException | None) -> str | None:
    """What bound ``exc`` (or an error it was raised from) reached, or None."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, Breach):
            return str(exc)
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return None
