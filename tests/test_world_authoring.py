"""Authoring worlds: what `validate` accepts, `run` runs; errors in the author's words;
numbers where names go; the player's default party in a trade; the new-world templates."""

from __future__ import annotations

import json

import numpy as np
import pytest

from game.core.errors import InputError
from game.play.worlds import collect_problems, load_world
from game.world.scaffold import TEMPLATES, WIN_SCRIPTS, scaffold_text
from tests.conftest import ROOT, parley, write_world

MINI_TEXT = (ROOT / "tests" / "fixtures" / "mini" / "world.toml").read_text()
BROKEN_AGENTS = ROOT / "tests" / "fixtures" / "broken_agents"
PLAYER_PARTY = """[[scenes.buy_lamp.parties]]
id = "player"
weights = { price = 1.0 }
values = { price = { "5" = 1.0, "10" = 0.66, "15" = 0.33, "20" = 0.0 } }
reservation = 0.0

"""


def rendered(tmp_path, text, name="w", files=None):
    folder = write_world(tmp_path / name, text)
    for rel, body in (files or {}).items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(body, encoding="utf-8")
    world, problems = collect_problems(folder)
    assert world is None, "expected problems"
    return [p.render() for p in problems]


def mini(old, new, count=1):
    assert old in MINI_TEXT, old
    return MINI_TEXT.replace(old, new, count)


# --- agent parameters: validate and run agree ------------------------------------------


def test_broken_agents_fixture_reports_each_param_with_file_and_field():
    world, problems = collect_problems(BROKEN_AGENTS)
    assert world is None
    got = {(p.file.rsplit("/", 1)[-1], p.path): p.render() for p in problems}
    assert set(got) == {
        ("world.toml", "npcs.clerk.agent.params.negotiatr"),
        ("gull.toml", "npcs.gull.agent.params.p"),
        ("gull.toml", "npcs.gull.agent.params.speed"),
        ("warden.toml", "npcs.warden.agent.params.route[1]"),
    }
    assert "did you mean 'negotiator'?" in got[("world.toml", "npcs.clerk.agent.params.negotiatr")]
    assert "7.5" in got[("gull.toml", "npcs.gull.agent.params.p")]
    assert "unknown parameter 'speed'" in got[("gull.toml", "npcs.gull.agent.params.speed")]
    assert "moves, p" in got[("gull.toml", "npcs.gull.agent.params.speed")]
    assert "did you mean 'towers'?" in got[("warden.toml", "npcs.warden.agent.params.route[1]")]


