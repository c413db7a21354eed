"""Trust builds when verification is rare: with ``decay = "judged"`` (the game's setting) an NPC's
reliability moves only when it is judged, so an honest NPC verified in 1 of 10 events ends where
it would have had it been verified 10 times in a row; with per-event decay of every peer it stays
near zero (the analysed model, kept as ``decay = "event"``)."""

from __future__ import annotations

import numpy as np
import pytest

from game.core.errors import InputError
from memory.sigma import SigmaMem

NPCS = [f"n{i}" for i in range(10)]


def sparse(decay: str, rounds: int = 100) -> SigmaMem:
    sm = SigmaMem(peers=NPCS, topics=["gem", "price"], phi="onehot", decay=decay)
    for k in range(rounds):
        sm.write("gem", {NPCS[k % 10]: 1})  # each NPC judged once in ten events
    return sm


def test_rarely_judged_honest_npc_builds_trust():
    judged, event = sparse("judged"), sparse("event")
    alone = SigmaMem(peers=NPCS, topics=["gem", "price"], phi="onehot", decay="judged")
    for _ in range(10):
        alone.write("gem", {"n0": 1})
    assert judged.score("n0", "gem") == pytest.approx(alone.score("n0", "gem"), abs=1e-12)
    assert judged.score("n0", "gem") > 3 * event.score("n0", "gem")
    assert event.score("n0", "gem") < 0.15  # the failure: 10 honest verdicts, almost no trust
    assert judged.score("n0", "price") == 0  # no evidence on another topic


def test_idle_decay_and_ticks():
    sm = SigmaMem(peers=NPCS, topics=["gem"], phi="onehot", decay="judged", gamma_idle=0.99)
    sm.write("gem", {"n0": 1})
    s0 = sm.score("n0", "gem")
    sm.write("gem", {"n1": 1})  # n0 not judged: the slower idle rate
    assert sm.score("n0", "gem") == pytest.approx(0.99 * s0)
    sm.tick(5)
    assert sm.score("n0", "gem") == pytest.approx(0.99**6 * s0)
    still = SigmaMem(peers=NPCS, topics=["gem"], phi="onehot", decay="judged")
    still.write("gem", {"n0": 1})
    s = still.score("n0", "gem")
    still.tick(50)
    assert still.score("n0", "gem") == s  # gamma_idle 1: time alone forgets nothing
    M = still.M("n0")
    assert np.allclose(M, M.T)
    with pytest.raises(InputError):
        SigmaMem(peers=NPCS, topics=["gem"], phi="onehot", decay="sometimes")


def test_topic_decay_also_builds_trust_when_judged_rarely():
    sm = SigmaMem(peers=NPCS, topics=["gem", "price"], phi="topics", decay="topic")
    for k in range(100):
        sm.write("gem", {NPCS[k % 10]: 1})
    assert sm.score("n0", "gem") == pytest.approx(sparse("judged").score("n0", "gem"), abs=1e-12)
    sm.write("price", {"n0": -1})  # judged on another topic: its trust on gem is kept (judged: × γ)
    assert sm.score("n0", "gem") == pytest.approx(sparse("judged").score("n0", "gem"), abs=1e-12)


def test_the_game_decays_on_judgement_and_saves_it():
    from game.play.session import Game
    from tests.conftest import ROOT

    game = Game(ROOT / "tests" / "fixtures" / "mini", seed=0)
    assert game.facts.sigma.config.decay == "topic"  # decay on judgement, on the judged topic only
    state = game.facts.sigma.get_state()
    assert SigmaMem.from_state(state).config.decay == "topic"
