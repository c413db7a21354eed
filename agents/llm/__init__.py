"""LLM access: settings, a client over the ``openai`` SDK, a reply cache, and a
scripted local server for tests.

Exports load on first use (PEP 562), so ``import agents.llm`` stays light and
never imports ``openai``; the SDK itself loads on the first request.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "LLMConfig": "agents.llm.config",
    "LLMClient": "agents.llm.client",
    "LLMError": "agents.llm.client",
    "LLMUnavailable": "agents.llm.client",
    "LLMInvalidReply": "agents.llm.client",
    "Usage": "agents.llm.client",
    "Reply": "agents.llm.client",
    "ResponseCache": "agents.llm.cache",
    "cache_key": "agents.llm.cache",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
