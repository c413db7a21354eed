"""What every rule-based negotiator shares (``agents.negotiators`` holds the kinds): parameter
checks, the per-utility views (outcomes in utility order, shared by every negotiator over one
utility function), the base class (reservation, walk-away, the per-session memo) and the target
negotiator (accept at or above the target, else offer the cheapest outcome that reaches it,
optionally steered by an opponent model)."""

from __future__ import annotations

import math
import weakref
from bisect import bisect_left, bisect_right
from typing import Any, ClassVar

import numpy as np

from agents.opponent_model import FrequencyModel, OfferTrack, SessionMemo, _positions, fast_quantise
from game.core.errors import InputError
from game.negotiation.runner import Move
from game.negotiation.session import Negotiation
from game.negotiation.utility import UtilityFunction

# --- parameter checks ---------------------------------------------------------------


def _number(name: str, value: Any, lo: float, hi: float, *, lo_open: bool = False, hi_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{name} must be a finite number, got {value!r}")
    bad_lo = value <= lo if lo_open else value < lo
    bad_hi = value >= hi if hi_open else value > hi
    if bad_lo or bad_hi:
        lb, rb = "(" if lo_open else "[", ")" if hi_open else "]"
        hi_s = "inf" if math.isinf(hi) else f"{hi:g}"
        raise InputError(f"{name} must be in {lb}{lo:g}, {hi_s}{rb}, got {value!r}")
    return float(value)


def _flag(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise InputError(f"{name} must be true or false, got {value!r}")
    return value


# --- shared machinery -----------------------------------------------------------------


SMALL_SPACE = 4096
"""Outcome spaces up to this size are searched with Python lists (``bisect``), and their
offers and indices are memoised; larger ones use numpy on every move."""

_FEW = 256  # at most this many outcomes in the tolerance band: score them in Python
_Band = tuple[tuple[int, ...], tuple[tuple[int, ...], ...], int]  # outcomes, their value positions, the earliest
_ACCEPT, _WALK_AWAY = Move.accept(), Move.walk_away()  # immutable: one of each serves every move


class _Views:
    """What every negotiator over one utility function precomputes from its vector: made once per
    function and shared by all of them (read-only, or memos of immutable values), so a negotiator
    built for each game costs no sort."""

    __slots__ = (
        "order",
        "sorted",
        "best",
        "best_u",
        "small",
        "ulist",
        "sorted_list",
        "order_list",
        "offers",
        "indices",
        "_choices",
        "plans",
    )

    def __init__(self, utility: UtilityFunction):
        u = utility.vector
        self.order = np.lexsort((np.arange(u.size), u))  # ascending utility, then index
        self.order.setflags(write=False)
        self.sorted = u[self.order]
        self.sorted.setflags(write=False)
        self.best = int(np.argmax(u))  # first maximum = earliest best outcome
        self.best_u = float(u[self.best])
        self.small = u.size <= SMALL_SPACE
        # the same float64 values as Python floats: comparisons and bisect give numpy's answers
        self.ulist: list[float] | None = u.tolist() if self.small else None
        self.sorted_list: list[float] | None = self.sorted.tolist() if self.small else None
        self.order_list: list[int] | None = self.order.tolist() if self.small else None
        self.offers: dict[int, Move] = {}  # outcome index -> its offer (immutable)
        self.indices: dict[tuple, int] = {}  # offer terms -> outcome index
        self._choices: dict[float, np.ndarray] = {}
        self.plans: dict[tuple, dict[int, tuple]] = {}  # see _TargetNegotiator._step

    def choices(self, vector: np.ndarray, reservation: float) -> np.ndarray:
        """Indices of the outcomes worth at least ``reservation`` (read-only)."""
        c = self._choices.get(reservation)
        if c is None:
            c = np.flatnonzero(vector >= reservation)
            c.setflags(write=False)
            self._choices[reservation] = c
        return c


_VIEWS: dict[int, tuple[weakref.ref, _Views]] = {}  # id(utility) -> (a weak reference to it, its views)


def _views(utility: UtilityFunction) -> _Views:
    """The views of ``utility``, made on first use and dropped with it (a weakly keyed memo:
    an entry is taken only for the very object it was made for)."""
    e = _VIEWS.get(id(utility))
    if e is not None and e[0]() is utility:
        return e[1]
    v = _Views(utility)
    key = id(utility)
    _VIEWS[key] = (weakref.ref(utility, lambda ref, key=key: _forget(key, ref)), v)
    return v


def _forget(key: int, ref: weakref.ref) -> None:
    e = _VIEWS.get(key)
    if e is not None and e[0] is ref:  # not a newer entry for a new object with the same id
        _VIEWS.pop(key, None)


class _Base:
    """Precomputed views of one party's utility vector, and the shared move rules."""

    PARAMS: ClassVar[tuple[str, ...]] = ()
    uses_context: ClassVar[bool] = False  # rule-based: a memory context would go unread
    __slots__ = (
        "utility",
        "_order",
        "_sorted",
        "_best",
        "_rational",
        "_small",
        "_ulist",
        "_sorted_list",
        "_order_list",
        "_offers",
        "_indices",
    )

    def __init__(self, utility: UtilityFunction):
        self.utility = utility
        v = _views(utility)
        self._order, self._sorted, self._best, self._small = v.order, v.sorted, v.best, v.small
        self._rational = v.best_u >= utility.reservation
        self._ulist, self._sorted_list, self._order_list = v.ulist, v.sorted_list, v.order_list
        self._offers, self._indices = v.offers, v.indices

    @property
    def reservation(self) -> float:
        return self.utility.reservation

    def _index_of(self, terms: tuple[tuple[str, str], ...]) -> int:
        """Outcome index of terms in issue order (a ``Record``'s), memoised on small spaces."""
        k = self._indices.get(terms)
        if k is None:
            k = self.utility.space.index(dict(terms))
            if self._small:
                self._indices[terms] = k
        return k

    def _u(self, k: int) -> float:
        return self._ulist[k] if self._ulist is not None else float(self.utility.vector[k])

    def _offer_move(self, k: int) -> Move:
        m = self._offers.get(k)
        if m is None:
            m = Move.offer(self.utility.space.terms(k))
            if self._small:
                self._offers[k] = m
        return m

    def _standing_utility(self, session: Negotiation, party: str) -> float | None:
        """Own utility of the opponent's standing offer, or None if there is none."""
        standing = session.standing
        if standing is None or standing[0] == party:
            return None
        k = self._indices.get(standing[1])
        if k is None:
            k = self._index_of(standing[1])
        return self._ulist[k] if self._ulist is not None else float(self.utility.vector[k])

    def _lowest_at_least(self, target: float) -> int | None:
        """Lowest own utility ``>= target`` (earliest among equals); else the best if rational."""
        if self._sorted_list is not None:
            pos = bisect_left(self._sorted_list, target)
            if pos < len(self._sorted_list):
                return self._order_list[pos]
        else:
            pos = int(np.searchsorted(self._sorted, target, side="left"))
            if pos < self._sorted.size:
                return int(self._order[pos])
        return self._best if self._rational else None

    def _offers_received(self, session: Negotiation, party: str) -> list[int]:
        """Outcome indices of the opponent's offers so far, oldest first (from the whole history)."""
        opp = session.opponent(party)
        index = self.utility.space.index
        return [
            index(dict(r.terms))
            for r in session.history
            if r.party == opp and r.kind == "offer" and r.terms is not None
        ]


class _TargetNegotiator(_Base):
    """Accept at the target, otherwise offer at the target (optionally opponent-aware)."""

    _READS_OFFERS: ClassVar[bool] = False  # does the target depend on the offers received?
    __slots__ = ("opponent_model", "tolerance", "_tracks", "_plan", "_plan_deadline")

    def __init__(self, utility: UtilityFunction, opponent_model: bool = False, tolerance: float = 0.05):
        super().__init__(utility)
        self.opponent_model = _flag("opponent_model", opponent_model)
        self.tolerance = _number("tolerance", tolerance, 0.0, 1.0)
        self._tracks = SessionMemo()
        self._plan: dict[int, tuple] | None = None  # round -> _step(target), for one deadline
        self._plan_deadline = 0

    def __getstate__(self):
        """Copies and pickles carry the parameters, never the memos (a copy starts empty)."""
        slots = {
            name: getattr(self, name)
            for cls in type(self).__mro__
            for name in getattr(cls, "__slots__", ())
            if hasattr(self, name)
        }
        slots["_tracks"], slots["_plan"], slots["_plan_deadline"] = SessionMemo(), None, 0
        return (None, slots)

    # --- the incremental view of a session ------------------------------------------------

    def _track(self, session: Negotiation, party: str) -> OfferTrack:
        """What ``party`` has read of ``session``, fed up to its current history (the running
        figures of the offers received only for the kinds whose target reads them)."""
        return self._tracks.track(
            session,
            party,
            self.utility.space,
            self.opponent_model,
            self._index_of,
            self._u if self._READS_OFFERS else None,
        )

    def _view(self, session: Negotiation, party: str) -> OfferTrack | None:
        return self._track(session, party) if (self.opponent_model or self._READS_OFFERS) else None

    # --- targets and moves ---------------------------------------------------------------------

    def _target(self, session: Negotiation, party: str, view: OfferTrack | None) -> float:
        raise NotImplementedError

    def current_target(self, session: Negotiation, party: str) -> float:
        """The own-utility target for ``party``'s next move (always ``>= reservation``)."""
        return self._target(session, party, self._view(session, party))

    def model(self, session: Negotiation, party: str) -> FrequencyModel:
        """A frequency model of the opponent's offers in ``session`` so far (a new one, rebuilt
        from the whole history; the negotiator's own moves use its incremental copy)."""
        return FrequencyModel.from_history(self.utility.space, session.history, session.opponent(party))

    def _choose(self, target: float, model: FrequencyModel | None) -> int | None:
        plain = self._lowest_at_least(target)
        if model is None or plain is None:
            return plain
        top_u = fast_quantise(target + self.tolerance)
        # the band [target, top_u] is a run of the ascending order
        if self._sorted_list is not None:
            lo, hi = bisect_left(self._sorted_list, target), bisect_right(self._sorted_list, top_u)
        else:
            lo = int(np.searchsorted(self._sorted, target, side="left"))
            hi = int(np.searchsorted(self._sorted, top_u, side="right"))
        if lo >= hi:
            return plain
        if self._order_list is not None and hi - lo <= _FEW:
            return model.best_of(self._order_list[lo:hi])  # earliest among the best
        cand = self._order[lo:hi]
        est = model.estimates()[cand]
        return int(cand[est == est.max()].min())

    def _step(self, target: float) -> tuple[float, Move, _Band | bool | None]:
        """What ``_choose(target, model)`` needs of ``target`` alone, for a negotiator whose
        target depends only on the round (kept per round in ``_Views.plans``): ``(target, move,
        band)``, where ``move`` is the plain choice's (walk away if None) and ``band`` is None when
        that is also the modelled choice (no model, or at most one outcome in the band), else the
        band's outcomes in ascending own utility, their value positions and the earliest of them
        (small spaces, at most ``_FEW``), or True (the general ``_choose``)."""
        plain = self._lowest_at_least(target)
        move = _WALK_AWAY if plain is None else self._offer_move(plain)
        band: _Band | bool | None = None
        if self.opponent_model and plain is not None:
            top_u = fast_quantise(target + self.tolerance)
            if self._sorted_list is not None:
                lo, hi = bisect_left(self._sorted_list, target), bisect_right(self._sorted_list, top_u)
            else:
                lo = int(np.searchsorted(self._sorted, target, side="left"))
                hi = int(np.searchsorted(self._sorted, top_u, side="right"))
            if hi - lo >= 2:  # one outcome: it is the plain choice (the band starts at it)
                if self._order_list is not None and hi - lo <= _FEW:
                    ks = tuple(self._order_list[lo:hi])
                    grid = _positions(self.utility.space)
                    band = (ks, tuple(grid[k] for k in ks), min(ks))
                else:
                    band = True
        return (target, move, band)

    def _modelled(self, session: Negotiation, party: str, target: float, band: _Band | bool) -> Move:
        """``_choose(target, model)``'s offer, for a band of ``_step``: every estimate ties (the
        earliest outcome) before any record, else the model of the offers received decides."""
        if band is True:
            k = self._choose(target, self._track(session, party).model)
        elif not session.moves_made:
            k = band[2]  # type: ignore[index]
        else:
            model = self._tracks.track(
                session, party, self.utility.space, True, self._index_of, self._u if self._READS_OFFERS else None
            ).model
            k = model.best_of(band[0], band[1])  # type: ignore[union-attr, index]
        return self._offer_move(k)  # type: ignore[arg-type]

    def offer_for(self, session: Negotiation, party: str) -> int | None:
        """The outcome index ``party`` would offer now, or None (walk away)."""
        view = self._view(session, party)
        return self._choose(self._target(session, party, view), view.model if view is not None else None)

    def respond(self, session: Negotiation, party: str, situation: Any = None) -> Move:
        if not self._rational:
            return _WALK_AWAY
        view = (
            self._tracks.track(
                session,
                party,
                self.utility.space,
                self.opponent_model,
                self._index_of,
                self._u if self._READS_OFFERS else None,
            )
            if self.opponent_model or self._READS_OFFERS
            else None
        )  # = self._view(session, party)
        target = self._target(session, party, view)
        mine = self._standing_utility(session, party)
        if mine is not None and mine >= target and mine >= self.utility.reservation:
            return _ACCEPT
        k = self._choose(target, view.model if view is not None else None)
        if k is None:
            return _WALK_AWAY
        return self._offer_move(k)


# --- the negotiators ---------------------------------------------------------------------
