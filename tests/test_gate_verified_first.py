"""The "verified first" baseline of the gate benchmark (benchmarks/gate/verified_first.py)."""

from __future__ import annotations

from benchmarks.gate.baselines import run_simple
from benchmarks.gate.stream import Observation, Write, generate
from benchmarks.gate.verified_first import SEEN_ONLY, VerifiedFirst


def write(turn, obj, cred, truth=True, relation="located_in") -> Write:
    return Write(
        0, turn, "x", True, "gem", relation, obj, truth, "t", "s", cred, "b", False, "struct", ("", "", "", truth), ""
    )


def test_seen_supports_fresh_seen_refutes_the_rest_goes_by_credibility():
    vf = VerifiedFirst(admit_news=0.9, reject_news=0.2, fresh=0.5)  # located_in: half-life 30 turns
    vf.observe(Observation(0, "gem", "located_in", "well", True, "t"))
    assert vf.decide(write(1, "well", 0.1)) == "admit"
    assert vf.decide(write(1, "well", 0.1, truth=False)) == "reject"
    assert vf.decide(write(10, "chest", 0.95)) == "reject"  # a third of a half-life: still fresh
    assert vf.decide(write(40, "chest", 0.95)) == "admit"  # stale: news from a credible source
    assert vf.decide(write(40, "chest", 0.5)) == "quarantine" and vf.decide(write(40, "chest", 0.1)) == "reject"


def test_seen_only_admits_nothing_unseen_and_rejects_nothing():
    stream = generate(3, n_writes=150)
    outs = run_simple(stream.events, VerifiedFirst(**SEEN_ONLY))
    assert "reject" not in outs and "admit" in outs and outs.count("quarantine") > outs.count("admit")
