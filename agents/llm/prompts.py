"""Reply schemas and prompt pieces shared by the LLM agents.

Schemas are pydantic models: the client sends their JSON Schema as the
``response_format`` and validates every reply against them; agents add
semantic checks (an offer inside the outcome space, a known topic).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ClaimOut(BaseModel):
    """A world fact the speaker asserts."""

    model_config = ConfigDict(extra="forbid")
    subject: str = Field(min_length=1, max_length=80)
    relation: str = Field(min_length=1, max_length=40)
    object: str = Field(min_length=1, max_length=80)
    topic: str = Field(min_length=1, max_length=40)


class NpcReply(BaseModel):
    """What an NPC says, with the facts it asserts."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=600, description="the words spoken, in character")
    claims: list[ClaimOut] = Field(default_factory=list, max_length=4, description="world facts asserted in the text")


class NegotiationReply(BaseModel):
    """One move in alternating-offers negotiation."""

    model_config = ConfigDict(extra="forbid")
    action: Literal["offer", "accept", "reject", "walk_away"]
    offer: dict[str, str] | None = Field(None, description="issue -> value, for action 'offer'")
    message: str = Field("", max_length=400, description="one short line said with the move")


def context_block(context: Any) -> str:
    """The MEMO context as prompt text ('' when memory is off)."""
    if context is None:
        return ""
    text = context.text() if hasattr(context, "text") and callable(context.text) else str(context)
    return f"\n\nWhat you remember (most relevant first):\n{text}" if text.strip() else ""
