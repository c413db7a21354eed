"""TextArena-style adapters: Parley agents as ``str -> str`` functions, and back.

``TextAgent(agent)`` is callable with an observation string and returns a
command string, so any Parley agent can sit in a harness that speaks text
(TextArena's ``agent(observation) -> action`` convention). The observation
string becomes the ``text`` of an :class:`~game.types.Observation`; the chosen
:class:`~game.types.Action` comes back as a command line the Parley parser
reads. Agents that need the structured fields (location, exits, inventory) get
them when the adapter is given an engine to observe instead.

``ParleyPlayer(fn)`` goes the other way: a ``str -> str`` function plays the
player's seat in a Parley game. Each turn it reads the room text, the recent
events and its memory context. The command is taken from its reply as
``Parser.parse_reply`` finds it (``[go north]``, ``Action: go north``, a fenced
block, the last line); a reply that holds none becomes a penalised invalid
move and a ``wait``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.base import BaseAgent
from game.phrasing import phrase
from game.types import PLAYER, Action, Observation, Verb


class TextAgent:
    """A Parley agent as ``str -> str``. ``engine``: observe the game for structured fields."""

    def __init__(self, agent: Any, actor: str = PLAYER, engine: Any = None):
        self.agent, self.actor, self.engine = agent, actor, engine
        self.turn = 0

    def observation(self, text: str) -> Observation:
        if self.engine is not None:
            obs = self.engine.observe(self.actor)
            return Observation(actor=obs.actor, turn=obs.turn, location=obs.location, text=text,
                               visible=obs.visible, exits=obs.exits, inventory=obs.inventory,
                               gold=obs.gold, recent=obs.recent, scene=obs.scene)
        return Observation(actor=self.actor, turn=self.turn, location="", text=text)

    def __call__(self, observation: str) -> str:
        if not isinstance(observation, str):
            raise TypeError(f"a text agent reads strings, got {type(observation).__name__}")
        action = self.agent.act(self.observation(observation))
        self.turn += 1
        if action is None:
            return "wait"
        name = self.engine.name if self.engine is not None else (lambda i: (i or "").replace("_", " "))
        return phrase(action, name)


def render(obs: Observation, context: Any = None, events: Callable[[Any], str] | None = None,
           name: Callable[[str], str] = str) -> str:
    """What a text player reads on its turn: the room, what just happened, its memory."""
    parts = [obs.text]
    said = [events(e) if events else e.text for e in obs.recent]
    if said:
        parts.append("Since your last turn:\n" + "\n".join(f"- {s}" for s in said))
    if obs.scene:
        parts.append(f"You are negotiating: {obs.scene}")
    parts.append(f"You carry: {', '.join(map(name, obs.inventory)) or 'nothing'}; gold {obs.gold}.")
    if context is not None and hasattr(context, "text"):
        parts.append("You remember:\n" + context.text())
    return "\n\n".join(parts)


class ParleyPlayer(BaseAgent):
    """A ``str -> str`` function in the player's seat. Needs the game's engine (for the
    parser's scope) and reads its memory context when memory is on."""

    uses_context = True

    def __init__(self, fn: Callable[[str], str], engine: Any, actor: str = PLAYER):
        super().__init__(actor)
        from game.parser import Parser
        self.fn, self.engine, self.parser = fn, engine, Parser()
        self._invalid: str | None = None

    def take_invalid(self) -> str | None:
        reason, self._invalid = self._invalid, None
        return reason

    def act(self, observation: Observation, context: Any = None) -> Action:
        from game.console import event_line
        from game.parser import Command
        reply = self.fn(render(observation, context, lambda e: event_line(e, self.entity), self.engine.name))
        parsed = self.parser.parse_reply(str(reply or ""), self.engine.scope(self.entity))
        if isinstance(parsed, Command):
            return parsed.action
        why = getattr(parsed, "message", None) or getattr(parsed, "question", None) or "not a command"
        self._invalid = f"{reply!r}: {why}"
        return Action(self.entity, Verb.WAIT)
