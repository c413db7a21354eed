"""The negotiator protocol and what it returns: a ``Move`` (offer, accept, reject, walk away) and
the ``Situation`` a negotiator inside a game is told. Negotiators (``agents.negotiators``, the LLM
negotiator) implement it; negotiation scenes (``game.negotiation``, the engine's trade scenes) call it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

MoveKind = Literal["offer", "accept", "reject", "walk_away"]


@dataclass(frozen=True, slots=True)
class Move:
    """A negotiator's decision; ``terms`` only for offers, as ``((issue, value), ...)``."""

    kind: MoveKind
    terms: tuple[tuple[str, str], ...] | None = None
    # what the negotiator says with the move, and why it fell back to a default move (a penalised
    # invalid move); neither is part of the move itself, so neither counts in ``==``
    line: str | None = field(default=None, compare=False)
    fallback: str | None = field(default=None, compare=False)

    @classmethod
    def offer(cls, terms: Mapping[str, str]) -> Move:
        return cls("offer", tuple(terms.items()))

    @classmethod
    def accept(cls) -> Move:
        return cls("accept")

    @classmethod
    def reject(cls) -> Move:
        return cls("reject")

    @classmethod
    def walk_away(cls) -> Move:
        return cls("walk_away")

    @property
    def terms_dict(self) -> dict[str, str] | None:
        return None if self.terms is None else dict(self.terms)


@dataclass(frozen=True, slots=True)
class Situation:
    """What a negotiator inside a game is told besides the session: the party's memory context
    (None when memory is off or the negotiator does not read one) and the game turn."""

    context: Any = None
    turn: int | None = None


@runtime_checkable
class Negotiator(Protocol):
    """Anything that picks ``party``'s next move in ``session``; ``uses_context``: whether it
    reads the party's memory context (then the scene builds one into ``situation``). ``session`` is
    a ``game.negotiation.session.Negotiation`` (typed loosely here: the core imports no scene)."""

    uses_context: bool

    def respond(self, session: Any, party: str, situation: Situation | None = None) -> Move: ...
