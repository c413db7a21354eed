"""Rule-based negotiators and the frequency opponent model: properties over generated scenes."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.negotiators import (
    KINDS,
    TIME_KINDS,
    Aspiration,
    Hardliner,
    NaiveTitForTat,
    RandomNegotiator,
    TimeConcession,
    from_kind,
    kind_params,
)
from agents.opponent_model import FrequencyModel
from game.core.errors import InputError
from game.negotiation.runner import Move, apply_move, run_negotiation
from game.negotiation.session import Negotiation
from game.negotiation.utility import quantise, utilities_for
from game.world.spec import NegotiationScene

P, M = "player", "merchant"
unit = st.floats(0.0, 1.0, allow_nan=False)
prop = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def scenes(draw, max_values: int = 4, deadline=st.integers(1, 10), reservation=unit) -> NegotiationScene:
    n_issues = draw(st.integers(2, 3))
    issues = {f"i{k}": [f"v{j}" for j in range(draw(st.integers(2, max_values)))] for k in range(n_issues)}
    parties = []
    for pid in (P, M):
        weights = {i: draw(unit) for i in issues}
        weights["i0"] = draw(st.floats(0.01, 1.0))
        values = {i: {v: draw(unit) for v in vs} for i, vs in issues.items()}
        parties.append({"id": pid, "weights": weights, "values": values, "reservation": draw(reservation)})
    return NegotiationScene.model_validate(
        {
            "type": "negotiation",
            "title": "random",
            "issues": issues,
            "parties": parties,
            "deadline": draw(deadline),
            "first": draw(st.sampled_from([None, M])),
        }
    )


MODELLED = ("boulware", "linear", "conceder", "tit_for_tat", "aspiration")


@st.composite
def agents(draw) -> tuple[str, dict]:
    """A kind and its parameters, opponent-model variants and random seeds included."""
    kind = draw(st.sampled_from(sorted(KINDS)))
    params: dict = {}
    if kind in MODELLED and draw(st.booleans()):
        params = {"opponent_model": True, "tolerance": draw(st.sampled_from([0.0, 0.05, 0.2]))}
    if kind == "random":
        params = {"seed": draw(st.integers(0, 2**32)), "accept_prob": draw(st.sampled_from([0.0, 0.3, 1.0]))}
    if kind == "aspiration":
        params["rate"] = draw(st.sampled_from([0.05, 0.2, 1.0]))
    if kind == "tit_for_tat":
        params["scale"] = draw(st.sampled_from([0.5, 1.0, 3.0]))
    return kind, params


def build(spec, utility):
    kind, params = spec
    return from_kind(kind, utility, **params)


def play_on(session, negs):
    while session.is_open:
        p = session.turn
        apply_move(session, p, negs[p].respond(session, p))


def binary_scene(n_issues=3, n_values=3, mine=None, deadline=10, r=(0.0, 0.0), cap=1.0) -> NegotiationScene:
    """Merchant: equal weights, one-hot values (its favourite value per issue is worth ``cap``,
    1 by default); the player's utility is ``mine`` or ordered by value position."""
    issues = {f"i{k}": [f"v{j}" for j in range(n_values)] for k in range(n_issues)}
    mine = mine or {
        "weights": {i: 1.0 for i in issues},
        "values": {i: {v: j / (n_values - 1) for j, v in enumerate(vs)} for i, vs in issues.items()},
    }
    fav = {i: vs[-1 - (k % n_values)] for k, (i, vs) in enumerate(issues.items())}
    return NegotiationScene.model_validate(
        {
            "type": "negotiation",
            "title": "binary",
            "issues": issues,
            "deadline": deadline,
            "parties": [
                {"id": P, **mine, "reservation": r[0]},
                {
                    "id": M,
                    "weights": {i: 1.0 for i in issues},
                    "values": {i: {fav[i]: cap} for i in issues},
                    "reservation": r[1],
                },
            ],
        }
    )


# --- the API --------------------------------------------------------------------------


