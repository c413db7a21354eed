"""Σ-Mem's topic space for ``phi="topics"``: declared topics are exactly orthogonal, unseen ones
borrow from the declared topics they resemble.

With ``k`` declared topics and ``spare`` extra dimensions, ``r = k + spare`` (one more with
``shared = ρ > 0``, see the end):

* declared topic ``i`` is the basis vector ``e_i`` (so declared topics never share evidence,
  however many there are, and on them Σ-Mem is a per-(NPC, topic) reliability);
* an unseen topic ``u`` (any other name) is
  ``φ(u) = Σ_i √(τ_u q_i) e_i + √(1 − τ_u) ρ(u)``, where ``a_i`` is the cosine similarity of
  the embeddings of ``u`` and declared topic ``i``, ``q = softmax(a / temperature)`` (uniform
  when ``u`` resembles none of them), ``τ_u = τ + (1 − τ)·max(0, max_i a_i)²`` (a near-synonym
  of a declared topic transfers almost fully) and ``ρ(u)`` is a seeded Gaussian projection of
  the embedding of ``u`` into the spare dimensions, normalised (unseen topics with similar
  names share it).

``φ(u)`` is a unit vector, and because ``ρ(u)`` is orthogonal to every ``e_i`` the score of a
never-written unseen topic is ``τ_u Σ_i q_i s_i`` (plus what unseen topics written before left
in the spare dimensions): a similarity-weighted average of the peer's scores on the declared
topics, shrunk by ``τ_u``. Writing ``u`` itself moves its score towards its own evidence
(and spills ``τ_u q_i`` of it back onto declared topic ``i``). ``φ(u)`` depends only on ``u``,
the declared topics, the embedder and the seed, never on what was written, so it is a cache,
not state.

With ``shared = ρ > 0`` every topic also leans on one dimension ``e_g`` that all topics share:
``φ = √(1 − ρ) φ₀ + √ρ e_g`` (``φ₀`` the vector above). Written with the same
``M ← M + η c φφᵀ`` and no decay, a declared topic ``k`` then scores
``(1 − ρ²) A_k + ρ² A``, ``A_k`` the evidence on ``k`` and ``A`` on every topic: partial
pooling, the NPC's whole record lending weight to a topic with little evidence of its own.
With decay along the judged φ the shared part forgets at about ``γ^ρ`` per judgement.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np

from game.core.errors import InputError
from game.core.seeds import basis_rng

Embed = Callable[[list[str]], np.ndarray]


def _unit_rows(x: np.ndarray) -> np.ndarray:
    norm = np.linalg.norm(x, axis=1, keepdims=True)
    return np.divide(x, norm, out=np.zeros_like(x), where=norm > 0)


class TopicSpace:
    """The map topic -> φ of ``phi="topics"`` (see the module docstring)."""

    def __init__(
        self,
        declared: Sequence[str],
        spare: int,
        transfer: float,
        temperature: float,
        seed: int,
        embed: Embed,
        pool: float = 0.0,
        shared: float = 0.0,
    ):
        self.declared = list(declared)
        self.index = {tp: i for i, tp in enumerate(self.declared)}
        self.k = len(self.declared)
        self.spare = int(spare)
        self.shared = float(shared)
        self.r = self.k + self.spare + (self.shared > 0)  # the last dimension, e_g, is shared by every topic
        if self.r < 1:
            raise InputError(
                "topic φ needs declared topics or spare dimensions (r would be 0)",
                hint="declare the world's topics, or set spare >= 1",
            )
        self.transfer = float(transfer)
        self.pool = float(pool)
        self.temperature = float(temperature)
        self.seed = int(seed)
        self._embed = embed
        self._declared_emb: np.ndarray | None = None
        self._proj: np.ndarray | None = None

    def _declared(self) -> np.ndarray:
        if self._declared_emb is None:
            self._declared_emb = _unit_rows(self._embed(self.declared)) if self.k else np.zeros((0, 0))
        return self._declared_emb

    def similarities(self, topic: str) -> np.ndarray:
        """Cosine similarity of ``topic``'s embedding to each declared topic's, in declared order."""
        e = _unit_rows(self._embed([topic]))[0]
        d = self._declared()
        return d @ e if self.k else np.zeros(0)

    def _residual(self, e: np.ndarray) -> np.ndarray:
        if self._proj is None or self._proj.shape[1] != e.shape[0]:
            self._proj = basis_rng(self.seed).standard_normal((self.spare, e.shape[0]))
        v = self._proj @ e
        norm = float(np.linalg.norm(v))
        return v / norm if norm > 0 and math.isfinite(norm) else np.zeros(self.spare)

    def mixture(self, topic: str) -> tuple[np.ndarray, float]:
        """``(q, τ_u)`` of an unseen topic: its weights over the declared topics and its transfer share."""
        return self._mixture(_unit_rows(self._embed([topic]))[0])

    def _mixture(self, e: np.ndarray) -> tuple[np.ndarray, float]:
        if not self.k:
            return np.zeros(0), 0.0
        a = self._declared() @ e
        z = (a - a.max()) / self.temperature
        q = np.exp(z)
        q /= q.sum()
        q = (1.0 - self.pool) * q + self.pool / self.k  # part spread evenly: the peer's pooled score
        tau = self.transfer + (1.0 - self.transfer) * max(0.0, float(a.max())) ** 2
        return q, (1.0 if self.spare == 0 else min(1.0, tau))

    def vector(self, topic: str) -> np.ndarray:
        """The unit vector φ(topic): ``√(1 − ρ) φ₀(topic) + √ρ e_g`` with ``ρ = shared`` (``φ₀`` below)."""
        own = self._own(topic)
        if self.shared <= 0:
            return own
        return np.append(math.sqrt(1.0 - self.shared) * own, math.sqrt(self.shared))

    def _own(self, topic: str) -> np.ndarray:
        """``φ₀(topic)`` over the declared and spare dimensions (the module docstring's φ)."""
        vec = np.zeros(self.k + self.spare)
        i = self.index.get(topic)
        if i is not None:
            vec[i] = 1.0
            return vec
        e = _unit_rows(self._embed([topic]))[0]
        q, tau = self._mixture(e)
        rho = self._residual(e) if self.spare else np.zeros(0)
        if not rho.any():  # no residual direction: all of φ goes to the declared topics
            tau = 1.0
        if self.k:
            vec[: self.k] = np.sqrt(tau * q)
        if self.spare:
            vec[self.k :] = math.sqrt(max(0.0, 1.0 - tau)) * rho
        norm = float(np.linalg.norm(vec))
        if not math.isfinite(norm) or norm == 0.0:
            raise InputError(f"topic {topic!r} maps to a zero vector; cannot build φ")
        return vec / norm


def decay_along(M: np.ndarray, phi: np.ndarray, gamma: float) -> np.ndarray:
    """``D M D`` with ``D = I − (1 − √γ) φφᵀ`` for each matrix of the stack ``M`` (``(n, r, r)``):
    the quadratic form along the unit vector ``φ`` is multiplied by ``γ``; directions orthogonal
    to ``φ`` keep their evidence. Symmetric (and PSD) matrices stay so (a congruence)."""
    b = 1.0 - math.sqrt(gamma)
    Mp = np.einsum("nij,j->ni", M, phi)  # M φ
    out = M - b * (Mp[:, :, None] * phi[None, None, :] + phi[None, :, None] * Mp[:, None, :])
    pMp = np.einsum("ni,i->n", Mp, phi)  # φᵀ M φ
    out += (b * b * pMp)[:, None, None] * (phi[:, None] * phi[None, :])[None]
    return 0.5 * (out + np.swapaxes(out, 1, 2))  # exactly symmetric
