"""Negotiators at tournament speed: the incremental per-session memo decides exactly as a
from-scratch rebuild of everything from ``session.history``; tit-for-tat's first concession."""

from __future__ import annotations

import copy
import gc
import json
import math
import pickle

import numpy as np
import pytest

from agents.negotiators import (
    Aspiration,
    Hardliner,
    NaiveTitForTat,
    RandomNegotiator,
    TimeConcession,
    from_kind,
    kind_params,
)
from agents.opponent_model import MAX_TRACKED, FrequencyModel, fast_quantise
from game.core.errors import InputError
from game.negotiation.generate import random_scenes
from game.negotiation.runner import Move, apply_move, run_negotiation
from game.negotiation.session import Negotiation
from game.negotiation.utility import quantise, utilities_for

# --- the reference: every figure rebuilt from the whole history on every move (the old way) ---


def reference_move(neg, session: Negotiation, party: str) -> Move:
    """``neg``'s move computed from scratch with numpy, as before the memo existed."""
    u = neg.utility
    vec, r = u.vector, u.reservation
    if isinstance(neg, (Hardliner, RandomNegotiator)):
        return neg.respond(session, party)  # no history-dependent state to check
    if not vec.max() >= r:
        return Move.walk_away()
    opp = session.opponent(party)
    received = [
        u.space.index(dict(rec.terms))
        for rec in session.history
        if rec.party == opp and rec.kind == "offer" and rec.terms is not None
    ]
    if isinstance(neg, TimeConcession):
        t = min(max(session.time, 0.0), 1.0)
        target = max(r, quantise(r + (1.0 - r) * (1.0 - t ** (1.0 / neg.exponent))))
    elif isinstance(neg, NaiveTitForTat):
        conceded = 0.0
        if len(received) >= 2:
            d = np.diff(vec[received])
            conceded = float(d[d > 0].sum())
        first = neg.first_concession if (received and session.first == party) else 0.0
        target = max(r, quantise(float(vec.max()) - first - neg.scale * conceded))
    else:
        assert isinstance(neg, Aspiration)
        target = max(r, quantise(r + (1.0 - r) * (1.0 - neg.rate) ** max(session.round - 1, 0)))
        if received:
            target = max(target, float(vec[received].max()))
    standing = session.standing_offer
    if standing is not None and session.standing_party != party:
        mine = u(standing)
        if mine >= target and mine >= r:
            return Move.accept()
    order = np.lexsort((np.arange(vec.size), vec))
    pos = int(np.searchsorted(vec[order], target, side="left"))
    plain = int(order[pos]) if pos < vec.size else int(np.argmax(vec))
    k = plain
    if neg.opponent_model:
        model = FrequencyModel.from_history(u.space, session.history, opp)
        band = (vec >= target) & (vec <= quantise(target + neg.tolerance))
        if band.any():
            k = int(np.argmax(np.where(band, model.estimates(), -np.inf)))
    return Move.offer(u.space.terms(k))


SPECS = [
    ("boulware", {}),
    ("linear", {"opponent_model": True}),
    ("conceder", {"opponent_model": True, "tolerance": 0.2}),
    ("tit_for_tat", {"first_concession": 0.0}),
    ("tit_for_tat", {"opponent_model": True}),
    ("tit_for_tat", {"first_concession": 0.3, "scale": 2.0, "opponent_model": True, "tolerance": 0.1}),
    ("aspiration", {}),
    ("aspiration", {"opponent_model": True, "rate": 0.3}),
    ("hardliner", {}),
    ("random", {"seed": 5, "accept_prob": 0.3}),
]


def _play_checked(scene, utils, negs) -> Negotiation:
    s = Negotiation(scene, utilities=utils)
    while s.is_open:
        p = s.turn
        move = negs[p].respond(s, p)
        assert move == reference_move(negs[p], s, p), (scene.title, p, s.moves_made)
        apply_move(s, p, move)
    return s


def test_incremental_moves_equal_from_scratch_rebuild_over_generated_scenes():
    """Every move of every pairing (both roles, self-play) on generated scenes, with one instance
    per (scene, agent, party) reused across all its games as the benchmarks do: the memo's move
    equals the from-scratch move. Sessions die between games, so ids get reused."""
    scenes = random_scenes(8, 321) + random_scenes(4, 322, deadline=5)
    games = 0
    for sc in scenes:
        u = utilities_for(sc)
        negs = {p: [from_kind(k, u[p], **params) for k, params in SPECS] for p in ("a", "b")}
        for x in range(len(SPECS)):
            for y in range(len(SPECS)):
                _play_checked(sc, u, {"a": negs["a"][x], "b": negs["b"][y]})
                games += 1
    assert games == 12 * len(SPECS) ** 2