def test_kinds_and_from_kind():
    assert set(KINDS) == {"boulware", "linear", "conceder", "hardliner", "tit_for_tat", "aspiration", "random"}
    assert all(isinstance(v, str) and v for v in KINDS.values())
    u = utilities_for(binary_scene())[P]
    classes = {
        "boulware": TimeConcession,
        "linear": TimeConcession,
        "conceder": TimeConcession,
        "hardliner": Hardliner,
        "tit_for_tat": NaiveTitForTat,
        "aspiration": Aspiration,
        "random": RandomNegotiator,
    }
    for kind, cls in classes.items():
        assert type(from_kind(kind, u)) is cls
    assert {k: from_kind(k, u).exponent for k in TIME_KINDS} == TIME_KINDS
    assert from_kind("aspiration", u, rate=0.3, opponent_model=True).opponent_model
    assert from_kind("random", u, seed=7, accept_prob=0.1).seed == 7
    assert kind_params("hardliner") == ("epsilon",)


@pytest.mark.parametrize(
    "kind, params, match",
    [
        ("bolware", {}, "unknown negotiator kind 'bolware'"),
        ("hardliner", {"exponent": 1.0}, "unknown 'exponent'"),
        ("random", {"rate": 0.1}, "unknown 'rate'"),
        ("linear", {"exponent": -1}, "positive number"),
        ("linear", {"tolerance": 2.0}, r"tolerance must be in \[0, 1\]"),
        ("conceder", {"opponent_model": "yes"}, "true or false"),
        ("aspiration", {"rate": 0.0}, r"rate must be in \(0, 1\]"),
        ("aspiration", {"rate": float("nan")}, "finite number"),
        ("tit_for_tat", {"scale": 0}, "scale must be in"),
        ("hardliner", {"epsilon": 1.0}, "epsilon must be in"),
        ("random", {"seed": -1}, "non-negative integer"),
        ("random", {"seed": 1.5}, "non-negative integer"),
        ("random", {"accept_prob": 1.5}, "accept_prob must be in"),
    ],
)
def test_bad_params(kind, params, match):
    u = utilities_for(binary_scene())[P]
    with pytest.raises(InputError, match=match):
        from_kind(kind, u, **params)


def test_did_you_mean_and_world_check_kinds():
    u = utilities_for(binary_scene())[P]
    with pytest.raises(InputError) as e:
        from_kind("tit_for_tatt", u)
    assert e.value.hint == "did you mean 'tit_for_tat'?"
    from game.play.wiring import rule_negotiator as default_negotiator

    assert isinstance(default_negotiator(None, P, u, {"negotiator": "aspiration"}), Aspiration)


# --- time-based concession curves -------------------------------------------------------


@prop
@given(st.floats(0.0, 0.95), st.floats(0.05, 20.0), st.lists(st.floats(0.0, 1.0), min_size=2, max_size=12))
def test_prop_concession_curves(r, e, ts):
    u = utilities_for(binary_scene(r=(r, 0.0)))[P]
    tc = TimeConcession(u, e)
    assert tc.target(0.0) == 1.0 and tc.target(1.0) == u.reservation
    targets = [tc.target(t) for t in sorted(ts)]
    assert all(a >= b for a, b in zip(targets, targets[1:]))
    b, lin, c = (from_kind(k, u) for k in ("boulware", "linear", "conceder"))
    for t in ts:
        if 0.0 < t < 1.0:
            assert b.target(t) >= lin.target(t) >= c.target(t)


def test_named_curves_hand_values():
    u = utilities_for(binary_scene())[P]  # reservation 0
    b, lin, c = (from_kind(k, u) for k in ("boulware", "linear", "conceder"))
    assert lin.target(0.5) == 0.5
    assert b.target(0.5) == quantise(1 - 0.5**5)  # 0.96875
    assert c.target(0.5) == quantise(1 - 0.5**0.2)  # ~0.1294


# --- the reservation guarantee, every kind against every kind ------------------------------


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenes(), agents(), agents())
def test_prop_reservation_guarantee_all_pairs(sc, a, b):
    u = utilities_for(sc)
    negs = {P: build(a, u[P]), M: build(b, u[M])}
    s, m = run_negotiation(sc, negs, utilities=u)
    assert s.status != "open"
    for rec in s.history:
        uf = u[rec.party]
        if rec.kind in ("offer", "accept"):
            assert uf(dict(rec.terms)) >= uf.reservation
        if rec.kind == "walk_away":  # only when nothing reaches reservation
            assert uf.best < uf.reservation
        assert rec.kind != "reject"
    if m.agreement:
        assert m.individually_rational


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_walks_away_when_nothing_is_rational(kind):
    sc = binary_scene(r=(0.0, 0.9), cap=0.8)  # the merchant's best (0.8) is below 0.9
    u = utilities_for(sc)
    s = Negotiation(sc, first=M)
    assert from_kind(kind, u[M]).respond(s, M) == Move.walk_away()


