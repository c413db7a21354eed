"""Σ-Mem's invariant: ``S`` (and ``G``, and the posterior's ``G + εI``) stay positive semidefinite
after every step, for every decay rule × φ mode × rate the config allows (memory/sigma.py).

Each decay is a congruence ``D S D`` with ``D`` diagonal and ``≥ 0``, each learning step adds
``η_G q qᵀ``; before that form, ``decay="judged"`` / ``"topic"`` shrank the judged block of ``S``
by ``γ_G`` and left the rest, which leaves the cone (the example below).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.sigma import SigmaMem

PEERS = ["ann", "bo", "cy", "dee", "eli", "fay"]
TOPICS = ["harbor prices", "smuggler routes", "the weather", "gem location"]
DECAYS = ["event", "judged", "topic"]
PHIS = ["onehot", "projection", "topics"]
REL = 1e-9


def min_eig(A: np.ndarray) -> float:
    """The smallest eigenvalue of ``A`` relative to its scale (largest |entry|, at least 1e-300)."""
    if A.size == 0:
        return 0.0
    return float(np.linalg.eigvalsh(A).min()) / max(1e-300, float(np.abs(A).max()))


def make(phi: str, decay: str, **kw) -> SigmaMem:
    if phi == "onehot":
        return SigmaMem(PEERS, TOPICS, phi="onehot", decay=decay, **kw)
    if phi == "topics":  # two declared, two unseen topics (mixed from the declared + their own direction)
        return SigmaMem(PEERS, TOPICS[:2], phi="topics", spare=3, decay=decay, **kw)
    return SigmaMem(PEERS, TOPICS, r=5, decay=decay, **kw)


def assert_in_cone(mem: SigmaMem) -> None:
    S = mem.S()
    assert np.array_equal(S, S.T)
    assert min_eig(S) >= -REL
    for peers in (None, PEERS[::-2] + ["nobody"]):
        G = mem.G(peers)
        assert min_eig(G) >= -REL
        assert np.linalg.eigvalsh(G + mem.config.eps * np.eye(len(G))).min() > 0


rate = st.floats(0.01, 0.99)
configs = st.fixed_dictionaries(
    {
        "gamma": rate,
        "gamma_g": st.one_of(st.none(), rate),
        "eta": st.one_of(st.none(), st.floats(1e-3, 5.0)),
        "eta_g": st.one_of(st.none(), st.floats(1e-3, 5.0)),
        "gamma_idle": st.one_of(st.just(1.0), st.floats(0.01, 1.0)),
        "shared": st.one_of(st.just(0.0), st.floats(0.0, 0.95)),  # topics mode: a dimension all topics share
    }
)
outcome = st.one_of(st.sampled_from([1, -1]), st.floats(-1.0, 1.0, allow_nan=False))
event = st.one_of(
    st.none(),  # a tick
    st.tuples(st.sampled_from(TOPICS), st.dictionaries(st.sampled_from(PEERS), outcome, max_size=len(PEERS))),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(DECAYS), st.sampled_from(PHIS), configs, st.lists(event, min_size=1, max_size=40))
def test_S_and_G_stay_psd_after_every_step(decay, phi, cfg, events):
    mem = make(phi, decay, **cfg)
    for ev in events:
        if ev is None:
            mem.tick()
        else:
            mem.write(*ev)
        assert_in_cone(mem)
    back = SigmaMem.from_state(mem.get_state())  # a save keeps it
    assert np.array_equal(back.S(), mem.S())


@pytest.mark.parametrize("decay", ["judged", "topic"])
def test_the_smallest_case_that_left_the_cone(decay):
    mem = SigmaMem.for_world(["a", "b", "c"], ["t1", "t2"], decay=decay)
    mem.write("t1", {"a": 1, "b": 1, "c": -1})
    mem.write("t2", {"a": 1, "b": -1})  # shrinking only the (a, b) block of S gave min eig −0.0009
    assert min_eig(mem.S()) >= -REL
    assert min_eig(mem.G()) >= -REL


@pytest.mark.parametrize("decay", DECAYS)
def test_random_game_streams_stay_psd(decay):
    """The game's memory (``for_world``, topics φ) under random streams of 1-6 judged NPCs."""
    rng = np.random.default_rng(7)
    worst = 0.0
    for _ in range(20):
        mem = SigmaMem.for_world(PEERS, TOPICS[:3], decay=decay)
        for _ in range(60):
            judged = rng.choice(len(PEERS), int(rng.integers(1, len(PEERS) + 1)), replace=False)
            mem.write(TOPICS[int(rng.integers(4))], {PEERS[i]: int(rng.choice([-1, 1])) for i in judged})
            worst = min(worst, min_eig(mem.S()), min_eig(mem.G()))
    assert worst >= -REL


def test_decay_alone_leaves_G_unchanged():
    """A diagonal congruence cancels in ``D^{-1/2} S D^{-1/2}``: forgetting never changes G, evidence does."""
    mem = SigmaMem.for_world(PEERS[:4], ["t1"], decay="judged", gamma_idle=0.9)
    rng = np.random.default_rng(1)
    for _ in range(15):
        mem.write("t1", {p: int(rng.choice([-1, 1])) for p in PEERS[:4]})
    G = mem.G()
    mem.write("t1", {})  # judges nobody: every peer decays by gamma_idle
    mem.tick(3)
    assert np.allclose(mem.G(), G, atol=1e-12)


def test_an_old_state_outside_the_cone_loads_projected():
    from memory.sigma_state import nearest_psd

    mem = SigmaMem.for_world(["a", "b", "c"], ["t1", "t2"])
    mem.write("t1", {"a": 1, "b": 1, "c": -1})
    state = mem.get_state()
    bad = np.array([[0.0211, 0.0211, -0.0444], [0.0211, 0.2211, -0.0444], [-0.0444, -0.0444, 0.0889]])
    assert min_eig(bad) < -1e-3  # what the entrywise decay could leave in a save
    state["S"] = bad.tolist()
    loaded = SigmaMem.from_state(state)
    assert min_eig(loaded.S()) >= -REL
    assert np.linalg.norm(loaded.S() - bad) <= np.linalg.norm(bad - np.zeros_like(bad))  # nearest, not arbitrary
    assert np.allclose(loaded.S(), nearest_psd(bad))
    good = mem.get_state()
    assert np.array_equal(SigmaMem.from_state(good).S(), mem.S())  # a PSD state loads unchanged
