"""TextArena-style adapters: Parley agents as ``str -> str`` functions, and back.

``TextAgent(agent)`` is callable with an observation string and returns a
command string, so any Parley agent can sit in a harness that speaks text
(TextArena's ``agent(observation) -> action`` convention). The observation
string becomes the ``text`` of an :class:`~game.core.types.Observation`; the chosen
:class:`~game.core.types.Action` comes back as a command line the Parley parser
reads. Agents that need the structured fields (location, exits, inventory) get
them when the adapter is given a way to observe the game (``observe``, e.g.
``lambda: game.engine.observe("player")``); the text replaces the room prose. Given a negotiator
(``agents.negotiators``, the LLM negotiator) instead, ``TextAgent`` plays TextArena's negotiation
games with it (``game.envs.textarena.negotiation.NegotiatorAgent.from_negotiator``).

``ParleyPlayer(fn)`` goes the other way: a ``str -> str`` function plays the
player's seat in a Parley game (a ``game.core.protocols.TextSeat``). Each turn it
reads the room text, the recent events and its memory context. The game takes
the command from its reply (``Game.read_reply``: ``[go north]``,
``Action: go north``, a fenced block, the last line); a reply that holds none
becomes a penalised invalid move and a ``wait``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from agents.text_seat import ParleyPlayer, render  # noqa: F401  (re-exported: the other direction)
from game.core.phrasing import phrase
from game.core.protocols import Agent
from game.core.types import PLAYER, Decision, Observation


class TextAgent:
    """A Parley agent as ``str -> str``. ``observe``: returns the agent's current Observation,
    for the structured fields (its text is replaced by the string given)."""

    def __init__(self, agent: Agent, actor: str = PLAYER, observe: Callable[[], Observation] | None = None):
        self.agent, self.actor, self.observe = agent, actor, observe
        self.turn = 0
        self.negotiator: Any = None
        if not callable(getattr(agent, "act", None)):
            if not callable(getattr(agent, "respond", None)):
                raise TypeError(
                    f"TextAgent wraps a Parley agent (with act) or a negotiator (with respond), "
                    f"not {type(agent).__name__}"
                )
            # a negotiator plays TextArena's negotiation games through their own action tokens
            from game.envs.textarena.negotiation import NegotiatorAgent

            self.negotiator = NegotiatorAgent.from_negotiator(agent)

    def observation(self, text: str) -> Observation:
        if self.observe is not None:
            return dataclasses.replace(self.observe(), text=text)
        return Observation(actor=self.actor, turn=self.turn, location="", text=text)

    def __call__(self, observation: str) -> str:
        if not isinstance(observation, str):
            raise TypeError(
                f"a text agent reads strings, got {type(observation).__name__} (TextArena's "
                "'-raw' variants pass a list of messages and are not supported)"
            )
        if self.negotiator is not None:
            return self.negotiator(observation)
        obs = self.observation(observation)
        decision = self.agent.act(obs)
        action = decision.action if isinstance(decision, Decision) else decision
        self.turn += 1
        if action is None:
            return "wait"
        return phrase(action, obs.name if obs.names else (lambda i: (i or "").replace("_", " ")))
