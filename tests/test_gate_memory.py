"""What the gate refuses leaves every agent's memory: a claim the gate rejected, or whose fact a
verification purged, is masked in the memory bank (it was stored raw as each listener heard it),
so no MEMO context shows it as a belief."""

from __future__ import annotations

import pytest

from game.core.types import PLAYER
from game.play.session import Game
from tests.conftest import ROOT

MINI = ROOT / "tests" / "fixtures" / "mini"
OPEN_CHEST = [
    "take brass key",
    "take iron key",
    "unlock gate with iron key",
    "e",
    "unlock chest with brass key",
    "open chest",
    "w",
]
WELL = ("gem", "located_in", "well")


def well_claims(game: Game) -> list:
    return [r for r in game.memory.bank.records.values() if r.kind == "claim" and r.triple == WELL]


def player_context(game: Game) -> str:
    obs = game.engine.observe(PLAYER)
    return game.memory.context(PLAYER, obs, touch=False).text()


@pytest.mark.parametrize("order", ["claim first, then the truth", "truth first, then the claim"])
def test_refused_claims_leave_every_context(order):
    game = Game(MINI, seed=0, memory={"embedder": "hash"})
    ask = ["ask lou about gem"]
    for cmd in ask + OPEN_CHEST if order.startswith("claim") else OPEN_CHEST + ask:
        game.submit(cmd)
    decisions = [
        d
        for d in game.facts.gate.decisions
        if (d.candidate["subject"], d.candidate["relation"], d.candidate["object"]) == WELL
    ]
    assert decisions, "Lou made the well claim"
    claims = well_claims(game)
    assert claims and all(r.status == "rejected" for r in claims)
    ctx = player_context(game)
    assert not [line for line in ctx.splitlines() if "Lou says" in line and "well" in line]
    assert "False: The gem lies at the bottom of the well." in ctx  # the verified truth is what stays


def test_admitted_claims_stay():
    game = Game(MINI, seed=0, memory={"embedder": "hash"})
    game.submit("ask lou about gem")
    claims = well_claims(game)
    assert claims and all(r.status == "active" for r in claims)  # nothing contradicts it yet
    assert "bottom of the well" in player_context(game)


def test_articles_do_not_hide_a_contradiction_or_a_corroboration():
    from memory.gate import ClaimCandidate

    gate = Game(MINI, seed=0).facts.gate
    gate.observe("gem", "located_in", "chest", True, turn=1)
    lie = gate.submit(ClaimCandidate("the gem", "located_in", "well", "gem", "liar", 2, ""))
    assert lie.outcome == "reject" and "contradicts" in lie.reason
    true = gate.submit(ClaimCandidate("gem", "located_in", "the chest", "gem", "mara", 2, ""))
    assert true.outcome == "admit" and "corroborates" in true.reason
