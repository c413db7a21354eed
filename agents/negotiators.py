"""Rule-based negotiators for the alternating-offers protocol.

Every negotiator here is *stateless* in what it decides: its move depends only on
the session (and its own parameters), so a saved and restored session continues
identically and one instance may serve many sessions, interleaved or one after
another. To stay cheap per move, the history-dependent kinds keep a small memo
per (session, party): the opponent model and the running figures of the offers
received, fed only with the records appended since the last move. The memo is
checked on every move (the same live session object, through a weak reference;
a history no shorter than what was fed; the last fed record still in place) and
rebuilt from the whole history otherwise, so it never changes a decision; it
holds at most 64 sessions and is dropped by copy and pickle. What a negotiator
precomputes from its utility vector (the outcomes in utility order, its memos of
offers) is made once per utility function and shared by every negotiator over
it, so building a new one for each game is cheap. A time-based negotiator's
target depends on the round alone, so what follows from it (the target, the
plain offer, the opponent-model band) is kept per round with those views, and
its opponent model is read only when the band holds two outcomes or more (one
outcome is the plain offer itself). All negotiators share these rules:

* they never accept, and never offer, an outcome worth less to them than their
  reservation value ``r``; if no outcome reaches ``r`` they walk away;
* a *target* negotiator (time-based, tit-for-tat, aspiration) accepts the
  opponent's standing offer when it is worth at least its current target, and
  otherwise offers the outcome with the lowest own utility ``>= target``
  (earliest in enumeration order among equals), or its best outcome when none
  reaches the target;
* with ``opponent_model=True`` a target negotiator instead offers, among the
  outcomes whose own utility lies in ``[target, target + tolerance]``, the one a
  :class:`~agents.opponent_model.FrequencyModel` of the opponent's offers rates
  highest (earliest among equals); it falls back to the plain choice when that
  band is empty.

Kinds (``from_kind``):

* ``boulware`` / ``linear`` / ``conceder`` -- :class:`TimeConcession`,
  ``target(t) = r + (1 - r) * (1 - t ** (1 / e))`` with ``t = round / deadline``;
  ``e`` is 0.2, 1 and 5 (``e < 1`` concedes late, ``e > 1`` early);
* ``hardliner`` -- :class:`Hardliner`, always its best outcome;
* ``tit_for_tat`` -- :class:`NaiveTitForTat`, mirrors the opponent's concessions; the party
  that opened concedes ``first_concession`` once, when it answers the first offer;
* ``aspiration`` -- :class:`Aspiration`, geometric decay, never below the best offer received;
* ``random`` -- :class:`RandomNegotiator`, random rational offers, seeded per move.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.negotiator_base import _ACCEPT, _WALK_AWAY, _Base, _number, _TargetNegotiator, _views
from agents.opponent_model import FrequencyModel, OfferTrack, fast_quantise
from game.core import seeds
from game.core.errors import InputError, did_you_mean
from game.negotiation.runner import Move
from game.negotiation.session import Negotiation
from game.negotiation.utility import UtilityFunction

TIME_KINDS: dict[str, float] = {"boulware": 0.2, "linear": 1.0, "conceder": 5.0}
"""The time-based kinds and their concession exponents."""

KINDS: dict[str, str] = {
    "boulware": "time-based, concedes late (exponent 0.2)",
    "linear": "time-based, concedes linearly (exponent 1)",
    "conceder": "time-based, concedes early (exponent 5)",
    "hardliner": "never concedes: always its best outcome",
    "tit_for_tat": "mirrors the opponent's concessions, in its own utility; the opener concedes first",
    "aspiration": "target decays geometrically each round, never below the best offer received",
    "random": "random offers at or above reservation; accepts rational offers with a probability",
}
"""Every negotiator kind ``from_kind`` builds, with a one-line description."""


class TimeConcession(_TargetNegotiator):
    """Time-based concession: ``target(t) = r + (1 - r) * (1 - t ** (1 / exponent))``.

    ``t = session.round / session.deadline``. ``exponent < 1`` is Boulware (holds
    out, concedes near the deadline), ``1`` linear, ``> 1`` Conceder.
    """

    PARAMS = ("exponent", "opponent_model", "tolerance")
    __slots__ = ("exponent",)

    def __init__(
        self, utility: UtilityFunction, exponent: float = 1.0, *, opponent_model: bool = False, tolerance: float = 0.05
    ):
        if not (
            isinstance(exponent, (int, float))
            and not isinstance(exponent, bool)
            and math.isfinite(exponent)
            and exponent > 0
        ):
            raise InputError(f"concession exponent must be a positive number, got {exponent!r}")
        super().__init__(utility, opponent_model, tolerance)
        self.exponent = float(exponent)

    def target(self, t: float) -> float:
        """Aspiration at time ``t`` (clipped to [0, 1]); never below reservation."""
        t = min(max(float(t), 0.0), 1.0)
        r = self.utility.reservation
        return max(r, fast_quantise(r + (1.0 - r) * (1.0 - t ** (1.0 / self.exponent))))

    def _target(self, session: Negotiation, party: str, view: OfferTrack | None) -> float:
        return self.target(session.time)

    def respond(self, session: Negotiation, party: str, situation: Any = None) -> Move:
        """The base rule, with what depends on the round alone (the target, the plain offer and
        the opponent-model band) looked up per round: the model is read only when the band
        holds two outcomes or more."""
        if not self._rational:
            return _WALK_AWAY
        deadline = session.deadline
        plan = self._plan
        if plan is None or self._plan_deadline != deadline:
            plan = self._load_plan(deadline)
        rnd = session.round
        step = plan.get(rnd)
        if step is None:
            step = plan[rnd] = self._step(self.target(rnd / deadline))  # session.time
        target, move, band = step
        standing = session.standing  # as _standing_utility reads it
        if standing is not None and standing[0] != party:
            k = self._indices.get(standing[1])
            if k is None:
                k = self._index_of(standing[1])
            mine = self._ulist[k] if self._ulist is not None else float(self.utility.vector[k])
            if mine >= target and mine >= self.utility.reservation:
                return _ACCEPT
        if band is None:
            return move
        return self._modelled(session, party, target, band)

    def _load_plan(self, deadline: int) -> dict[int, tuple]:
        """The per-round steps for ``deadline``, shared by every negotiator of this kind and
        parameters over the same utility function."""
        plans = _views(self.utility).plans
        key = (type(self), self.exponent, self.opponent_model, self.tolerance, self.utility.reservation, deadline)
        plan = plans.get(key)
        if plan is None:
            if len(plans) >= 64:
                plans.clear()
            plan = plans[key] = {}
        self._plan, self._plan_deadline = plan, deadline
        return plan

    def offer_index(self, t: float, model: FrequencyModel | None = None) -> int | None:
        """Outcome index to offer at time ``t``, or None if nothing is acceptable."""
        return self._choose(self.target(t), model)

    def __repr__(self) -> str:
        om = f", opponent_model=True, tolerance={self.tolerance}" if self.opponent_model else ""
        return f"TimeConcession({self.utility.party!r}, exponent={self.exponent}{om})"


class Hardliner(_Base):
    """Never concedes: always offers its best outcome (earliest among equals) and
    accepts only an offer within ``epsilon`` of its best utility."""

    PARAMS = ("epsilon",)
    __slots__ = ("epsilon",)

    def __init__(self, utility: UtilityFunction, epsilon: float = 1e-9):
        super().__init__(utility)
        self.epsilon = _number("epsilon", epsilon, 0.0, 1.0, hi_open=True)

    def respond(self, session: Negotiation, party: str, situation: Any = None) -> Move:
        if not self._rational:
            return _WALK_AWAY
        mine = self._standing_utility(session, party)
        best = self.utility.at(self._best)
        if mine is not None and mine >= best - self.epsilon and mine >= self.reservation:
            return _ACCEPT
        return self._offer_move(self._best)

    def __repr__(self) -> str:
        return f"Hardliner({self.utility.party!r}, epsilon={self.epsilon})"


class NaiveTitForTat(_TargetNegotiator):
    """Mirrors the opponent's concessions, measured in its own utility.

    The target starts at the best own utility. Each time an opponent offer gives
    it ``d > 0`` more than the opponent's previous offer, the target drops by
    ``scale * d``; offers that give it less change nothing (it never re-hardens).

    Two tit-for-tat players would otherwise wait for each other forever, so the
    party that opened the talks makes the first move of good faith: once the
    opponent has made an offer, its target is ``first_concession`` lower (own
    utility units; ``0`` turns this off). The party that answers never concedes
    first. Never below reservation.
    """

    PARAMS = ("scale", "first_concession", "opponent_model", "tolerance")
    _READS_OFFERS = True
    __slots__ = ("scale", "first_concession")

    def __init__(
        self,
        utility: UtilityFunction,
        scale: float = 1.0,
        *,
        first_concession: float = 0.15,
        opponent_model: bool = False,
        tolerance: float = 0.05,
    ):
        super().__init__(utility, opponent_model, tolerance)
        self.scale = _number("scale", scale, 0.0, math.inf, lo_open=True)
        self.first_concession = _number("first_concession", first_concession, 0.0, 1.0)

    def conceded(self, session: Negotiation, party: str) -> float:
        """Sum of the opponent's positive step-to-step concessions, in own utility."""
        return self._track(session, party).conceded

    def _target(self, session: Negotiation, party: str, view: OfferTrack | None) -> float:
        assert view is not None
        best = self._u(self._best)
        first = self.first_concession if (view.received and session.first == party) else 0.0
        return max(self.reservation, fast_quantise(best - first - self.scale * view.conceded))

    def __repr__(self) -> str:
        om = f", opponent_model=True, tolerance={self.tolerance}" if self.opponent_model else ""
        return (
            f"NaiveTitForTat({self.utility.party!r}, scale={self.scale}, first_concession={self.first_concession}{om})"
        )


