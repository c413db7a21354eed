"""An HTTP transport that bounds a reply as a whole: its size and its total time.

httpx's timeouts apply to each read, so a server that drips one byte a second,
or streams gigabytes, would hold a game for ever or fill the memory. Wrapping
the transport makes ``--llm-timeout`` the limit for the whole body and caps it
at ``MAX_REPLY_BYTES``; either breach is a read error the client retries and
then reports, like any other failed request. (A server that never finishes its
headers is bounded only by httpx's per-read timeout.)
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx

MAX_REPLY_BYTES = 16 * 1024 * 1024  # an LLM reply is kilobytes; 16 MB is generous


class _BoundedStream(httpx.SyncByteStream):
    def __init__(self, inner: Any, limit: int, deadline: float, total: float):
        self.inner, self.limit, self.deadline, self.total = inner, limit, deadline, total

    def __iter__(self) -> Iterator[bytes]:
        seen = 0
        for chunk in self.inner:
            seen += len(chunk)
            if seen > self.limit:
                raise httpx.ReadError(f"the reply is larger than {self.limit // (1024 * 1024)} MB")
            if time.monotonic() > self.deadline:
                raise httpx.ReadTimeout(f"the reply took longer than {self.total:g} s in all")
            yield chunk

    def close(self) -> None:
        close = getattr(self.inner, "close", None)
        if close is not None:
            close()


class BoundedTransport(httpx.BaseTransport):
    """``inner`` (default: httpx's own) with every reply body bounded in bytes and total seconds."""

    def __init__(self, total: float, limit: int = MAX_REPLY_BYTES, inner: httpx.BaseTransport | None = None):
        self.total, self.limit = float(total), int(limit)
        self.inner = inner or httpx.HTTPTransport()

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        deadline = time.monotonic() + self.total
        response = self.inner.handle_request(request)
        response.stream = _BoundedStream(response.stream, self.limit, deadline, self.total)
        return response

    def close(self) -> None:
        self.inner.close()


def bounded_client(total: float, limit: int = MAX_REPLY_BYTES) -> httpx.Client:
    """An ``httpx.Client`` as the OpenAI SDK would make it (proxies from the environment,
    redirects followed) whose transports, proxy ones included, bound every reply."""
    client = httpx.Client(timeout=total, follow_redirects=True)
    inner = getattr(client, "_transport", None)
    mounts = getattr(client, "_mounts", None)
    if isinstance(inner, httpx.BaseTransport) and isinstance(mounts, dict):  # httpx's layout (0.2x)
        client._transport = BoundedTransport(total, limit, inner)
        client._mounts = {k: BoundedTransport(total, limit, t) if t is not None else None for k, t in mounts.items()}
    return client
