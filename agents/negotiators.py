"""Baseline negotiators for the alternating-offers protocol (no opponent modelling).

``TimeConcession`` lowers its aspiration with time ``t = round / deadline``:
``target(t) = r + (1 - r) * (1 - t ** (1 / e))`` where ``r`` is its reservation
value. ``e < 1`` concedes late (Boulware), ``e = 1`` linearly, ``e > 1`` early
(Conceder). It is stateless: its move depends only on the session, so a saved
and restored session continues identically.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from game.errors import InputError, did_you_mean
from game.negotiation.runner import Move
from game.negotiation.session import NegotiationSession
from game.negotiation.utility import UtilityFunction, quantise

KINDS: dict[str, float] = {"boulware": 0.2, "linear": 1.0, "conceder": 5.0}


class TimeConcession:
    """Accept what meets the current target; otherwise offer the least-good-for-me
    outcome that still meets it. Never accepts or offers below reservation.

    Offer choice: the outcome with the lowest own utility ``>= target``; among
    equals, the earliest in enumeration order. If no outcome reaches the target,
    the best outcome (earliest among equals) if it is at least the reservation
    value; if no outcome is, it walks away.
    """

    __slots__ = ("utility", "exponent", "_order", "_sorted", "_best")

    def __init__(self, utility: UtilityFunction, exponent: float = 1.0):
        if not (isinstance(exponent, (int, float)) and math.isfinite(exponent) and exponent > 0):
            raise InputError(f"concession exponent must be a positive number, got {exponent!r}")
        self.utility = utility
        self.exponent = float(exponent)
        u = utility.vector
        self._order = np.lexsort((np.arange(u.size), u))  # ascending utility, then index
        self._sorted = u[self._order]
        self._best = int(np.argmax(u))  # first maximum = earliest best outcome

    def target(self, t: float) -> float:
        """Aspiration at time ``t`` (clipped to [0, 1]); never below reservation."""
        t = min(max(float(t), 0.0), 1.0)
        r = self.utility.reservation
        return max(r, quantise(r + (1.0 - r) * (1.0 - t ** (1.0 / self.exponent))))

    def offer_index(self, t: float) -> int | None:
        """Outcome index to offer at time ``t``, or None if nothing is acceptable."""
        target = self.target(t)
        pos = int(np.searchsorted(self._sorted, target, side="left"))
        if pos < self._sorted.size:
            return int(self._order[pos])
        if self.utility.at(self._best) >= self.utility.reservation:
            return self._best
        return None

    def respond(self, session: NegotiationSession, party: str) -> Move:
        t = session.time
        standing = session.standing_offer
        if standing is not None and session.standing_party != party:
            if self.utility(standing) >= self.target(t):
                return Move.accept()
        k = self.offer_index(t)
        if k is None:
            return Move.walk_away()
        return Move.offer(self.utility.space.terms(k))

    def __repr__(self) -> str:
        return f"TimeConcession({self.utility.party!r}, exponent={self.exponent})"


def from_kind(kind: str, utility: UtilityFunction, **params: Any) -> TimeConcession:
    """A baseline negotiator by name: ``boulware``, ``linear`` or ``conceder``.

    ``params`` go to the constructor (e.g. ``exponent`` to override the kind's).
    """
    if kind not in KINDS:
        raise InputError(f"unknown negotiator kind {kind!r}; kinds are {', '.join(KINDS)}",
                         hint=did_you_mean(kind, KINDS))
    params.setdefault("exponent", KINDS[kind])
    try:
        return TimeConcession(utility, **params)
    except TypeError as e:
        raise InputError(f"bad parameters for negotiator kind {kind!r}: {e}",
                         hint="TimeConcession takes only 'exponent'") from None
