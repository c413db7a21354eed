"""A frequency-based model of the opponent's preferences in multi-issue talks.

It looks only at the opponent's *offers* (never at its utility function) and
assumes an additive utility, as the scene does:

* **Value scores** per issue: ``(count + 1) / (max count + 1)``, where ``count``
  is how often the opponent offered that value. The value offered most scores
  1; a value never offered scores ``1 / (max + 1)``; with no offers every value
  scores 1 (no evidence, no ranking).
* **Issue weights**: ``(1 + unchanged_i)`` normalised to sum to 1, where
  ``unchanged_i`` counts consecutive offer pairs in which issue ``i`` kept its
  value. A party concedes on issues it cares little about first, so an issue
  whose value rarely changes is taken to matter more.
* **Estimate** of an outcome: ``sum_i w_i * score_i(value_i)`` in [0, 1].

A negotiator feeds the model incrementally with the opponent offers it has not read yet (see
``agents.negotiators``; a run of the same offer is counted at once, as ``observe(k, times)``);
:meth:`FrequencyModel.from_history` rebuilds it from a whole ``session.history``, and both give
the same numbers bit for bit. The counts are kept as Python integers, so
:meth:`FrequencyModel.estimate_at` and :meth:`FrequencyModel.best_of` can score a few outcomes in
pure Python with exactly the arithmetic of the vectorised :meth:`FrequencyModel.estimates` (the
issue-weight total is a sum of small integers, exact in any order; every other step is one
IEEE operation per element in the same order; rounding is numpy's ``x * 1e12 -> rint -> / 1e12``).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from game.negotiation.utility import DECIMALS, OutcomeSpace


def fast_quantise(x: float) -> float:
    """:func:`~game.negotiation.utility.quantise` (``np.round(x, 12)``) without numpy's
    per-call overhead: numpy rounds a float64 as ``rint(x * 1e12) / 1e12``, and Python's
    ``round`` of a float to an integer is the same round-half-to-even (exact below 2**53).
    Only the sign of a rounded zero may differ (``-0.0`` vs ``0.0``), which compares equal."""
    y = x * 1e12
    if -9.0e15 < y < 9.0e15:
        return round(y) / 1e12
    return float(np.round(x, DECIMALS))  # huge, inf or nan: numpy itself


@functools.lru_cache(maxsize=256)
def _positions(space: OutcomeSpace) -> tuple[tuple[int, ...], ...]:
    """Per outcome (enumeration order), its value position on each issue, as Python ints."""
    return tuple(map(tuple, space.grid.tolist()))


_DIRECT = 12  # best_of scores at most this many outcomes term by term, more with _weighted's tables


class FrequencyModel:
    """Value-frequency estimate of one opponent's utility over an outcome space."""

    __slots__ = (
        "space",
        "n_offers",
        "_counts",
        "_unchanged",
        "_last",
        "_cache",
        "_scorer",
        "_grid",
        "_tops",
        "_w",
        "_ws",
    )

    def __init__(self, space: OutcomeSpace):
        self.space = space
        self._grid: tuple[tuple[int, ...], ...] | None = None  # _positions(space), on first use
        self._counts = [[0] * s for s in space.sizes]
        self._tops = [0] * len(space.sizes)  # max(self._counts[i]), kept as it grows
        self._unchanged = [0] * len(space.issues)
        self.n_offers = 0
        self._last: tuple[int, ...] | None = None
        self._cache: np.ndarray | None = None
        self._scorer: tuple[list[float], list[list[float]]] | None = None
        self._w: list[float] | None = None  # the issue weights as Python floats (cached)
        self._ws: list[list[float]] | None = None  # _weighted() (cached)

    @classmethod
    def from_history(cls, space: OutcomeSpace, history: Iterable[Any], opponent: str) -> FrequencyModel:
        """A model of ``opponent`` fed with every offer it made in ``history`` (``Record``s)."""
        m = cls(space)
        for rec in history:
            if rec.party == opponent and rec.kind == "offer" and rec.terms is not None:
                m.observe(dict(rec.terms))
        return m

    @property
    def counts(self) -> list[np.ndarray]:
        """Per issue (scene order), how often the opponent offered each value (a copy)."""
        return [np.array(c, dtype=float) for c in self._counts]

    @property
    def unchanged(self) -> np.ndarray:
        """Per issue, how many consecutive offer pairs kept its value (a copy)."""
        return np.array(self._unchanged, dtype=float)

    def _index(self, outcome: int | Mapping[str, str]) -> int:
        if isinstance(outcome, (int, np.integer)):
            k = int(outcome)
            if not 0 <= k < self.space.size:
                raise IndexError(f"outcome index {k} out of range 0..{self.space.size - 1}")
            return k
        return self.space.index(outcome)

    def observe(self, outcome: int | Mapping[str, str], times: int = 1) -> None:
        """Count one opponent offer (an outcome index or complete terms), or ``times`` offers of
        it in a row (the same as that many calls: every pair in the run kept every value)."""
        k = outcome if type(outcome) is int and 0 <= outcome < self.space.size else self._index(outcome)
        if type(times) is not int or times < 1:
            raise ValueError(f"times must be a positive integer, got {times!r}")
        self._add(k, times)

    def _add(self, k: int, times: int) -> None:
        """:meth:`observe` of a valid outcome index ``k`` and a positive ``times``."""
        grid = self._grid
        if grid is None:
            grid = self._grid = _positions(self.space)
        pos = grid[k]
        last = self._last
        counts, tops, unchanged = self._counts, self._tops, self._unchanged
        kept = times - 1
        i = 0
        for p in pos:
            c = counts[i]
            x = c[p] = c[p] + times
            if x > tops[i]:
                tops[i] = x
            if last is not None and last[i] == p:
                unchanged[i] += kept + 1
                self._w = None
            elif kept:
                unchanged[i] += kept
                self._w = None
            i += 1
        self._last = pos
        self.n_offers += times
        self._cache = self._scorer = self._ws = None

    # --- the estimate --------------------------------------------------------------

    def value_scores(self) -> list[np.ndarray]:
        """Per issue (scene order), the score of each value (listed order), in (0, 1]."""
        return [(c + 1.0) / (c.max() + 1.0) for c in self.counts]

    def weights(self) -> np.ndarray:
        """Estimated issue weights (scene order), summing to 1."""
        w = 1.0 + self.unchanged
        return w / w.sum()

    def _weights(self) -> list[float]:
        """``weights()`` as Python floats, equal bit for bit (cached until an issue keeps its value)."""
        w = self._w
        if w is None:
            u = self._unchanged
            if len(u) == 3:  # the common sizes without a comprehension (same operations)
                a, b, c = u
                total = float(a + b + c + 3)  # integers: exact
                w = self._w = [(1.0 + a) / total, (1.0 + b) / total, (1.0 + c) / total]
            elif len(u) == 2:
                a, b = u
                total = float(a + b + 2)
                w = self._w = [(1.0 + a) / total, (1.0 + b) / total]
            else:
                total = float(sum(u) + len(u))
                w = self._w = [(1.0 + x) / total for x in u]
        return w

    def _scores(self) -> tuple[list[float], list[list[float]]]:
        """``weights()`` and ``value_scores()`` as Python floats, equal bit for bit (cached)."""
        if self._scorer is None:
            scores = []
            for c, top in zip(self._counts, self._tops):
                t = top + 1.0  # = max(c) + 1.0
                scores.append([(x + 1.0) / t for x in c])
            self._scorer = (self._weights(), scores)
        return self._scorer

    def _weighted(self) -> list[list[float]]:
        """Per issue, ``w_i * score_i(value)`` for each value: the terms an estimate adds up,
        each the same IEEE product :meth:`estimate_at` computes (cached until the next offer)."""
        ws = self._ws
        if ws is None:
            ws = self._ws = [
                [wi * ((x + 1.0) / t) for x in c]
                for wi, c, t in zip(self._weights(), self._counts, [top + 1.0 for top in self._tops])
            ]
        return ws

    def best_of(self, indices: Sequence[int], positions: Iterable[tuple[int, ...]] | None = None) -> int:
        """The earliest outcome among ``indices`` (valid, not empty) with the highest estimate:
        ``min(k for k in indices if est[k] == max(est[indices]))`` with ``est = estimates()``;
        ``positions``, if given, are the outcomes' value positions (``space.grid`` rows).

        Each estimate is the sum of ``w_i * ((count + 1.0) / (top_i + 1.0))`` in issue order, the
        very operations of :meth:`estimate_at` (so equal bit for bit; for many outcomes the
        products come from :meth:`_weighted`'s tables), compared as the integer ``round(x * 1e12)``:
        the rounding of ``fast_quantise`` without its last division, which is increasing and
        one-to-one on those integers (1 apart is 1e-12 apart after it, far above the spacing of
        floats in [0, 1]), so equal and greater mean the same."""
        if not self.n_offers:
            return min(indices)  # no evidence: every estimate is the same
        n = len(self._tops)
        if n > 3:
            est = self.estimate_at(indices)
            top = max(est)
            return min(k for k, e in zip(indices, est) if e == top)
        if positions is None:
            grid = self._grid
            if grid is None:
                grid = self._grid = _positions(self.space)
            positions = map(grid.__getitem__, indices)
        best_q = best_k = -1
        if self._ws is not None or len(indices) > _DIRECT:  # from the tables
            ws = self._ws if self._ws is not None else self._weighted()
            w0, w1, w2 = (ws + [[0.0]] * 2)[:3]
            for k, pos in zip(indices, positions):
                e = w0[pos[0]]
                if n > 1:
                    e = e + w1[pos[1]]
                    if n > 2:
                        e = e + w2[pos[2]]
                q = round(e * 1e12)
                if q > best_q or (q == best_q and k < best_k):
                    best_q, best_k = q, k
            return best_k
        w = self._w if self._w is not None else self._weights()
        counts, tops = self._counts, self._tops
        if n == 3:
            w0_, w1_, w2_ = w
            c0, c1, c2 = counts
            t0, t1, t2 = tops[0] + 1.0, tops[1] + 1.0, tops[2] + 1.0
            for k, (a, b, c) in zip(indices, positions):
                q = round((w0_ * ((c0[a] + 1.0) / t0) + w1_ * ((c1[b] + 1.0) / t1) + w2_ * ((c2[c] + 1.0) / t2)) * 1e12)
                if q > best_q or (q == best_q and k < best_k):
                    best_q, best_k = q, k
            return best_k
        if n == 2:
            w0_, w1_ = w
            c0, c1 = counts
            t0, t1 = tops[0] + 1.0, tops[1] + 1.0
            for k, (a, b) in zip(indices, positions):
                q = round((w0_ * ((c0[a] + 1.0) / t0) + w1_ * ((c1[b] + 1.0) / t1)) * 1e12)
                if q > best_q or (q == best_q and k < best_k):
                    best_q, best_k = q, k
            return best_k
        (w0_,), (c0,), t0 = w, counts, tops[0] + 1.0
        for k, (a,) in zip(indices, positions):
            q = round(w0_ * ((c0[a] + 1.0) / t0) * 1e12)
            if q > best_q or (q == best_q and k < best_k):
                best_q, best_k = q, k
        return best_k

    def estimate_at(self, indices: Iterable[int]) -> list[float]:
        """Estimates of the outcomes at ``indices`` (valid indices), equal bit for bit to
        ``estimates()[indices]`` but computed in Python: cheaper for a few outcomes."""
        w, scores = self._scores()
        grid = self._grid
        if grid is None:
            grid = self._grid = _positions(self.space)
        pairs = list(zip(w, scores))
        w0, s0 = pairs[0]
        rest = pairs[1:]
        out = []
        for k in indices:
            pos = grid[k]
            e = w0 * s0[pos[0]]
            for i, (wi, si) in enumerate(rest, 1):
                e = e + wi * si[pos[i]]
            out.append(fast_quantise(e))
        return out

    def issue_weights(self) -> dict[str, float]:
        return dict(zip(self.space.issues, map(float, self.weights())))

    def value_preferences(self) -> dict[str, dict[str, float]]:
        return {
            name: dict(zip(vals, map(float, sc)))
            for name, vals, sc in zip(self.space.issues, self.space.values, self.value_scores())
        }

    def estimates(self) -> np.ndarray:
        """Estimated opponent utility of every outcome, in enumeration order (read-only)."""
        if self._cache is None:
            w, scores = self.weights(), self.value_scores()
            est = w[0] * scores[0]
            for wi, sc in zip(w[1:], scores[1:]):
                est = np.add.outer(est, wi * sc).ravel()  # first issue slowest, as enumerated
            est = np.round(est, DECIMALS)
            est.setflags(write=False)
            self._cache = est
        return self._cache

    def estimate(self, outcome: int | Mapping[str, str]) -> float:
        """Estimated opponent utility of one outcome (index or terms), in [0, 1]."""
        return float(self.estimates()[self._index(outcome)])

    def __repr__(self) -> str:
        return f"FrequencyModel({self.n_offers} offers, weights={self.issue_weights()!r})"


