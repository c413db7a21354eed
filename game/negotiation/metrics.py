"""Exact outcome metrics over the enumerated outcome space.

Everything works on the utility matrix ``U`` (``(n_outcomes, n_parties)``,
rows in enumeration order) and the reservation vector ``r``. An outcome is
*individually rational* (IR) when ``U[k, i] >= r[i]`` for every party.

* **Pareto frontier**: the outcomes no other outcome dominates (at least as good
  for everyone, strictly better for someone). Outcomes with identical utility
  vectors do not dominate each other, so all of them are on the frontier.
* **Nash point**: the IR outcome maximising ``prod_i (u_i - r_i)``.
* **Kalai-Smorodinsky point**: the IR outcome maximising
  ``min_i (u_i - r_i) / (m_i - r_i)``, ``m_i`` being party i's best IR utility
  (a party with ``m_i == r_i`` scores 1 on every IR outcome).
* **Ties** (Nash and KS): higher social welfare wins, then the earlier outcome
  in enumeration order. Scores are rounded to ``DECIMALS`` places first.
* **Distances** are Euclidean in utility space, to the nearest frontier
  *point* (not to segments between points); disagreement is the point ``r``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

import numpy as np

from game.negotiation.utility import DECIMALS, UtilityFunction, utilities_for, utility_matrix

if TYPE_CHECKING:
    from game.negotiation.spec import NegotiationScene

Terms = tuple[tuple[str, str], ...]


def pareto_frontier(U: np.ndarray) -> np.ndarray:
    """Sorted indices of the non-dominated rows of ``U`` (exact float comparison)."""
    U = np.asarray(U, dtype=float)
    n, k = U.shape
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    if k == 1:
        return np.flatnonzero(U[:, 0] == U[:, 0].max())
    if k == 2:
        return _frontier_2d(U[:, 0], U[:, 1])
    keep = np.ones(n, dtype=bool)
    for j in range(n):  # general case: pairwise, one row against all at a time
        ge = (U >= U[j]).all(axis=1) & (U > U[j]).any(axis=1)
        keep[j] = not ge.any()
    return np.flatnonzero(keep)


def _frontier_2d(u1: np.ndarray, u2: np.ndarray) -> np.ndarray:
    # sweep by u1 descending; within a u1 group only rows with the group's max u2
    # survive, and only if that max beats every row with a strictly larger u1
    order = np.lexsort((-u2, -u1))
    s1, s2 = u1[order], u2[order]
    new = np.empty(len(s1), dtype=bool)
    new[0] = True
    new[1:] = s1[1:] != s1[:-1]
    starts = np.flatnonzero(new)
    gid = np.cumsum(new) - 1
    runmax = np.maximum.accumulate(s2)
    prev = np.full(len(starts), -np.inf)
    prev[1:] = runmax[starts[1:] - 1]
    gmax = s2[starts]
    keep = (s2 == gmax[gid]) & (gmax[gid] > prev[gid])
    return np.sort(order[keep])


def rational_mask(U: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Boolean mask of individually rational outcomes."""
    return (np.asarray(U) >= np.asarray(r)).all(axis=1)


def _pick(candidates: np.ndarray, score: np.ndarray, U: np.ndarray) -> int:
    """Best candidate by rounded score, then welfare, then lowest index."""
    score = np.round(score, DECIMALS)
    welfare = np.round(U[candidates].sum(axis=1), DECIMALS)
    return int(candidates[np.lexsort((candidates, -welfare, -score))[0]])


def nash_point(U: np.ndarray, r: np.ndarray) -> int | None:
    """Index of the Nash bargaining outcome, or None if no outcome is IR."""
    U, r = np.asarray(U, dtype=float), np.asarray(r, dtype=float)
    cand = np.flatnonzero(rational_mask(U, r))
    if cand.size == 0:
        return None
    return _pick(cand, np.prod(U[cand] - r, axis=1), U)


def kalai_smorodinsky_point(U: np.ndarray, r: np.ndarray) -> int | None:
    """Index of the Kalai-Smorodinsky outcome, or None if no outcome is IR."""
    U, r = np.asarray(U, dtype=float), np.asarray(r, dtype=float)
    cand = np.flatnonzero(rational_mask(U, r))
    if cand.size == 0:
        return None
    gain = U[cand] - r
    span = gain.max(axis=0)
    ratio = np.where(span > 0, gain / np.where(span > 0, span, 1.0), 1.0)
    return _pick(cand, ratio.min(axis=1), U)


def _dist(p: np.ndarray, q: np.ndarray) -> float:
    return float(np.sqrt(((p - q) ** 2).sum()))


