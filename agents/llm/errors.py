"""What the LLM client raises: the endpoint refused, could not be reached, or kept
answering with something that fails the schema."""

from __future__ import annotations

from game.core.errors import ParleyError


class LLMError(ParleyError):
    """The endpoint refused a request in a way retrying will not fix."""


class LLMUnavailable(LLMError):
    """The endpoint could not be reached, timed out or kept failing after retries."""


class LLMInvalidReply(LLMError):
    """The model kept answering with something that fails the schema or the rules."""

    def __init__(self, message: str, *, raw: str, error: str, hint: str | None = None):
        super().__init__(message, hint=hint)
        self.raw = raw
        self.error = error


class _FormatUnsupported(LLMError):
    """Internal: the server rejected ``response_format``; ``structured`` falls back."""
