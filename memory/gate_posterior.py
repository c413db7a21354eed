"""The consistency gate's decision: a calibrated probability that a claim is true, and the cheapest outcome.

**Posterior.** ``P(true | evidence)`` is a log-odds sum, naive-Bayes style: a prior log-odds plus
one term ``weight * x`` per piece of evidence, where ``x`` is an interpretable strength:

* ``trust`` / ``distrust`` -- ``sum(logit(c))`` over the distinct sources backing the claim, ``c``
  their credibility on the topic (clipped to [0.02, 0.98]), the positive parts and the negative
  parts apart (a proven liar's word and a trusted source's need not weigh alike); a stranger at
  0.5 adds nothing, so ten strangers back a claim no more than one does, and two trusted
  sources count as two pieces of independent evidence.
* ``newcomer`` -- 1 when every backer is a stranger (no trust evidence) who has said nothing else
  to the gate before (a fresh id), and nothing known supports the claim.
* ``track`` / ``track_any`` -- the backers' records on the topic / on every topic from the verified
  observations the gate saw (``memory.gate_evidence.TrackRecord``):
  ``sum(log((right + 1) / (wrong + 1)))``, 0 with no record.
* ``verified_support`` / ``verified_conflict`` -- the strongest verified fact agreeing with /
  contradicting the claim: 1 for a fresh observation, halving every ``half_life`` turns for a
  relation that changes. A contradiction of a verified fact that cannot change is *hard*:
  the claim is rejected outright, as is a number outside its relation's range and an order
  reversed through a chain of verified facts; agreeing with such a fact is certain (``p = 1``).
* ``admitted_support`` / ``admitted_conflict`` -- the strongest admitted-but-unverified fact
  agreeing with / contradicting the claim: the credibility its other backers lend it
  (``memory.gate_evidence.backing``), faded by age the same way. A chain of facts that
  contradicts an ordered claim weighs what its weakest link does.
* ``news`` -- 1 when nothing known bears on the claim.
* ``burst`` -- agreeing sources without trust evidence about something new in a few turns (a
  sybil burst is weak evidence): each counts ``1 - e**2`` for its evidence ``e = max(0, 2c - 1)``
  (a stranger 1, a barely trusted source nearly 1, a trusted one little), ``n`` the most within the
  window; ``x = ((n - 1) / (burst_size - 1))**2`` (0 for one stranger, 1 for three, 4 for five),
  times ``1 - e`` of the most trusted of them (one trusted source's word is no burst). Smooth and
  never larger for a more credible source, so a more credible backer never lowers ``p``.
* ``jury`` -- the LLM jury's log-odds ``logit(v)`` for its vote ``v`` (clipped to [0.05, 0.95]).

The weights and the prior are fitted by maximum likelihood (logistic regression) on the gate
benchmark's tune seeds (``python -m benchmarks.gate_calibrate``) and shipped here as defaults
(:data:`FITTED`). Nothing read at decision time is a label or a hidden honesty.

**Outcome.** With the calibrated ``p`` and the cost of each error (:class:`Costs`), the gate
picks the outcome with the smallest expected cost: admit costs ``(1 - p) * false_admitted``,
reject ``p * true_rejected``, hold ``p * true_held + (1 - p) * false_held``. That fixes two cut
points on ``p`` (:func:`cut_points`); a relation's own ``thresholds`` override them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

TERMS = (
    "trust",
    "distrust",
    "newcomer",
    "track",
    "track_any",
    "verified_support",
    "verified_conflict",
    "admitted_support",
    "admitted_conflict",
    "news",
    "burst",
    "jury",
)
FITTED_TERMS = TERMS[:-1]  # the jury's weight is not fitted (the benchmark runs without an LLM)
CRED_CLIP = 0.02
JURY_CLIP = 0.05

# Fitted by ``python -m benchmarks.gate_calibrate --tune-seeds 0-9`` (600 writes a seed, hash embedder,
# the benchmark world file's lexicon).
FITTED: dict[str, float] = {
    "prior": 0.079,
    "trust": 0.605,
    "distrust": 0.348,
    "newcomer": -2.067,
    "track": 0.311,
    "track_any": 0.584,
    "verified_support": 1.359,
    "verified_conflict": -0.943,
    "admitted_support": 1.776,
    "admitted_conflict": -1.161,
    "news": 0.184,
    "burst": -0.654,
    "jury": 1.0,
}


def logit(p: float, clip: float = CRED_CLIP) -> float:
    p = min(1.0 - clip, max(clip, float(p)))
    return math.log(p / (1.0 - p))


def sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def fade(age: float, half_life: float, changes: bool) -> float:
    """How much of a fact's evidence is left after ``age`` turns: 1 for a relation that does not change,
    else halving every ``half_life`` turns."""
    if not changes or age <= 0 or half_life <= 0:
        return 1.0
    return 0.5 ** (age / half_life)


class Posterior(BaseModel):
    """The prior log-odds and one weight per evidence term (see the module's doc)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    prior: float = Field(default_factory=lambda: FITTED["prior"], description="log-odds with no evidence")
    weights: dict[str, float] = Field(
        default_factory=lambda: {t: FITTED[t] for t in TERMS}, description="log-odds per unit of each term"
    )

    @model_validator(mode="after")
    def _known(self) -> Posterior:
        unknown = sorted(set(self.weights) - set(TERMS))
        if unknown:
            raise ValueError(f"unknown evidence terms {unknown}; known: {list(TERMS)}")
        return self

    def weight(self, term: str) -> float:
        return float(self.weights.get(term, FITTED[term]))

    def combine(self, x: Mapping[str, float]) -> tuple[float, list[dict[str, Any]]]:
        """(p, the evidence terms with their log-odds contributions) for term strengths ``x``."""
        terms = [{"term": "prior", "x": 1.0, "weight": round(self.prior, 6), "log_odds": round(self.prior, 6)}]
        z = self.prior
        for t in TERMS:
            v = float(x.get(t, 0.0))
            if v == 0.0:
                continue
            w = self.weight(t)
            z += w * v
            terms.append({"term": t, "x": round(v, 6), "weight": round(w, 6), "log_odds": round(w * v, 6)})
        return sigmoid(z), terms


class Costs(BaseModel):
    """What each error costs; fixed before measuring (the admit and reject cut points follow from them)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    false_admitted: float = Field(1.0, gt=0.0, description="a false claim admitted (poison in memory)")
    true_rejected: float = Field(1.0, gt=0.0, description="a true claim rejected (news lost)")
    true_held: float = Field(0.25, ge=0.0, description="a true claim held (shown as disputed until evidence)")
    false_held: float = Field(0.05, ge=0.0, description="a false claim held (kept out, but shown as disputed)")

    @model_validator(mode="after")
    def _holding_is_cheaper(self) -> Costs:
        if self.true_held > self.true_rejected or self.false_held > self.false_admitted:
            raise ValueError("holding a claim must not cost more than the wrong final decision about it")
        return self


def expected_costs(p: float, costs: Costs) -> dict[str, float]:
    return {
        "admit": (1.0 - p) * costs.false_admitted,
        "quarantine": p * costs.true_held + (1.0 - p) * costs.false_held,
        "reject": p * costs.true_rejected,
    }


def cut_points(costs: Costs) -> tuple[float, float]:
    """(reject below, admit from): the ``p`` where rejecting stops and admitting starts being the cheapest.

    Reject beats hold while ``p * true_rejected < p * true_held + (1 - p) * false_held``; admit beats
    hold once ``(1 - p) * false_admitted <= p * true_held + (1 - p) * false_held``. If the two cross
    (holding never pays), both are the point where admit and reject cost the same."""
    den = costs.true_rejected - costs.true_held + costs.false_held
    lo = costs.false_held / den if den > 0 else 0.0
    hi = (costs.false_admitted - costs.false_held) / (costs.false_admitted - costs.false_held + costs.true_held)
    if lo > hi:
        lo = hi = costs.false_admitted / (costs.false_admitted + costs.true_rejected)
    return lo, hi


def choose(p: float, t_low: float, t_high: float) -> str:
    """admit from ``t_high``, reject below ``t_low``, hold in between."""
    return "admit" if p >= t_high else "reject" if p < t_low else "quarantine"
