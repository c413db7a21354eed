"""What the autopilot believes about a merchant, from the talks it has seen and nothing else.

The player knows the scene's public terms (issues and their values, deadline, who
opens, which issue is the price and who sells) and its own utility. It never reads
the merchant's weights, values, reservation or negotiator. :class:`MerchantModel`
is built from the sessions the player had with the merchant (every move of each,
as the player saw it) in two steps.

**1. The merchant's utility** (``est``, over every outcome, in [0, 1]). Hypotheses:
additive utilities whose issue weights lie on a grid (steps of 0.1 when the grid is
small enough) and whose per-value scores are a ranking of the values, evenly spaced
from 1 to 0 (every ranking when an issue has at most four values; otherwise the
listed order and its reverse). One thing is common knowledge and fixed: a seller
prefers a higher price, a buyer a lower one. What the player saw rules hypotheses
out softly (a Gaussian penalty on each violation, ``PAIR_SIGMA``), because a
conceding merchant's moves are ordered:

* each offer it makes is worth no more to it than its previous one in the session;
* a player offer it refuses (countering, rejecting or walking away) is worth less
  to it than every offer it made in that session up to then.

``est`` is the posterior mean, scaled so that the best outcome is worth 1 (where
every concession curve starts). When the grid would be too large it falls back to
the project's frequency model (:class:`agents.opponent_model.FrequencyModel`)
for the issue weights and value scores, with the price ranked as above.

**2. Its concession curve.** Hypotheses ``target(t) = r + (1 - r) * (1 - t **
(1 / e))`` (``t = round / deadline``) over exponents ``e`` and floors ``r``, in
``est`` units, with a uniform prior, weighed by what was seen (penalty ``SIGMA``):
an offer ``O`` at ``t`` says ``target(t) <= est(O)``, and that one step down from
``O`` (the smallest drop of ``est`` from changing one issue) was below the target;
a refused player offer ``X`` says ``target(t) > est(X)``; an accepted one
``target(t) <= est(X)``. From the posterior: the chance that the merchant accepts
each outcome when it judges it at a later time, and the player's utility of the
offer it is expected to make then.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.opponent_model import FrequencyModel
from game.negotiation.utility import UtilityFunction

EXPONENTS = np.array([0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0])
FLOORS = np.round(np.arange(0.0, 0.951, 0.05), 2)
SIGMA = 0.08  # how far (est units) an observation may stray from a concession curve
PAIR_SIGMA = 0.05  # how far an observed ordering may be violated by a utility hypothesis
MAX_CELLS = 2_000_000  # utility hypotheses x outcomes kept in memory at most
WEIGHT_STEPS = (10, 5, 4, 2, 1)


@dataclass(frozen=True)
class TradeTerms:
    """A trade's public terms: what is sold, by whom, and which issue is the price."""

    item: str | None
    seller: str | None
    price_issue: str | None


@dataclass(frozen=True)
class SceneTerms:
    """What ``MerchantModel`` needs of a negotiation scene: its deadline and its trade terms (as the
    player is shown them; a world-file scene has the same attributes)."""

    deadline: int
    trade: TradeTerms | None = None


def talk_observations(
    history: Sequence[Mapping[str, Any]], merchant: str, deadline: int
) -> list[tuple[str, float, dict[str, str]]]:
    """What one session says about the merchant: ``("offer", t, terms)`` for each offer it made,
    ``("yes" | "no", t, terms)`` for each player offer it accepted or answered otherwise."""
    out: list[tuple[str, float, dict[str, str]]] = []
    prev: Mapping[str, Any] | None = None
    for rec in history:
        party, kind, terms = rec.get("party"), rec.get("kind"), rec.get("terms")
        t = int(rec.get("round", 1)) / deadline
        if party == merchant:
            if prev is not None and prev.get("party") != merchant and prev.get("kind") == "offer" and prev.get("terms"):
                out.append(("yes" if kind == "accept" else "no", t, dict(prev["terms"])))
            if kind == "offer" and terms:
                out.append(("offer", t, dict(terms)))
        prev = rec
    return out


