"""The LLM negotiator against the rule-based ones, and the strongest rule-based one in its seat.

Scenes come from ``game.negotiation.generate.random_scenes(1, seed, deadline)`` (one scene a
seed: 2-3 issues of 3-5 values, private utilities, reservation values in [0, 0.4]). A cell is
(scene, opponent kind, opener): the seat under test plays party ``a`` (it opens) or ``b`` (the
opponent opens). The LLM seat is ``agents.llm.negotiator.LLMNegotiator`` with the ``linear``
rule-based fallback the game gives it; a move it could not make (repairs ran out) is played by
the fallback and counted as unusable.

The baseline is picked on tuning seeds only: every rule-based kind in the seat, against every
opponent, both openers; the kind with the highest mean own utility wins (no LLM involved).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from benchmarks.llm.common import Endpoint, Meter

OPPONENTS = ("boulware", "linear", "conceder", "tit_for_tat", "aspiration", "hardliner")
OPENERS = ("a", "b")  # the seat under test is party a (opens) or b (answers)


def scene_for(seed: int, deadline: int) -> Any:
    from game.negotiation.generate import random_scenes

    return random_scenes(1, seed, deadline=deadline)[0]


def rule(kind: str) -> Callable[[Any, str, Any], Any]:
    """A factory of rule-based negotiators of ``kind`` (``random`` seeded)."""
    from agents.negotiators import from_kind

    return lambda scene, party, utility: from_kind(kind, utility, **({"seed": 0} if kind == "random" else {}))


def play(
    scene: Any, seat: Any, party: str, opponent: Any, cap: int | None = None, on_move: Any = None
) -> tuple[Any, Any, int]:
    """Play ``seat`` (party ``party``) against ``opponent`` to the end, or until the seat made ``cap``
    moves; (session, metrics or None when left open, illegal moves the protocol refused: each is
    replaced by the seat's fallback move)."""
    from game.negotiation.runner import apply_move
    from game.negotiation.session import Negotiation, NegotiationError
    from game.negotiation.utility import utilities_for

    session = Negotiation(scene, utilities=utilities_for(scene))
    negs = {party: seat, next(p for p in session.parties if p != party): opponent}
    made = refused = 0
    while session.is_open and (cap is None or made < cap):
        who = session.turn
        move = negs[who].respond(session, who)
        if who == party:
            made += 1
            try:
                apply_move(session, who, move)
            except NegotiationError:
                refused += 1
                getattr(seat, "refused", lambda: None)()
                apply_move(session, who, getattr(seat, "fallback", seat).respond(session, who))
            if on_move is not None:
                on_move(move)
        else:
            apply_move(session, who, move)
    return session, (None if session.is_open else session.outcome_metrics()), refused


class Metered:
    """An LLM negotiator whose every move becomes a row (wall time, usage, fallback)."""

    def __init__(self, inner: Any, meter: Meter, meta: dict[str, Any], advance: Any = None):
        self.inner, self.meter, self.meta, self.advance = inner, meter, meta, advance
        self.fallback = inner.fallback
        self.rows: list[dict[str, Any]] = []

    def respond(self, session: Any, party: str, situation: Any = None) -> Any:
        self.meter.start()
        move = self.inner.respond(session, party, situation)
        bad = move.fallback is not None or self.meter.client.outage is not None
        row = self.meter.row(bad, **self.meta, round=session.round, kind=move.kind)
        if move.kind == "offer" and not bad:
            row.update(self.offer_stats(dict(move.terms)))
        self.rows.append(row)
        if self.advance is not None:
            self.advance()
        return move

    def offer_stats(self, terms: dict[str, str]) -> dict[str, Any]:
        """Where an offer stands among the acceptable ones the schema listed (scene order, not by
        utility): its position, and its own utility against the best of them."""
        listed = self.inner.acceptable_offers() or []
        u = self.inner.utility
        return {
            "offer": terms,
            "offer_position": listed.index(terms) if terms in listed else None,
            "offer_choices": len(listed),
            "offer_utility": float(u(terms)),
            "best_offer_utility": max((float(u(o)) for o in listed), default=float("nan")),
        }

    def refused(self) -> None:
        """The protocol refused the last move (the schema and the validation should not let that happen)."""
        self.rows[-1]["unusable"] = True


def llm_cell(
    endpoint: Endpoint, mode: str, seed: int, deadline: int, opponent: str, party: str, cap=None, advance=None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The LLM negotiator in one cell; (a row per LLM move, the cell's outcome)."""
    from agents.llm.negotiator import LLMNegotiator
    from agents.negotiators import from_kind
    from game.negotiation.utility import utilities_for

    scene = scene_for(seed, deadline)
    utility = utilities_for(scene)[party]
    client = endpoint.client(mode, seed)
    try:
        inner = LLMNegotiator(client, scene, party, utility, fallback=from_kind("linear", utility))
        meta = {"seat": "negotiator", "mode": mode, "seed": seed, "opponent": opponent, "party": party}
        seat = Metered(inner, Meter(client), meta, advance)
        other = next(p.id for p in scene.parties if p.id != party)
        opp = rule(opponent)(scene, other, utilities_for(scene)[other])
        _, metrics, _ = play(scene, seat, party, opp, cap)
        return seat.rows, outcome(metrics, party, "LLM", seed, opponent, len(seat.rows))
    finally:
        client.close()


def outcome(metrics: Any, party: str, who: str, seed: int, opponent: str, moves: int) -> dict[str, Any]:
    base = {"who": who, "seed": seed, "opponent": opponent, "party": party, "moves": moves}
    if metrics is None:
        return {**base, "closed": False}
    return {
        **base,
        "closed": True,
        "agreement": bool(metrics.agreement),
        "utility": float(metrics.utility(party)),
        "frontier_distance": float(metrics.distance_to_frontier),
    }


def rule_cell(kind: str, seed: int, deadline: int, opponent: str, party: str) -> dict[str, Any]:
    """A rule-based negotiator of ``kind`` in the seat, in one cell."""
    from game.negotiation.utility import utilities_for

    scene = scene_for(seed, deadline)
    utils = utilities_for(scene)
    other = next(p for p in utils if p != party)
    seat = rule(kind)(scene, party, utils[party])
    made: list[Any] = []
    _, metrics, _ = play(scene, seat, party, rule(opponent)(scene, other, utils[other]), on_move=made.append)
    return outcome(metrics, party, kind, seed, opponent, len(made))


def tune(seeds: Sequence[int], deadline: int, opponents: Sequence[str]) -> tuple[str, dict[str, float]]:
    """The rule-based kind with the highest mean own utility on the tuning seeds; (kind, {kind: mean})."""
    from agents.negotiators import KINDS

    means = {
        kind: float(
            np.mean([rule_cell(kind, s, deadline, o, p)["utility"] for s in seeds for o in opponents for p in OPENERS])
        )
        for kind in KINDS
    }
    return max(means, key=lambda k: means[k]), means