def test_negotiators_built_per_game_play_as_ones_reused_across_games():
    """New negotiators for every game (as a tournament builds them) share their utility
    function's precomputed views and make every move an instance reused across games makes."""
    for sc in random_scenes(4, 77) + random_scenes(2, 78, deadline=6):
        u = utilities_for(sc)
        reused = {p: [from_kind(k, u[p], **params) for k, params in SPECS] for p in ("a", "b")}
        for x, (kx, px) in enumerate(SPECS):
            for y, (ky, py) in enumerate(SPECS):
                fresh = {"a": from_kind(kx, u["a"], **px), "b": from_kind(ky, u["b"], **py)}
                assert fresh["a"]._sorted is reused["a"][x]._sorted
                s1, _ = run_negotiation(sc, fresh, utilities=u)
                s2, _ = run_negotiation(sc, {"a": reused["a"][x], "b": reused["b"][y]}, utilities=u)
                assert s1.get_state() == s2.get_state()


def test_interleaved_sessions_copies_and_restores_share_one_instance():
    """One instance per party plays several sessions at once, move by move in turn, while some are
    copied or restored in place from a saved state; each ends as a fresh, unshared run would."""
    sc = random_scenes(1, 99)[0]
    u = utilities_for(sc)
    for kind, params in SPECS[:8]:
        shared = {p: from_kind(kind, u[p], **params) for p in ("a", "b")}
        alone = run_negotiation(sc, {p: from_kind(kind, u[p], **params) for p in ("a", "b")}, utilities=u)[
            0
        ].get_state()
        sessions = [Negotiation(sc, utilities=u) for _ in range(3)]
        step = 0
        while any(s.is_open for s in sessions):
            for i, s in enumerate(sessions):
                if not s.is_open:
                    continue
                p = s.turn
                move = shared[p].respond(s, p)
                assert move == reference_move(shared[p], s, p)
                apply_move(s, p, move)
                if step == 7 and i == 1:  # rewind in place: same object, new records
                    half = Negotiation(sc, utilities=u)
                    for rec in s.history[:3]:
                        half.play(rec.party, rec.kind, dict(rec.terms) if rec.terms else None)
                    s.set_state(half.get_state())
                if step == 9 and i == 2:  # a copy continues beside its original
                    sessions.append(s.copy())
            step += 1
        for s in sessions:
            assert s.get_state() == alone, (kind, params)


def test_memo_is_bounded_and_survives_copy_and_pickle():
    sc = random_scenes(1, 5)[0]
    u = utilities_for(sc)
    neg = from_kind("linear", u["a"], opponent_model=True)
    other = from_kind("boulware", u["b"])
    live = []
    for i in range(1000):  # thousands of sessions through one instance
        s, _ = run_negotiation(sc, {"a": neg, "b": other}, utilities=u)
        if i % 5 == 0:
            live.append(s)  # some stay alive, so eviction must drop live ones too
        assert len(neg._tracks) <= MAX_TRACKED
    gc.collect()
    # an evicted but live session is rebuilt from its history: the same move as from scratch
    for s in live[:3]:
        probe = Negotiation(sc, utilities=u)
        for rec in s.history[:5]:
            probe.play(rec.party, rec.kind, dict(rec.terms) if rec.terms else None)
        if probe.is_open:
            assert neg.respond(probe, probe.turn) == reference_move(neg, probe, probe.turn)
    for clone in (copy.copy(neg), copy.deepcopy(neg), pickle.loads(pickle.dumps(neg))):
        assert len(clone._tracks) == 0
        s1, _ = run_negotiation(sc, {"a": clone, "b": other}, utilities=u)
        s2, _ = run_negotiation(sc, {"a": neg, "b": other}, utilities=u)
        assert s1.get_state() == s2.get_state()


def test_public_figures_match_whole_history_formulas():
    sc = random_scenes(1, 17)[0]
    u = utilities_for(sc)
    tft = NaiveTitForTat(u["b"], opponent_model=True)
    asp = Aspiration(u["b"])
    s = Negotiation(sc, utilities=u)
    rng = np.random.default_rng(3)
    space = u["a"].space
    while s.is_open:
        if s.turn == "a":
            s.offer("a", space.terms(int(rng.integers(space.size))))
        else:
            received = tft._offers_received(s, "b")
            d = np.diff(u["b"].vector[received]) if len(received) > 1 else np.zeros(0)
            assert tft.conceded(s, "b") == float(d[d > 0].sum())
            assert asp.best_received(s, "b") == float(u["b"].vector[received].max())
            fresh = tft.model(s, "b").estimates()
            assert fresh.tolist() == tft._track(s, "b").model.estimate_at(range(space.size))
            apply_move(s, "b", tft.respond(s, "b"))


