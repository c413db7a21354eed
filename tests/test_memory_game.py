"""Memory in real games: every event is remembered by its perceivers, every turn gets a context,
saves carry the bank, `parley inspect` explains a context, and insights carry across games."""

from __future__ import annotations

import json

import pytest

from game.core.types import Decision
from game.play.episode import run_script, script_lines
from game.play.session import Game
from memory.records import FACTS, SHARED, private
from tests.conftest import ROOT, WORLDS, parley

pytestmark = pytest.mark.embeddings
MINI = ROOT / "tests" / "fixtures" / "mini"


def play_mini(memory=None, upto=None, insights=None):
    game = Game(MINI, seed=0, memory=memory or {"embedder": "minilm"}, insights=insights)
    lines = script_lines(str(ROOT / "tests" / "fixtures" / "mini_win.txt"))
    run_script(game, lines[:upto], "mini")
    return game


def test_events_go_to_perceivers_only():
    game = play_mini(upto=3)
    bank = game.memory.bank
    took = [r for r in bank.records.values() if "takes the iron key" in r.text]
    assert {r.scope for r in took} == {private("player"), private("liar")}  # Lou was in the yard
    assert not any(r.scope == private("mara") for r in took)
    for r in bank.visible("mara"):
        assert r.scope in (SHARED, FACTS, private("mara"))


def test_public_events_verified_facts_and_agreements():
    game = play_mini()
    bank = game.memory.bank
    assert any(r.scope == SHARED and r.kind == "quest" for r in bank.records.values())
    facts = [r for r in bank.records.values() if r.scope == FACTS]
    assert {f.text for f in facts} >= {"The gem is in the oak chest.", "False: The gem lies at the bottom of the well."}
    deal = [r for r in bank.records.values() if r.kind == "agreement"]
    assert deal and all(r.anchor for r in deal)
    offers = [r for r in bank.records.values() if r.kind == "offer" and r.topic == "buy_lamp"]
    assert offers and all(r.status == "resolved" for r in offers)


def test_every_npc_turn_gets_a_context(tmp_path):
    seen = []

    class Listener:
        passive = False
        uses_context = True

        def act(self, observation, context=None):
            seen.append((observation.actor, context))
            return Decision(None)

    game = Game(MINI, seed=0, memory={"embedder": "minilm"}, agents={"liar": Listener()})
    run_script(game, script_lines(str(ROOT / "tests" / "fixtures" / "mini_win.txt"))[:4], "mini")
    assert len(seen) == 4 and all(a == "liar" for a, _ in seen)
    ctx = seen[-1][1]
    assert ctx.agent == "liar" and ctx.tokens <= ctx.budget and "iron key" in ctx.text()


def test_save_load_keeps_memory_and_contexts(tmp_path):
    game = play_mini(upto=8)
    game.save("m", tmp_path)
    loaded = Game.load("m", tmp_path)
    assert loaded.memory.bank.get_state() == game.memory.bank.get_state()
    obs = game.engine.observe("player")
    a = game.memory.context("player", obs, touch=False).text()
    b = loaded.memory.context("player", loaded.engine.observe("player"), touch=False).text()
    assert a == b and "gem" in a


def test_insights_become_priors_in_the_next_game(tmp_path):
    from memory.insights import InsightBank

    bank = InsightBank(tmp_path / "insights.json")
    first = play_mini(insights=bank)
    assert first.engine.state.won
    assert first.learn() > 0
    second = Game(MINI, seed=1, memory={"embedder": "minilm"}, insights=InsightBank(tmp_path / "insights.json"))
    ctx = second.memory.context("player", second.engine.observe("player"))
    priors = ctx.sections.get("priors", [])
    assert priors and any("Lou" in p or "gem" in p for p in priors)


def test_cli_inspect_explains_a_context(tmp_path):
    saves = tmp_path / "saves"
    r = parley(
        "play",
        str(MINI),
        "--saves-dir",
        str(saves),
        "--embedder",
        "hash",
        input="take iron key\nask lou about gem\nn\ntrade with mara\nsave s\nquit\n",
    )
    assert r.returncode == 0, r.stderr
    r = parley("inspect", "s", "--saves-dir", str(saves), "--agent", "player")
    assert r.returncode == 0, r.stderr
    assert "context for player" in r.stdout and "Always remember" in r.stdout and "selected" in r.stdout
    r = parley("inspect", "s", "--saves-dir", str(saves), "--agent", "mara", "--json")
    data = json.loads(r.stdout)
    assert data["agent"] == "mara" and data["tokens"] <= data["budget"]
    assert all(c["scope"] in ("shared", "facts", "private:mara") for c in data["candidates"])
    r = parley("inspect", "s", "--saves-dir", str(saves), "--agent", "marra")
    assert r.returncode == 2 and "did you mean 'mara'?" in r.stderr
    r = parley("play", "--no-memory", str(MINI), "--saves-dir", str(saves), input="wait\nsave nm\nquit\n")
    r = parley("inspect", "nm", "--saves-dir", str(saves))
    assert r.returncode == 2 and "memory off" in r.stderr


def test_cli_autopilot_with_memory_records_insights(tmp_path):
    out = tmp_path / "h.jsonl"
    r = parley(
        "run",
        str(WORLDS / "harbor"),
        "--autopilot",
        "--seed",
        "2",
        "--quiet",
        "--out",
        str(out),
        env={"PARLEY_SAVES": str(tmp_path)},
    )
    assert r.returncode == 0, r.stderr
    assert "WON" in r.stdout and "lessons recorded" in r.stdout
    data = json.loads((tmp_path / "insights.json").read_text())
    assert any(k.startswith("harbor-v1/player/autopilot") for k in json.dumps(data).split('"'))
