"""An oracle bound beside the gate: how well any gate could decide with the evidence it can observe.

For each write, a model of the stream's generative process gives the probability that the claim
is true from what a gate could have seen by then, and the decision with the least expected cost
(``benchmarks/gate/costs.py``) follows from it. The evidence (``observable``) is the claim itself,
read perfectly (its canonical meaning: no alias, synonym or paraphrase is lost), its source and the
credibility the gate is told for it, every claim heard before with its source, told credibility
and turn, every observation before, and the world's change rates (the half-lives the world file
declares). Nothing hidden is read: no label, class, honesty, source kind or timeline.

The posterior is not tractable in closed form (the stream mixes twenty situations, bursts and
sources whose honesty the gate only sees through its told credibility and their record against
observations), so it is fitted: ``features`` summarises the evidence per write -- the source's
told credibility and its record so far (its earlier claims confirmed or contradicted by later
observations), the last observation of the claim's key and its age against the relation's
half-life, the sources heard for the same value and for others (how many, how credible, how
recently; strangers in a burst), whether the value was once observed and has since changed, and
for arrival order the chains that the claims heard so far imply -- and a gradient-boosted
classifier (scikit-learn) learns P(true | features) from seeds that are neither tuned on nor held
out. It is a bound in the sense of "the best this evidence supports, given a model fitted to the
generator", not a proof: a better model of the same evidence could do better still.
"""

from __future__ import annotations

import math
from collections import defaultdict, deque
from dataclasses import dataclass

import numpy as np

from benchmarks.gate.costs import best_decision
from benchmarks.gate.stream import Observation, Write

RELS = ("located_in", "price", "owned_by", "knows", "arrives_before")
FUNCTIONAL = ("located_in", "price", "owned_by")
TOPIC = {"located_in": "whereabouts", "price": "trade", "owned_by": "ownership", "knows": "people"}
TOPIC["arrives_before"] = "arrivals"
BURST_WINDOW = 10
FAR = 1000.0  # the age of something never seen


@dataclass(frozen=True)
class Seen:
    """One event as a gate could see it: a claim (with its told credibility) or an observation."""

    turn: int
    observation: bool
    source: str
    cred: float
    subject: str
    relation: str
    object: str
    truth: bool


def observable(stream) -> list[Seen]:
    """The stream's events as a gate sees them, in order (the claim's meaning read perfectly)."""
    out = []
    for e in stream.events:
        s, r, o = _canon(e.subject, e.relation, e.object)
        if isinstance(e, Observation):
            out.append(Seen(e.turn, True, "observation", 1.0, s, r, o, bool(e.truth)))
        elif isinstance(e, Write):
            out.append(Seen(e.turn, False, e.source, stream.credibility(e.source, TOPIC[r]), s, r, o, bool(e.truth)))
    return out


def _canon(s: str, r: str, o: str) -> tuple[str, str, str]:
    if r == "arrives_after":
        return o, "arrives_before", s
    if r == "knows":
        a, b = sorted((s, o))
        return a, r, b
    return s, r, o


def _logit(c: float) -> float:
    c = min(max(c, 0.02), 0.98)
    return math.log(c / (1 - c))


class _Evidence:
    """What has been seen so far, kept the way the features read it."""

    def __init__(self, half_life: dict[str, float]) -> None:
        self.half_life = half_life
        self.obs: dict[tuple, list[tuple[int, str, bool]]] = defaultdict(list)  # key -> (turn, value, truth)
        self.heard: dict[tuple, list[tuple[int, str, float, str, bool]]] = defaultdict(list)
        self.record: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])  # (source, topic) -> agree, not
        self.overall: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        self.claims_by: dict[str, int] = defaultdict(int)
        self.pending: dict[tuple, list[tuple[str, str, str, bool]]] = defaultdict(list)  # key -> unchecked claims
        self.edges: dict[str, set[str]] = defaultdict(set)  # heard "a before b" (credible sources)

    @staticmethod
    def key(e: Seen) -> tuple:
        return (e.subject, e.relation) if e.relation in FUNCTIONAL else (e.subject, e.relation, e.object)

    def add(self, e: Seen) -> None:
        k = self.key(e)
        if e.observation:
            self.obs[k].append((e.turn, e.object, e.truth))
            for source, topic, value, truth in self.pending.pop(k, []):
                agree = (value == e.object) == truth if e.relation in FUNCTIONAL else truth == e.truth
                self.record[(source, topic)][0 if agree else 1] += 1
                self.overall[source][0 if agree else 1] += 1
            return
        self.heard[k].append((e.turn, e.source, e.cred, e.object, e.truth))
        self.claims_by[e.source] += 1
        self.pending[k].append((e.source, TOPIC[e.relation], e.object, e.truth))
        if e.relation == "arrives_before" and e.truth and e.cred >= 0.5:
            self.edges[e.subject].add(e.object)

    def path(self, a: str, b: str) -> bool:
        """Do the credible claims heard so far chain a before b (two steps or more)?"""
        todo, seen = deque([(a, 0)]), {a}
        while todo:
            x, d = todo.popleft()
            for y in self.edges.get(x, ()):
                if y == b and d >= 1:
                    return True
                if y not in seen:
                    seen.add(y)
                    todo.append((y, d + 1))
        return False