def _soft_ge(x: np.ndarray) -> np.ndarray:
    """P(value >= threshold) for a margin ``x`` in SIGMA units (logistic approximation of the normal CDF)."""
    return 1.0 / (1.0 + np.exp(-1.702 * np.clip(x, -30.0, 30.0)))


def _compositions(total: int, parts: int) -> np.ndarray:
    """Every way to split ``total`` into ``parts`` non-negative integers (rows)."""
    rows = [
        np.diff((-1, *cut, total + parts - 1)) - 1
        for cut in itertools.combinations(range(total + parts - 1), parts - 1)
    ]
    return np.array(rows, dtype=float)


def _rankings(n: int) -> np.ndarray:
    """Candidate value scores for an issue of ``n`` values: evenly spaced 1..0 in every order
    (n <= 4), else in the listed order and its reverse."""
    base = np.linspace(1.0, 0.0, n) if n > 1 else np.ones(1)
    if n <= 4:
        return np.array([base[list(p)] for p in itertools.permutations(range(n))])
    return np.array([base, base[::-1]])


class MerchantModel:
    """The player's beliefs about one merchant in one scene (see the module docstring)."""

    def __init__(self, scene: Any, me: UtilityFunction, merchant: str, sessions: Sequence[Sequence[Mapping[str, Any]]]):
        self.space = me.space
        self.deadline = int(scene.deadline)
        self.sessions = [talk_observations(h, merchant, self.deadline) for h in sessions]
        self.obs = [o for s in self.sessions for o in s]
        self.price = self._price_scores(scene, merchant)
        contrib = self._learn_utility()
        top = max(float(self._sum(contrib).max()), 1e-9)  # the merchant's best outcome is worth 1 to it
        self.contrib = [c / top for c in contrib]  # per issue: each value's share of est
        self.est = self._sum(self.contrib)
        self.step = self._steps()
        e, r = np.meshgrid(EXPONENTS, FLOORS, indexing="ij")
        self.e, self.r = e.ravel(), r.ravel()
        self.weights = self._posterior()

    # --- step 1: the merchant's utility ----------------------------------------------------
    def _price_scores(self, scene: Any, merchant: str) -> tuple[int, np.ndarray] | None:
        trade = scene.trade
        if trade is None or trade.price_issue not in self.space.issues:
            return None
        i = self.space.issues.index(trade.price_issue)
        vals = self.space.values[i]
        order = sorted(range(len(vals)), key=lambda k: float(vals[k]))
        rank = np.empty(len(vals))
        rank[order] = np.arange(len(vals)) / max(len(vals) - 1, 1)
        return i, (rank if trade.seller == merchant else 1.0 - rank)

    def _sum(self, contrib: list[np.ndarray]) -> np.ndarray:
        """Additive totals over the outcome grid (rows of ``contrib`` may be stacked hypotheses)."""
        grid = self.space.grid
        return sum(c[..., grid[:, i]] for i, c in enumerate(contrib))

    def _hypotheses(self) -> list[np.ndarray] | None:
        """Per issue, a (hypotheses, values) array of weighted scores; None when too many."""
        sizes = self.space.sizes
        shapes = [_rankings(n) for n in sizes]
        if self.price is not None:
            shapes[self.price[0]] = self.price[1][None, :]
        n_shapes = math.prod(len(s) for s in shapes)
        for k in WEIGHT_STEPS:
            n_weights = math.comb(k + len(sizes) - 1, len(sizes) - 1)
            if n_weights * n_shapes * self.space.size <= MAX_CELLS:
                break
        else:
            return None
        weights = _compositions(k, len(sizes)) / k
        idx = np.array(list(itertools.product(range(len(weights)), *(range(len(s)) for s in shapes))))
        return [weights[idx[:, 0], i][:, None] * s[idx[:, i + 1]] for i, s in enumerate(shapes)]

    def _pairs(self) -> tuple[list[int], list[int]]:
        """(better, worse) outcome indices: the orderings the merchant's moves reveal."""
        better: list[int] = []
        worse: list[int] = []
        index = self.space.index
        for session in self.sessions:
            offers = [(t, index(terms)) for kind, t, terms in session if kind == "offer"]
            for (_, a), (_, b) in itertools.pairwise(offers):
                if a != b:
                    better.append(a)
                    worse.append(b)
            for kind, tj, terms in session:
                if kind == "no":
                    x = index(terms)
                    for t, o in offers:
                        if t <= tj and o != x:
                            better.append(o)
                            worse.append(x)
        return better, worse

    def _learn_utility(self) -> list[np.ndarray]:
        hyp = self._hypotheses()
        if hyp is None:
            return self._frequency_estimate()
        better, worse = self._pairs()
        w = np.full(len(hyp[0]), 1.0 / len(hyp[0]))
        if better:
            u = self._sum(hyp)  # (hypotheses, outcomes)
            gap = u[:, worse] - u[:, better]  # > 0 violates the ordering
            loss = (np.maximum(gap, 0.0) ** 2).sum(axis=1) / (2 * PAIR_SIGMA**2)
            w = np.exp(-(loss - loss.min()))
            w /= w.sum()
        return [w @ h for h in hyp]

    def _frequency_estimate(self) -> list[np.ndarray]:
        fm = FrequencyModel(self.space)
        for kind, _, terms in self.obs:
            if kind == "offer":
                fm.observe(terms)
        scores = fm.value_scores()
        if self.price is not None:
            scores[self.price[0]] = self.price[1]
        return [wi * sc for wi, sc in zip(fm.weights(), scores)]

    def _steps(self) -> np.ndarray:
        """Per outcome, the smallest drop of ``est`` from changing one issue to a value scored lower
        (1.0 when nothing scores lower): how far the merchant would have conceded one step more."""
        step = np.full(self.space.size, np.inf)
        for i, c in enumerate(self.contrib):
            below = np.array([min((d for d in c[k] - c if d > 1e-9), default=np.inf) for k in range(len(c))])
            step = np.minimum(step, below[self.space.grid[:, i]])
        return np.where(np.isfinite(step), step, 1.0)

    # --- step 2: its concession curve ------------------------------------------------------
    def target(self, t: float) -> np.ndarray:
        """Each hypothesis's target at time ``t`` (est units)."""
        t = min(max(float(t), 0.0), 1.0)
        return self.r + (1.0 - self.r) * (1.0 - t ** (1.0 / self.e))

    def _posterior(self) -> np.ndarray:
        ll = np.zeros(self.e.size)
        for kind, t, terms in self.obs:
            k = self.space.index(terms)
            u, tau = self.est[k], self.target(t)
            if kind == "offer":
                pen = np.maximum(tau - u, 0.0) ** 2 + np.maximum(u - self.step[k] - tau, 0.0) ** 2
            elif kind == "yes":
                pen = np.maximum(tau - u, 0.0) ** 2
            else:
                pen = np.maximum(u - tau, 0.0) ** 2
            ll -= pen / (2 * SIGMA**2)
        w = np.exp(ll - ll.max())
        return w / w.sum()

    # --- predictions -----------------------------------------------------------------------
    def accept_matrix(self, t: float) -> np.ndarray:
        """``(hypotheses, outcomes)``: the chance each outcome is accepted when judged at ``t``."""
        return _soft_ge((self.est[None, :] - self.target(t)[:, None]) / SIGMA)

    def accept_prob(self, t: float) -> np.ndarray:
        """Per outcome, the chance the merchant accepts it when judged at time ``t``."""
        return self.weights @ self.accept_matrix(t)

    def offer_value(self, t: float, me: np.ndarray, ok: np.ndarray, otherwise: float) -> np.ndarray:
        """Per hypothesis, the player's utility of the offer the merchant is expected to make at
        ``t`` (the outcomes with the lowest ``est`` at or above the target; their mean), or
        ``otherwise`` when the player could not pay for it."""
        out = np.empty(self.e.size)
        est = self.est
        for h, th in enumerate(self.target(t)):
            above = est >= th - 1e-12
            if not above.any():
                out[h] = otherwise
                continue
            tied = above & (est <= est[above].min() + 1e-9)
            out[h] = float(np.where(ok[tied], me[tied], otherwise).mean())
        return out