@dataclass(frozen=True, slots=True)
class OutcomeMetrics:
    """How good one outcome (or disagreement) is; utilities in party order."""

    parties: tuple[str, ...]
    agreement: bool
    terms: Terms | None  # the agreed offer, issue order; None = disagreement
    utilities: tuple[float, ...]  # reservation values on disagreement
    reservations: tuple[float, ...]
    social_welfare: float
    individually_rational: bool
    pareto_optimal: bool  # no outcome dominates it
    distance_to_frontier: float
    nash_terms: Terms | None
    nash_utilities: tuple[float, ...] | None
    distance_to_nash: float | None
    ks_terms: Terms | None
    ks_utilities: tuple[float, ...] | None
    distance_to_ks: float | None
    max_social_welfare: float
    frontier_size: int
    outcome_count: int

    def utility(self, party: str) -> float:
        return self.utilities[self.parties.index(party)]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict; per-party figures keyed by party id."""

        def by_party(xs):
            return None if xs is None else dict(zip(self.parties, xs))

        def terms(t):
            return None if t is None else dict(t)

        return {
            "agreement": self.agreement,
            "terms": terms(self.terms),
            "utilities": by_party(self.utilities),
            "reservations": by_party(self.reservations),
            "social_welfare": self.social_welfare,
            "individually_rational": self.individually_rational,
            "pareto_optimal": self.pareto_optimal,
            "distance_to_frontier": self.distance_to_frontier,
            "nash_terms": terms(self.nash_terms),
            "nash_utilities": by_party(self.nash_utilities),
            "distance_to_nash": self.distance_to_nash,
            "ks_terms": terms(self.ks_terms),
            "ks_utilities": by_party(self.ks_utilities),
            "distance_to_ks": self.distance_to_ks,
            "max_social_welfare": self.max_social_welfare,
            "frontier_size": self.frontier_size,
            "outcome_count": self.outcome_count,
        }


class NegotiationAnalysis:
    """Scene-level facts computed once: matrix, frontier, Nash and KS points."""

    def __init__(self, utils: Mapping[str, UtilityFunction]):
        self.utilities = dict(utils)
        self.parties = tuple(self.utilities)
        ufs = list(self.utilities.values())
        self.space = ufs[0].space
        self.matrix = utility_matrix(ufs)
        self.reservations = np.array([u.reservation for u in ufs])
        self.frontier = pareto_frontier(self.matrix)
        self.nash = nash_point(self.matrix, self.reservations)
        self.ks = kalai_smorodinsky_point(self.matrix, self.reservations)
        self.max_social_welfare = float(np.round(self.matrix.sum(axis=1).max(), DECIMALS))
        self._frontier_set = frozenset(self.frontier.tolist())

    def frontier_offers(self) -> list[dict[str, str]]:
        """The Pareto-optimal offers, in enumeration order."""
        return [self.space.terms(int(k)) for k in self.frontier]

    def _terms(self, k: int | None) -> Terms | None:
        return None if k is None else tuple(self.space.terms(k).items())

    def _point(self, k: int | None) -> tuple[float, ...] | None:
        return None if k is None else tuple(map(float, self.matrix[k]))

    def evaluate(self, outcome: Mapping[str, str] | int | None) -> OutcomeMetrics:
        """Metrics of an offer (terms or outcome index), or of disagreement (None)."""
        if outcome is None:
            k = None
            p = self.reservations
            M = self.matrix
            pareto = not bool(((M >= p).all(axis=1) & (M > p).any(axis=1)).any())
        else:
            k = int(outcome) if isinstance(outcome, (int, np.integer)) else self.space.index(outcome)
            p = self.matrix[k]
            pareto = k in self._frontier_set
        F = self.matrix[self.frontier]
        d_front = 0.0 if (k is not None and pareto) else float(np.sqrt(((F - p) ** 2).sum(axis=1)).min())
        return OutcomeMetrics(
            parties=self.parties,
            agreement=k is not None,
            terms=self._terms(k),
            utilities=tuple(map(float, p)),
            reservations=tuple(map(float, self.reservations)),
            social_welfare=float(np.round(p.sum(), DECIMALS)),
            individually_rational=bool((p >= self.reservations).all()),
            pareto_optimal=pareto,
            distance_to_frontier=d_front,
            nash_terms=self._terms(self.nash),
            nash_utilities=self._point(self.nash),
            distance_to_nash=None if self.nash is None else _dist(p, self.matrix[self.nash]),
            ks_terms=self._terms(self.ks),
            ks_utilities=self._point(self.ks),
            distance_to_ks=None if self.ks is None else _dist(p, self.matrix[self.ks]),
            max_social_welfare=self.max_social_welfare,
            frontier_size=int(self.frontier.size),
            outcome_count=self.space.size,
        )


Source = Union["NegotiationScene", Mapping[str, UtilityFunction], NegotiationAnalysis]


def analyse(source: Source) -> NegotiationAnalysis:
    """A :class:`NegotiationAnalysis` of a scene, a party->utility mapping, or itself."""
    if isinstance(source, NegotiationAnalysis):
        return source
    if isinstance(source, Mapping):
        return NegotiationAnalysis(source)
    return NegotiationAnalysis(utilities_for(source))


def evaluate(source: Source, outcome: Mapping[str, str] | int | None) -> OutcomeMetrics:
    """Metrics of ``outcome`` (None = disagreement) in a scene or between utilities.

    Pass a :class:`NegotiationAnalysis` when evaluating many outcomes of one scene.
    """
    return analyse(source).evaluate(outcome)