class Aspiration(_TargetNegotiator):
    """Aspiration adaptation: ``target = r + (1 - r) * (1 - rate) ** (round - 1)``,
    raised to the best own utility of any opponent offer received so far (it never
    asks for less than it has already been offered), never below reservation."""

    PARAMS = ("rate", "opponent_model", "tolerance")
    _READS_OFFERS = True
    __slots__ = ("rate",)

    def __init__(
        self, utility: UtilityFunction, rate: float = 0.1, *, opponent_model: bool = False, tolerance: float = 0.05
    ):
        super().__init__(utility, opponent_model, tolerance)
        self.rate = _number("rate", rate, 0.0, 1.0, lo_open=True)

    def aspiration(self, round_: int) -> float:
        """The decayed target in round ``round_`` (1-based), before the best-received floor."""
        r = self.reservation
        return max(r, fast_quantise(r + (1.0 - r) * (1.0 - self.rate) ** max(round_ - 1, 0)))

    def best_received(self, session: Negotiation, party: str) -> float | None:
        """Own utility of the best opponent offer so far, or None before the first."""
        return self._track(session, party).best_u

    def _target(self, session: Negotiation, party: str, view: OfferTrack | None) -> float:
        assert view is not None
        target = self.aspiration(session.round)
        got = view.best_u
        return target if got is None else max(target, got)

    def __repr__(self) -> str:
        om = f", opponent_model=True, tolerance={self.tolerance}" if self.opponent_model else ""
        return f"Aspiration({self.utility.party!r}, rate={self.rate}{om})"


