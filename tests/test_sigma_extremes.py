"""Σ-Mem's PSD invariant at the edges the config allows and the round trips a game makes: γ within
1e-12 of 0 or 1, learning rates from 1e-12 to 1e6, a peer added halfway, topics never declared,
and every state through JSON and back (memory/sigma.py)."""

from __future__ import annotations

import json

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.sigma import SigmaMem

PEERS = ["ann", "bo", "cy", "dee"]
TOPICS = ["fees", "berths", "crews"]
edge_gamma = st.sampled_from([1e-12, 1e-6, 0.5, 1 - 1e-9, 1 - 1e-12])
edge_eta = st.one_of(st.none(), st.sampled_from([1e-12, 1e-6, 5.0, 1e3, 1e6]))


def min_eig(A: np.ndarray) -> float:
    assert np.all(np.isfinite(A))
    return float(np.linalg.eigvalsh(A).min()) / max(1e-300, float(np.abs(A).max())) if A.size else 0.0


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(["event", "judged", "topic"]),
    edge_gamma,
    edge_eta,
    st.sampled_from([1.0, 1e-12]),
    st.integers(0, 2**32 - 1),
)
def test_edges_of_the_config_long_streams_late_peers_and_json_round_trips(decay, gamma, eta, idle, seed):
    rng = np.random.default_rng(seed)
    mem = SigmaMem.for_world(
        PEERS, TOPICS, decay=decay, gamma=gamma, eta=eta, gamma_g=gamma, eta_g=eta, gamma_idle=idle
    )
    peers = list(PEERS)
    for step in range(300):
        if step == 150:
            mem.add_peer("late")
            peers.append("late")
        judged = rng.choice(len(peers), int(rng.integers(1, len(peers) + 1)), replace=False)
        topic = TOPICS[int(rng.integers(3))] if rng.random() < 0.8 else f"unseen {int(rng.integers(3))}"
        mem.write(topic, {peers[i]: float(rng.choice([-1.0, 1.0, 0.3])) for i in judged})
        if step % 50 == 49:
            mem = SigmaMem.from_state(json.loads(json.dumps(mem.get_state())))
            assert min_eig(mem.S()) >= -1e-9 and min_eig(mem.G()) >= -1e-9
    back = SigmaMem.from_state(json.loads(json.dumps(mem.get_state())))
    assert np.array_equal(back.S(), mem.S())
    assert np.array_equal(back.scores("fees"), mem.scores("fees")) and np.all(np.isfinite(mem.scores("unseen 9")))
