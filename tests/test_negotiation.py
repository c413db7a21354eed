"""Negotiation mechanics: utilities, metrics, the session state machine, the runner."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.negotiators import KINDS, TIME_KINDS, TimeConcession, from_kind
from game.core.errors import ActionError, InputError, SaveError
from game.negotiation.metrics import (
    NegotiationAnalysis,
    OutcomeMetrics,
    analyse,
    evaluate,
    kalai_smorodinsky_point,
    nash_point,
    pareto_frontier,
)
from game.negotiation.runner import Move, Negotiator, run_negotiation
from game.negotiation.session import Negotiation, NegotiationError
from game.negotiation.utility import UtilityFunction, outcome_space, utilities_for, utility_matrix
from game.world.spec import NegotiationScene

# --- fixtures -------------------------------------------------------------------


def market(**over) -> NegotiationScene:
    """Price x quality. Player: (0.7, 0.3); merchant: (0.6, 0.4), opposite tastes."""
    d = {
        "type": "negotiation",
        "title": "t",
        "issues": {"price": ["10", "20", "30"], "quality": ["low", "high"]},
        "parties": [
            {
                "id": "player",
                "weights": {"price": 0.7, "quality": 0.3},
                "values": {"price": {"10": 1.0, "20": 0.5, "30": 0.0}, "quality": {"low": 0.0, "high": 1.0}},
                "reservation": 0.2,
            },
            {
                "id": "merchant",
                "weights": {"price": 0.6, "quality": 0.4},
                "values": {"price": {"10": 0.0, "20": 0.5, "30": 1.0}, "quality": {"low": 1.0, "high": 0.0}},
                "reservation": 0.3,
            },
        ],
        "deadline": 6,
    }
    d.update(over)
    return NegotiationScene.model_validate(d)


def one_issue(points: dict[str, tuple[float, float]], r=(0.0, 0.0), deadline=4) -> NegotiationScene:
    """A single-issue scene whose outcomes have the given (player, merchant) utilities."""
    return NegotiationScene.model_validate(
        {
            "type": "negotiation",
            "title": "deal",
            "issues": {"deal": list(points)},
            "parties": [
                {
                    "id": "player",
                    "weights": {"deal": 1.0},
                    "values": {"deal": {k: v[0] for k, v in points.items()}},
                    "reservation": r[0],
                },
                {
                    "id": "merchant",
                    "weights": {"deal": 1.0},
                    "values": {"deal": {k: v[1] for k, v in points.items()}},
                    "reservation": r[1],
                },
            ],
            "deadline": deadline,
        }
    )


P, M = "player", "merchant"
OFFER_A = {"price": "20", "quality": "high"}
OFFER_B = {"price": "30", "quality": "low"}


# --- utility ------------------------------------------------------------------


def test_utility_hand_computed():
    u = utilities_for(market())
    up, um = u[P], u[M]
    assert list(u) == [P, M]
    assert up({"price": "20", "quality": "high"}) == 0.65  # 0.7*0.5 + 0.3*1
    assert up({"price": "10", "quality": "high"}) == 1.0
    assert up({"price": "30", "quality": "low"}) == 0.0
    assert um({"price": "20", "quality": "low"}) == 0.7  # 0.6*0.5 + 0.4*1
    assert um({"price": "10", "quality": "high"}) == 0.0
    assert (up.best, up.worst, um.best, um.worst) == (1.0, 0.0, 1.0, 0.0)
    assert up.reservation == 0.2 and um.reservation == 0.3
    assert up.value_utility("price", "20") == 0.5
    np.testing.assert_array_equal(up.vector, [0.7, 1.0, 0.35, 0.65, 0.0, 0.3])
    np.testing.assert_array_equal(utility_matrix([up, um])[:, 1], [0.4, 0.0, 0.7, 0.3, 1.0, 0.6])


def test_weights_are_normalised():
    issues = {"price": ["10", "20"], "quality": ["low", "high"]}
    vals = {"price": {"10": 1.0, "20": 0.0}, "quality": {"low": 0.0, "high": 1.0}}
    a = UtilityFunction("a", issues, {"price": 7, "quality": 3}, vals)
    b = UtilityFunction("b", issues, {"price": 0.7, "quality": 0.3}, vals)
    assert a.weights == pytest.approx({"price": 0.7, "quality": 0.3})
    assert sum(a.weights.values()) == pytest.approx(1.0)
    np.testing.assert_array_equal(a.vector, b.vector)
    assert a({"price": "10", "quality": "low"}) == 0.7


def test_values_not_spanning_unit_interval_are_not_rescaled():
    issues = {"price": ["10", "20"], "quality": ["low", "high"]}
    u = UtilityFunction(
        "a", issues, {"price": 1, "quality": 1}, {"price": {"10": 1.0, "20": 0.0}, "quality": {"low": 0.2, "high": 0.6}}
    )
    assert u.best == 0.8 and u.worst == 0.1  # 0.5*1 + 0.5*0.6 ; 0.5*0 + 0.5*0.2


def test_missing_weight_and_value_count_as_zero_and_zero_weights_fail():
    issues = {"price": ["10", "20"], "quality": ["low", "high"]}
    u = UtilityFunction("a", issues, {"price": 2.0}, {"price": {"10": 1.0}})
    assert u.weights == {"price": 1.0, "quality": 0.0}
    np.testing.assert_array_equal(u.vector, [1.0, 1.0, 0.0, 0.0])
    with pytest.raises(InputError, match="weights sum to zero"):
        UtilityFunction("a", issues, {"price": 0.0, "quality": 0.0}, {})


def test_outcome_space_order_and_size():
    issues = {"a": ["1", "2"], "b": ["x", "y", "z"], "c": ["p", "q", "r", "s"]}
    space = outcome_space(issues)
    assert len(space) == 24
    assert space[0] == {"a": "1", "b": "x", "c": "p"}
    assert space[1] == {"a": "1", "b": "x", "c": "q"}  # last issue fastest
    assert space[-1] == {"a": "2", "b": "z", "c": "s"}
    assert space == [dict(zip(issues, combo)) for combo in itertools.product(*issues.values())]
    u = UtilityFunction("a", issues, {"a": 1}, {})
    for k, terms in enumerate(space):
        assert u.space.index(terms) == k and u.space.terms(k) == terms
    assert len(outcome_space(market().issues)) == 6


# --- metrics ------------------------------------------------------------------


def test_pareto_frontier_hand_worked():
    # (player, merchant) per outcome:
    # 10/low (.7,.4)  10/high (1,0)  20/low (.35,.7)  20/high (.65,.3)  30/low (0,1)  30/high (.3,.6)
    a = analyse(market())
    assert a.frontier.tolist() == [0, 1, 2, 4]
    got = {tuple(sorted(t.items())) for t in a.frontier_offers()}
    want = {
        (("price", "10"), ("quality", "low")),
        (("price", "10"), ("quality", "high")),
        (("price", "20"), ("quality", "low")),
        (("price", "30"), ("quality", "low")),
    }
    assert got == want


def test_pareto_frontier_edge_cases():
    U = np.array([[0.5, 0.5], [0.5, 0.5], [0.5, 0.4], [0.2, 0.9], [0.2, 0.9], [0.1, 0.9]])
    # duplicates of a non-dominated point are all kept; equal-u2 with lower u1 is dominated
    assert pareto_frontier(U).tolist() == [0, 1, 3, 4]
    U3 = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0.5], [0.5, 0.5, 0.5]])
    assert pareto_frontier(U3).tolist() == [0, 1, 2, 4]


def test_nash_and_ks_hand_worked():
    # Nash: products y=.36, z=.33 -> y.  KS (max 1 each): y min(.9,.4)=.4, z min(.6,.55)=.55 -> z.
    sc = one_issue({"x": (1.0, 0.0), "y": (0.9, 0.4), "z": (0.6, 0.55), "w": (0.0, 1.0)})
    m = evaluate(sc, {"deal": "z"})
    assert m.nash_terms == (("deal", "y"),) and m.nash_utilities == (0.9, 0.4)
    assert m.ks_terms == (("deal", "z"),) and m.ks_utilities == (0.6, 0.55)
    assert m.distance_to_ks == 0.0
    assert m.distance_to_nash == pytest.approx(np.hypot(0.3, 0.15))


def test_nash_and_ks_with_reservations():
    # r = (.5, .2): rational y, z.  Nash: y .4*.2=.08 > z .1*.35=.035.
    # KS: m = (.9, .55); y min(.4/.4, .2/.35)=.571, z min(.1/.4, .35/.35)=.25 -> y.
    sc = one_issue({"x": (1.0, 0.0), "y": (0.9, 0.4), "z": (0.6, 0.55), "w": (0.0, 1.0)}, r=(0.5, 0.2))
    a = analyse(sc)
    assert (a.nash, a.ks) == (1, 1)
    # reservations move the ideal point and so the KS choice
    U = np.array([[0.9, 0.3], [0.7, 0.5], [0.55, 0.6]])
    # r = 0, ideal (.9, .6): mins .5, .778, .611 -> row 1
    assert kalai_smorodinsky_point(U, np.array([0.0, 0.0])) == 1
    # r = (.6, 0): rows 0, 1 rational, ideal (.9, .5): mins (1, .6)=.6, (.333, 1)=.333 -> row 0
    assert kalai_smorodinsky_point(U, np.array([0.6, 0.0])) == 0
    # r = (.5, 0): ideal (.9, .6): rows 0 and 1 tie at .5 with equal welfare -> earliest
    assert kalai_smorodinsky_point(U, np.array([0.5, 0.0])) == 0


def test_ks_tie_breaks_on_welfare_then_order():
    U = np.array([[0.3, 0.5], [0.6, 0.25], [0.5, 0.3]])
    # Nash products .15, .15, .15 ; welfare .8, .85, .8 -> index 1
    assert nash_point(U, np.zeros(2)) == 1
    U2 = np.array([[0.4, 0.6], [0.6, 0.4], [0.1, 0.1]])
    assert nash_point(U2, np.zeros(2)) == 0  # equal product and welfare: earliest
    assert kalai_smorodinsky_point(U2, np.zeros(2)) == 0


def test_no_rational_outcome_gives_none():
    sc = one_issue({"x": (1.0, 0.0), "y": (0.5, 0.5), "z": (0.0, 1.0)}, r=(0.8, 0.8))
    m = evaluate(sc, None)
    assert m.nash_terms is None and m.ks_terms is None
    assert m.distance_to_nash is None and m.distance_to_ks is None
    assert not m.agreement and m.utilities == (0.8, 0.8)
    assert m.pareto_optimal  # no outcome beats disagreement for both
    assert m.distance_to_frontier == pytest.approx(np.hypot(0.3, 0.3))


def test_evaluate_metrics_of_outcomes():
    a = analyse(market())
    for k in a.frontier:
        m = a.evaluate(int(k))
        assert m.pareto_optimal and m.distance_to_frontier == 0.0
    m = evaluate(utilities_for(market()), OFFER_A)  # (.65, .3): nearest frontier point (.7, .4)
    assert isinstance(m, OutcomeMetrics)
    assert not m.pareto_optimal
    assert m.distance_to_frontier == pytest.approx(np.hypot(0.05, 0.1))
    assert m.utilities == (0.65, 0.3) and m.utility(M) == 0.3
    assert m.social_welfare == 0.95 and m.max_social_welfare == 1.1
    assert m.individually_rational and m.agreement
    d = m.to_dict()
    assert d["terms"] == OFFER_A and d["utilities"] == {P: 0.65, M: 0.3}
    assert d["nash_terms"] == {"price": "20", "quality": "low"}
    json.dumps(d)
    none = a.evaluate(None)
    assert not none.pareto_optimal and none.utilities == (0.2, 0.3) and not none.agreement


# --- session ------------------------------------------------------------------


def test_turns_counter_offers_and_accept():
    s = Negotiation(market())
    assert (s.status, s.turn, s.round, s.parties, s.first) == ("open", P, 1, (P, M), P)
    assert s.legal_moves(P) == ("offer", "walk_away") and s.legal_moves(M) == ()
    s.offer(P, OFFER_A)
    assert s.turn == M and s.standing_offer == OFFER_A and s.standing_party == P and s.round == 1
    s.offer(M, OFFER_B)  # counter-offer replaces the standing one
    assert s.standing_offer == OFFER_B and s.standing_party == M
    assert s.turn == P and s.round == 2
    s.accept(P)
    assert s.status == "agreement" and s.agreement == OFFER_B and s.turn is None
    assert [(r.party, r.kind) for r in s.history] == [(P, "offer"), (M, "offer"), (P, "accept")]
    assert s.history[-1].terms == tuple(OFFER_B.items())
    m = s.outcome_metrics()
    assert m.agreement and m.utilities == (0.0, 1.0)
    with pytest.raises(NegotiationError, match="over"):
        s.offer(M, OFFER_A)


def test_first_party_from_scene_and_reject():
    s = Negotiation(market(first=M))
    assert s.turn == M
    with pytest.raises(NegotiationError, match="no offer to reject"):
        s.reject(M)
    s.offer(M, OFFER_B)
    s.reject(P)
    assert s.standing_offer is None and s.turn == M and s.status == "open" and s.round == 2
    with pytest.raises(NegotiationError, match="no offer to accept"):
        s.accept(M)


def test_walk_away():
    s = Negotiation(market())
    s.offer(P, OFFER_A)
    s.walk_away(M)
    assert s.status == "walked_away" and s.walked_away_by == M and s.agreement is None
    m = s.outcome_metrics()
    assert not m.agreement and m.utilities == (0.2, 0.3)


def test_deadline_gives_no_agreement():
    s = Negotiation(market(deadline=2))
    s.offer(P, OFFER_A)
    s.offer(M, OFFER_B)
    assert s.round == 2 and s.time == 1.0
    s.offer(P, OFFER_A)
    assert s.status == "open"
    s.offer(M, OFFER_B)  # last move of the last round
    assert s.status == "no_agreement" and s.turn is None and s.round == 2
    with pytest.raises(NegotiationError):
        s.accept(P)
    assert not s.outcome_metrics().agreement


def test_accept_in_last_move_counts():
    s = Negotiation(market(deadline=1))
    s.offer(P, OFFER_A)
    s.accept(M)
    assert s.status == "agreement" and s.agreement == OFFER_A


def test_illegal_moves_explain_themselves():
    s = Negotiation(market())
    with pytest.raises(NegotiationError, match="turn of 'player', not 'merchant'"):
        s.offer(M, OFFER_A)
    with pytest.raises(NegotiationError, match="not a party") as e:
        s.offer("playr", OFFER_A)
    assert e.value.hint == "did you mean 'player'?"
    with pytest.raises(NegotiationError, match="unknown issue 'prise'") as e:
        s.offer(P, {"prise": "10", "quality": "low"})
    assert "'price'" in e.value.hint
    with pytest.raises(
        NegotiationError,
        match=r"'25' is not a value of issue 'price'; "
        r"choose one of '10', '20', '30'",
    ):
        s.offer(P, {"price": "25", "quality": "low"})
    with pytest.raises(NegotiationError) as e:
        s.offer(P, {"price": "10", "quality": "hihg"})
    assert e.value.hint == "did you mean 'high'?"
    with pytest.raises(NegotiationError, match="incomplete offer: no value for 'quality'"):
        s.offer(P, {"price": "10"})
    with pytest.raises(NegotiationError, match="no offer to accept"):
        s.accept(P)
    with pytest.raises(NegotiationError, match="unknown move 'acept'") as e:
        s.play(P, "acept")
    assert e.value.hint == "did you mean 'accept'?"
    assert isinstance(e.value, ActionError)
    with pytest.raises(NegotiationError, match="still open"):
        s.outcome_metrics()
    assert s.history == () and s.turn == P  # failed moves change nothing


def _play_on(session, negs):
    from game.negotiation.runner import apply_move

    while session.is_open:
        p = session.turn
        apply_move(session, p, negs[p].respond(session, p))


def test_state_round_trip_mid_negotiation():
    sc = market(deadline=8)
    u = utilities_for(sc)
    negs = {P: from_kind("boulware", u[P]), M: from_kind("linear", u[M])}
    s = Negotiation(sc)
    from game.negotiation.runner import apply_move

    for _ in range(5):
        p = s.turn
        apply_move(s, p, negs[p].respond(s, p))
    state = s.get_state()
    assert state["moves"] == 5 and state["turn"] == M and state["status"] == "open"
    saved = json.loads(json.dumps(state))
    restored = Negotiation.from_state(sc, saved)
    assert restored.get_state() == state
    _play_on(s, negs)
    _play_on(restored, negs)
    assert restored.get_state() == s.get_state()
    assert restored.history == s.history and restored.status == s.status
    # set_state on an existing session rewinds it
    s.set_state(saved)
    assert s.get_state() == state


def test_set_state_rejects_bad_snapshots():
    s = Negotiation(market())
    s.offer(P, OFFER_A)
    good = s.get_state()
    bad_move = json.loads(json.dumps(good))
    bad_move["history"][0]["terms"]["price"] = "99"
    with pytest.raises(SaveError, match="'99' is not a value"):
        Negotiation(market()).set_state(bad_move)
    wrong = dict(good, status="agreement")
    with pytest.raises(SaveError, match="does not match"):
        Negotiation(market()).set_state(wrong)
    with pytest.raises(SaveError, match="parties"):
        Negotiation(market()).set_state(dict(good, parties=["player", "smith"]))
    with pytest.raises(SaveError):
        Negotiation(market()).set_state({"version": 1, "parties": [P, M], "history": [{}]})
    fresh = Negotiation(market())
    with pytest.raises(SaveError):
        fresh.set_state(wrong)
    assert fresh.history == () and fresh.turn == P  # untouched on failure


# --- runner and baseline ---------------------------------------------------------


def test_run_negotiation_time_concession_reaches_agreement():
    sc = market()
    u = utilities_for(sc)
    negs = {P: TimeConcession(u[P]), M: TimeConcession(u[M])}
    assert all(isinstance(n, Negotiator) for n in negs.values())
    s, m = run_negotiation(sc, negs)
    assert s.status == "agreement" and m.agreement
    assert m.utility(P) >= 0.2 and m.utility(M) >= 0.3
    assert m.terms == tuple(s.agreement.items())
    assert m.individually_rational
    # linear vs linear (hand-traced): the player offers utilities 1, 1, .65, .65 then, with
    # target .333 in round 5, 20/low (.35); the merchant's target is .417 and 20/low gives it .7
    assert s.agreement == {"price": "20", "quality": "low"} and m.utilities == (0.35, 0.7)
    assert m.terms == m.nash_terms


def test_run_negotiation_max_steps_and_party_check():
    sc = market()
    u = utilities_for(sc)
    negs = {P: from_kind("boulware", u[P]), M: from_kind("boulware", u[M])}
    s, m = run_negotiation(sc, negs, max_steps=1)
    assert s.is_open and len(s.history) == 1 and not m.agreement
    with pytest.raises(InputError, match="no negotiator for party 'merchant'"):
        run_negotiation(sc, {P: negs[P], "merchnt": negs[M]})


def test_time_concession_targets_and_moves():
    u = utilities_for(market())[P]
    lin = TimeConcession(u, 1.0)
    assert lin.target(0.0) == 1.0 and lin.target(1.0) == 0.2 and lin.target(0.5) == 0.6
    assert from_kind("boulware", u).exponent == 0.2
    assert from_kind("conceder", u).exponent == 5.0
    assert from_kind("linear", u, exponent=2.0).exponent == 2.0
    # at t=.5 target .6: lowest own utility >= .6 is 20/high (.65)
    assert u.space.terms(lin.offer_index(0.5)) == OFFER_A
    # a target hit exactly is offered (t=.4375 -> target .65 = 20/high), not the next one up
    assert lin.target(0.4375) == 0.65 and u.space.terms(lin.offer_index(0.4375)) == OFFER_A
    # at t=1 the target is the reservation .2: lowest own utility >= .2 is 30/high (.3)
    assert u.space.terms(lin.offer_index(1.0)) == {"price": "30", "quality": "high"}
    # equal utilities: the earliest outcome wins
    flat = TimeConcession(utilities_for(one_issue({"x": (0.5, 0), "y": (0.5, 0), "z": (1, 0)}))[P])
    assert flat.offer_index(1.0) == 0 and flat.offer_index(0.0) == 2
    s = Negotiation(market(deadline=2))
    s.offer(P, OFFER_A)  # merchant gets .3 = its reservation
    mer = TimeConcession(utilities_for(market())[M], 1.0)
    assert mer.respond(s, M).kind == "offer"  # t=.5, target .65 > .3
    s.offer(M, OFFER_B)
    s.offer(P, OFFER_A)  # round 2, t=1: target = reservation .3
    assert mer.respond(s, M) == Move.accept()


def test_time_concession_walks_away_when_nothing_is_rational():
    sc = one_issue({"x": (0.1, 0.9), "y": (0.2, 0.8)}, r=(0.5, 0.0))
    u = utilities_for(sc)
    assert TimeConcession(u[P]).respond(Negotiation(sc), P) == Move.walk_away()


def test_from_kind_unknown():
    u = utilities_for(market())[P]
    with pytest.raises(InputError, match="unknown negotiator kind 'bolware'") as e:
        from_kind("bolware", u)
    assert e.value.hint == "did you mean 'boulware'?"
    with pytest.raises(InputError):
        from_kind("linear", u, patience=3)
    with pytest.raises(InputError):
        TimeConcession(u, 0.0)


# --- properties -----------------------------------------------------------------

unit = st.floats(0.0, 1.0, allow_nan=False)


@st.composite
def scenes(draw) -> NegotiationScene:
    n_issues = draw(st.integers(2, 3))
    issues = {f"i{k}": [f"v{j}" for j in range(draw(st.integers(2, 4)))] for k in range(n_issues)}
    parties = []
    for pid in (P, M):
        weights = {i: draw(unit) for i in issues}
        weights["i0"] = draw(st.floats(0.01, 1.0))
        values = {i: {v: draw(unit) for v in vs} for i, vs in issues.items()}
        parties.append({"id": pid, "weights": weights, "values": values, "reservation": draw(unit)})
    return NegotiationScene.model_validate(
        {
            "type": "negotiation",
            "title": "random",
            "issues": issues,
            "parties": parties,
            "deadline": draw(st.integers(1, 8)),
            "first": draw(st.sampled_from([None, M])),
        }
    )


prop = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@prop
@given(scenes())
def test_prop_utilities_in_unit_interval(sc):
    for u in utilities_for(sc).values():
        assert u.vector.size == np.prod([len(v) for v in sc.issues.values()])
        assert (u.vector >= 0).all() and (u.vector <= 1).all()
        assert sum(u.weights.values()) == pytest.approx(1.0)


@prop
@given(scenes())
def test_prop_frontier_exact(sc):
    a = analyse(sc)
    U = a.matrix
    front = set(a.frontier.tolist())

    def dominates(x, y):
        return bool((x >= y).all() and (x > y).any())

    for k in range(len(U)):
        dominated = any(dominates(U[j], U[k]) for j in range(len(U)))
        assert (k in front) == (not dominated)
        if k not in front:
            assert any(dominates(U[j], U[k]) for j in front)
        else:
            assert a.evaluate(k).distance_to_frontier == 0.0


@prop
@given(scenes())
def test_prop_nash_and_ks_optimal(sc):
    a = analyse(sc)
    U, r = a.matrix, a.reservations
    rational = [k for k in range(len(U)) if (U[k] >= r).all()]
    if not rational:
        assert a.nash is None and a.ks is None
        return
    assert a.nash in rational and a.ks in rational
    best = max(np.prod(U[k] - r) for k in rational)
    assert np.prod(U[a.nash] - r) >= best - 1e-9
    span = np.max([U[k] - r for k in rational], axis=0)

    def ks(k):
        return min(1.0 if s == 0 else g / s for g, s in zip(U[k] - r, span))

    assert ks(a.ks) >= max(ks(k) for k in rational) - 1e-9


@prop
@given(scenes(), st.sampled_from(sorted(KINDS)), st.sampled_from(sorted(TIME_KINDS)), st.floats(0.05, 10.0))
def test_prop_time_concession_respects_reservation(sc, k1, k2, e):
    u = utilities_for(sc)
    negs = {P: from_kind(k1, u[P]), M: from_kind(k2, u[M], exponent=e)}
    s, m = run_negotiation(sc, negs, utilities=u)
    assert s.status != "open"
    for rec in s.history:
        if rec.kind in ("offer", "accept"):
            assert u[rec.party](dict(rec.terms)) >= u[rec.party].reservation
    if m.agreement:
        assert m.individually_rational
    assert m.to_dict()["outcome_count"] == len(u[P].vector)


@prop
@given(scenes(), st.floats(0.05, 20.0), st.lists(st.floats(0.0, 1.0), min_size=2, max_size=10))
def test_prop_target_non_increasing(sc, e, ts):
    u = utilities_for(sc)[P]
    tc = TimeConcession(u, e)
    targets = [tc.target(t) for t in sorted(ts)]
    assert all(a >= b for a, b in zip(targets, targets[1:]))
    assert all(u.reservation <= t <= 1.0 for t in targets)
    assert tc.target(1.0) == u.reservation
    for t in ts:
        k = tc.offer_index(t)
        if k is not None:
            assert u.at(k) >= u.reservation


def test_analysis_reuse_is_consistent():
    sc = market()
    a = NegotiationAnalysis(utilities_for(sc))
    s, m = run_negotiation(sc, {p: TimeConcession(a.utilities[p]) for p in a.parties}, analysis=a)
    assert s.analysis is a and m == a.evaluate(s.agreement)
