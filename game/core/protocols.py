"""The protocols every package codes against: acting agents, voices, negotiators, context
providers, event listeners, and the factories the composition root injects into the engine.

``agents`` and ``memory`` code against these and the other ``game.core`` modules. Below the
composition root (``game.engine``, ``game.world``, ``game.council``, ``game.negotiation``,
``game.core``) nothing imports the ``agents`` or ``memory`` packages, not even inside a function:
the import-linter contracts in pyproject.toml say so and ``tests/test_architecture.py`` runs them.
What the engine needs from them is passed in by the composition root (``game.play``, through
``game.play.wiring``):

- ``VoiceFactory``: ``Engine(voice_factory=...)`` builds the voice of an NPC whose agent cannot reply;
- ``NegotiatorFactory``: ``Engine(default_negotiator=...)`` builds the negotiator of a party that
  has none of its own (``Engine(negotiator_factory=...)`` overrides every party's);
- ``AgentKinds``: the known agent kinds and their parameter models, which
  ``game.world.loader.collect_problems`` / ``load_world`` (``agent_kinds=``) and
  ``game.world.spec.json_schema`` (``agent_kinds=``) check world files against.

Nothing falls back: an engine that needs a factory it was not given raises
``game.core.errors.NotInjected``, naming it, and the world loader takes the agent kinds as a
required argument. ``game.play.wiring.engine_defaults()`` holds the standard factories (``Game``
and ``game.testing.standard_engine`` inject them) and ``game.play.worlds`` loads worlds with the
standard kinds. There is no registry that the agents fill at import time, and a caller that
injects its own never loads the agents at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from game.core.moves import Move, Negotiator, Situation  # noqa: F401  (re-exported: the negotiator protocol)
from game.core.types import Decision, Event, Observation, Request, Utterance


@runtime_checkable
class Agent(Protocol):
    """Acts for one entity (an NPC, or a player seat that chooses actions itself).

    ``act`` receives the entity's ``Observation`` and, when memory is on and ``uses_context`` is
    true, its memory context; it returns a ``Decision``. An agent never holds the engine."""

    uses_context: bool
    passive: bool  # it never acts on its turn (the engine skips it without observing)

    def act(self, observation: Observation, context: Any = None) -> Decision: ...

    def get_state(self) -> dict[str, Any]: ...

    def set_state(self, state: dict[str, Any]) -> None: ...


@runtime_checkable
class TextSeat(Protocol):
    """A player seat that answers in words (an LLM, a human at a prompt, a ``str -> str``
    callable): the game parses the reply once, the same way for every seat, and a reply that
    holds no command is a penalised invalid move. A seat (of any kind) that also sets the class
    attribute ``wants_commands = True`` is handed the commands open to it now on its observation
    (``Observation.commands``); it is optional, so it is not a member of the protocol."""

    uses_context: bool
    max_repairs: int  # how many times a reply with no command is asked again before it is penalised

    def respond(self, observation: Observation, context: Any = None, problem: str | None = None) -> str:
        """The seat's reply to its observation; ``problem``: why its previous reply this turn held
        no usable command (None on the first ask)."""
        ...


@runtime_checkable
class TypedSeat(Protocol):
    """A player seat that types commands as a person would (a script): each is read by the game
    like typed text (``Game.submit``). ``next_command()`` is None when it has no more."""

    def next_command(self) -> str | None: ...


@runtime_checkable
class Voice(Protocol):
    """Speaks for an NPC (a greeting, an answer, a haggling line, a council speech) and names the
    negotiator it trades through. ``take_invalid()``: why its last reply fell back to a safe
    default (its own output was unusable: a penalised move), once, or None. A voice that
    composes its own words (an LLM) may set ``speaks_freely = True``: in a debating council it
    then speaks for its member from the member's masked memory, instead of a scripted debater."""

    uses_context: bool

    def reply(self, request: Request, context: Any = None) -> list[Utterance]: ...

    def take_invalid(self) -> str | None: ...

    def negotiator(self, scene: Any, party: str, utility: Any) -> Negotiator: ...


class ContextProvider(Protocol):
    def __call__(self, agent: str, observation: Observation) -> Any:
        """The memory context for ``agent``'s turn (MEMO), built from its observation."""
        ...


class EventListener(Protocol):
    def __call__(self, event: Event) -> None:
        """Called once per event, in the order listeners were registered (memory, then facts)."""
        ...


class ParamProblemLike(Protocol):
    """One thing wrong with an agent's parameters; ``path`` is relative to ``params`` (``.p``, ``[0]``)."""

    message: str
    hint: str | None

    @property
    def path(self) -> str: ...


class AgentKinds(Protocol):
    """The agent kinds a world may name (``agents.registry`` is one, as a module)."""

    LLM_KINDS: Sequence[str]  # kinds whose ``params.body`` / ``params.body_params`` describe how they move

    def kinds(self) -> list[str]: ...

    def params_problems(self, kind: str, params: Any) -> Sequence[ParamProblemLike]: ...

    def param_models(self) -> Mapping[str, Any]:
        """Every kind's parameter model (a pydantic model class), by kind, in schema order."""
        ...


class VoiceFactory(Protocol):
    def __call__(self, engine: Any, npc: str) -> Any:
        """The voice (an object with ``reply(request, context)``) of ``npc`` in ``engine``'s game."""
        ...


class NegotiatorFactory(Protocol):
    def __call__(self, scene: Any, party: str, utility: Any, params: dict[str, Any]) -> Any:
        """A negotiator for ``party`` in ``scene``; ``params``: the NPC's ``agent.params`` (or {})."""
        ...
