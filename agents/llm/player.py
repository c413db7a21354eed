"""An LLM in the player's seat.

Each turn the model reads what a human would (the room, what just happened,
what it carries) plus its MEMO context and the world's goals, and answers with
one command. The command must parse in the current scene: a reply the parser
cannot use goes back to the model with the parser's message, up to the
client's repair limit; then the player waits and the engine records a
penalised invalid move.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agents.base import BaseAgent
from game.types import Action, Observation, Verb


class PlayerReply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    command: str = Field(min_length=1, max_length=200, description="one game command, e.g. 'go north'")
    reason: str = Field("", max_length=300, description="why, in a few words")


class LLMPlayer(BaseAgent):
    """Plays a game through ``client`` (an ``agents.llm.LLMClient``); needs the game's engine."""

    uses_context = True

    def __init__(self, client: Any, engine: Any, actor: str = "player", max_repairs: int | None = None):
        super().__init__(actor)
        from game.parser import HELP_TEXT, Parser
        self.client, self.engine, self.parser = client, engine, Parser()
        self.help = HELP_TEXT
        self.max_repairs = max_repairs
        self._invalid: str | None = None

    def take_invalid(self) -> str | None:
        reason, self._invalid = self._invalid, None
        return reason

    def system_prompt(self) -> str:
        spec = self.engine.spec
        quests = "\n".join(f"- {q.title}: {q.description}" for q in spec.quests.values()) or "- explore"
        return (f"You play the text adventure '{spec.title}'. {spec.intro}\nYour quests:\n{quests}\n"
                "Each turn, reply with one JSON object {\"command\": one command, \"reason\": a few words}. "
                f"Commands you can use:\n{self.help}")

    def act(self, observation: Observation, context: Any = None) -> Action:
        from agents.llm.client import LLMError, LLMInvalidReply
        from agents.textarena import render
        from game.console import event_line
        from game.parser import Command
        scope = self.engine.scope(self.entity)
        parsed: dict[str, Action] = {}

        def check(r: PlayerReply) -> PlayerReply:
            p = self.parser.parse_reply(r.command, scope)
            if not isinstance(p, Command):
                why = getattr(p, "message", None) or getattr(p, "question", None) or "not a command"
                raise ValueError(f"{r.command!r} is not a command you can use now: {why}")
            parsed["action"] = p.action
            return r
        text = render(observation, context, lambda e: event_line(e, self.entity), self.engine.name)
        messages = [{"role": "system", "content": self.system_prompt()},
                    {"role": "user", "content": f"Turn {observation.turn}.\n{text}\nYour command?"}]
        try:
            self.client.structured(messages, PlayerReply, agent=self.entity, turn=observation.turn,
                                   validate=check, max_repairs=self.max_repairs)
        except LLMInvalidReply as e:
            self._invalid = f"no usable command ({e.error})"
            return Action(self.entity, Verb.WAIT)
        except LLMError:  # the endpoint is down: wait this turn; the session reports the outage
            return Action(self.entity, Verb.WAIT)
        return parsed["action"]