def _supports(e: Seen, value: str, truth: bool) -> bool:
    """Does a claim (value, truth) on the same key say what ``e`` says?"""
    if e.relation in FUNCTIONAL:
        if e.truth and truth:
            return value == e.object
        if not e.truth and not truth:
            return value == e.object
        return False
    return truth == e.truth


def _against(e: Seen, value: str, truth: bool) -> bool:
    if e.relation in FUNCTIONAL:
        if e.truth:
            return (truth and value != e.object) or (not truth and value == e.object)
        return truth and value == e.object
    return truth != e.truth


def _row(ev: _Evidence, e: Seen) -> list[float]:
    k = ev.key(e)
    hl = ev.half_life.get(e.relation, 1e9)
    topic = TOPIC[e.relation]
    agree, disagree = ev.record[(e.source, topic)]
    all_agree, all_disagree = ev.overall[e.source]
    obs = ev.obs.get(k, [])
    last = obs[-1] if obs else None
    age = e.turn - last[0] if last else FAR
    if last is None:
        obs_agree = 0.0
    elif e.relation in FUNCTIONAL:
        obs_agree = 1.0 if ((last[1] == e.object) == e.truth) else -1.0
    else:
        obs_agree = 1.0 if last[2] == e.truth else -1.0
    since = last[0] if last else -1
    heard = [h for h in ev.heard.get(k, []) if h[0] >= since]
    same = [h for h in heard if _supports(e, h[3], h[4])]
    other = [h for h in heard if _against(e, h[3], h[4])]
    same_src = {h[1]: h[2] for h in same if h[1] != e.source}
    other_src = {h[1]: h[2] for h in other}
    burst = {h[1] for h in same if abs(h[2] - 0.5) < 1e-9 and e.turn - h[0] <= BURST_WINDOW}
    old_values = {v for _, v, _ in obs[:-1]} - ({last[1]} if last else set())
    stale = float(e.relation in FUNCTIONAL and e.truth and e.object in old_values)
    dist = 0.0
    if e.relation == "price" and last is not None:
        try:
            dist = abs(math.log(float(e.object) / float(last[1])))
        except (ValueError, ZeroDivisionError):
            dist = 0.0
    chain_for = chain_against = 0.0
    if e.relation == "arrives_before":
        a, b = (e.subject, e.object) if e.truth else (e.object, e.subject)
        chain_for, chain_against = float(ev.path(a, b)), float(ev.path(b, a))
    return [
        e.cred,
        _logit(e.cred),
        float(abs(e.cred - 0.5) < 1e-9),
        float(RELS.index(e.relation)),
        float(e.truth),
        float(ev.claims_by[e.source]),
        float(agree),
        float(disagree),
        float(all_agree),
        float(all_disagree),
        float(last is not None),
        min(age, FAR),
        0.5 ** (age / hl) if last is not None else 0.0,
        obs_agree,
        float(len(same_src)),
        sum(_logit(c) for c in same_src.values()),
        max(same_src.values(), default=0.0),
        min((e.turn - h[0] for h in same), default=FAR),
        float(len(other_src)),
        sum(_logit(c) for c in other_src.values()),
        max(other_src.values(), default=0.0),
        min((e.turn - h[0] for h in other), default=FAR),
        float(len(burst)),
        float(any(h[1] == e.source for h in same)),
        float(not heard and last is None),
        stale,
        dist,
        chain_for,
        chain_against,
        float(e.turn),
    ]


def features(events: list[Seen], half_life: dict[str, float]) -> np.ndarray:
    """One row per claim (observations give none), from the evidence before it and the claim itself."""
    ev, rows = _Evidence(half_life), []
    for e in events:
        if not isinstance(e, Seen):
            raise TypeError(f"the oracle reads only what a gate sees (Seen), not {type(e).__name__}")
        if not e.observation:
            rows.append(_row(ev, e))
        ev.add(e)
    return np.asarray(rows, dtype=float).reshape(len(rows), -1)


class OracleBound:
    """P(true | observable evidence), fitted on labelled streams; the cost-optimal decision from it."""

    def __init__(self, half_life: dict[str, float], seed: int = 0) -> None:
        self.half_life, self.seed, self.model = dict(half_life), seed, None

    def fit(self, streams) -> OracleBound:
        from sklearn.ensemble import HistGradientBoostingClassifier

        x = np.vstack([features(observable(st), self.half_life) for st in streams])
        y = np.concatenate([[w.label for w in st.writes] for st in streams]).astype(int)
        self.model = HistGradientBoostingClassifier(
            max_iter=300,
            learning_rate=0.05,
            max_leaf_nodes=31,
            l2_regularization=1.0,
            early_stopping=False,
            random_state=self.seed,
        ).fit(x, y)
        return self

    def posterior(self, events: list[Seen]) -> np.ndarray:
        """P(true) per claim, in order; ``events`` from ``observable`` (nothing else is accepted)."""
        if self.model is None:
            raise RuntimeError("fit the oracle first")
        x = features(events, self.half_life)
        return self.model.predict_proba(x)[:, 1] if len(x) else np.zeros(0)

    def decide(self, events: list[Seen]) -> list[str]:
        return best_decision(self.posterior(events)).tolist()


def threshold_decisions(p: np.ndarray, reject_below: float, admit_from: float) -> list[str]:
    """Decisions from posteriors with given thresholds (for the trade-off curve)."""
    p = np.asarray(p)
    return np.where(p >= admit_from, "admit", np.where(p < reject_below, "reject", "quarantine")).tolist()
