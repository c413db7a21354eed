"""Saving and restoring Σ-Mem (:class:`memory.sigma.SigmaMem`): plain JSON-ready dicts.

State version 2 adds ``declared`` (the declared topics of ``phi="topics"``; empty otherwise).
Version 1 states (no ``declared``; a config without the fields added since) still load: a
missing config field takes its default. Games saved before the game used topic φ load into
the game's ``phi="topics"`` memory: a one-hot state over the same topics fills the declared
block exactly (the spare dimensions start empty); a projection state (a world without declared
topics) fits a topics memory with no declared topics and ``spare = r``, whose φ is the same
seeded projection. A state saved before ``shared`` (``ρ``, see :mod:`memory.sigma_topics`)
existed, or with ``ρ = 0``, loads into a memory with ``ρ > 0`` as ``M' = Aᵀ M A``,
``A = [I / √(1 − ρ), 0]``: since ``A φ' = φ`` for every topic, every score is what it was
(the shared dimension starts empty). The decay rule and ``γ`` of the memory loading it apply
from then on (with the default ``η = 1 − γ`` a score is on the same scale for every ``γ``).

``S`` is positive semidefinite (PSD) by construction (see :mod:`memory.sigma`). States saved
before every decay rule was a congruence (``decay="judged"`` / ``"topic"`` shrank ``S`` entry by
entry, which can leave the PSD cone) load with ``S`` replaced by its nearest PSD matrix in the
Frobenius norm (negative eigenvalues set to 0): one eigendecomposition of a P × P matrix at
load, done only when the smallest eigenvalue is below ``−1e-9`` relative to the largest
entry. A state already PSD loads unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

import numpy as np

from game.core.errors import InputError
from memory.peers import check_peer_id
from memory.sigma_config import make_config

if TYPE_CHECKING:
    from memory.sigma import SigmaMem

STATE_VERSION = 2
SUPPORTED_VERSIONS = (1, 2)
# what an old one-hot state may differ in from the topics-mode memory it is loaded into
_UPGRADE_FREE = {
    "phi",
    "r",
    "spare",
    "transfer",
    "transfer_temp",
    "decay",
    "gamma_idle",
    "embedder",
    "gamma",
    "shared",
    "vote_evidence",
}


_NATIVE: ContextVar[bool] = ContextVar("sigma_native_arrays", default=False)


@contextmanager
def native_arrays() -> Iterator[None]:
    """Inside this block a state holds the arrays themselves, made read-only, not lists: a
    snapshot kept in the process (a turn's undo or roll-back point) then costs nothing per
    number, where lists would cost a Python float each. The memory copies an array before it
    next changes it (``SigmaMem._own_arrays``), so the snapshot keeps what it saw. Such a state
    restores as a JSON one does, but is no JSON."""
    token = _NATIVE.set(True)
    try:
        yield
    finally:
        _NATIVE.reset(token)


def _frozen(a: np.ndarray) -> np.ndarray:
    """``a`` itself, made read-only: shared with a snapshot until the memory copies it."""
    a.setflags(write=False)
    return a


def state_of(mem: SigmaMem) -> dict[str, Any]:
    """JSON-serialisable state (plain lists and floats; read-only arrays inside ``native_arrays``)."""
    out = _frozen if _NATIVE.get() else np.ndarray.tolist
    return {
        "version": STATE_VERSION,
        "config": mem._cfg.model_dump(),
        "embedder": mem._embedder_name,
        "peers": list(mem._peers),
        "topics": list(mem._topics),
        "declared": list(mem._space.declared) if mem._space is not None else [],
        "t": mem._t,
        "M": out(mem._M),
        "S": out(mem._S),
        "c_num": out(mem._c_num),
        "c_den": out(mem._c_den),
    }


def _parse(state: Mapping[str, Any]) -> dict[str, Any]:
    try:
        out = {
            "version": state["version"],
            "config": dict(state["config"]),
            "peers": [check_peer_id(p) for p in state["peers"]],
            "topics": list(state["topics"]),
            "declared": list(state.get("declared", ())),
            "t": int(state["t"]),
            "M": np.array(state["M"], dtype=np.float64),
            "S": np.array(state["S"], dtype=np.float64),
            "c_num": np.array(state["c_num"], dtype=np.float64),
            "c_den": np.array(state["c_den"], dtype=np.float64),
        }
    except (KeyError, TypeError, ValueError) as exc:
        raise InputError(f"Σ-Mem state is malformed: {exc!r}") from None
    if out["version"] not in SUPPORTED_VERSIONS:
        raise InputError(
            f"Σ-Mem state version {out['version']!r} is not supported "
            f"(expected one of {', '.join(map(str, SUPPORTED_VERSIONS))})"
        )
    return out


def _full_config(cfg: Mapping[str, Any]) -> dict[str, Any]:
    return make_config(dict(cfg)).model_dump()


def _upgrade(mem: SigmaMem, st: dict[str, Any], saved: dict[str, Any]) -> bool:
    """Fit an older game's state into ``mem`` (topics mode; see the module docstring); False if it does not apply."""
    here, sp = mem._cfg.model_dump(), mem._space
    if sp is None or any(saved[k] != here[k] for k in here if k not in _UPGRADE_FREE):
        return False
    if saved.get("shared", 0.0) not in (0.0, sp.shared):
        return False
    n, base = len(st["peers"]), sp.k + sp.spare  # the dimensions every topic's own part lives in
    if saved["phi"] == "projection":  # the same φ: the projection with the same seed, r = spare
        if sp.declared or saved["r"] != sp.spare or saved["embedder"] != here["embedder"]:
            return False
        old = _stack(st["M"], n, base)
    elif saved["phi"] == "onehot":
        if set(st["topics"]) != set(sp.declared):
            return False
        k = len(st["topics"])
        where = np.array([sp.index[tp] for tp in st["topics"]], dtype=np.intp)
        old = np.zeros((n, base, base))
        old[np.ix_(np.arange(n), where, where)] = _stack(st["M"], n, k)
        st["topics"] = list(sp.declared)
    else:  # topics: only the rates or the shared share differ
        same = ("spare", "transfer", "transfer_temp", "transfer_pool", "embedder")
        if any(saved[k] != here[k] for k in same) or st["declared"] != sp.declared:
            return False
        if saved["shared"] == sp.shared:
            return True
        old = _stack(st["M"], n, base)
    if sp.shared > 0:  # M' = Aᵀ M A with A = [I / √(1 − ρ), 0]: every score the same as before
        M = np.zeros((n, sp.r, sp.r))
        M[:, :base, :base] = old / (1.0 - sp.shared)
        old = M
    st["M"] = old
    return True


def _stack(M: np.ndarray, n: int, r: int) -> np.ndarray:
    if M.reshape(-1).size != n * r * r:
        raise InputError("Σ-Mem state arrays do not match its peers and r")
    return M.reshape(n, r, r)


PSD_TOL = 1e-9  # relative to the largest |entry|: what counts as a negative eigenvalue, not rounding


def nearest_psd(S: np.ndarray) -> np.ndarray:
    """``S`` (symmetric) if it is PSD within :data:`PSD_TOL`, else its nearest PSD matrix in the
    Frobenius norm: the eigendecomposition with negative eigenvalues set to 0."""
    if S.size == 0:
        return S
    S = 0.5 * (S + S.T)
    w, V = np.linalg.eigh(S)
    if w.min() >= -PSD_TOL * max(1e-300, float(np.abs(S).max())):
        return S
    out = (V * np.maximum(w, 0.0)) @ V.T
    return 0.5 * (out + out.T)


def restore(mem: SigmaMem, state: Mapping[str, Any]) -> None:
    """Restore a snapshot taken with the same config into ``mem`` (else an InputError)."""
    st = _parse(state)
    saved = _full_config(st["config"])
    here = mem._cfg.model_dump()
    if saved != here and not _upgrade(mem, st, saved):
        diff = sorted(k for k in set(saved) | set(here) if saved.get(k) != here.get(k))
        raise InputError(
            f"Σ-Mem state was saved with a different config (fields {', '.join(diff)})",
            hint="build the memory with SigmaMem.from_state(state)",
        )
    if saved == here and mem._space is not None and st["declared"] != mem._space.declared:
        raise InputError(
            "Σ-Mem state was saved with other declared topics", hint="build the memory with SigmaMem.from_state(state)"
        )
    peers, topics = st["peers"], st["topics"]
    n, r = len(peers), mem._cfg.r
    M, S, c_num, c_den = st["M"], st["S"], st["c_num"], st["c_den"]
    if (
        len(set(peers)) != n
        or M.reshape(-1).size != n * r * r
        or S.reshape(-1).size != n * n
        or c_num.shape != (n,)
        or c_den.shape != (n,)
    ):
        raise InputError("Σ-Mem state arrays do not match its peers and r")
    if mem._cfg.phi == "onehot" and set(topics) - set(mem._onehot_index):
        raise InputError(
            f"Σ-Mem state names topics not registered here: {sorted(set(topics) - set(mem._onehot_index))}"
        )
    for tp in topics:
        mem.phi(tp)
    mem._peers = list(peers)
    mem._index = {p: i for i, p in enumerate(peers)}
    mem._topics = list(topics)
    mem._topic_set = set(topics)
    mem._t = st["t"]
    mem._M = M.reshape(n, r, r).copy()
    mem._S = nearest_psd(S.reshape(n, n))  # older states may have left the PSD cone
    mem._c_num = c_num.copy()
    mem._c_den = c_den.copy()


def build(cls: type[SigmaMem], state: Mapping[str, Any], embedder: Any = None) -> SigmaMem:
    """A new memory built from a snapshot (its config included)."""
    st = _parse(state)
    cfg = dict(st["config"])
    phi = cfg.get("phi")
    topics = st["topics"] if phi == "onehot" else st["declared"] if phi == "topics" else ()
    if phi in ("onehot", "topics"):
        cfg.pop("r", None)
    mem = cls((), topics, cfg, embedder=embedder)
    if phi in ("onehot", "topics") and mem._cfg.model_dump() != _full_config(st["config"]):
        raise InputError("Σ-Mem state's topics do not match its r")
    restore(mem, state)
    return mem
