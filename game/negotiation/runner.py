"""Run a standalone negotiation scene between two negotiators."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from game.core.errors import InputError, did_you_mean
from game.core.moves import Move, MoveKind, Negotiator, Situation  # noqa: F401  (re-exported)
from game.negotiation.metrics import NegotiationAnalysis, OutcomeMetrics
from game.negotiation.session import Negotiation, NegotiationError, Record
from game.negotiation.utility import UtilityFunction, utilities_for

if TYPE_CHECKING:
    from game.negotiation.spec import NegotiationScene


def apply_move(session: Negotiation, party: str, move: Move) -> Record:
    """Play ``move`` for ``party`` (raises :class:`NegotiationError` if illegal)."""
    terms = move.terms
    if move.kind == "offer" and session.is_checked(terms):
        return session.offer(party, terms)  # type: ignore[arg-type]  # its terms as the session keeps them
    return session.play(party, move.kind, move.terms_dict)


def run_negotiation(
    scene: NegotiationScene,
    negotiators: Mapping[str, Negotiator],
    max_steps: int | None = None,
    *,
    on_move: Callable[[str, Move], None] | None = None,
    utilities: Mapping[str, UtilityFunction] | None = None,
    analysis: NegotiationAnalysis | None = None,
) -> tuple[Negotiation, OutcomeMetrics]:
    """Let two negotiators play ``scene`` to the end; return the session and its metrics.

    The protocol closes the session after at most ``2 * deadline`` moves;
    ``max_steps`` caps the moves further. If the cap stops an open session, the
    session is returned still open and the metrics describe disagreement.
    Pass ``utilities``/``analysis`` precomputed to skip rebuilding them. ``on_move(party, move)`` sees
    each move as it is made (with its ``line`` and ``fallback``).
    Illegal moves propagate as :class:`NegotiationError`.
    """
    if utilities is None and analysis is None:
        utilities = utilities_for(scene)
    session = Negotiation(scene, utilities=utilities, analysis=analysis)
    for pid in session.parties:
        if pid not in negotiators:
            raise InputError(
                f"no negotiator for party {pid!r}",
                hint=did_you_mean(pid, [str(k) for k in negotiators]) or f"parties are {', '.join(session.parties)}",
            )
    extra = set(negotiators) - set(session.parties)
    if extra:
        raise InputError(
            f"negotiators for unknown parties {sorted(extra)!r}", hint=f"parties are {', '.join(session.parties)}"
        )
    steps = 0
    while session.is_open and (max_steps is None or steps < max_steps):
        party = session.turn
        assert party is not None
        move = negotiators[party].respond(session, party)
        if not isinstance(move, Move):
            raise NegotiationError(f"negotiator for {party!r} returned {move!r}, not a Move")
        apply_move(session, party, move)
        if on_move is not None:
            on_move(party, move)
        steps += 1
    if session.is_open:
        return session, session.analysis.evaluate(None)
    return session, session.outcome_metrics()
