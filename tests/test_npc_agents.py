"""NPC agents: scripted voices (honesty, templates, rumours, haggling, debate), the
registry, and the recording of agents' decisions so replays need no agent."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from agents.npc import ScriptedNPC, Voice, matching_facts
from agents.registry import create, kinds, npc_agents
from game.core.errors import InputError
from game.core.types import PLAYER, Action, Request, Verb
from game.play.worlds import collect_problems, load_world
from game.testing import standard_engine

MINI = Path(__file__).parent / "fixtures" / "mini"


def variant(tmp_path: Path, old: str, new: str) -> Path:
    """A copy of the mini world with one piece of its TOML replaced."""
    dst = tmp_path / "mini"
    shutil.copytree(MINI, dst)
    text = (dst / "world.toml").read_text()
    assert old in text, old
    (dst / "world.toml").write_text(text.replace(old, new, 1))
    return dst


def ask_many(world, npc: str, topic: str, n: int, seed: int = 0) -> list[dict]:
    """Claims from ``n`` answers (the voice alone, as the engine would ask it)."""
    v = Voice(world.spec, npc, seed)
    out = []
    for i in range(n):
        for u in v.reply(Request("ask", PLAYER, turn=i // 3, seq=i + 1, topic=topic)):
            out += [c.to_dict() for c in u.claims]
    return out


def truth(world, claims: list[dict]) -> list[bool]:
    return [world.spec.facts[c["fact_id"]].true for c in claims]


def test_claims_follow_the_per_topic_honesty_profile():
    world = load_world(MINI)
    gem = ask_many(world, "liar", "gem", 50)  # honesty on gem: 0.0 -> always the false version
    sky = ask_many(world, "liar", "sky", 50)  # default 1.0 -> always true
    assert len(gem) == 50 and not any(truth(world, gem))
    assert len(sky) == 50 and all(truth(world, sky))
    assert {c["speaker"] for c in gem} == {"liar"}
    assert {(c["subject"], c["relation"], c["object"]) for c in gem} == {("gem", "located_in", "well")}


def test_partial_honesty_tells_the_truth_at_about_its_rate(tmp_path):
    world = load_world(variant(tmp_path, "topics = { gem = 0.0 }", "topics = { gem = 0.3 }"))
    claims = ask_many(world, "liar", "gem", 600, seed=11)
    rate = float(np.mean(truth(world, claims)))
    assert abs(rate - 0.3) < 0.07, rate  # ~4 standard deviations of a binomial(600, 0.3)
    assert ask_many(world, "liar", "gem", 40, seed=11) == claims[:40]  # same seed, same words


def test_an_npc_that_only_knows_the_truth_never_lies_even_with_low_honesty(tmp_path):
    world = load_world(
        variant(
            tmp_path,
            'knowledge = ["gem_in_chest"]\nagent',
            'knowledge = ["gem_in_chest"]\nhonesty = { default = 0.0 }\nagent',
        )
    )
    assert all(truth(world, ask_many(world, "mara", "gem", 20)))


def test_unknown_topics_are_refused_without_claims():
    world = load_world(MINI)
    (u,) = Voice(world.spec, "mara", 1).reply(Request("ask", PLAYER, 0, 1, topic="dragons"))
    assert u.intent == "refuse" and not u.claims and "dragons" in u.text


def test_world_dialogue_templates_and_rumours(tmp_path):
    folder = variant(
        tmp_path,
        "wants = { coin = 5 }",
        "wants = { coin = 5 }\nrumour = 1.0\n"
        'lines = { answer = ["Between us, {player}: {text}"], rumour = ["Psst. {text}"], '
        'greet = ["Well met, {player}. I am {name}."] }',
    )
    world = load_world(folder)
    eng = standard_engine(world, seed=3)
    events = eng.run_round(Action(PLAYER, Verb.TALK, obj="liar"))
    talk = next(e for e in events if e.kind == "talk")
    assert 'Lou says: "Well met, Tester. I am Lou."' in talk.text
    rumour = next(e for e in events if e.kind == "say")
    assert rumour.data["intent"] == "rumour" and rumour.text.startswith('Lou says: "Psst.')
    assert len(rumour.data["claims"]) == 1
    events = eng.run_round(Action(PLAYER, Verb.ASK, obj="liar", target="sky"))
    said = next(e for e in events if e.kind == "say")
    assert said.text == 'Lou says: "Between us, Tester: The sky is blue."' or "Between us, Tester:" in said.text
    assert said.data["claims"][0]["fact_id"] == "sky_blue"


def test_bad_template_placeholders_are_reported_with_their_path(tmp_path):
    folder = variant(
        tmp_path,
        "wants = { coin = 5 }",
        'wants = { coin = 5 }\nlines = { refuse = ["No idea about {topik}."], answer = ["{text"] }',
    )
    problems = collect_problems(folder)
    text = "\n".join(str(p) for p in problems)
    assert "npcs.liar.lines.refuse[0]" in text and "{topik}" in text and "topic" in text
    assert "npcs.liar.lines.answer[0]" in text and "malformed" in text
    folder = variant(
        tmp_path / "b",
        "wants = { coin = 5 }",
        'wants = { coin = 5 }\nlines = { greet = ["{name:d}"], rumour = ["{text!x}"] }',
    )
    text = "\n".join(str(p) for p in collect_problems(folder))
    assert "npcs.liar.lines.greet[0]" in text and "npcs.liar.lines.rumour[0]" in text and "format spec" in text


def test_bad_negotiator_params_are_reported_at_load(tmp_path):
    folder = variant(
        tmp_path,
        'params = { negotiator = "boulware" }',
        'params = { negotiator = "boulware", negotiator_params = { exponent = -1 } }',
    )
    text = "\n".join(str(p) for p in collect_problems(folder))
    assert "npcs.mara.agent.params.negotiator_params" in text and "exponent" in text
    folder = variant(
        tmp_path / "b",
        'params = { negotiator = "boulware" }',
        'params = { negotiator = "hardliner", negotiator_params = { speed = 2 } }',
    )
    text = "\n".join(str(p) for p in collect_problems(folder))
    assert "npcs.mara.agent.params.negotiator_params" in text and "speed" in text


def test_negotiator_params_reach_standalone_scenes_and_trading(tmp_path):
    """The same params shape the in-game merchant and the standalone scene (hardliner with a wide epsilon
    accepts what a strict one refuses)."""
    from game.negotiation.utility import utilities_for
    from game.play.wiring import rule_negotiator as default_negotiator

    world = load_world(MINI)
    scene = world.spec.scenes["buy_lamp"]
    u = utilities_for(scene)["mara"]
    strict = default_negotiator(scene, "mara", u, {"negotiator": "hardliner"})
    loose = default_negotiator(scene, "mara", u, {"negotiator": "hardliner", "negotiator_params": {"epsilon": 0.9}})
    assert strict.epsilon < 1e-6 and loose.epsilon == 0.9


def test_merchants_haggle_in_words_with_their_moves():
    world = load_world(MINI)
    eng = standard_engine(world, seed=0)
    eng.state.where[PLAYER] = "shop"
    eng.run_round(Action(PLAYER, Verb.TRADE, obj="mara"))
    low = min(world.spec.scenes["buy_lamp"].issues["price"], key=int)
    events = eng.run_round(Action(PLAYER, Verb.OFFER, terms=(("price", low),)))
    offer = next(e for e in events if e.kind == "offer" and e.actor == "mara")
    assert offer.data["line"].startswith("How about price")
    assert 'Mara says: "How about price' in offer.text
    events = eng.run_round(Action(PLAYER, Verb.WALK_AWAY))
    assert not any(e.actor == "mara" for e in events)  # the player's walk-away needs no reply


def test_council_members_argue_from_the_bank_for_their_stance(tmp_path):
    world = load_world("worlds/council")
    sc = next(s for s in world.spec.scenes.values() if getattr(s, "type", "") == "council")
    member = next(p for p in sc.participants if p.id != PLAYER and p.stance != "for" and p.arguments)
    v = Voice(world.spec, member.id, 5)
    data = {
        "round": 0,
        "stance": member.stance,
        "initial": member.stance,
        "arguments": member.arguments,
        "converted": ["Now I see it."],
    }
    (before,) = v.reply(Request("speech", PLAYER, 1, 1, topic=sc.motion, data=data))
    (after,) = v.reply(Request("speech", PLAYER, 2, 2, topic=sc.motion, data={**data, "stance": "for"}))
    assert before.text == member.arguments[0] and after.text == "Now I see it."
    (default,) = v.reply(
        Request("speech", PLAYER, 2, 3, topic=sc.motion, data={**data, "stance": "for", "converted": []})
    )
    assert "changed my mind" in default.text


def test_every_npc_kind_builds_from_config_and_llm_kinds_need_an_endpoint():
    world = load_world("worlds/bazaar")
    rng = np.random.default_rng(0)
    for kind, params in (
        ("idle", {}),
        ("debater", {}),
        ("wanderer", {"p": 0.5}),
        ("patrol", {"route": ["fountain_court", "spice_row"]}),
    ):
        a = create(kind, "ozra", rng=rng, world=world, params=params, seed=1)
        assert isinstance(a, ScriptedNPC) and a.entity == "ozra"
        assert a.passive == (kind in ("idle", "debater"))
    assert {"idle", "debater", "wanderer", "patrol", "llm", "llm_debater"} <= set(kinds())
    with pytest.raises(InputError, match="no LLM endpoint"):
        create("llm", "ozra", rng=rng, world=world)
    with pytest.raises(InputError, match="unknown agent kind"):
        create("wandrer", "ozra", rng=rng, world=world)
    with pytest.raises(InputError, match="bad parameters"):
        create("wanderer", "ozra", rng=rng, world=world, params={"speed": 3})


def test_game_agents_and_the_bare_engine_speak_alike():
    """npc_agents and the engine's own voices derive the same per-NPC seeds."""
    world = load_world(MINI)
    agents = npc_agents(world, seed=9)
    assert set(agents) == set(world.spec.npcs)
    bare = standard_engine(world, seed=9)
    with_agents = standard_engine(world, seed=9, actors=agents)
    for eng in (bare, with_agents):
        for _ in range(6):
            eng.run_round(Action(PLAYER, Verb.ASK, obj="liar", target="gem"))
    said = [[e.to_dict() for e in eng.recent[PLAYER]] for eng in (bare, with_agents)]
    assert said[0] == said[1]