# --- what a negotiator has read of a session ----------------------------------------------------

MAX_TRACKED = 64
"""Sessions whose :class:`OfferTrack` one negotiator keeps at a time (dead ones go first)."""


class OfferTrack:
    """What one negotiator has read of one session for one party: the first ``n`` records
    (``last`` is the n-th), the model of the opponent's offers among them, and running figures
    of those offers in the party's own utility."""

    __slots__ = ("ref", "n", "last", "model", "received", "last_u", "best_u", "gains", "_conceded", "opponent")

    def __init__(self, ref: weakref.ref | None, model: FrequencyModel | None, opponent: str | None = None):
        self.ref = ref
        self.opponent = opponent  # the party whose offers it reads, once known
        self.n = 0
        self.last: Any = None
        self.model = model
        self.received = 0  # opponent offers read
        self.last_u: float | None = None  # own utility of the latest one
        self.best_u: float | None = None  # and of the best one
        self.gains: list[float] = []  # positive step-to-step gains, in order
        self._conceded: float | None = 0.0

    @property
    def conceded(self) -> float:
        """Sum of ``gains``: numpy's sum of the same float64 values in the same order, as the
        whole-history formula ``d[d > 0].sum()`` computes it (so equal bit for bit)."""
        if self._conceded is None:
            self._conceded = float(np.array(self.gains).sum())
        return self._conceded

    def feed(
        self, hist: tuple, opponent: str, index_of: Callable[[tuple], int], utility_of: Callable[[int], float] | None
    ) -> None:
        """Read ``hist[n:]`` (``Record``s): count the opponent's offers (and, unless ``utility_of``
        is None, keep the running figures in own utility)."""
        model = self.model
        if utility_of is None:  # counted in runs of the very same terms object (repeated offers)
            run: tuple | None = None
            times = received = 0
            for rec in hist[self.n :]:
                if rec.party == opponent and rec.kind == "offer":
                    t = rec.terms
                    if t is None:
                        continue
                    received += 1
                    if t is run:
                        times += 1
                        continue
                    if times and model is not None:
                        model._add(index_of(run), times)  # type: ignore[arg-type]
                    run, times = t, 1
            if times and model is not None:
                model._add(index_of(run), times)  # type: ignore[arg-type]
            self.received += received
            self.n = len(hist)
            self.last = hist[-1] if hist else None
            return
        for rec in hist[self.n :]:
            if rec.party != opponent or rec.kind != "offer" or rec.terms is None:
                continue
            k = index_of(rec.terms)
            u = utility_of(k)
            if model is not None:
                model._add(k, 1)
            if self.last_u is not None:
                d = u - self.last_u  # = np.diff of the float64 utilities
                if d > 0:
                    self.gains.append(d)
                    self._conceded = None
            self.last_u = u
            if self.best_u is None or u > self.best_u:
                self.best_u = u
            self.received += 1
        self.n = len(hist)
        self.last = hist[-1] if hist else None