def test_validate_and_run_reject_the_same_params():
    v = parley("validate", str(BROKEN_AGENTS))
    assert v.returncode == 2 and "4 problems" in v.stdout
    r = parley("run", "--no-memory", str(BROKEN_AGENTS), "--script", str(ROOT / "tests" / "fixtures" / "mini_win.txt"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "unexpected keyword" not in r.stderr
    assert "npcs/gull.toml: npcs.gull.agent.params.speed" in r.stderr


@pytest.mark.parametrize(
    "agent,path,expect",
    [
        ('{ kind = "patrol", params = { route = ["yard", "shop", "atic"] } }', "route[2]", "unknown location 'atic'"),
        (
            '{ kind = "patrol", params = { route = ["yard", "vault", "hall"] } }',
            "route[2]",
            "no exit from 'vault' to 'hall'",
        ),
        ('{ kind = "patrol", params = { route = ["shop", "yard"] } }', "route[0]", "starts at 'shop'"),
        ('{ kind = "patrol", params = { route = [] } }', "route", "at least 1 item"),
        ('{ kind = "patrol" }', "route", "missing parameter 'route'"),
        ('{ kind = "wanderer", params = { p = 7.5 } }', "p", "less than or equal to 1"),
        ('{ kind = "wanderer", params = { moves = ["shop", "vaul"] } }', "moves[1]", "did you mean 'vault'?"),
        ('{ kind = "wanderer", params = { speed = 3 } }', "speed", "unknown parameter 'speed'"),
        (
            '{ kind = "llm", params = { body = "patrol", body_params = { route = ["yard", "atic"] } } }',
            "body_params.route[1]",
            "unknown location 'atic'",
        ),
        ('{ kind = "llm", params = { body = "wanderer", body_params = { p = 2 } } }', "body_params.p", "less than"),
        ('{ kind = "llm", params = { body = "wandrer" } }', "body", "did you mean 'wanderer'?"),
        ('{ kind = "llm", params = { mood = "grim" } }', "mood", "unknown parameter 'mood' for agent kind 'llm'"),
    ],
)
def test_agent_params_are_checked_per_kind(tmp_path, agent, path, expect):
    text = mini('location = "yard"\nknowledge', f'location = "yard"\nagent = {agent}\nknowledge')
    msgs = rendered(tmp_path, text)
    assert any(f"npcs.liar.agent.params.{path}:" in m and expect in m for m in msgs), msgs


def test_create_uses_the_same_models_as_the_loader():
    from agents.registry import create, params_problems

    world = load_world(ROOT / "tests" / "fixtures" / "mini")
    rng = np.random.default_rng(0)
    for kind, params in (("wanderer", {"p": 7.5}), ("patrol", {"route": []}), ("idle", {"speed": 1})):
        assert params_problems(kind, params)
        with pytest.raises(InputError, match="bad parameters") as ei:
            create(kind, "liar", rng=rng, world=world, params=params)
        assert "params." in ei.value.message
    agent = create("wanderer", "liar", rng=rng, world=world, params={"p": 1, "goal": "Sell the gem."})
    assert agent.body.p == 1.0


def test_goal_param_is_accepted_and_reaches_the_memory_context(tmp_path):
    """memory.runtime reads agent.params.goal; the loader and the registry accept it."""
    from agents.registry import npc_agents

    text = mini(
        'location = "yard"\nknowledge',
        'location = "yard"\n'
        'agent = { kind = "idle", params = { goal = "Mislead everyone about the gem." } }\nknowledge',
    )
    world = load_world(write_world(tmp_path / "g", text))
    assert set(npc_agents(world, seed=0)) == set(world.spec.npcs)


def test_schema_lists_params_per_kind():
    import jsonschema

    from game.play.worlds import json_schema

    schema = json_schema()
    agent = schema["$defs"]["AgentSpec"]
    assert set(agent["properties"]["kind"]["enum"]) >= {"idle", "wanderer", "patrol", "llm"}
    assert schema["$defs"]["WandererParams"]["properties"]["p"]["maximum"] == 1.0
    assert schema["$defs"]["PatrolParams"]["required"] == ["route"]

    def doc(agent):
        return {
            "id": "a-v1",
            "title": "t",
            "start": "x",
            "locations": {"x": {"name": "X", "description": "d"}},
            "npcs": {"n": {"name": "N", "location": "x", "agent": agent}},
        }

    jsonschema.validate(doc({"kind": "wanderer", "params": {"p": 0.5}}), schema)
    jsonschema.validate(doc({"params": {"negotiator": "boulware"}}), schema)
    for bad in (
        {"kind": "wanderer", "params": {"p": 7.5}},
        {"kind": "wanderer", "params": {"speed": 1}},
        {"kind": "patrol", "params": {}},
        {"params": {"route": ["x"]}},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(doc(bad), schema)


# --- errors in the author's vocabulary -----------------------------------------------------


def test_scene_written_with_kind_instead_of_type(tmp_path):
    [msg] = rendered(tmp_path, mini('type = "negotiation"', 'kind = "negotiation"'))
    assert "scenes.buy_lamp: missing key 'type' (negotiation or council)" in msg
    assert 'did you mean type = "negotiation"?' in msg
    assert "discriminator" not in msg


def test_unknown_scene_type_names_the_choices(tmp_path):
    [msg] = rendered(tmp_path, mini('type = "council"', 'type = "counsil"'))
    assert "scenes.motion.type: unknown scene type 'counsil' (negotiation or council)" in msg
    assert "did you mean 'council'?" in msg


def test_quest_condition_missing_or_unknown_kind(tmp_path):
    text = mini('{ kind = "has", item = "gem" }', '{ type = "has", item = "gem" }')
    text = text.replace('{ kind = "opened", item = "chest" }', '{ kind = "openned", item = "chest" }')
    msgs = rendered(tmp_path, text)
    assert any(
        "quests.gem.goal[0]: missing key 'kind' (has, at, item_at, gave, opened or scene)" in m
        and 'did you mean kind = "has"?' in m
        for m in msgs
    ), msgs
    assert any(
        "quests.gem.goal[1].kind: unknown condition kind 'openned'" in m and "did you mean 'opened'?" in m for m in msgs
    ), msgs
    assert not any("tag" in m for m in msgs)


def test_literal_values_get_did_you_mean(tmp_path):
    [msg] = rendered(tmp_path, mini('stance = "against"', 'stance = "aginst"'))
    assert "scenes.motion.participants[0].stance" in msg and "did you mean 'against'?" in msg


# --- numbers where names go ------------------------------------------------------------


def test_numbers_are_accepted_as_names_but_booleans_are_not(tmp_path):
    text = mini('issues = { price = ["5", "10", "15", "20"] }', "issues = { price = [5, 10, 15, 20] }")
    text = text.replace(
        'values = { price = { "5" = 1.0, "10" = 0.66, "15" = 0.33, "20" = 0.0 } }',
        "values = { price = { 5 = 1.0, 10 = 0.66, 15 = 0.33, 20 = 0.0 } }",
    )
    text = text.replace('object = "blue"', "object = 2.5").replace('name = "rock"', "name = 42")
    text = text.replace('aliases = ["gem"]', 'aliases = ["gem", 7]')
    spec = load_world(write_world(tmp_path / "n", text)).spec
    assert spec.scenes["buy_lamp"].issues["price"] == ["5", "10", "15", "20"]
    assert spec.scenes["buy_lamp"].parties[0].values["price"]["5"] == 1.0
    assert spec.facts["sky_blue"].object == "2.5"
    assert spec.items["rock"].name == "42" and spec.items["gem"].aliases == ["gem", "7"]
    spec = load_world(
        write_world(
            tmp_path / "f",
            text.replace("issues = { price = [5, 10, 15, 20] }", "issues = { price = [5.0, 10, 15, 20] }"),
        )
    ).spec
    assert spec.scenes["buy_lamp"].issues["price"] == ["5", "10", "15", "20"]  # 5.0 is the price 5
    msgs = rendered(
        tmp_path, mini('issues = { price = ["5", "10", "15", "20"] }', 'issues = { price = ["5", "10", "15", true] }')
    )
    assert any("scenes.buy_lamp.issues.price[3]" in m and "valid string" in m for m in msgs), msgs


# --- the player's default party in a trade -------------------------------------------------


def test_trade_without_player_party_gets_the_buyer_default(tmp_path):
    text = mini(PLAYER_PARTY, "")
    world = load_world(write_world(tmp_path / "t", text))
    scene = world.spec.scenes["buy_lamp"]
    player, mara = scene.parties
    assert (player.id, mara.id) == ("player", "mara")
    assert player.weights == {"price": 1.0} and player.reservation == 0.0
    assert player.values == {"price": {"5": 1.0, "10": pytest.approx(2 / 3), "15": pytest.approx(1 / 3), "20": 0.0}}


def test_trade_with_only_the_player_id_and_other_issues(tmp_path):
    text = mini(PLAYER_PARTY, '[[scenes.buy_lamp.parties]]\nid = "player"\n\n')
    text = text.replace(
        'issues = { price = ["5", "10", "15", "20"] }', 'issues = { price = [5, 10, 15, 20], wick = ["short", "long"] }'
    )
    text = text.replace(
        'id = "mara"\nweights = { price = 1.0 }\nvalues = { price = { "5" = 0.0, "10" = 0.4, "15" = 0.7, "20" = 1.0 } }',
        'id = "mara"\nweights = { price = 1.0, wick = 0.0 }\n'
        'values = { price = { "5" = 0.0, "10" = 0.4, "15" = 0.7, "20" = 1.0 }, wick = { short = 1.0, long = 0.0 } }',
    )
    spec = load_world(write_world(tmp_path / "t", text)).spec
    player = spec.scenes["buy_lamp"].parties[0]
    assert player.weights == {"price": 1.0, "wick": 0.0}
    assert player.values["wick"] == {"short": 0.5, "long": 0.5} and player.values["price"]["20"] == 0.0


def test_party_defaults_only_for_the_player_in_a_trade(tmp_path):
    text = mini('id = "mara"\nweights = { price = 1.0 }\n', 'id = "mara"\n')
    [msg] = rendered(tmp_path, text)
    assert "scenes.buy_lamp.parties[1].weights: missing required key 'weights'" in msg
    assert "only the player's party in a trade scene has a default" in msg


def test_schema_documents_the_player_default():
    from game.play.worlds import json_schema

    party = json_schema()["$defs"]["PartySpec"]
    assert party["required"] == ["id"]
    assert "lower price" in party["properties"]["weights"]["description"]


def test_game_plays_through_a_default_player_trade(tmp_path):
    folder = write_world(tmp_path / "t", mini(PLAYER_PARTY, ""))
    script = tmp_path / "s.txt"
    script.write_text("n\ntrade with mara\noffer 5\naccept\ninventory\n")
    r = parley("run", "--no-memory", str(folder), "--script", str(script))
    assert r.returncode == 0, r.stderr
    assert "You begin to haggle with Mara" in r.stdout and "Deal: you buy the lamp" in r.stdout
    assert "Quest complete: Buy the lamp" in r.stdout


# --- new-world templates ---------------------------------------------------------------


@pytest.mark.parametrize("template", TEMPLATES)
def test_every_template_validates_and_wins(tmp_path, template):
    r = parley("new-world", f"my-{template}", "--template", template, "--dir", str(tmp_path))
    assert r.returncode == 0, r.stderr
    folder = tmp_path / f"my-{template}"
    text = (folder / "world.toml").read_text()
    assert text.startswith("#:schema ../schema/world.schema.json") and text.count("\n#") >= 3  # commented
    assert parley("validate", str(folder)).returncode == 0
    script = tmp_path / "win.txt"
    script.write_text("\n".join(WIN_SCRIPTS[template]) + "\n")
    out = tmp_path / "t.jsonl"
    r = parley("run", "--no-memory", str(folder), "--script", str(script), "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "WON" in r.stdout, r.stdout
    assert json.loads(out.read_text().splitlines()[0])["world"] == f"my-{template}-v1"


def test_templates_show_what_they_promise(tmp_path):
    adventure = load_world(write_world(tmp_path / "a", scaffold_text("a"))).spec
    keeper = adventure.npcs["keeper"]
    assert keeper.honesty.topics == {"treasure": 0.0} and keeper.honesty.default == 1.0
    assert any(not adventure.facts[f].true for f in keeper.knowledge)
    trade = load_world(write_world(tmp_path / "t", scaffold_text("t", "trade"))).spec
    [scene] = trade.scenes.values()
    assert scene.trade is not None and scene.parties[0].id == "player"
    council = load_world(write_world(tmp_path / "c", scaffold_text("c", "council"))).spec
    [motion] = council.scenes.values()
    assert motion.type == "council" and any(p.persuaded_by for p in motion.participants)
    assert all(p.arguments for p in motion.participants if p.id != "player")


def test_default_template_is_adventure_and_unknown_templates_are_input_errors(tmp_path):
    assert scaffold_text("x") == scaffold_text("x", "adventure")
    with pytest.raises(InputError, match="unknown world template") as ei:
        scaffold_text("x", "tarde")
    assert "did you mean 'trade'?" in ei.value.hint
    r = parley("new-world", "x", "--template", "tarde", "--dir", str(tmp_path))
    assert r.returncode == 2 and not (tmp_path / "x").exists()


# --- text is cleaned at the edge ------------------------------------------------------------


def test_strings_and_keys_from_world_files_are_cleaned(tmp_path):
    text = mini('name = "Lou"', 'name = "L\\u001b[31mo\\u202eu\\u0007"')
    text = text.replace("[npcs.elder]", '[npcs."eld\u202eer"]')
    spec = load_world(write_world(tmp_path / "c", text)).spec
    assert spec.npcs["liar"].name == "Lou"
    assert "elder" in spec.npcs


def test_keys_that_clash_once_cleaned_are_reported(tmp_path):
    text = mini("[npcs.clerk]", '[npcs."elder\u200b"]\nname = "Twin"\nlocation = "hall"\n\n[npcs.clerk]')
    msgs = rendered(tmp_path, text)
    assert any("npcs.elder" in m and "defined twice" in m for m in msgs), msgs


# --- relations for claims in words -------------------------------------------------------


def test_a_relation_alias_naming_two_relations_is_a_located_problem(tmp_path):
    text = mini(
        "[relations.located_in]\nfunctional = true\n",
        '[relations.located_in]\nfunctional = true\naliases = ["is kept in", "has colour"]\n',
    )
    [msg] = rendered(tmp_path, text)
    assert "relations.located_in.aliases[1]" in msg and "has_colour" in msg


def test_relation_words_units_and_change_reach_the_gate(tmp_path):
    from game.play.worlds import load_world
    from memory.fact_listener import WorldFacts

    text = mini(
        "[relations.located_in]\nfunctional = true\n",
        '[relations.located_in]\nfunctional = true\naliases = ["is kept in"]\nchanges = true\nhalf_life = 12\n',
    )
    folder = write_world(tmp_path / "w", text)
    wf = WorldFacts(load_world(folder).spec)
    assert wf.gate.rules.rule("located_in").changes and wf.gate.rules.rule("located_in").half_life == 12
    (claim,) = wf.gate.read("The red gem is kept in the oak chest.")
    assert (claim.subject, claim.relation, claim.object) == ("gem", "located_in", "chest")
    [msg] = rendered(
        tmp_path,
        mini(
            "[relations.located_in]\nfunctional = true\n", "[relations.located_in]\nfunctional = true\nhalf_life = 0\n"
        ),
        name="bad",
    )
    assert "relations.located_in.half_life" in msg
