"""What one answer from the LLM client carries, and the usage counters kept per agent,
per turn and for the whole client."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass
class Usage:
    """Counters for one agent, one turn or the whole client.

    ``calls`` counts answered requests, cache hits included; tokens count only
    what the endpoint reported (or an estimate) for requests actually sent.
    ``latency_ms`` is wall time inside ``chat``, retries and waits included.
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    retries: int = 0
    cache_hits: int = 0
    invalid: int = 0
    prompt_cached: int = 0  # prompt tokens the server reused from its prompt cache (when it says)

    def add(self, other: Usage) -> Usage:
        """Add ``other`` into this one (in place); returns self."""
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.latency_ms += other.latency_ms
        self.retries += other.retries
        self.cache_hits += other.cache_hits
        self.invalid += other.invalid
        self.prompt_cached += other.prompt_cached
        return self

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def copy(self) -> Usage:
        return Usage(**{f.name: getattr(self, f.name) for f in fields(self)})

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["latency_ms"] = round(self.latency_ms, 3)
        return d


@dataclass
class Reply:
    """One answer from ``chat``. ``text`` is "" when the model said nothing."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    cached: bool = False