# --- behaviour of each kind -----------------------------------------------------------------


@prop
@given(scenes(reservation=st.floats(0.0, 0.3)), agents())
def test_prop_hardliner_never_changes_its_offer(sc, other):
    u = utilities_for(sc)
    hard = Hardliner(u[M])
    s, _ = run_negotiation(sc, {P: build(other, u[P]), M: hard}, utilities=u)
    mine = {rec.terms for rec in s.history if rec.party == M and rec.kind == "offer"}
    assert len(mine) <= 1
    if mine:
        assert u[M](dict(mine.pop())) == u[M].best
    for rec in s.history:
        if rec.party == M and rec.kind == "accept":
            assert u[M](dict(rec.terms)) >= u[M].best - 1e-9


@prop
@given(
    scenes(deadline=st.integers(3, 10)),
    st.lists(st.integers(0, 10**6), min_size=1, max_size=10),
    st.sampled_from([0.5, 1.0, 2.0]),
    st.booleans(),
)
def test_prop_tit_for_tat_mirrors_concessions(sc, picks, scale, model):
    """Target drops by scale * (opponent's gain step) exactly when the opponent concedes."""
    u = utilities_for(sc)
    tft = NaiveTitForTat(u[M], scale=scale, opponent_model=model)
    r = u[M].reservation
    s = Negotiation(sc, first=P)
    space = u[P].space
    prev_target = tft.current_target(s, M)
    assert prev_target == max(r, u[M].best)
    last = None
    for pick in picks:
        if not s.is_open:
            break
        k = pick % space.size
        s.offer(P, space.terms(k))
        target = tft.current_target(s, M)
        gain = 0.0 if last is None else u[M].at(k) - u[M].at(last)
        if gain > 0 and prev_target > r:
            assert target < prev_target
            assert target == pytest.approx(max(r, prev_target - scale * gain), abs=1e-9)
        else:
            assert target == prev_target
        move = tft.respond(s, M)
        if move.kind == "accept":
            assert u[M].at(k) >= target
        elif move.kind == "offer":
            assert u[M](move.terms_dict) >= target or u[M](move.terms_dict) == u[M].best
        apply_move(s, M, move)
        last, prev_target = k, target


def test_tit_for_tat_against_hardliner_never_concedes():
    sc = binary_scene(deadline=6)
    u = utilities_for(sc)
    s, m = run_negotiation(sc, {P: NaiveTitForTat(u[P]), M: Hardliner(u[M])}, utilities=u)
    offers = {rec.terms for rec in s.history if rec.party == P and rec.kind == "offer"}
    assert len(offers) == 1 and not m.agreement


@prop
@given(scenes(), st.integers(0, 2**32), st.sampled_from([0.05, 0.3, 1.0]), st.booleans())
def test_prop_aspiration_never_asks_less_than_best_received(sc, seed, rate, model):
    u = utilities_for(sc)
    asp = Aspiration(u[M], rate=rate, opponent_model=model)
    s, _ = run_negotiation(sc, {P: RandomNegotiator(u[P], seed=seed, accept_prob=0.0), M: asp}, utilities=u)
    best_received = -1.0
    for n, rec in enumerate(s.history):
        if rec.party == P and rec.kind == "offer":
            best_received = max(best_received, u[M](dict(rec.terms)))
        elif rec.party == M and rec.kind == "offer":
            assert u[M](dict(rec.terms)) >= best_received
    # its decayed aspiration is geometric and floors at reservation
    r = u[M].reservation
    assert asp.aspiration(1) == 1.0 or r == 1.0
    assert asp.aspiration(3) == pytest.approx(max(r, r + (1 - r) * (1 - rate) ** 2), abs=1e-12)


