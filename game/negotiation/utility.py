"""Additive utility functions over a scene's issues, precomputed with numpy.

Normalisation, exactly:

* **Weights** are the party's weights for the scene's issues divided by their
  sum, so they sum to 1. An issue the party gives no weight has weight 0;
  weights for issues outside the scene are ignored. A zero sum is an error.
* **Per-value utilities** are taken as authored (each in [0, 1]); they are *not*
  rescaled, because the reservation value is written on the same scale. A value
  the party does not mention has utility 0.
* **Offer utility** is ``u(o) = sum_i w_i * v_i(o_i)``. With normalised weights
  it lies in [0, 1]; it is exactly 1 for the best outcome and 0 for the worst
  when every issue's values span [0, 1] (some value 0, some value 1).
* Every utility (and the reservation) is rounded to :data:`DECIMALS` decimal
  places, so mathematically equal utilities (0.35 + 0.3 vs 0.65) compare equal
  and the metrics' ties are the ones a person would compute by hand.

Outcomes are enumerated in a fixed order: issues in scene order, values in
listed order, the *last* issue varying fastest (``itertools.product`` order).
An outcome's position in that order is its *index*; all utility vectors and
matrices are indexed the same way.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from game.core.errors import InputError

if TYPE_CHECKING:
    from game.negotiation.spec import NegotiationScene, PartySpec

DECIMALS = 12
MAX_OUTCOMES = 2_000_000  # refuse to enumerate larger spaces


def quantise(x: float) -> float:
    """Round a utility the way every vector here is rounded."""
    return float(np.round(x, DECIMALS))


class OutcomeSpace:
    """Every complete offer over some issues, in the fixed enumeration order."""

    __slots__ = ("issues", "values", "sizes", "size", "_strides", "_pos", "_grid")

    def __init__(self, issues: tuple[str, ...], values: tuple[tuple[str, ...], ...]):
        if not issues:
            raise InputError("a negotiation needs at least one issue")
        for name, vals in zip(issues, values):
            if not vals:
                raise InputError(f"issue {name!r} has no values")
            if len(set(vals)) != len(vals):
                raise InputError(f"issue {name!r} lists a value twice")
        self.issues = issues
        self.values = values
        self.sizes = tuple(len(v) for v in values)
        size = 1
        for s in self.sizes:
            size *= s
        if size > MAX_OUTCOMES:
            raise InputError(
                f"outcome space too large: {size} outcomes (limit {MAX_OUTCOMES})",
                hint="use fewer issues or fewer values per issue",
            )
        self.size = size
        strides, acc = [], 1
        for s in reversed(self.sizes):
            strides.append(acc)
            acc *= s
        self._strides = tuple(reversed(strides))
        self._pos = tuple({v: i for i, v in enumerate(vals)} for vals in values)
        self._grid: np.ndarray | None = None

    @property
    def grid(self) -> np.ndarray:
        """``(size, n_issues)`` int array: the value position of each issue per outcome."""
        if self._grid is None:
            g = np.stack(np.unravel_index(np.arange(self.size), self.sizes), axis=1)
            g.setflags(write=False)
            self._grid = g
        return self._grid

    def index(self, terms: Mapping[str, str]) -> int:
        """Index of a complete, valid offer (``KeyError`` if it is not one)."""
        return sum(p[terms[i]] * s for i, p, s in zip(self.issues, self._pos, self._strides))

    def terms(self, index: int) -> dict[str, str]:
        """The offer at ``index`` as ``{issue: value}``."""
        if not 0 <= index < self.size:
            raise IndexError(f"outcome index {index} out of range 0..{self.size - 1}")
        out = {}
        for name, vals, s, st in zip(self.issues, self.values, self.sizes, self._strides):
            out[name] = vals[(index // st) % s]
        return out

    def offers(self) -> list[dict[str, str]]:
        """Every complete offer, in enumeration order."""
        return [self.terms(k) for k in range(self.size)]

    def __len__(self) -> int:
        return self.size

    def __repr__(self) -> str:
        return f"OutcomeSpace({dict(zip(self.issues, self.values))!r})"


@functools.lru_cache(maxsize=256)
def _space(issues: tuple[str, ...], values: tuple[tuple[str, ...], ...]) -> OutcomeSpace:
    return OutcomeSpace(issues, values)


def space_for(issues: Mapping[str, Sequence[str]]) -> OutcomeSpace:
    """The (cached, shared) outcome space of ``{issue: [values]}``."""
    names = tuple(issues)
    return _space(names, tuple(tuple(issues[n]) for n in names))


def outcome_space(issues: Mapping[str, Sequence[str]]) -> list[dict[str, str]]:
    """All complete offers over ``issues``, in the fixed enumeration order."""
    return space_for(issues).offers()


class UtilityFunction:
    """One party's additive utility over an outcome space (see the module docstring).

    ``vector`` holds the utility of every outcome in enumeration order; calling
    the function on an offer looks it up there, so scalar and vector agree
    bit for bit.
    """

    __slots__ = ("party", "space", "weights", "reservation", "_value_utils", "_vector", "__weakref__")

    def __init__(
        self,
        party: str,
        issues: Mapping[str, Sequence[str]],
        weights: Mapping[str, float],
        values: Mapping[str, Mapping[str, float]],
        reservation: float = 0.0,
    ):
        self.party = party
        self.space = space_for(issues)
        raw = np.array([float(weights.get(i, 0.0)) for i in self.space.issues])
        if (raw < 0).any() or not np.isfinite(raw).all():
            raise InputError(f"party {party!r}: weights must be finite and non-negative")
        total = raw.sum()
        if total <= 0:
            raise InputError(f"party {party!r}: weights sum to zero", hint="give some issue a positive weight")
        w = raw / total
        self.weights: dict[str, float] = dict(zip(self.space.issues, map(float, w)))
        vus = []
        for name, vals in zip(self.space.issues, self.space.values):
            table = values.get(name, {})
            vu = np.array([float(table.get(v, 0.0)) for v in vals])
            if ((vu < 0) | (vu > 1) | ~np.isfinite(vu)).any():
                raise InputError(f"party {party!r}: utilities of issue {name!r} must be in [0, 1]")
            vus.append(vu)
        self._value_utils = tuple(vus)
        if not 0.0 <= reservation <= 1.0:
            raise InputError(f"party {party!r}: reservation {reservation!r} is not in [0, 1]")
        self.reservation = quantise(reservation)
        # additive utility over the grid: first issue slowest, same as enumeration
        u = w[0] * vus[0]
        for wi, vu in zip(w[1:], vus[1:]):
            u = np.add.outer(u, wi * vu).ravel()
        u = np.round(u, DECIMALS)
        u.setflags(write=False)
        self._vector = u

    @classmethod
    def from_party(cls, party: PartySpec, issues: Mapping[str, Sequence[str]]) -> UtilityFunction:
        """Build from a scene party spec and the scene's issues."""
        return cls(party.id, issues, party.weights, party.values, party.reservation)

    @property
    def issues(self) -> tuple[str, ...]:
        return self.space.issues

    @property
    def vector(self) -> np.ndarray:
        """Read-only utilities of every outcome, in enumeration order."""
        return self._vector

    def value_utility(self, issue: str, value: str) -> float:
        """The authored utility of one value of one issue (not weighted)."""
        k = self.space.issues.index(issue)
        return float(self._value_utils[k][self.space._pos[k][value]])

    def __call__(self, terms: Mapping[str, str]) -> float:
        """Utility of a complete offer (``KeyError`` for an unknown issue or value)."""
        return float(self._vector[self.space.index(terms)])

    utility = __call__

    def at(self, index: int) -> float:
        """Utility of the outcome at ``index``."""
        return float(self._vector[index])

    @property
    def best(self) -> float:
        return float(self._vector.max())

    @property
    def worst(self) -> float:
        return float(self._vector.min())

    def __repr__(self) -> str:
        return f"UtilityFunction({self.party!r}, weights={self.weights!r}, reservation={self.reservation!r})"


def utilities_for(scene: NegotiationScene) -> dict[str, UtilityFunction]:
    """Each party's utility function, keyed by party id in scene order."""
    out: dict[str, UtilityFunction] = {}
    for p in scene.parties:
        if p.id in out:
            raise InputError(f"party {p.id!r} appears twice in scene {scene.title!r}")
        out[p.id] = UtilityFunction.from_party(p, scene.issues)
    return out


def utility_matrix(utils: Iterable[UtilityFunction]) -> np.ndarray:
    """``(n_outcomes, n_parties)`` matrix of utilities; all must share one space."""
    utils = list(utils)
    if not utils:
        raise ValueError("utility_matrix needs at least one utility function")
    space = utils[0].space
    for u in utils[1:]:
        if u.space is not space and (u.space.issues, u.space.values) != (space.issues, space.values):
            raise ValueError(f"party {u.party!r} is over different issues than {utils[0].party!r}")
    return np.column_stack([u.vector for u in utils])