_RANDOM_KEY = seeds.counter_keyer("negotiator", "random")  # the node's path hashed once, the seed per negotiator


class RandomNegotiator(_Base):
    """Random offers among outcomes at or above reservation; accepts a standing
    offer at or above reservation with probability ``accept_prob``; walks away
    only if no outcome reaches reservation.

    Each move takes two draws from the counter-based stream of the node ``negotiator, random``
    of ``seed``'s tree (``game.core.seeds.counter_draws``), counted by the session's moves made:
    reproducible and stateless (a restored session continues identically), and cheap per move.
    """

    PARAMS = ("seed", "accept_prob")
    __slots__ = ("seed", "accept_prob", "_choices", "_moves")

    def __init__(self, utility: UtilityFunction, seed: int = 0, accept_prob: float = 0.5):
        super().__init__(utility)
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise InputError(f"seed must be a non-negative integer, got {seed!r}")
        self.seed = int(seed)
        self._moves = _RANDOM_KEY(self.seed)
        self.accept_prob = _number("accept_prob", accept_prob, 0.0, 1.0)
        self._choices = _views(utility).choices(utility.vector, utility.reservation)

    def respond(self, session: Negotiation, party: str, situation: Any = None) -> Move:
        choices = self._choices
        if not choices:
            return _WALK_AWAY
        accept_draw, pick = seeds.counter_draws(self._moves, session.moves_made)
        mine = self._standing_utility(session, party)
        if mine is not None and mine >= self.reservation and accept_draw < self.accept_prob:
            return _ACCEPT
        return self._offer_move(choices[int(pick * len(choices))])

    def __repr__(self) -> str:
        return f"RandomNegotiator({self.utility.party!r}, seed={self.seed}, accept_prob={self.accept_prob})"


