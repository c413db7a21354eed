"""A simple baseline for the gate benchmark that trusts only what was seen: "verified first".

A claim that a verified observation supports is admitted; one that contradicts a verified
observation is rejected while that observation is fresh (within ``fresh`` half-lives of its
relation; a relation that does not change stays fresh for good); anything else is news, admitted
from a source of credibility ``admit_news`` or more, rejected below ``reject_news``, held in
between. With ``admit_news`` above 1 and ``reject_news`` 0 it is "admit only verified-supported
claims, hold the rest". It reads claims in canonical ids (an oracle parse, as the hold band does)
and keeps no memory of claims, only of observations.
"""

from __future__ import annotations

from benchmarks.gate.baselines import ADMIT, HALF_LIFE, HOLD, REJECT
from benchmarks.gate.stream import Observation, Write
from benchmarks.gate.text import FUNCTIONAL

GRID = {
    "admit_news": [0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.01],
    "reject_news": [0.0, 0.1, 0.2, 0.3, 0.35, 0.4],
    "fresh": [0.0, 0.25, 0.5, 1.0, 2.0, 1e9],
}
SEEN_ONLY = {"admit_news": 1.01, "reject_news": 0.0, "fresh": -1.0}  # admit what was seen, hold the rest


class VerifiedFirst:
    def __init__(self, admit_news: float = 1.01, reject_news: float = 0.0, fresh: float = 1e9) -> None:
        self.admit_news, self.reject_news, self.fresh = admit_news, reject_news, fresh
        self.seen: dict[tuple, tuple[object, int]] = {}  # key -> (value, turn seen)

    @staticmethod
    def _key(subject: str, relation: str, obj: str) -> tuple:
        return (subject, relation) if relation in FUNCTIONAL else (subject, relation, obj)

    def decide(self, w: Write) -> str:
        seen = self.seen.get(self._key(w.subject, w.relation, w.object))
        if seen is not None:
            value, turn = seen
            if w.relation in FUNCTIONAL:
                agrees = (value == w.object) == w.truth
            else:
                agrees = value == w.truth
            if agrees:
                return ADMIT
            if w.turn - turn <= self.fresh * HALF_LIFE.get(w.relation, float("inf")):
                return REJECT
        if w.cred >= self.admit_news:
            return ADMIT
        return REJECT if w.cred < self.reject_news else HOLD

    def observe(self, e: Observation) -> None:
        key = self._key(e.subject, e.relation, e.object)
        if e.relation in FUNCTIONAL:
            if e.truth:
                self.seen[key] = (e.object, e.turn)
        else:
            self.seen[key] = (e.truth, e.turn)
