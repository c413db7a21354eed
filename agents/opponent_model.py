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

The model is rebuilt from ``session.history`` when a negotiator needs it
(:meth:`FrequencyModel.from_history`), so negotiators that use it stay stateless.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from game.negotiation.utility import DECIMALS, OutcomeSpace


class FrequencyModel:
    """Value-frequency estimate of one opponent's utility over an outcome space."""

    __slots__ = ("space", "counts", "unchanged", "n_offers", "_last", "_cache")

    def __init__(self, space: OutcomeSpace):
        self.space = space
        self.counts = [np.zeros(s) for s in space.sizes]
        self.unchanged = np.zeros(len(space.issues))
        self.n_offers = 0
        self._last: np.ndarray | None = None
        self._cache: np.ndarray | None = None

    @classmethod
    def from_history(cls, space: OutcomeSpace, history: Iterable[Any], opponent: str) -> FrequencyModel:
        """A model of ``opponent`` fed with every offer it made in ``history`` (``Record``s)."""
        m = cls(space)
        for rec in history:
            if rec.party == opponent and rec.kind == "offer" and rec.terms is not None:
                m.observe(dict(rec.terms))
        return m

    def _index(self, outcome: int | Mapping[str, str]) -> int:
        if isinstance(outcome, (int, np.integer)):
            k = int(outcome)
            if not 0 <= k < self.space.size:
                raise IndexError(f"outcome index {k} out of range 0..{self.space.size - 1}")
            return k
        return self.space.index(outcome)

    def observe(self, outcome: int | Mapping[str, str]) -> None:
        """Count one opponent offer (an outcome index or complete terms)."""
        pos = self.space.grid[self._index(outcome)]
        for i, p in enumerate(pos):
            self.counts[i][p] += 1
        if self._last is not None:
            self.unchanged += pos == self._last
        self._last = pos
        self.n_offers += 1
        self._cache = None

    # --- the estimate --------------------------------------------------------------

    def value_scores(self) -> list[np.ndarray]:
        """Per issue (scene order), the score of each value (listed order), in (0, 1]."""
        return [(c + 1.0) / (c.max() + 1.0) for c in self.counts]

    def weights(self) -> np.ndarray:
        """Estimated issue weights (scene order), summing to 1."""
        w = 1.0 + self.unchanged
        return w / w.sum()

    def issue_weights(self) -> dict[str, float]:
        return dict(zip(self.space.issues, map(float, self.weights())))

    def value_preferences(self) -> dict[str, dict[str, float]]:
        return {name: dict(zip(vals, map(float, sc)))
                for name, vals, sc in zip(self.space.issues, self.space.values, self.value_scores())}

    def estimates(self) -> np.ndarray:
        """Estimated opponent utility of every outcome, in enumeration order (read-only)."""
        if self._cache is None:
            w, scores = self.weights(), self.value_scores()
            est = w[0] * scores[0]
            for wi, sc in zip(w[1:], scores[1:]):
                est = np.add.outer(est, wi * sc).ravel()   # first issue slowest, as enumerated
            est = np.round(est, DECIMALS)
            est.setflags(write=False)
            self._cache = est
        return self._cache

    def estimate(self, outcome: int | Mapping[str, str]) -> float:
        """Estimated opponent utility of one outcome (index or terms), in [0, 1]."""
        return float(self.estimates()[self._index(outcome)])

    def __repr__(self) -> str:
        return f"FrequencyModel({self.n_offers} offers, weights={self.issue_weights()!r})"