class SessionMemo(dict):
    """``(id(session), party) -> OfferTrack`` for one negotiator, at most :data:`MAX_TRACKED`.

    An entry is used only while it is still valid for the very session asked about: the same
    live object (a weak reference, so a new session that reuses a dead one's id is not taken
    for it), a history at least as long as what was read, and the last record read still in
    its place (``set_state`` replays new records). Otherwise the track is rebuilt from the whole
    history. A memo, not state: copies and pickles start empty."""

    __slots__ = ()

    def __reduce__(self):
        return (type(self), ())

    def track(
        self,
        session: Any,
        party: str,
        space: OutcomeSpace,
        with_model: bool,
        index_of: Callable[[tuple], int],
        utility_of: Callable[[int], float] | None,
    ) -> OfferTrack:
        hist = session.history
        n = len(hist)
        key = (id(session), party)
        tr = self.get(key)
        if tr is None or tr.ref() is not session or tr.n > n or (tr.n and hist[tr.n - 1] is not tr.last):
            try:
                ref = weakref.ref(session)
            except TypeError:  # a session type without weak references: never memoised
                ref = None
            tr = OfferTrack(ref, FrequencyModel(space) if with_model else None, session.opponent(party))
            if ref is not None:
                if key not in self and len(self) >= MAX_TRACKED:
                    self._evict()
                self[key] = tr
        if tr.n < n:
            tr.feed(hist, tr.opponent, index_of, utility_of)  # type: ignore[arg-type]
        return tr

    def _evict(self) -> None:
        try:
            for key in [k for k, t in self.items() if t.ref() is None]:
                self.pop(key, None)
            while len(self) >= MAX_TRACKED:
                self.pop(next(iter(self)), None)  # the oldest
        except (RuntimeError, StopIteration):  # changed meanwhile by another thread: start over
            self.clear()
