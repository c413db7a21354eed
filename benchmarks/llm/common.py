"""What every part of the LLM benchmark shares: the endpoint (one client per game, negotiation or
debate, its sampling seed the unit's seed) and the meter that turns one move into a row."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

WORLDS = Path(__file__).resolve().parents[2] / "worlds"
MODES = ("auto", "prompt")  # structured replies narrowed to what is legal (the default) / the schema in words only


@dataclass(frozen=True)
class Endpoint:
    """Where the model is and how it samples; every client of a run is made here."""

    url: str = "local"
    model: str | None = None
    temperature: float = 0.7
    max_tokens: int = 256
    timeout: float = 120.0

    def client(self, mode: str, seed: int) -> Any:
        """A fresh client in structured ``mode``, sampling with ``seed`` (the local server is shared)."""
        from agents.llm.client import LLMClient
        from agents.llm.config import LLMConfig

        cfg = LLMConfig.from_env(
            base_url=self.url,
            model=self.model,
            temperature=self.temperature,
            seed=seed,
            max_tokens=self.max_tokens,
            timeout=self.timeout,
            structured=mode,
        )
        return LLMClient(cfg)

    def describe(self) -> dict[str, Any]:
        from agents.llm.config import LLMConfig

        cfg = LLMConfig.from_env(base_url=self.url, model=self.model)
        server = None
        if cfg.bundled:
            from dataclasses import asdict

            from agents.llm.local import ServerSettings, model_path

            server = {"file": model_path(cfg.base_url or "local").name, **asdict(ServerSettings())}
        return {
            "base_url": cfg.public_dict()["base_url"],
            "model": cfg.model,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": "the seed of each game, negotiation or debate",
            "server": server,
        }


class Meter:
    """Counts one move: wall seconds and the client's usage between ``start`` and ``row``."""

    def __init__(self, client: Any):
        self.client = client
        self._t0 = 0.0
        self._u0: Any = None

    def start(self) -> None:
        self._u0, self._t0 = self.client.total(), time.perf_counter()

    def row(self, unusable: bool, **meta: Any) -> dict[str, Any]:
        seconds = time.perf_counter() - self._t0
        u, u0 = self.client.total(), self._u0
        return {
            **meta,
            "unusable": bool(unusable),
            "repairs": u.invalid - u0.invalid,
            "calls": u.calls - u0.calls,
            "prompt_tokens": u.prompt_tokens - u0.prompt_tokens,
            "completion_tokens": u.completion_tokens - u0.completion_tokens,
            "prompt_cached": u.prompt_cached - u0.prompt_cached,
            "llm_seconds": (u.latency_ms - u0.latency_ms) / 1000.0,
            "seconds": seconds,
            "format": self.client.reply_format,
            "outage": self.client.outage is not None,
        }


def quantile(values: list[float], q: float) -> float:
    return float(np.quantile(np.asarray(values, dtype=float), q)) if values else float("nan")
