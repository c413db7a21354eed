"""What every reliability memory over peers (NPCs) shares: the peer and topic rosters,
the event clock, checked outcomes, and the reads built on per-topic scores
(:class:`PeerMemory`); and the reliability-weighted vote both Σ-Mem and the beta
baseline (``memory.reputation``) use."""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from game.core.errors import InputError, did_you_mean


def outcome_value(peer: str, value: Any) -> float:
    """A verified outcome as a float in [-1, 1]: True/False → ±1, numbers checked."""
    if isinstance(value, (bool, np.bool_)):
        return 1.0 if value else -1.0
    try:
        c = float(value)
    except (TypeError, ValueError):
        raise InputError(f"outcome for peer {peer!r} must be +1/-1 (or a number in [-1, 1]), got {value!r}") from None
    if not math.isfinite(c) or not -1.0 <= c <= 1.0:
        raise InputError(f"outcome for peer {peer!r} must lie in [-1, 1], got {value!r}")
    return c


def check_peer_id(peer: Any) -> str:
    if not isinstance(peer, str) or not peer:
        raise InputError(f"peer ids must be non-empty strings, got {peer!r}")
    return peer


def weighted_choice(answers: Sequence[Hashable], weights: Sequence[float]) -> Hashable:
    """The answer with the largest total weight; ties go to the answer seen first.

    When every weight is 0 (nobody is trusted) it is a plain majority vote, ties
    again by first occurrence.
    """
    if not answers:
        raise InputError("cannot vote without claims")
    w = [float(x) for x in weights]
    use = w if any(x > 0.0 for x in w) else [1.0] * len(answers)
    tally: dict[Hashable, float] = {}
    for a, x in zip(answers, use):
        tally[a] = tally.get(a, 0.0) + x
    best, best_w = None, -math.inf
    for a, x in tally.items():  # insertion order = first occurrence
        if x > best_w:
            best, best_w = a, x
    return best


def fallback_choice(
    answers: Sequence[Hashable], weights: Sequence[float], scores: Sequence[float], fallback: str
) -> Hashable:
    """A reliability-weighted vote (:func:`weighted_choice`). When no weight is positive it falls
    back by ``fallback``: ``"route"`` takes the top-scored claimant's answer (a plain majority only
    when every score is equal, i.e. nothing tells them apart), ``"majority"`` the plain majority."""
    if fallback not in ("majority", "route"):
        raise InputError(f"unknown vote fallback {fallback!r}", hint="choose 'majority' or 'route'")
    sc = np.asarray(scores, dtype=np.float64)
    if fallback == "route" and not any(float(x) > 0.0 for x in weights) and len(sc) and sc.max() > sc.min():
        return answers[int(np.argmax(sc))]
    return weighted_choice(answers, weights)


def log_odds_weight(norm_scores: np.ndarray, clip: float) -> np.ndarray:
    """``max(0, artanh(clip(x, ±clip)))`` elementwise."""
    return np.maximum(0.0, np.arctanh(np.clip(np.asarray(norm_scores, dtype=np.float64), -clip, clip)))


class PeerMemory:
    """What Σ-Mem and the beta baseline share: the peer and topic rosters, the event clock,
    input checks for writes and ticks, and the reads built on ``scores``."""

    _peers: list[str]
    _index: dict[str, int]
    _topics: list[str]
    _t: int

    @property
    def peers(self) -> list[str]:
        return list(self._peers)

    @property
    def topics(self) -> list[str]:
        """Known topics: registered ones and those written about, in first-seen order."""
        return list(self._topics)

    @property
    def t(self) -> int:
        """Events so far (writes and ticks)."""
        return self._t

    def _outcomes(self, topic: Any, outcomes: Any, allow_new_peers: bool) -> list[tuple[str, float]]:
        """The checked ``(peer, c)`` pairs of a write; raises before any state changes."""
        if not isinstance(outcomes, Mapping):
            raise InputError(f"outcomes must be a mapping peer -> +1/-1, got {type(outcomes).__name__}")
        if not isinstance(topic, str):
            raise InputError(f"a topic must be a string, got {topic!r}")
        items = [(check_peer_id(p), outcome_value(p, v)) for p, v in outcomes.items()]
        if not allow_new_peers:
            unknown = [p for p, _ in items if p not in self._index]
            if unknown:
                raise InputError(f"unknown peer {unknown[0]!r}", hint=did_you_mean(unknown[0], self._index))
        return items

    @staticmethod
    def _tick_count(n: Any) -> int:
        if int(n) != n or n < 0:
            raise InputError(f"tick count must be a non-negative integer, got {n!r}")
        return int(n)

    def scores(self, topic: str, peers: Sequence[str] | None = None) -> np.ndarray:
        raise NotImplementedError

    def score(self, peer: str, topic: str) -> float:
        """``peer``'s score on ``topic`` (see :meth:`scores`)."""
        return float(self.scores(topic, [peer])[0])

    def route(self, topic: str, candidates: Sequence[str]) -> str:
        """The candidate with the highest score on ``topic``; ties go to the earlier candidate."""
        candidates = list(candidates)
        if not candidates:
            raise InputError("route needs at least one candidate")
        return candidates[int(np.argmax(self.scores(topic, candidates)))]

    def trust_table(self) -> dict[str, dict[str, float]]:
        """``{peer: {topic: score}}`` over the known topics."""
        table: dict[str, dict[str, float]] = {p: {} for p in self._peers}
        for tp in self._topics:
            for p, s in zip(self._peers, self.scores(tp)):
                table[p][tp] = float(s)
        return table