def test_aspiration_accepts_once_target_met():
    sc = binary_scene(deadline=30)
    u = utilities_for(sc)
    asp = Aspiration(u[M], rate=0.2)
    s = Negotiation(sc)
    s.offer(P, u[P].space.terms(0))  # worth 0 to the merchant: favourite values are v2, v1, v0
    assert asp.respond(s, M).kind == "offer"
    k_fav = u[M].space.index({"i0": "v2", "i1": "v1", "i2": "v0"})
    s2 = Negotiation(sc)
    s2.offer(P, u[M].space.terms(k_fav))
    assert asp.respond(s2, M) == Move.accept()


def _random_history(sc, seed, other_seed=99):
    u = utilities_for(sc)
    negs = {
        P: RandomNegotiator(u[P], seed=seed, accept_prob=0.2),
        M: RandomNegotiator(u[M], seed=other_seed, accept_prob=0.2),
    }
    s, _ = run_negotiation(sc, negs, utilities=u)
    return s.get_state()


def test_random_reproducible_and_seed_dependent():
    sc = binary_scene(n_values=4, deadline=12)
    assert _random_history(sc, 3) == _random_history(sc, 3)
    histories = {json.dumps(_random_history(sc, seed)) for seed in range(6)}
    assert len(histories) >= 5
    # a negotiator's move depends on (seed, moves_made) only, not on what it did before
    u = utilities_for(sc)
    rn = RandomNegotiator(u[P], seed=5)
    s = Negotiation(sc)
    assert rn.respond(s, P) == rn.respond(s, P) == RandomNegotiator(u[P], seed=5).respond(s, P)


def test_random_accept_prob_extremes():
    sc = binary_scene()
    u = utilities_for(sc)
    s = Negotiation(sc, first=M)
    s.offer(M, u[M].space.terms(int(np.argmax(u[P].vector))))
    assert RandomNegotiator(u[P], seed=1, accept_prob=1.0).respond(s, P) == Move.accept()
    assert RandomNegotiator(u[P], seed=1, accept_prob=0.0).respond(s, P).kind == "offer"


# --- the opponent model -----------------------------------------------------------------------


def test_model_ranks_repeated_values_higher():
    sc = binary_scene(n_issues=2, n_values=3)
    space = utilities_for(sc)[P].space
    model = FrequencyModel(space)
    assert np.all(model.estimates() == 1.0)  # no evidence: flat
    for v1 in ("v0", "v1", "v2", "v0"):  # i0 always v2, i1 changes every time
        model.observe({"i0": "v2", "i1": v1})
    prefs, w = model.value_preferences(), model.issue_weights()
    assert prefs["i0"]["v2"] == 1.0 and prefs["i0"]["v2"] > prefs["i0"]["v1"] == prefs["i0"]["v0"]
    assert prefs["i1"]["v0"] > prefs["i1"]["v1"]
    assert w["i0"] > w["i1"] and sum(w.values()) == pytest.approx(1.0)
    est = model.estimates()
    assert ((0 <= est) & (est <= 1)).all()
    assert model.estimate({"i0": "v2", "i1": "v0"}) == est.max()
    assert model.estimate(space.index({"i0": "v2", "i1": "v0"})) == est.max()


@prop
@given(scenes())
def test_prop_model_from_session_matches_incremental(sc):
    u = utilities_for(sc)
    s, _ = run_negotiation(sc, {P: from_kind("linear", u[P]), M: RandomNegotiator(u[M], seed=4)}, utilities=u)
    a = FrequencyModel.from_history(u[P].space, s.history, M)
    b = FrequencyModel(u[P].space)
    for rec in s.history:
        if rec.party == M and rec.kind == "offer":
            b.observe(dict(rec.terms))
    np.testing.assert_array_equal(a.estimates(), b.estimates())
    assert ((a.estimates() >= 0) & (a.estimates() <= 1)).all()


def _modelled_vs_plain(sc, kind, tol, t_or_target, opp_rounds):
    """Offers of the plain and modelled negotiator at one own target, after a hardliner opponent
    repeated its best offer ``opp_rounds`` times; returns (utilities, model, plain k, modelled k)."""
    u = utilities_for(sc)
    hard = Hardliner(u[M])
    model = FrequencyModel(u[P].space)
    for _ in range(opp_rounds):
        model.observe(int(hard._best))
    plain = from_kind(kind, u[P], tolerance=tol)
    smart = from_kind(kind, u[P], opponent_model=True, tolerance=tol)
    return u, model, plain._choose(t_or_target, None), smart._choose(t_or_target, model)


