"""LLM access: settings, a client over the ``openai`` SDK, a reply cache, and a
scripted local server for tests.

Exports load on first use (PEP 562), so ``import agents.llm`` stays light and
never imports ``openai``; the SDK itself loads on the first request.
"""

from __future__ import annotations

from game.core.lazy import lazy_exports

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


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
