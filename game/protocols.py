"""What the engine layer needs from the agents, as protocols (no ``agents`` or ``memory`` import).

The engine layer (``game.engine``, ``game.rules``, ``game.scenes``, ``game.world``,
``game.negotiation``, ``game.parser``...) never imports the ``agents`` or ``memory`` packages;
``tests/test_layering.py`` checks it. What it needs from them is passed in by the composition
layer (``game.session`` and the front ends that build games, through ``game.wiring``):

- ``VoiceFactory``: ``Engine(voice_factory=...)`` builds the voice of an NPC whose agent cannot reply;
- ``NegotiatorFactory``: ``Engine(default_negotiator=...)`` builds the negotiator of a party that
  has none of its own (``Engine(negotiator_factory=...)`` overrides every party's);
- ``AgentKinds``: the known agent kinds and their parameter models, which
  ``game.world.loader.collect_problems`` / ``load_world`` (``agent_kinds=``) and
  ``game.world.spec.json_schema`` (``agent_kinds=``) check world files against.

Each of these arguments defaults to None, meaning "the standard one": the engine layer then asks
``game.wiring`` for it, imported inside the function that needs it (never when an engine module is
imported). So ``load_world(path)`` or ``Engine(world)`` called anywhere behaves the same whatever was
imported before (there is no registry that the agents fill at import time), and a caller that
injects its own never loads the agents at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol


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