@prop
@given(
    st.integers(2, 3),
    st.integers(2, 4),
    st.floats(0.0, 1.0),
    st.sampled_from([0.02, 0.05, 0.2]),
    st.integers(1, 5),
    st.sampled_from(sorted(MODELLED)),
    st.data(),
)
def test_prop_modelled_offer_gives_opponent_at_least_as_much(n_issues, n_values, target, tol, rounds, kind, data):
    """Same own-target band: the modelled offer is worth as much to me (in band) and at least as
    much to the opponent, both by the model's estimate and by the opponent's true utility."""
    issues = [f"i{k}" for k in range(n_issues)]
    mine = {
        "weights": {i: data.draw(st.floats(0.01, 1.0)) for i in issues},
        "values": {i: {f"v{j}": data.draw(unit) for j in range(n_values)} for i in issues},
    }
    sc = binary_scene(n_issues, n_values, mine=mine)
    u, model, kp, km = _modelled_vs_plain(sc, kind, tol, quantise(target), rounds)
    if kp is None:
        assert km is None
        return
    t = quantise(target)
    if t <= u[P].at(kp) <= quantise(t + tol):  # the band is not empty
        assert t <= u[P].at(km) <= quantise(t + tol)
    else:
        assert km == kp
    assert model.estimate(km) >= model.estimate(kp)
    assert u[M].at(km) >= u[M].at(kp)


def test_modelled_offer_strictly_better_for_opponent_hand_case():
    # I only care about i0; on i1 I am indifferent, the merchant wants v2 (see binary_scene)
    sc = binary_scene(
        2, 3, mine={"weights": {"i0": 1.0, "i1": 0.0}, "values": {"i0": {"v0": 0.0, "v1": 0.5, "v2": 1.0}}}
    )
    u, model, kp, km = _modelled_vs_plain(sc, "linear", 0.05, 0.5, 3)
    assert u[P].space.terms(kp) == {"i0": "v1", "i1": "v0"}  # earliest of the equals
    assert u[P].space.terms(km) == {"i0": "v1", "i1": "v1"}  # the merchant's favourite on i1
    assert u[P].at(km) == u[P].at(kp) and u[M].at(km) > u[M].at(kp)


def test_modelled_negotiation_in_session():
    sc = binary_scene(
        2, 3, mine={"weights": {"i0": 1.0, "i1": 0.0}, "values": {"i0": {"v0": 0.0, "v1": 0.5, "v2": 1.0}}}, deadline=2
    )
    u = utilities_for(sc)
    s = Negotiation(sc, first=M)
    s.offer(M, {"i0": "v0", "i1": "v1"})  # worthless to me; shows the merchant likes i1=v1
    move = TimeConcession(u[P], opponent_model=True).respond(s, P)  # t=.5: target .5, i0=v1
    assert move.terms_dict == {"i0": "v1", "i1": "v1"}
    assert TimeConcession(u[P]).respond(s, P).terms_dict == {"i0": "v1", "i1": "v0"}


# --- statelessness: save halfway, continue with fresh instances --------------------------------


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenes(deadline=st.integers(2, 10)), agents(), agents())
def test_prop_stateless_save_restore(sc, a, b):
    u = utilities_for(sc)
    whole, _ = run_negotiation(sc, {P: build(a, u[P]), M: build(b, u[M])}, utilities=u)
    negs = {P: build(a, u[P]), M: build(b, u[M])}
    s = Negotiation(sc, utilities=u)
    for _ in range(sc.deadline):  # half of the 2 * deadline moves
        if not s.is_open:
            break
        p = s.turn
        apply_move(s, p, negs[p].respond(s, p))
    copy = s.copy()
    restored = Negotiation.from_state(sc, json.loads(json.dumps(s.get_state())), utilities=u)
    for session in (s, copy, restored):
        play_on(session, {P: build(a, u[P]), M: build(b, u[M])})
        assert session.get_state() == whole.get_state()