def test_fast_quantise_and_estimate_at_are_numpy_bit_for_bit():
    rng = np.random.default_rng(11)
    xs = np.concatenate(
        [
            rng.random(20000),
            rng.random(5000) * 3 - 1,
            np.round(rng.random(5000), 12) + 5e-13,
            [0.0, 1.0, 0.5e-12, 1.5e-12, 2.5e-12],
        ]
    )
    for x in xs.tolist():
        assert fast_quantise(x) == quantise(x)
    for sc in random_scenes(10, 4):
        space = utilities_for(sc)["a"].space
        m = FrequencyModel(space)
        for k in rng.integers(space.size, size=15).tolist():
            m.observe(int(k))
            assert m.estimate_at(range(space.size)) == m.estimates().tolist()


# --- tit-for-tat's first concession ----------------------------------------------------------


def test_first_concession_is_a_checked_parameter():
    u = utilities_for(random_scenes(1, 1)[0])["a"]
    assert "first_concession" in kind_params("tit_for_tat")
    assert from_kind("tit_for_tat", u).first_concession == 0.15
    assert from_kind("tit_for_tat", u, first_concession=0).first_concession == 0.0
    for bad, match in (
        (-0.1, r"first_concession must be in \[0, 1\]"),
        (1.5, "must be in"),
        ("0.1", "finite number"),
        (math.nan, "finite number"),
        (True, "finite number"),
    ):
        with pytest.raises(InputError, match=match):
            from_kind("tit_for_tat", u, first_concession=bad)


def test_first_concession_only_by_the_opener_and_once():
    sc = random_scenes(1, 8)[0]
    u = utilities_for(sc)
    a, b = NaiveTitForTat(u["a"], first_concession=0.1), NaiveTitForTat(u["b"], first_concession=0.1)
    s = Negotiation(sc, utilities=u)
    best_a, best_b = u["a"].best, u["b"].best
    assert a.current_target(s, "a") == max(u["a"].reservation, best_a)  # opens at its best
    apply_move(s, "a", a.respond(s, "a"))
    assert b.current_target(s, "b") == max(u["b"].reservation, best_b)  # the answerer waits
    apply_move(s, "b", b.respond(s, "b"))
    assert a.current_target(s, "a") == max(u["a"].reservation, quantise(best_a - 0.1))


def _self_play_agreements(first_concession: float, opponent_model: bool = False) -> int:
    n = 0
    for seed in range(10):
        for sc in random_scenes(40, seed):
            u = utilities_for(sc)
            negs = {
                p: from_kind("tit_for_tat", u[p], first_concession=first_concession, opponent_model=opponent_model)
                for p in ("a", "b")
            }
            n += run_negotiation(sc, negs, utilities=u)[1].agreement
    return n


def test_first_concession_breaks_the_self_play_deadlock():
    """400 generated scenes (10 sets of 40), tit-for-tat against itself: measured 17/400 agreements
    without the first concession, 204/400 with the default 0.15 and 255/400 with the opponent model
    as well (one set of 40 alone ranges from 15 to 27 with 0.15); asserted with margin."""
    assert _self_play_agreements(0.0) <= 40  # under 10%
    assert _self_play_agreements(0.15) >= 170  # about half
    assert _self_play_agreements(0.15, opponent_model=True) >= 170


def test_first_concession_zero_is_the_old_tit_for_tat():
    """With ``first_concession=0`` every move equals the old whole-history tit-for-tat (whose target
    is ``best - scale * conceded``), against every kind, in both roles."""
    for sc in random_scenes(6, 55):
        u = utilities_for(sc)
        for kind, params in SPECS:
            for scale in (1.0, 0.5):
                tft = {p: NaiveTitForTat(u[p], scale=scale, first_concession=0) for p in ("a", "b")}
                other = {p: from_kind(kind, u[p], **params) for p in ("a", "b")}
                for negs in ({"a": tft["a"], "b": other["b"]}, {"a": other["a"], "b": tft["b"]}):
                    s = _play_checked(sc, u, negs)
                    assert json.dumps(s.get_state())
