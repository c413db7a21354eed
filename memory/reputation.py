"""Beta reputation: the classic baseline for Σ-Mem (decayed success / failure counts).

For each key — ``(peer, topic)``, or the peer alone when ``topic_aware=False`` —
it keeps a success count ``α`` and a failure count ``β``. One :meth:`write` is
one event: every count of every peer decays by the forgetting factor ``λ``
(default 0.95, Σ-Mem's γ), then each judged peer adds ``(1 + c)/2`` to ``α`` and
``(1 − c)/2`` to ``β`` (for ``c = ±1``: one success or one failure). The expected
trust is the Beta(α + a, β + a) mean ``(α + a)/(α + β + 2a)`` with prior strength ``a``
(``prior``, default 1: the uniform prior). ``λ = 1`` is the undecayed beta reputation system.

With one-hot topics and ``λ = γ`` this is exactly Σ-Mem's diagonal:
``M_p[k, k] = η (α_{p,k} − β_{p,k})``.

Same read interface as :class:`~memory.sigma.SigmaMem` where it makes sense:
``score`` (= expected trust, in (0, 1)), ``scores``, ``route``, ``weights`` (the
log-odds of the expected trust, floored at 0), ``vote``, ``trust_table``,
``get_state`` / ``set_state``. Reads never change state; unknown peers and
topics read as the prior (trust 0.5).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from game.core.errors import InputError
from memory.peers import PeerMemory, check_peer_id, fallback_choice

STATE_VERSION = 1
_ANY = "*"  # the one column of a topic-blind reputation


class BetaReputation(PeerMemory):
    """Decayed beta reputation per (peer, topic) or per peer.

    ``BetaReputation(peers=(), topics=(), *, lam=0.95, topic_aware=True, allow_new_peers=True, prior=1.0)``.
    """

    def __init__(
        self,
        peers: Iterable[str] = (),
        topics: Iterable[str] = (),
        *,
        lam: float = 0.95,
        topic_aware: bool = True,
        allow_new_peers: bool = True,
        prior: float = 1.0,
    ):
        lam, prior = float(lam), float(prior)
        if not (0.0 < lam <= 1.0) or not math.isfinite(lam):
            raise InputError(f"forgetting factor lam must be in (0, 1], got {lam!r}")
        if not (prior > 0.0) or not math.isfinite(prior):
            raise InputError(f"prior strength must be a positive number, got {prior!r}")
        self.lam = lam
        self.prior = prior
        self.topic_aware = bool(topic_aware)
        self.allow_new_peers = bool(allow_new_peers)
        self._peers: list[str] = []
        self._index: dict[str, int] = {}
        self._topics: list[str] = []
        self._tindex: dict[str, int] = {}
        self._alpha = np.zeros((0, 0 if topic_aware else 1))
        self._beta = np.zeros_like(self._alpha)
        self._t = 0
        for tp in topics:
            self._add_topic(tp)
        for p in peers:
            self.add_peer(p)

    # ------------------------------------------------------------------ keys

    def add_peer(self, peer: str) -> int:
        peer = check_peer_id(peer)
        idx = self._index.get(peer)
        if idx is not None:
            return idx
        row = np.zeros((1, self._alpha.shape[1]))
        self._alpha = np.concatenate([self._alpha, row], axis=0)
        self._beta = np.concatenate([self._beta, row], axis=0)
        self._peers.append(peer)
        self._index[peer] = len(self._peers) - 1
        return self._index[peer]

    def _add_topic(self, topic: str) -> None:
        if not isinstance(topic, str):
            raise InputError(f"a topic must be a string, got {topic!r}")
        if topic in self._tindex:
            return
        self._topics.append(topic)
        self._tindex[topic] = len(self._topics) - 1
        if self.topic_aware:
            col = np.zeros((self._alpha.shape[0], 1))
            self._alpha = np.concatenate([self._alpha, col], axis=1)
            self._beta = np.concatenate([self._beta, col], axis=1)

    def _col(self, topic: str) -> int:
        """Column of ``topic`` (-1 when topic-aware and the topic is unknown)."""
        if not self.topic_aware:
            return 0
        return self._tindex.get(topic, -1)

    # ------------------------------------------------------------------ writes

    def write(self, topic: str, outcomes: Mapping[str, Any]) -> None:
        """One verified event: all counts decay by λ, then judged peers add a success (+1) or a failure (-1)."""
        items = self._outcomes(topic, outcomes, self.allow_new_peers)
        self._add_topic(topic)
        col = self._col(topic)
        idx = np.array([self.add_peer(p) for p, _ in items], dtype=np.intp)
        c = np.array([v for _, v in items], dtype=np.float64)
        self.tick()
        if idx.size:
            self._alpha[idx, col] += (1.0 + c) / 2.0
            self._beta[idx, col] += (1.0 - c) / 2.0

    def tick(self, n: int = 1) -> None:
        """``n`` events without feedback: all counts only decay."""
        for _ in range(self._tick_count(n)):
            self._alpha *= self.lam
            self._beta *= self.lam
            self._t += 1

    # ------------------------------------------------------------------ reads

    def counts(self, peer: str, topic: str) -> tuple[float, float]:
        """The decayed ``(α, β)`` of ``peer`` on ``topic`` (zeros if never judged)."""
        i, k = self._index.get(peer, -1), self._col(topic)
        if i < 0 or k < 0:
            return 0.0, 0.0
        return float(self._alpha[i, k]), float(self._beta[i, k])

    def scores(self, topic: str, peers: Sequence[str] | None = None) -> np.ndarray:
        """Expected trust ``(α + a)/(α + β + 2a)`` of each peer on ``topic`` (0.5 when never judged)."""
        peers = self._peers if peers is None else list(peers)
        out = np.full(len(peers), 0.5)
        k = self._col(topic)
        if k < 0:
            return out
        rows = np.array([self._index.get(p, -1) for p in peers], dtype=np.intp)
        known = rows >= 0
        a, b = self._alpha[rows[known], k], self._beta[rows[known], k]
        out[known] = (a + self.prior) / (a + b + 2.0 * self.prior)
        return out

    trust = PeerMemory.score

    def weights(self, topic: str, peers: Sequence[str] | None = None) -> dict[str, float]:
        """Vote weights: the log-odds of the expected trust, ``max(0, ln(t/(1 − t)))``."""
        peers = self._peers if peers is None else list(peers)
        t = self.scores(topic, peers)
        w = np.maximum(0.0, np.log(t / (1.0 - t)))
        return {p: float(x) for p, x in zip(peers, w)}

    def vote(self, topic: str, claims: Mapping[str, Hashable], *, fallback: str = "majority") -> Hashable:
        """Trust-weighted vote (log-odds weights); ties: first claimed. When every weight is 0: the plain
        majority, or with ``fallback="route"`` the top-scored claimant's answer (as Σ-Mem's M-Vote)."""
        peers = list(claims)
        if not peers:
            raise InputError("vote needs at least one claim")
        w = self.weights(topic, peers)
        return fallback_choice([claims[p] for p in peers], [w[p] for p in peers], self.scores(topic, peers), fallback)

    # ------------------------------------------------------------------ state

    def get_state(self) -> dict[str, Any]:
        return {
            "version": STATE_VERSION,
            "lam": self.lam,
            "topic_aware": self.topic_aware,
            "prior": self.prior,
            "peers": list(self._peers),
            "topics": list(self._topics),
            "t": self._t,
            "alpha": self._alpha.tolist(),
            "beta": self._beta.tolist(),
        }

    def set_state(self, state: Mapping[str, Any]) -> None:
        try:
            version = state["version"]
            lam, aware = float(state["lam"]), bool(state["topic_aware"])
            prior = float(state.get("prior", 1.0))  # states saved before the prior was a parameter: 1
            peers = [check_peer_id(p) for p in state["peers"]]
            topics = [str(tp) for tp in state["topics"]]
            t = int(state["t"])
            alpha = np.array(state["alpha"], dtype=np.float64)
            beta = np.array(state["beta"], dtype=np.float64)
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"beta reputation state is malformed: {exc!r}") from None
        if version != STATE_VERSION:
            raise InputError(f"beta reputation state version {version!r} is not supported")
        if lam != self.lam or aware != self.topic_aware or prior != self.prior:
            raise InputError(
                f"beta reputation state has lam={lam!r}, topic_aware={aware!r}, prior={prior!r}; "
                f"this one has lam={self.lam!r}, topic_aware={self.topic_aware!r}, prior={self.prior!r}"
            )
        shape = (len(peers), len(topics) if aware else 1)
        if alpha.reshape(-1).size != shape[0] * shape[1] or beta.reshape(-1).size != shape[0] * shape[1]:
            raise InputError("beta reputation state arrays do not match its peers and topics")
        self._peers = peers
        self._index = {p: i for i, p in enumerate(peers)}
        self._topics = topics
        self._tindex = {tp: k for k, tp in enumerate(topics)}
        self._t = t
        self._alpha = alpha.reshape(shape).copy()
        self._beta = beta.reshape(shape).copy()

    @classmethod
    def from_state(cls, state: Mapping[str, Any]) -> BetaReputation:
        rep = cls(lam=state["lam"], topic_aware=state["topic_aware"], prior=state.get("prior", 1.0))
        rep.set_state(state)
        return rep

    def __repr__(self) -> str:
        return (
            f"BetaReputation(peers={len(self._peers)}, topics={len(self._topics)}, lam={self.lam}, "
            f"topic_aware={self.topic_aware}, t={self._t})"
        )