RuleNegotiator = TimeConcession | Hardliner | NaiveTitForTat | Aspiration | RandomNegotiator

_CLASSES: dict[str, type] = {
    "boulware": TimeConcession,
    "linear": TimeConcession,
    "conceder": TimeConcession,
    "hardliner": Hardliner,
    "tit_for_tat": NaiveTitForTat,
    "aspiration": Aspiration,
    "random": RandomNegotiator,
}


def from_kind(kind: str, utility: UtilityFunction, **params: Any) -> RuleNegotiator:
    """A rule-based negotiator by name (see :data:`KINDS`).

    ``params`` go to the constructor: ``exponent`` (time-based kinds, overrides
    the kind's), ``opponent_model``/``tolerance`` (time-based, tit_for_tat,
    aspiration), ``epsilon`` (hardliner), ``scale``/``first_concession`` (tit_for_tat), ``rate``
    (aspiration), ``seed``/``accept_prob`` (random). Unknown kinds, unknown
    parameters and bad values raise :class:`~game.core.errors.InputError`.
    """
    if not isinstance(kind, str) or kind not in KINDS:
        raise InputError(
            f"unknown negotiator kind {kind!r}; kinds are {', '.join(KINDS)}", hint=did_you_mean(kind, KINDS)
        )
    cls = _CLASSES[kind]
    unknown = [p for p in params if p not in cls.PARAMS] if params else None
    if unknown:
        unknown.sort()
        raise InputError(
            f"bad parameters for negotiator kind {kind!r}: unknown {', '.join(map(repr, unknown))}",
            hint=f"{cls.__name__} takes {', '.join(cls.PARAMS)}",
        )
    if kind in TIME_KINDS:
        params.setdefault("exponent", TIME_KINDS[kind])
    return cls(utility, **params)


def kind_params(kind: str) -> tuple[str, ...]:
    """The parameter names ``from_kind(kind, ...)`` accepts."""
    if kind not in KINDS:
        raise InputError(f"unknown negotiator kind {kind!r}", hint=did_you_mean(kind, KINDS))
    return _CLASSES[kind].PARAMS


def describe(kinds: Mapping[str, str] = KINDS) -> str:
    """One line per kind: ``name  description``."""
    width = max(map(len, kinds))
    return "\n".join(f"{k:<{width}}  {v}" for k, v in kinds.items())
