"""An LLM in the player's seat.

Each turn the model reads what a human would (the room, what just happened,
what it carries) plus its MEMO context and the world's goals, and answers with
one command. It is a ``game.core.protocols.TextSeat``: the game parses the command
(``Game.read_reply``, the same way for every seat); a reply the parser cannot
use goes back to the model with the parser's message, up to ``max_repairs``
times; then the player waits and the engine records a penalised invalid move.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from game.core.phrasing import HELP_TEXT
from game.core.types import Observation


class PlayerReply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    command: str = Field(min_length=1, max_length=200, description="one game command, e.g. 'go north'")
    reason: str = Field("", max_length=300, description="why, in a few words")


def command_schema(commands: tuple[str, ...]) -> dict[str, Any]:
    """``PlayerReply``'s JSON Schema with ``command`` narrowed to ``commands`` (the ones open now):
    a server that constrains its output to the schema can only send a command that parses."""
    schema = PlayerReply.model_json_schema()
    props = dict(schema["properties"])
    props["command"] = {**props["command"], "enum": list(commands)}
    props["reason"] = {**props["reason"], "maxLength": 80}
    return {**schema, "properties": props, "required": ["command", "reason"]}


class LLMPlayer:
    """Plays the player's seat through ``client`` (an ``agents.llm.LLMClient``).

    It asks the game for the commands open now (``wants_commands``) and sends them as the enum of
    its reply's ``command``; the prompt keeps what changes least first (the world, the quests,
    the command list) so a server's prompt cache reuses it from turn to turn."""

    uses_context = True
    wants_commands = True

    def __init__(self, client: Any, actor: str = "player", max_repairs: int | None = None):
        self.client, self.entity, self.help = client, actor, HELP_TEXT
        self.max_repairs = client.config.max_repairs if max_repairs is None else max(0, int(max_repairs))

    def system_prompt(self, observation: Observation) -> str:
        quests = "\n".join(f"- {q.title}: {q.description}" for q in observation.quests if not q.done) or "- explore"
        return (
            f"You play the text adventure {observation.briefing}\nYour quests:\n{quests}\n"
            'Each turn, reply with one JSON object {"command": one command, "reason": a few words}. '
            f"Commands you can use:\n{self.help}"
        )

    def messages(self, observation: Observation, context: Any = None, problem: str | None = None) -> list[dict]:
        """The system prompt, then one user message laid out from what changes least to what changes
        most (its memory, whose anchors lead; the room and what just happened; the commands open
        now; the turn), so a server's prompt cache reuses as long a prefix as it can."""
        from agents.text_seat import render

        parts = []
        if context is not None and context.text().strip():
            parts.append("You remember:\n" + context.text())
        parts.append(render(observation, None, problem))
        if observation.commands:
            parts.append("Commands open now: " + "; ".join(observation.commands) + ".")
        parts.append(f"Turn {observation.turn}. Your command?")
        return [
            {"role": "system", "content": self.system_prompt(observation)},
            {"role": "user", "content": "\n\n".join(parts)},
        ]

    def respond(self, observation: Observation, context: Any = None, problem: str | None = None) -> str:
        from agents.llm.errors import LLMError, LLMInvalidReply

        schema = command_schema(observation.commands) if observation.commands else None
        try:
            reply = self.client.structured(
                self.messages(observation, context, problem),
                PlayerReply,
                agent=self.entity,
                turn=observation.turn,
                max_repairs=0,
                schema=schema,
            )
        except LLMInvalidReply as e:  # not the JSON asked for: the game parses what it said, or asks again
            return e.raw
        except LLMError:  # the endpoint is down: the game reports the outage
            return ""
        return reply.command
