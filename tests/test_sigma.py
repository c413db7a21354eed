"""Σ-Mem and the beta-reputation baseline: invariants as hypothesis property tests.

What holds for the relation accumulator S (see memory/sigma.py):

* always: S symmetric PSD (a decayed sum of outer products ``q qᵀ`` with
  non-negative coefficients), so G is symmetric PSD with unit diagonal and
  ``|G_ij| ≤ 1``;
* when every event judges 3 or more peers, ``q`` is centred on the event mean,
  so ``1ᵀ q = 0`` and ``S·1 = 0``;
* when an event judges exactly 2 peers, each is centred by its own running mean
  (otherwise ``q ∝ (1, −1)`` always and G carries no information); S stays PSD
  but ``S·1 = 0`` does not hold in general (checked below by an example).
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core.errors import InputError, ParleyError
from memory.reputation import BetaReputation
from memory.sigma import SigmaConfig, SigmaMem
from tests.conftest import ROOT

PEERS = ["ann", "bo", "cy", "dee", "eli"]
TOPICS = ["harbor prices", "smuggler routes", "the weather"]
TOL = 1e-10

SETTINGS = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

outcome = st.one_of(st.sampled_from([1, -1]), st.floats(-1.0, 1.0, allow_nan=False))


def events_st(min_judged: int = 0, max_judged: int = len(PEERS), ticks: bool = True, values=outcome):
    ev = st.tuples(
        st.sampled_from(TOPICS),
        st.dictionaries(st.sampled_from(PEERS), values, min_size=min_judged, max_size=max_judged),
    )
    one = st.one_of(st.none(), ev) if ticks else ev
    return st.lists(one, max_size=25)


modes = st.sampled_from(["onehot", "projection", "topics"])
gammas = st.sampled_from([0.5, 0.8, 0.95])


def make(mode: str = "projection", gamma: float = 0.95, peers=PEERS, **kw) -> SigmaMem:
    if mode == "onehot":
        return SigmaMem(peers, TOPICS, phi="onehot", gamma=gamma, **kw)
    if mode == "topics":  # two declared topics; "the weather" is unseen (mixed from them + its own direction)
        return SigmaMem(peers, TOPICS[:2], phi="topics", spare=3, gamma=gamma, **kw)
    return SigmaMem(peers, TOPICS, gamma=gamma, r=6, **kw)


def apply(mem, event) -> None:
    if event is None:
        mem.tick()
    else:
        mem.write(*event)


def run(mem, events):
    for ev in events:
        apply(mem, ev)
    return mem


def is_psd(A: np.ndarray, tol: float = 1e-9) -> bool:
    return bool(np.linalg.eigvalsh((A + A.T) / 2).min() >= -tol * max(1.0, np.abs(A).max()))


# --------------------------------------------------------------------------- M_p


@SETTINGS
@given(modes, gammas, events_st())
def test_M_symmetric_and_norm_bound(mode, gamma, events):
    mem = run(make(mode, gamma), events)
    eta = 1 - gamma
    bound = eta * (1 - gamma**mem.t) / (1 - gamma)
    for p in PEERS:
        M = mem.M(p)
        assert np.array_equal(M, M.T)
        assert np.linalg.norm(M, 2) <= bound + TOL


@SETTINGS
@given(modes, gammas, events_st())
def test_weyl_and_trace_recursion_per_step(mode, gamma, events):
    mem = make(mode, gamma)
    eta = 1 - gamma
    for ev in events:
        before = {p: mem.M(p) for p in PEERS}
        apply(mem, ev)
        for p in PEERS:
            prev, now = gamma * before[p], mem.M(p)
            # Weyl: one rank-one update of norm η|c|‖φ‖² ≤ η moves each eigenvalue by at most η
            assert np.max(np.abs(np.linalg.eigvalsh(now) - np.linalg.eigvalsh(prev))) <= eta + TOL
            c = 0.0 if ev is None or p not in ev[1] else float(ev[1][p])
            phi_sq = 0.0 if ev is None else float(mem.phi(ev[0]) @ mem.phi(ev[0]))
            assert np.trace(now) == pytest.approx(np.trace(prev) + eta * c * phi_sq, abs=TOL)


def test_aligned_positive_events_reach_the_geometric_sum():
    mem = SigmaMem(["ann"], gamma=0.9)
    for _ in range(30):
        mem.write("harbor prices", {"ann": 1})
    assert mem.score("ann", "harbor prices") == pytest.approx(0.1 * (1 - 0.9**30) / 0.1, rel=1e-12)
    assert np.linalg.norm(mem.phi("harbor prices")) == pytest.approx(1.0)


# --------------------------------------------------------------------------- S and G


@SETTINGS
@given(modes, events_st(min_judged=3))
def test_S_psd_and_annihilates_ones_with_mean_centring(mode, events):
    mem = run(make(mode), events)
    S = mem.S()
    assert np.array_equal(S, S.T)
    assert is_psd(S)
    assert np.allclose(S @ np.ones(len(PEERS)), 0.0, atol=1e-12)


@SETTINGS
@given(modes, events_st(min_judged=2, max_judged=2))
def test_S_psd_in_the_two_peer_running_mean_regime(mode, events):
    mem = run(make(mode), events)
    assert is_psd(mem.S())


def test_two_peer_regime_S_ones_is_not_zero_but_G_still_learns():
    mem = SigmaMem(["ann", "bo"])
    for c in [1, 1, -1, 1, -1, -1, 1]:
        mem.write("harbor prices", {"ann": c, "bo": c})  # always right/wrong together
    S = mem.S()
    assert np.abs(S @ np.ones(2)).max() > 1e-3
    assert mem.G()[0, 1] > 0.5


@SETTINGS
@given(modes, events_st())
def test_G_is_a_correlation_matrix(mode, events):
    mem = run(make(mode), events)
    assert is_psd(mem.S())
    for peers in (None, ["eli", "ann", "nobody", "cy"]):
        G = mem.G(peers)
        assert np.array_equal(G, G.T)
        assert np.array_equal(np.diag(G), np.ones(len(G)))
        assert np.abs(G).max() <= 1.0
        assert is_psd(G)


def test_colluders_correlate_and_oppose_the_honest():
    mem = SigmaMem(["h1", "h2", "l1", "l2"])
    rng = np.random.default_rng(3)
    for _ in range(60):
        lie = -1 if rng.random() < 0.9 else 1
        mem.write(
            "harbor prices",
            {"h1": 1 if rng.random() < 0.8 else -1, "h2": 1 if rng.random() < 0.8 else -1, "l1": lie, "l2": lie},
        )
    G = mem.G()
    assert G[2, 3] > 0.9
    assert G[0, 2] < 0 and G[1, 3] < 0


# --------------------------------------------------------------------------- reads


@SETTINGS
@given(modes, events_st(), st.data())
def test_reads_do_not_mutate(mode, events, data):
    mem = run(make(mode), events)
    before = json.dumps(mem.get_state())
    topic = data.draw(st.sampled_from(TOPICS))
    claims = data.draw(st.dictionaries(st.sampled_from(PEERS + ["stranger"]), st.sampled_from("xyz"), min_size=1))
    z = data.draw(st.lists(st.floats(-1, 1), min_size=len(claims), max_size=len(claims)))
    mem.score("ann", topic), mem.score("stranger", topic), mem.scores(topic)
    mem.route(topic, list(claims)), mem.vote(topic, claims), mem.weights(topic, list(claims))
    mem.posterior(topic, list(claims)), mem.posterior(topic, list(claims), z=z)
    mem.select(topic, claims), mem.select(topic, claims, z=z), mem.G(), mem.G(list(claims))
    mem.vote(topic, claims, fallback="route"), mem.select(topic, claims, z=z, fallback="route")
    mem.trust_table(), mem.S(), mem.M("ann")
    if mode != "onehot":
        mem.score("ann", "a topic nobody wrote about")
    else:
        with pytest.raises(InputError):
            mem.score("ann", "a topic nobody registered")
    with pytest.raises(InputError):
        mem.write(topic, {"ann": 2})  # rejected before any change
    assert json.dumps(mem.get_state()) == before


@SETTINGS
@given(modes, events_st(), st.permutations(PEERS), st.data())
def test_permuting_peers_permutes_results(mode, events, perm, data):
    a = run(make(mode, peers=PEERS), events)
    b = run(make(mode, peers=perm), events)
    P = np.array([[1.0 if q == p else 0.0 for q in PEERS] for p in perm])  # b-order = P @ a-order
    assert np.allclose(b.S(), P @ a.S() @ P.T, atol=1e-12)
    assert np.allclose(b.G(), P @ a.G() @ P.T, atol=1e-9)
    z = data.draw(st.lists(st.floats(-1, 1), min_size=len(PEERS), max_size=len(PEERS)))
    for topic in TOPICS:
        assert np.allclose(b.scores(topic), P @ a.scores(topic), atol=1e-12)
        assert np.allclose(b.scores(topic, PEERS), a.scores(topic, PEERS), atol=1e-12)
        assert np.allclose(b.posterior(topic, perm, z=P @ np.array(z)), P @ a.posterior(topic, PEERS, z=z), atol=1e-8)
        sa, sb = a.scores(topic, PEERS), b.scores(topic, PEERS)
        if np.array_equal(sa, sb):  # identical per-peer arithmetic: decisions agree exactly
            claims = {p: "xy"[i % 2] for i, p in enumerate(PEERS)}
            assert a.route(topic, PEERS) == b.route(topic, PEERS)
            assert a.vote(topic, claims) == b.vote(topic, claims)


@SETTINGS
@given(gammas, events_st())
def test_onehot_diagonal_equals_eta_times_beta_balance(gamma, events):
    mem = SigmaMem(PEERS, TOPICS, phi="onehot", gamma=gamma)
    rep = BetaReputation(PEERS, TOPICS, lam=gamma)
    run(mem, events), run(rep, events)
    for p in PEERS:
        M = mem.M(p)
        assert np.array_equal(M, np.diag(np.diag(M)))
        for k, topic in enumerate(TOPICS):
            a, b = rep.counts(p, topic)
            assert M[k, k] == pytest.approx((1 - gamma) * (a - b), abs=1e-12)


@SETTINGS
@given(modes, events_st(), events_st())
def test_state_round_trip_is_exact(mode, events, more):
    mem = run(make(mode), events)
    state = json.loads(json.dumps(mem.get_state()))
    copy = SigmaMem.from_state(state)
    assert copy.get_state() == mem.get_state()
    other = make(mode)
    other.set_state(state)
    run(mem, more), run(copy, more), run(other, more)
    assert copy.get_state() == mem.get_state() == other.get_state()
    rep = run(BetaReputation(lam=0.9, topic_aware=mode == "onehot"), events)
    rep_copy = BetaReputation.from_state(json.loads(json.dumps(rep.get_state())))
    assert rep_copy.get_state() == rep.get_state()


def test_set_state_refuses_another_config():
    state = SigmaMem(["ann"], gamma=0.9).get_state()
    with pytest.raises(InputError, match="different config"):
        SigmaMem(["ann"], gamma=0.8).set_state(state)


# --------------------------------------------------------------------------- decisions


@SETTINGS
@given(st.dictionaries(st.sampled_from(PEERS), st.sampled_from("xyz"), min_size=1), st.data())
def test_vote_falls_back_to_majority_when_weights_are_zero(claims, data):
    mem = SigmaMem(PEERS)
    if data.draw(st.booleans()):  # everyone proved unreliable: weights are 0 again
        for _ in range(5):
            mem.write("harbor prices", {p: -1 for p in PEERS})
    assert all(w == 0.0 for w in mem.weights("harbor prices", list(claims)).values())
    answers = list(claims.values())
    counts = {a: answers.count(a) for a in answers}  # insertion order = first occurrence
    expected = max(counts, key=counts.get)  # first maximal
    assert mem.vote("harbor prices", claims) == expected
    assert mem.select("harbor prices", claims) == expected


def test_weighted_vote_trusts_the_reliable_minority():
    mem = SigmaMem(["a", "b", "c"])
    for _ in range(20):
        mem.write("harbor prices", {"a": 1, "b": -1, "c": -1})
    assert mem.vote("harbor prices", {"b": "wrong", "c": "wrong", "a": "right"}) == "right"
    assert mem.select("harbor prices", {"b": "wrong", "c": "wrong", "a": "right"}) == "right"


def test_route_fallback_trusts_the_least_bad_claimant():
    mem = SigmaMem(["a", "b", "c"])
    for _ in range(10):
        mem.write("harbor prices", {"a": -1, "b": -1, "c": -1})
    mem.write("harbor prices", {"a": 1})  # a is the least unreliable, yet every weight is 0
    claims = {"b": "lie", "c": "lie", "a": "truth"}
    # the route fallback is the default (it was the plain majority: "lie")
    assert mem.vote("harbor prices", claims) == mem.select("harbor prices", claims) == "truth"
    assert mem.vote("harbor prices", claims, fallback="majority") == "lie"
    assert mem.select("harbor prices", claims, fallback="majority") == "lie"
    assert mem.vote("harbor prices", claims, fallback="route") == "truth"
    assert mem.select("harbor prices", claims, fallback="route") == "truth"
    fresh = SigmaMem(["a", "b", "c"])  # nothing known: route fallback is still the majority
    assert fresh.vote("harbor prices", claims) == fresh.vote("harbor prices", claims, fallback="route") == "lie"
    with pytest.raises(InputError):
        fresh.vote("harbor prices", claims, fallback="oracle")


def test_route_picks_the_reliable_peer_after_training():
    rng = np.random.default_rng(7)
    honesty = {"ann": 0.3, "bo": 0.5, "cy": 0.9, "dee": 0.4}
    mem = SigmaMem(list(honesty))
    rep = BetaReputation(list(honesty))
    for _ in range(60):
        out = {p: 1 if rng.random() < h else -1 for p, h in honesty.items()}
        mem.write("harbor prices", out)
        rep.write("harbor prices", out)
    assert mem.route("harbor prices", list(honesty)) == "cy"
    assert rep.route("harbor prices", list(honesty)) == "cy"
    assert mem.route("harbor prices", ["ann", "nobody"]) == "nobody"  # unknown scores 0 > a liar's


def test_route_is_topic_aware():
    mem = SigmaMem(["ann", "bo"])
    for _ in range(30):
        mem.write("harbor prices", {"ann": 1, "bo": -1})
        mem.write("smuggler routes", {"ann": -1, "bo": 1})
    assert mem.route("harbor prices", ["bo", "ann"]) == "ann"
    assert mem.route("smuggler routes", ["ann", "bo"]) == "bo"


def test_ties_go_to_the_first_candidate_and_answer():
    mem = SigmaMem(["ann", "bo"])
    assert mem.route("harbor prices", ["bo", "ann"]) == "bo"
    assert mem.vote("harbor prices", {"bo": "y", "ann": "x"}) == "y"


@SETTINGS
@given(
    modes,
    events_st(),
    st.lists(st.floats(-1, 1), min_size=len(PEERS), max_size=len(PEERS)),
    st.sampled_from([(1.0, 1.0), (2.0, 0.5), (0.0, 1.0), (1.0, 0.0)]),
)
def test_posterior_matches_the_closed_form(mode, events, z, wts):
    mem = run(make(mode), events)
    w_g, w_u = wts
    topic = TOPICS[0]
    m = mem.scores(topic)
    assert np.array_equal(mem.posterior(topic), m)
    theta = mem.posterior(topic, z=z, w_g=w_g, w_u=w_u)
    if w_g == 0:
        assert np.allclose(theta, z, atol=1e-9)
        return
    S0inv = np.linalg.inv(mem.G() + 1e-3 * np.eye(len(PEERS)))
    expected = np.linalg.solve(w_g * S0inv + w_u * np.eye(len(PEERS)), w_g * S0inv @ m + w_u * np.array(z))
    assert np.allclose(theta, expected, atol=1e-6)


def test_posterior_with_a_judge_can_overrule_history():
    mem = SigmaMem(["a", "b", "c"])
    for _ in range(3):
        mem.write("harbor prices", {"a": 1, "b": -1, "c": -1})
    claims = {"a": "x", "b": "y", "c": "y"}
    assert mem.select("harbor prices", claims) == "x"
    assert mem.select("harbor prices", claims, z={"a": -1, "b": 1, "c": 1}) == "y"


# --------------------------------------------------------------------------- config, errors, baseline


def test_config_and_errors():
    assert issubclass(InputError, ParleyError)
    cfg = SigmaConfig()
    assert cfg.rates() == (0.95, pytest.approx(0.05), 0.95, pytest.approx(0.05))
    with pytest.raises(InputError, match="gamma"):
        SigmaMem(gamma=1.5)
    with pytest.raises(InputError, match="gama"):
        SigmaMem(gama=0.9)
    with pytest.raises(InputError, match="registered up front"):
        SigmaMem(["ann"], phi="onehot")
    mem = SigmaMem(["ann"], TOPICS, phi="onehot")
    assert mem.r == len(TOPICS)
    with pytest.raises(InputError, match="unknown topic") as err:
        mem.write("harbour prices", {"ann": 1})
    assert "harbor prices" in err.value.hint
    with pytest.raises(InputError):
        mem.write("harbor prices", {"ann": "yes"})
    strict = SigmaMem(["ann"], allow_new_peers=False)
    with pytest.raises(InputError, match="unknown peer"):
        strict.write("harbor prices", {"bob": 1})
    assert mem.t == 0 and strict.t == 0


def test_custom_embedder_with_embed_method():
    class Fixed:
        name = "fixed"

        def embed(self, texts):
            return np.array([[1.0, 0.0, 0.0] if "price" in t else [0.0, 1.0, 0.0] for t in texts])

    mem = SigmaMem(["ann"], embedder=Fixed(), r=4)
    mem.write("harbor prices", {"ann": 1})
    assert mem.score("ann", "fish prices") == pytest.approx(mem.score("ann", "harbor prices"))
    assert mem.get_state()["embedder"] == "fixed"


def test_beta_reputation_basics():
    rep = BetaReputation(["ann", "bo"], lam=1.0)
    for _ in range(8):
        rep.write("harbor prices", {"ann": 1, "bo": -1})
    assert rep.score("ann", "harbor prices") == pytest.approx(9 / 10)
    assert rep.score("bo", "harbor prices") == pytest.approx(1 / 10)
    assert rep.score("ann", "the weather") == 0.5  # topic-aware: no evidence there
    assert rep.vote("harbor prices", {"bo": "y", "ann": "x"}) == "x"
    blind = BetaReputation(["ann"], topic_aware=False)
    blind.write("harbor prices", {"ann": 1})
    assert blind.score("ann", "the weather") == blind.score("ann", "harbor prices") > 0.5


@pytest.mark.parametrize("module", ["memory.sigma", "memory.reputation"])
def test_no_heavy_imports(module):
    code = (
        f"import sys, {module}; "
        "print(','.join(h for h in ('torch', 'chromadb', 'openai', 'sentence_transformers') if h in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_beta_prior_strength():
    rep = BetaReputation(["ann"], ["t"], lam=1.0, prior=2.0)
    rep.write("t", {"ann": 1})
    assert rep.score("ann", "t") == pytest.approx(3 / 5)  # (α + a) / (α + β + 2a)
    state = json.loads(json.dumps(rep.get_state()))
    assert BetaReputation.from_state(state).score("ann", "t") == pytest.approx(3 / 5)
    old = dict(state)
    old.pop("prior")  # saved before the prior was a parameter: the uniform prior
    assert BetaReputation.from_state(old).score("ann", "t") == pytest.approx(2 / 3)
    with pytest.raises(InputError, match="prior"):
        BetaReputation(lam=1.0).set_state(state)
    with pytest.raises(InputError, match="prior strength"):
        BetaReputation(prior=0.0)
