"""The fast paths of the time-based negotiators and of the session decide exactly as before: the
per-round steps (target, plain offer, opponent-model band), the opponent model read only for a
band of two outcomes or more, its band scoring and its runs of repeated offers, and the session's
memo of offer terms already in its own form."""

from __future__ import annotations

import copy
import gc
import pickle

import numpy as np
import pytest

from agents import negotiator_base
from agents.negotiators import TimeConcession, from_kind
from agents.opponent_model import FrequencyModel
from game.negotiation.generate import random_scenes
from game.negotiation.runner import Move, apply_move
from game.negotiation.session import Negotiation, NegotiationError
from game.negotiation.spec import NegotiationScene
from game.negotiation.utility import UtilityFunction, utilities_for
from tests.test_negotiator_speed import reference_move


def coarse_scenes(n: int, seed: int, sizes: tuple[int, ...], deadline: int = 20, first: str = "a"):
    """Scenes whose weights and value utilities are quarters: many outcomes tie in utility and in
    the model's estimate, so the earliest-among-equals rules decide often."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        issues = {f"i{j}": [f"v{v}" for v in range(s)] for j, s in enumerate(sizes)}
        parties = [
            {
                "id": pid,
                "weights": {iss: float(rng.integers(1, 4)) for iss in issues},
                "values": {iss: {v: float(rng.integers(0, 5)) / 4 for v in vals} for iss, vals in issues.items()},
                "reservation": float(rng.uniform(0.0, 0.5)),
            }
            for pid in ("a", "b")
        ]
        out.append(
            NegotiationScene.model_validate(
                {
                    "type": "negotiation",
                    "title": f"c{i}",
                    "issues": issues,
                    "parties": parties,
                    "deadline": deadline,
                    "first": first,
                }
            )
        )
    return out


TIMED = [
    ("boulware", {"opponent_model": True}),
    ("linear", {"opponent_model": True, "tolerance": 0.0}),
    ("linear", {"opponent_model": True, "tolerance": 0.2}),
    ("conceder", {"opponent_model": True, "tolerance": 1.0}),  # the whole space: the general band
    ("linear", {"exponent": 2.5}),
]
OPPONENTS = [("hardliner", {}), ("boulware", {}), ("random", {"seed": 2}), ("tit_for_tat", {"opponent_model": True})]


def _play(scene, utils, negs, first=None) -> int:
    s = Negotiation(scene, utilities=utils, first=first)
    moves = 0
    while s.is_open:
        p = s.turn
        move = negs[p].respond(s, p)
        assert move == reference_move(negs[p], s, p), (scene.title, p, s.moves_made)
        apply_move(s, p, move)
        moves += 1
    return moves


@pytest.mark.parametrize(
    "scenes",
    [
        coarse_scenes(3, 1, (3, 4, 3)),
        coarse_scenes(2, 2, (3, 3, 3, 3), deadline=3, first="b"),  # four issues: the model's general path
        coarse_scenes(1, 3, (9, 8, 8, 8), deadline=6),  # 4,608 outcomes: the numpy path
        coarse_scenes(2, 4, (5, 4), deadline=1) + coarse_scenes(2, 5, (5,), deadline=2),
        random_scenes(3, 6, deadline=30),
    ],
    ids=["ties", "four-issues", "large", "short-and-one-issue", "generated"],
)
def test_time_based_moves_equal_the_whole_history_rebuild(scenes):
    """Against kinds that repeat offers (runs), that never do, and themselves, in both roles and
    with either opener: every move equals the one rebuilt from scratch."""
    moves = 0
    for sc in scenes:
        u = utilities_for(sc)
        for kind, params in TIMED:
            for other, oparams in [*OPPONENTS, (kind, params)]:
                for first in (None, "b"):
                    negs = {"a": from_kind(kind, u["a"], **params), "b": from_kind(other, u["b"], **oparams)}
                    moves += _play(sc, u, negs, first)
                    negs = {"a": from_kind(other, u["a"], **oparams), "b": from_kind(kind, u["b"], **params)}
                    moves += _play(sc, u, negs, first)
    assert moves > 100


def test_one_negotiator_over_two_deadlines_keeps_a_plan_for_each():
    """The same issues and utility function in scenes with different deadlines, played in turn by
    one instance: each move is the rebuilt one, and copies and pickles carry no plan."""
    base = coarse_scenes(1, 8, (4, 4, 3))[0]
    short = NegotiationScene.model_validate({**base.model_dump(), "deadline": 4})
    u = utilities_for(base)
    neg = TimeConcession(u["a"], 1.0, opponent_model=True, tolerance=0.15)
    other = from_kind("conceder", u["b"])
    for sc in (base, short, base, short):
        _play(sc, u, {"a": neg, "b": other})
    for clone in (copy.copy(neg), copy.deepcopy(neg), pickle.loads(pickle.dumps(neg))):
        assert clone._plan is None and len(clone._tracks) == 0
        _play(short, u, {"a": clone, "b": other})


def _model(rng, sizes, offers):
    from game.negotiation.utility import space_for

    space = space_for({f"i{j}": [f"v{v}" for v in range(s)] for j, s in enumerate(sizes)})
    m = FrequencyModel(space)
    for k in rng.integers(space.size, size=offers).tolist():
        m.observe(int(k))
    return space, m


def test_best_of_is_the_earliest_of_the_highest_estimates():
    """Term by term, from the tables, with or without positions, on one to four issues: the
    outcome the whole-space estimates pick (the earliest of the best)."""
    rng = np.random.default_rng(21)
    for sizes in [(3,), (2, 2), (4, 3), (3, 3, 2), (5, 4, 3), (2, 2, 2, 2), (6, 1, 1)]:
        for offers in (0, 1, 2, 5, 30):
            space, m = _model(rng, sizes, offers)
            est = m.estimates()
            for _ in range(20):
                band = [
                    int(k) for k in rng.choice(space.size, size=int(rng.integers(1, space.size + 1)), replace=False)
                ]
                top = est[band].max()
                want = min(k for k in band if est[k] == top)
                assert m.best_of(band) == want
                assert m.best_of(band, [tuple(space.grid[k].tolist()) for k in band]) == want
                m._weighted()  # the tables, as a larger band leaves them
                assert m.best_of(band) == want
                m._ws = None


def test_observe_times_counts_a_run_as_that_many_offers():
    rng = np.random.default_rng(5)
    space, _ = _model(rng, (3, 4, 2), 0)
    for _ in range(30):
        one, run = FrequencyModel(space), FrequencyModel(space)
        for k, t in zip(rng.integers(space.size, size=6).tolist(), rng.integers(1, 4, size=6).tolist()):
            for _ in range(t):
                one.observe(int(k))
            run.observe(int(k), int(t))
        assert one.estimates().tolist() == run.estimates().tolist()
        assert (one.n_offers, one.unchanged.tolist()) == (run.n_offers, run.unchanged.tolist())
        assert [c.tolist() for c in one.counts] == [c.tolist() for c in run.counts]
    for bad in (0, -1, 1.0, True):
        with pytest.raises(ValueError, match="times"):
            FrequencyModel(space).observe(0, bad)


class _Str(str):
    pass


def test_session_takes_terms_in_its_own_form_as_they_are():
    sc = coarse_scenes(1, 9, (3, 2))[0]
    s = Negotiation(sc)
    t = (("i0", "v1"), ("i1", "v0"))
    assert s.is_checked(t) and s.check_terms(t) is t
    for bad in [
        (("i1", "v0"), ("i0", "v1")),  # issue order
        (("i0", "v1"),),  # an issue missing
        (("i0", "v9"), ("i1", "v0")),  # no such value
        (("i0", 1), ("i1", "v0")),
        (("i0", _Str("v1")), ("i1", "v0")),  # equal, but not a str: the general check
        (["i0", "v1"], ("i1", "v0")),
        [("i0", "v1"), ("i1", "v0")],
    ]:
        assert not s.is_checked(bad)
    assert s.check_terms((("i1", "v0"), ("i0", "v1"))) == t  # reordered by the general check
    rec = apply_move(s, "a", Move("offer", (("i1", "v0"), ("i0", "v1"))))
    assert rec.terms == t and s.standing == ("a", t)
    rec = apply_move(s, "b", Move("offer", t))
    assert rec.terms is t
    with pytest.raises(NegotiationError, match="turn"):
        apply_move(s, "b", Move("offer", t))
    with pytest.raises(NegotiationError, match="not a value"):
        apply_move(s, "a", Move("offer", (("i0", "v9"), ("i1", "v0"))))
    with pytest.raises((TypeError, ValueError)):  # as dict(move.terms) always raised
        apply_move(s, "a", Move("offer", (("i0",), ("i1", "v0"))))
    assert s.moves_made == 2


def test_views_are_dropped_with_their_utility_function():
    sc = coarse_scenes(1, 10, (3, 3))[0]
    party = sc.parties[0]
    u = UtilityFunction.from_party(party, sc.issues)
    neg = from_kind("linear", u, opponent_model=True)
    key = id(u)
    assert negotiator_base._VIEWS[key][1] is negotiator_base._views(u)
    del u, neg
    gc.collect()
    assert key not in negotiator_base._VIEWS
    again = UtilityFunction.from_party(party, sc.issues)  # maybe at the same address: new views
    assert negotiator_base._views(again)._choices == {}
    assert negotiator_base._VIEWS[id(again)][0]() is again
