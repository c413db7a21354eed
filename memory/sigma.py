"""Σ-Mem: a reliability memory that learns which NPCs prove trustworthy, per topic.

Every NPC (a *peer*) ``p`` owns a symmetric ``r × r`` matrix ``M_p``; a claim's
topic maps to a unit vector ``φ(topic)`` in ``R^r`` and the peer's reliability
score on that topic is the quadratic form ``s_p = φᵀ M_p φ``. Related topics
(close ``φ``) share evidence; orthogonal topics do not.

Memory is written **only from verified outcomes** (``Verification`` events: the
ground truth was observed). One :meth:`SigmaMem.write` call is one event, one
time step:

* every peer decays, ``M_p ← γ M_p``; each peer judged on the event also gets
  ``M_p += η c_p φφᵀ`` with its correctness ``c_p ∈ [-1, 1]`` (+1 right, -1 wrong);
* a peer-relation accumulator ``S`` (P × P) learns who is right or wrong
  *together*: ``S ← γ_G S + η_G q qᵀ`` where ``q`` holds, for the judged peers,
  their correctness centred (zeros for the others):

  - 3 or more judged peers: ``q = c − mean(c)`` over the judged peers (then, with
    ``decay="event"``, ``S·1 = 0`` holds exactly, in exact arithmetic);
  - exactly 2 judged peers: centring by the event mean would make ``q`` a
    multiple of ``(1, −1)`` whatever happened, so each peer is centred by its
    own running mean of correctness instead (an exponentially weighted mean of
    its past judgements, forgetting ``γ_G``, taken *before* this event). ``S``
    stays PSD but ``S·1 = 0`` no longer holds;
  - 1 judged peer: no relation information, ``S`` only decays.

  ``G = D^{-1/2} S D^{-1/2}`` with ``D = diag(S)`` is the peers' correlation
  matrix (symmetric PSD, unit diagonal, ``|G_ij| ≤ 1``); a peer with a zero
  diagonal entry is uncorrelated with everyone (its row of ``G`` is the identity's).
* :meth:`SigmaMem.tick` is an event without feedback: everything only decays.

That is ``decay="event"`` (the analysed model, the library default). ``decay="judged"``
decays only the peers an event judges (the others by ``gamma_idle``); ``decay="topic"``
(the game's setting) decays a judged peer only along the event's ``φ``
(``M_p ← D M_p D``, ``D = I − (1 − √γ) φφᵀ``, so ``φᵀ M_p φ`` shrinks by ``γ`` and
evidence on orthogonal topics is kept) and every peer by ``gamma_idle``. In both, ``S``
decays as ``S ← D_S S D_S`` with ``D_S = diag(√f)``, ``f_p = γ_G`` for a judged peer and
``gamma_idle`` for the others: ``S_ij`` shrinks by ``√(f_i f_j)`` (between a judged and an
idle peer, the geometric mean of their rates).

**Invariant.** ``S`` is positive semidefinite (PSD) after every write, tick and load, for
every decay rule, every φ mode and every ``γ``, ``η``, ``γ_G``, ``η_G``, ``gamma_idle`` the
config allows, and so are ``G`` and the posterior's prior covariance ``G + εI``. It holds by
construction: each step is a congruence ``D S Dᵀ`` with a diagonal ``D ≥ 0`` (it maps the PSD
cone into itself), followed by adding ``η_G q qᵀ`` with ``η_G > 0`` (a PSD rank-one term); ``G``
is the congruence of ``S`` by ``D^{-1/2}`` on the peers with evidence, the identity elsewhere.
A decay that shrinks entries by a factor matrix ``W`` (``S ← W ∘ S``) keeps the cone only when
``W`` is PSD, which "judged peers by γ_G, every other entry by 1" is not. Pure decay never
changes ``G`` (a diagonal congruence cancels in ``D^{-1/2} S D^{-1/2}``); only evidence does.
States saved before this form load with ``S`` projected onto the cone
(:func:`memory.sigma_state.nearest_psd`). ``M_p`` is symmetric but signed (wrong answers
subtract), so it is not PSD and nothing claims it is.

Facts (Theorem 1, for aligned events ``φ`` fixed and ``E[c] = μ``, i.i.d.):
``E[φᵀ M_T φ] = η μ (1 − γ^T)/(1 − γ)`` and
``sd[φᵀ M_T φ] = η √((1 − μ²)(1 − γ^{2T})/(1 − γ²))``; ``‖M_p‖₂ ≤ η(1 − γ^t)/(1 − γ)``.
With the default ``η = 1 − γ`` the score is an exponentially weighted estimate
of ``E[c] = 2·P(correct) − 1``, and ``artanh`` of it is half the log-odds of being right.

Reads never change state:

* :meth:`~SigmaMem.score`, :meth:`~SigmaMem.scores`, :meth:`~SigmaMem.trust_table`;
* :meth:`~SigmaMem.route` (M-Route): the candidate with the highest score;
* :meth:`~SigmaMem.vote` (M-Vote): a reliability-weighted vote, weight
  ``w_p = max(0, artanh(clip(s_p (1 − γ)/η, ±0.99)))`` (log-odds of a binary
  symmetric channel); when every weight is 0 the top-scored claimant's answer
  (``fallback="route"``, the default; a plain majority if all scores are equal) or,
  with ``fallback="majority"``, a plain majority;
* :meth:`~SigmaMem.posterior`: combines a current judgement ``z`` (e.g. an LLM
  judge's per-peer verdicts ``U_p ∈ [-1, 1]``) with the prior mean ``m = s`` and
  prior covariance ``Σ₀ = G + εI``:
  ``θ̂ = (w_g Σ₀⁻¹ + w_u I)⁻¹ (w_g Σ₀⁻¹ m + w_u z)``;
* :meth:`~SigmaMem.select`: M-Vote on the posterior reliabilities ``θ̂`` (see there).

``φ`` comes from one-hot topics (``phi="onehot"``, the topics registered
up front, ``r`` = their number), from a fixed, seeded Gaussian projection of
a topic embedding to ``r`` dimensions, normalised (``phi="projection"``, the
library default), or from declared topics plus transfer (``phi="topics"``, the
game's: declared topics get exactly orthogonal basis vectors, ``r`` = their number
plus ``spare``; an unseen topic mixes the declared topics it resembles by name with
its own direction in the spare dimensions, see :mod:`memory.sigma_topics`). The
embedder defaults to the deterministic :class:`~memory.embedder.HashEmbedder`, so
nothing needs a model; ``embedder="minilm"`` makes related names share evidence.
With many topics use ``phi="topics"``: random projections of 12 topics to r = 16
overlap (``Σ_j cos²`` ≈ 0.65 per topic) and blur one topic's evidence into the others.
With ``shared = ρ > 0`` (topics mode; the game's 0.5) every topic also leans on one dimension
all topics share, ``φ = √(1 − ρ) φ₀ + √ρ e_g``: a score pools the topic's own evidence with the
NPC's record on every topic. :meth:`~SigmaMem.topic_scores` reads the topic's own evidence alone
(what the memory would score without ``e_g``); M-Vote uses it with ``vote_evidence="topic"``.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, Literal

import numpy as np

from game.core.errors import InputError, did_you_mean
from game.core.seeds import basis_rng
from memory.peers import PeerMemory, check_peer_id, fallback_choice, log_odds_weight, outcome_value, weighted_choice
from memory.sigma_config import SigmaConfig, make_config
from memory.sigma_state import STATE_VERSION, build, restore, state_of
from memory.sigma_topics import TopicSpace, decay_along

# the config and the helpers shared with the beta baseline live in memory.sigma_config and
# memory.peers; they are importable from here too
__all__ = [
    "STATE_VERSION",
    "PeerMemory",
    "SigmaConfig",
    "SigmaMem",
    "check_peer_id",
    "log_odds_weight",
    "make_config",
    "outcome_value",
    "weighted_choice",
]

_TINY = 1e-250  # a diagonal entry of S at or below this counts as zero (no relation evidence yet)


class SigmaMem(PeerMemory):
    """Reliability memory over peers (NPC ids) and topics; see the module docstring.

    ``SigmaMem(peers=(), topics=(), config=None, *, embedder=None, **overrides)``:
    ``peers`` fixes the initial peer order (more are added on first write, or with
    :meth:`add_peer`); ``topics`` registers the one-hot topics (required for
    ``phi="onehot"``), the declared topics of ``phi="topics"`` (their order fixes their
    basis vectors), or pre-registers topics in projection mode; ``embedder``
    is any object with ``.embed(texts)`` or ``__call__(texts)`` returning an
    ``(n, d)`` array (it overrides ``config.embedder``), or a name ("hash", "minilm")
    that sets ``config.embedder``. Keyword overrides set
    config fields, e.g. ``SigmaMem(["ann", "bo"], gamma=0.9)``.
    """

    def __init__(
        self,
        peers: Iterable[str] = (),
        topics: Iterable[str] = (),
        config: SigmaConfig | Mapping[str, Any] | None = None,
        *,
        embedder: Any = None,
        **overrides: Any,
    ):
        if isinstance(embedder, str):  # a name is the config field ("hash" / "minilm"), not an object
            overrides["embedder"], embedder = embedder, None
        cfg = make_config(config, **overrides)
        kind = getattr(embedder, "name", None)
        if cfg.phi == "topics" and kind in ("hash", "minilm") and kind != cfg.embedder:
            cfg = cfg.model_copy(update={"embedder": kind})  # so from_state rebuilds the same φ
        topics = list(topics)
        for tp in topics:
            if not isinstance(tp, str):
                raise InputError(f"topics must be strings, got {tp!r}")
        if len(set(topics)) != len(topics):
            raise InputError(f"duplicate topics in {topics!r}")
        if cfg.phi == "onehot":
            if not topics:
                raise InputError(
                    "one-hot φ needs the topics registered up front", hint="SigmaMem(peers, topics=[...], phi='onehot')"
                )
            cfg = cfg.model_copy(update={"r": len(topics)})
        elif cfg.phi == "topics":
            if len(topics) + cfg.spare < 1:
                raise InputError("topic φ needs declared topics or spare dimensions (r would be 0)")
            cfg = cfg.model_copy(update={"r": len(topics) + cfg.spare + (cfg.shared > 0)})
        self._cfg = cfg
        self._gamma, self._eta, self._gamma_g, self._eta_g = cfg.rates()
        self._embedder = embedder
        self._embedder_name = (
            getattr(embedder, "name", type(embedder).__name__) if embedder is not None else cfg.embedder
        )
        self._proj: np.ndarray | None = None
        self._phi_cache: dict[str, np.ndarray] = {}
        self._topics: list[str] = []
        self._topic_set: set[str] = set()
        self._onehot_index: dict[str, int] = {}
        temp = cfg.transfer_temp or (0.1 if self._embedder_name == "minilm" else 1.0)
        self._space = (
            TopicSpace(topics, cfg.spare, cfg.transfer, temp, cfg.seed, self._embed, cfg.transfer_pool, cfg.shared)
            if cfg.phi == "topics"
            else None
        )
        r = cfg.r
        self._peers: list[str] = []
        self._index: dict[str, int] = {}
        self._M = np.zeros((0, r, r))
        self._S = np.zeros((0, 0))
        self._c_num = np.zeros(0)
        self._c_den = np.zeros(0)
        self._t = 0
        if cfg.phi == "onehot":
            self._onehot_index = {tp: k for k, tp in enumerate(topics)}
        for tp in topics:
            self._know_topic(tp)
        self._add_peers(peers)

    def _add_peers(self, peers: Iterable[str]) -> None:
        """Register the initial peers with one allocation (one ``add_peer`` each copies S: cubic)."""
        fresh = list(dict.fromkeys(p for p in map(check_peer_id, peers) if p not in self._index))
        if not fresh:
            return
        n, k, r = len(self._peers), len(fresh), self._cfg.r
        self._M = np.concatenate([self._M, np.zeros((k, r, r))], axis=0)
        S = np.zeros((n + k, n + k))
        S[:n, :n] = self._S
        self._S = S
        self._c_num = np.concatenate([self._c_num, np.zeros(k)])
        self._c_den = np.concatenate([self._c_den, np.zeros(k)])
        for i, peer in enumerate(fresh, n):
            self._peers.append(peer)
            self._index[peer] = i

    # ------------------------------------------------------------------ basics

    @classmethod
    def for_world(
        cls,
        peers: Iterable[str] = (),
        topics: Iterable[str] = (),
        *,
        decay: str = "topic",
        gamma: float = 0.9,
        shared: float = 0.5,
        embedder: Any = None,
        **overrides: Any,
    ) -> SigmaMem:
        """The game's Σ-Mem: ``phi="topics"`` over the world's declared ``topics`` (sorted, so the
        basis does not depend on the order they were listed in), so declared topics never blur
        however many there are (``r`` = their number + ``spare``, chosen automatically), and a
        topic the world does not declare still gets a credibility, transferred from the declared
        topics it resembles (see :mod:`memory.sigma_topics`; pass the game's sentence embedder as
        ``embedder`` for transfer by meaning, the default hash embedder sees shared words only).
        ``decay="topic"``: an NPC's trust on a topic fades only as it is judged on that topic, so
        it does not thin out when an NPC is judged across many topics (``decay="judged"`` fades
        all of an NPC's topics whenever it is judged). ``shared = 0.5``: every topic's φ leans on one
        dimension all topics share, so a score is partial pooling, about ``0.75`` of the evidence on the
        topic plus ``0.25`` of the NPC's record on every topic (``shared=0``: declared topics fully apart,
        scores those of per-(NPC, topic) decayed counts); ``γ = 0.9``. Both chosen on the trust
        benchmark's tune seeds (``benchmarks/trust_settings.py``, docs/design/sigma-mem.md): the least
        pooling that beats a tuned per-(NPC, topic) beta by 0.02 AUROC where honesty carries across
        topics and flags sleepers as fast. M-Vote (``vote_evidence="topic"``) weighs claimants by their
        evidence on the claim's topic alone: where colluders are drawn per topic, pooling costs votes 3-4
        points against a per-(NPC, topic) beta, and the topic's own evidence ties or beats it. With no declared topics every topic is unseen and lives in the
        ``spare`` dimensions (a seeded projection of its name). Keyword overrides set config fields."""
        overrides.setdefault("vote_evidence", "topic")
        return cls(
            peers,
            sorted(set(topics)),
            phi="topics",
            decay=decay,
            gamma=gamma,
            shared=shared,
            embedder=embedder,
            **overrides,
        )

    @property
    def declared(self) -> list[str]:
        """The declared topics of ``phi="topics"`` (their basis order); empty in other modes."""
        return list(self._space.declared) if self._space is not None else []

    @property
    def config(self) -> SigmaConfig:
        return self._cfg

    @property
    def r(self) -> int:
        return self._cfg.r

    def add_peer(self, peer: str) -> int:
        """Register ``peer`` (idempotent); returns its index. A new peer starts with M = 0 and no relations."""
        peer = check_peer_id(peer)
        idx = self._index.get(peer)
        if idx is not None:
            return idx
        r = self._cfg.r
        n = len(self._peers)
        self._M = np.concatenate([self._M, np.zeros((1, r, r))], axis=0)
        S = np.zeros((n + 1, n + 1))
        S[:n, :n] = self._S
        self._S = S
        self._c_num = np.append(self._c_num, 0.0)
        self._c_den = np.append(self._c_den, 0.0)
        self._peers.append(peer)
        self._index[peer] = n
        return n

    def _know_topic(self, topic: str) -> None:
        if topic not in self._topic_set:
            self.phi(topic)  # validates (one-hot) and caches
            self._topics.append(topic)
            self._topic_set.add(topic)

    # ------------------------------------------------------------------ φ

    def _embed(self, texts: list[str]) -> np.ndarray:
        if self._embedder is None:
            if self._cfg.embedder == "hash":
                from memory.embedder import HashEmbedder

                self._embedder = HashEmbedder()
            else:
                from memory.embedder import get_embedder

                self._embedder = get_embedder(self._cfg.embedder)
        fn = getattr(self._embedder, "embed", None) or self._embedder
        out = np.asarray(fn(texts), dtype=np.float64)
        if out.ndim != 2 or out.shape[0] != len(texts):
            raise InputError(f"topic embedder returned shape {out.shape} for {len(texts)} text(s); expected (n, dim)")
        return out

    def phi(self, topic: str) -> np.ndarray:
        """The unit vector ``φ(topic)`` (a copy; cached per topic, never part of the state)."""
        cached = self._phi_cache.get(topic)
        if cached is not None:
            return cached.copy()
        if not isinstance(topic, str):
            raise InputError(f"a topic must be a string, got {topic!r}")
        r = self._cfg.r
        if self._space is not None:
            vec = self._space.vector(topic)
        elif self._cfg.phi == "onehot":
            k = self._onehot_index.get(topic)
            if k is None:
                raise InputError(
                    f"unknown topic {topic!r} for one-hot φ",
                    hint=did_you_mean(topic, self._onehot_index)
                    or f"registered topics: {', '.join(self._onehot_index)}",
                )
            vec = np.zeros(r)
            vec[k] = 1.0
        else:
            e = self._embed([topic])[0]
            if self._proj is None or self._proj.shape[1] != e.shape[0]:
                rng = basis_rng(self._cfg.seed)  # the same basis as memory.sigma_topics
                self._proj = rng.standard_normal((r, e.shape[0]))
            vec = self._proj @ e
            norm = float(np.linalg.norm(vec))
            if not math.isfinite(norm) or norm == 0.0:
                raise InputError(f"topic {topic!r} projects to a zero vector; cannot build φ")
            vec = vec / norm
        vec.setflags(write=False)
        self._phi_cache[topic] = vec
        return vec.copy()

    # ------------------------------------------------------------------ writes

    def _own_arrays(self) -> None:
        """Copy the arrays a snapshot shares (``memory.sigma_state.native_arrays`` made them
        read-only) before they change: a snapshot costs nothing until the next write."""
        for name in ("_M", "_S", "_c_num", "_c_den"):
            a = getattr(self, name)
            if not a.flags.writeable:
                setattr(self, name, a.copy())

    def write(self, topic: str, outcomes: Mapping[str, Any]) -> None:
        """One verified event on ``topic``: ``outcomes`` maps each judged peer to +1 (right) / -1 (wrong).

        Every peer decays by γ (S by γ_G); judged peers learn ``η c φφᵀ``; S learns
        ``η_G q qᵀ`` (see the module docstring for ``q``). An empty ``outcomes`` is a :meth:`tick`.
        """
        items = self._outcomes(topic, outcomes, self._cfg.allow_new_peers)
        phi = self.phi(topic)  # validate before touching any state
        self._know_topic(topic)
        idx = np.array([self.add_peer(p) for p, _ in items], dtype=np.intp)
        c = np.array([v for _, v in items], dtype=np.float64)
        self._decay(idx, phi)
        if idx.size:
            outer = phi[:, None] * phi[None, :]  # exactly symmetric
            self._M[idx] += (self._eta * c)[:, None, None] * outer
            den = self._c_den[idx]
            running = np.divide(self._c_num[idx], den, out=np.zeros_like(den), where=den > 0)
            if idx.size >= 3:
                q = c - c.mean()
            elif idx.size == 2:
                q = c - running
            else:
                q = None
            if q is not None:
                self._S[np.ix_(idx, idx)] += self._eta_g * (q[:, None] * q[None, :])
            self._c_num[idx] = self._gamma_g * self._c_num[idx] + c
            self._c_den[idx] = self._gamma_g * self._c_den[idx] + 1.0

    def tick(self, n: int = 1) -> None:
        """``n`` events without feedback: everything only decays."""
        for _ in range(self._tick_count(n)):
            self._decay()

    def _decay(self, judged: np.ndarray | None = None, phi: np.ndarray | None = None) -> None:
        """One event's forgetting, every part a congruence (so S stays PSD; see the module docstring).
        ``decay = "event"``: every peer by γ (S by γ_G). ``"judged"``: the peers in ``judged`` by γ,
        every other peer by ``gamma_idle``; a tick (``judged`` None) judges nobody. ``"topic"``:
        every M by ``gamma_idle``, then the judged peers' M along ``phi`` by γ. In both, S becomes
        ``D S D`` with ``D = diag(√f)``, ``f_p = γ_G`` for a judged peer and ``gamma_idle`` for the
        others: ``S_ij`` shrinks by ``√(f_i f_j)``."""
        self._own_arrays()  # every change of the arrays starts here (``write`` and ``tick``)
        if self._cfg.decay == "event":
            self._M *= self._gamma
            self._S *= self._gamma_g
            self._t += 1
            return
        idle = self._cfg.gamma_idle
        mine = np.zeros(self._M.shape[0], dtype=bool)
        if judged is not None and judged.size:
            mine[judged] = True
        if self._cfg.decay == "topic":
            if idle != 1.0:
                self._M *= idle
            if mine.any() and phi is not None:
                self._M[judged] = self._decay_topic(self._M[judged], phi)
        elif idle == 1.0 and mine.any():  # only the judged peers change (x * 1.0 is x)
            self._M[mine] *= self._gamma
        elif idle != 1.0 or mine.any():
            self._M *= np.where(mine, self._gamma, idle)[:, None, None]
        if idle == 1.0 and mine.any():
            self._scale_judged(np.flatnonzero(mine))
        elif idle != 1.0 or mine.any():
            d = np.sqrt(np.where(mine, self._gamma_g, idle))
            self._S *= d[:, None] * d[None, :]  # D S D, D = diag(d); the factor matrix is exactly symmetric
        self._t += 1

    def _scale_judged(self, rows: np.ndarray) -> None:
        """``S ← D S D`` when only the peers ``rows`` decay (``D`` is 1 elsewhere): the nonzero
        entries of their rows and columns, in O(judged × peers) rather than O(peers²), and never
        writing to the zeros of NPCs no relation evidence links (a large S stays mostly unwritten
        memory). Each entry gets the same product ``S_ij (d_i d_j)`` as the dense form (a zero stays
        the same zero), so the result is bit-identical."""
        d = np.ones(self._S.shape[0])
        d[rows] = math.sqrt(self._gamma_g)
        mine = d[rows]
        across, down = self._S[rows, :], self._S[:, rows]
        cols = np.flatnonzero(np.any(across != 0.0, axis=0))
        live = np.flatnonzero(np.any(down != 0.0, axis=1))
        self._S[np.ix_(live, rows)] = down[live] * (d[live, None] * mine[None, :])
        self._S[np.ix_(rows, cols)] = across[:, cols] * (mine[:, None] * d[None, cols])

    def _decay_topic(self, M: np.ndarray, phi: np.ndarray) -> np.ndarray:
        """``decay="topic"`` for the judged peers' stack ``M``: along ``φ``; with ``shared = ρ > 0``
        along the topic's own direction and along ``e_g`` separately (``D = I − (1 − √γ)(uuᵀ + e_g e_gᵀ)``,
        ``u`` the unit own part of ``φ``, orthogonal to ``e_g``), so ``φᵀMφ`` still shrinks by ``γ`` and
        the NPC's shared record forgets by ``γ`` per judgement, as its own on the topic does."""
        if self._space is None or self._space.shared <= 0:
            return decay_along(M, phi, self._gamma)
        own = phi.copy()
        own[-1] = 0.0
        own /= np.linalg.norm(own)
        e_g = np.zeros_like(phi)
        e_g[-1] = 1.0
        return decay_along(decay_along(M, own, self._gamma), e_g, self._gamma)

    # ------------------------------------------------------------------ reads

    def _rows(self, peers: Sequence[str]) -> np.ndarray:
        """Index of each peer, -1 for unknown ones."""
        return np.array([self._index.get(p, -1) for p in peers], dtype=np.intp)

    def scores(self, topic: str, peers: Sequence[str] | None = None) -> np.ndarray:
        """``s_p = φᵀ M_p φ`` for ``peers`` (default all), in that order; unknown peers score 0."""
        peers = self._peers if peers is None else list(peers)
        phi = self.phi(topic)
        rows = self._rows(peers)
        out = np.zeros(len(peers))
        known = rows >= 0
        if known.any():
            out[known] = np.einsum("i,pij,j->p", phi, self._M[rows[known]], phi)
        return out

    def normalised(self, s: np.ndarray | float) -> np.ndarray:
        """``s (1 − γ)/η``: a score on the scale of ``E[c] ∈ [-1, 1]`` (the identity with default η)."""
        return np.asarray(s, dtype=np.float64) * (1.0 - self._gamma) / self._eta

    def weights(self, topic: str, peers: Sequence[str] | None = None) -> dict[str, float]:
        """M-Vote weights ``max(0, artanh(clip(s_p (1 − γ)/η, ±clip)))`` per peer."""
        peers = self._peers if peers is None else list(peers)
        w = log_odds_weight(self.normalised(self.scores(topic, peers)), self._cfg.clip)
        return {p: float(x) for p, x in zip(peers, w)}

    def vote(
        self, topic: str, claims: Mapping[str, Hashable], *, fallback: Literal["majority", "route"] = "route"
    ) -> Hashable:
        """M-Vote: the answer with the largest total weight (see :meth:`weights`).

        Ties go to the answer claimed first (``claims`` order). When every weight
        is 0 (no claimant has a positive score) it is, with ``fallback="route"`` (the
        default), the answer of the top-scored claimant (M-Route; a plain majority only
        if all their scores are equal, i.e. nothing tells them apart) — safer when a
        colluding majority may be lying; ``fallback="majority"`` makes it a plain majority.
        """
        peers = list(claims)
        if not peers:
            raise InputError("vote needs at least one claim")
        rel = self.topic_scores(topic, peers) if self._cfg.vote_evidence == "topic" else self.scores(topic, peers)
        return self._decide(claims, peers, rel, fallback)

    def trust_table(self) -> dict[str, dict[str, float]]:
        """``{peer: {topic: topic score}}`` over the known topics: what was verified on each topic
        (:meth:`topic_scores`; the scores themselves when ``shared = 0``), so a topic nobody was judged
        on does not read as "caught lying" because the NPC lied elsewhere. :meth:`score` pools."""
        table: dict[str, dict[str, float]] = {p: {} for p in self._peers}
        for tp in self._topics:
            for p, s in zip(self._peers, self.topic_scores(tp)):
                table[p][tp] = float(s)
        return table

    def topic_scores(self, topic: str, peers: Sequence[str] | None = None) -> np.ndarray:
        """The scores on ``topic``'s own evidence, without the part every topic shares: ``uᵀ M_p u / (1 − ρ)``
        with ``u`` the unit own part of ``φ`` (:meth:`scores` when ``shared = 0``). With decay along the
        judged topic these are the per-(NPC, topic) decayed counts on a declared topic."""
        if self._space is None or self._space.shared <= 0:
            return self.scores(topic, peers)
        peers = self._peers if peers is None else list(peers)
        own = self.phi(topic)
        own[-1] = 0.0
        own /= np.linalg.norm(own)
        rows = self._rows(peers)
        out = np.zeros(len(peers))
        known = rows >= 0
        if known.any():
            out[known] = np.einsum("i,pij,j->p", own, self._M[rows[known]], own) / (1.0 - self._space.shared)
        return out

    def _decide(self, claims: Mapping[str, Hashable], peers: list[str], rel: np.ndarray, fallback: str) -> Hashable:
        w = log_odds_weight(self.normalised(rel), self._cfg.clip)
        return fallback_choice([claims[p] for p in peers], w, rel, fallback)

    def G(self, peers: Sequence[str] | None = None) -> np.ndarray:
        """Peer correlation ``D^{-1/2} S D^{-1/2}`` (``D = diag S``) over ``peers`` (default all).

        Symmetric PSD, unit diagonal, entries in [-1, 1]; a peer with no relation
        evidence (or unknown) is uncorrelated with everyone.
        """
        peers = self._peers if peers is None else list(peers)
        rows = self._rows(peers)
        n = len(peers)
        G = np.zeros((n, n))
        known = np.flatnonzero(rows >= 0)
        if known.size:
            sub = self._S[np.ix_(rows[known], rows[known])]
            d = np.diag(sub).copy()
            ok = d > _TINY
            inv = np.zeros_like(d)
            inv[ok] = 1.0 / np.sqrt(d[ok])
            g = sub * (inv[:, None] * inv[None, :])  # exactly symmetric
            g[~ok, :] = 0.0
            g[:, ~ok] = 0.0
            G[np.ix_(known, known)] = np.clip(g, -1.0, 1.0)
        np.fill_diagonal(G, 1.0)
        return G

    def S(self) -> np.ndarray:
        """A copy of the relation accumulator ``S`` (peers in :attr:`peers` order)."""
        return self._S.copy()

    def M(self, peer: str) -> np.ndarray:
        """A copy of ``M_p`` (zeros for an unknown peer)."""
        idx = self._index.get(peer)
        return np.zeros((self.r, self.r)) if idx is None else self._M[idx].copy()

    def posterior(
        self,
        topic: str,
        peers: Sequence[str] | None = None,
        z: Sequence[float] | Mapping[str, float] | None = None,
        w_g: float = 1.0,
        w_u: float = 1.0,
        eps: float | None = None,
    ) -> np.ndarray:
        """Posterior reliabilities ``θ̂`` of ``peers`` (default all) on ``topic``, in that order.

        Prior mean ``m = s`` (the scores), prior covariance ``Σ₀ = G + εI``; current
        judgement ``z`` (per-peer ``U_p ∈ [-1, 1]``, a sequence aligned with ``peers``
        or a mapping peer → U_p; peers missing from a mapping get ``U_p = m_p``).
        ``θ̂ = (w_g Σ₀⁻¹ + w_u I)⁻¹ (w_g Σ₀⁻¹ m + w_u z)``, computed as the solution of
        ``(w_g I + w_u Σ₀) θ̂ = w_g m + w_u Σ₀ z``. With ``z`` None it is ``m``.
        """
        peers = self._peers if peers is None else list(peers)
        m = self.scores(topic, peers)
        if z is None:
            return m
        if isinstance(z, Mapping):
            zz = np.array([outcome_value(p, z[p]) if p in z else m[i] for i, p in enumerate(peers)])
        else:
            zz = np.asarray(list(z), dtype=np.float64)
            if zz.shape != (len(peers),) or not np.all(np.isfinite(zz)):
                raise InputError(f"z must hold one finite judgement per peer ({len(peers)}), got {list(z)!r}")
        if w_g < 0 or w_u < 0 or w_g + w_u == 0:
            raise InputError(f"posterior weights must be >= 0 and not both 0, got w_g={w_g!r}, w_u={w_u!r}")
        eps = self._cfg.eps if eps is None else float(eps)
        if eps <= 0:
            raise InputError(f"eps must be > 0, got {eps!r}")
        sigma0 = self.G(peers) + eps * np.eye(len(peers))
        A = w_g * np.eye(len(peers)) + w_u * sigma0
        return np.linalg.solve(A, w_g * m + w_u * (sigma0 @ zz))

    def select(
        self,
        topic: str,
        claims: Mapping[str, Hashable],
        z: Sequence[float] | Mapping[str, float] | None = None,
        w_g: float = 1.0,
        w_u: float = 1.0,
        *,
        fallback: Literal["majority", "route"] = "route",
    ) -> Hashable:
        """Posterior selection: M-Vote with the posterior reliabilities in place of the scores.

        Each peer's weight is ``max(0, artanh(clip(θ̂_p (1 − γ)/η, ±clip)))`` with
        ``θ̂ = posterior(topic, claims' peers, z)``; the answer with the largest total
        weight wins (ties: first claimed); all weights 0 → the answer of the peer with the
        highest ``θ̂`` (``fallback="route"``; majority if all are equal) or, with
        ``fallback="majority"``, a plain majority. With
        ``z`` None it equals :meth:`vote`. ``z`` is aligned with the claims' order, or a
        mapping; a calibrated judge reports ``U_p = E[c_p | verdict]`` (e.g. ±0.4 for a
        judge right 70 % of the time), not a hard ±1.
        """
        peers = list(claims)
        if not peers:
            raise InputError("select needs at least one claim")
        theta = self.posterior(topic, peers, z=z, w_g=w_g, w_u=w_u)
        return self._decide(claims, peers, theta, fallback)

    # ------------------------------------------------------------------ state

    def get_state(self) -> dict[str, Any]:
        """JSON-serialisable state (plain lists and floats); :meth:`set_state` restores it exactly."""
        return state_of(self)

    def set_state(self, state: Mapping[str, Any]) -> None:
        """Restore a :meth:`get_state` snapshot taken with the same config (else an InputError; see
        :mod:`memory.sigma_state` for older states and one-hot states loaded into topics mode)."""
        restore(self, state)

    @classmethod
    def from_state(cls, state: Mapping[str, Any], *, embedder: Any = None) -> SigmaMem:
        """A new memory built from a :meth:`get_state` snapshot (its config included)."""
        return build(cls, state, embedder)

    def __repr__(self) -> str:
        return (
            f"SigmaMem(peers={len(self._peers)}, topics={len(self._topics)}, r={self.r}, "
            f"phi={self._cfg.phi!r}, t={self._t})"
        )