def test_matching_facts_by_topic_subject_or_id():
    world = load_world(MINI)
    assert matching_facts(world.spec, "liar", "gem") == ["gem_in_chest", "gem_in_well"]
    assert matching_facts(world.spec, "liar", "sky_blue") == ["sky_blue"]
    assert matching_facts(world.spec, "mara", "sky") == []


def test_replay_uses_recorded_decisions_not_agents(tmp_path):
    """Replies, haggling and speeches are logged as decisions; a replay consumes them: a forged
    reply (with a matching digest) changes the replayed state, so replay reports a mismatch."""
    import json as _json

    from game.engine.parser import Command
    from game.play.persistence import replay
    from game.play.session import Game
    from tests.conftest import forge_transcript

    game = Game(MINI, seed=4)
    for cmd in ("ask lou about gem", "talk to lou", "north", "trade with mara", "offer price=20", "look"):
        parsed = game.parser.parse(cmd, game.engine.scope())
        assert isinstance(parsed, Command), cmd
        game.act(parsed.action)
    logged = [_json.loads(r) for r in game.transcript.records if '"type":"decision"' in r]
    assert {d["kind"] for d in logged} == {"reply", "move"}
    folder = game.save("rp", tmp_path)
    ok, got, want = replay("rp", tmp_path)
    assert ok and got == want
    tpath = folder / "transcript.jsonl"
    lines = tpath.read_text().splitlines()
    i = next(n for n, ln in enumerate(lines) if '"kind":"reply"' in ln)
    rec = _json.loads(lines[i])
    rec["value"][0]["text"] = "Something else entirely."
    lines[i] = _json.dumps(rec, sort_keys=True, separators=(",", ":"))
    forge_transcript(folder, "\n".join(lines) + "\n")
    ok, got, want = replay("rp", tmp_path)
    assert not ok and got != want


def test_a_replay_that_runs_out_of_decisions_says_where(tmp_path):
    from game.play.persistence import replay
    from game.play.session import Game
    from tests.conftest import forge_transcript

    game = Game(MINI, seed=4)
    game.act(Action(PLAYER, Verb.ASK, obj="liar", target="gem"))
    folder = game.save("short", tmp_path)
    lines = (folder / "transcript.jsonl").read_text().splitlines()
    forge_transcript(folder, "\n".join(ln for ln in lines if '"type":"decision"' not in ln) + "\n")
    ok, got, _ = replay("short", tmp_path)
    assert not ok and "diverged at transcript.jsonl:" in got and "no recorded reply for 'liar'" in got
