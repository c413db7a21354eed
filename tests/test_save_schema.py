"""One schema for a whole save (``game.play.save_schema``) and its world-aware step
(``game.play.save_world``), shared by every command that opens a save; and a replay that compares
every part of the state the transcript determines."""

from __future__ import annotations

import copy
import json
import shutil

import pytest

from game.core.errors import SaveError
from game.play.persistence import replay_report
from game.play.save_files import pending_name, read_save
from game.play.session import Game
from tests.conftest import ROOT, forge_save, parley

MINI = ROOT / "tests" / "fixtures" / "mini"


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A harbor game with agent memory and world-fact memory, saved once."""
    saves = tmp_path_factory.mktemp("schema")
    game = Game(ROOT / "worlds" / "harbor", seed=0, memory={"embedder": "hash"})
    for line in ("look", "ask dray about lantern", "wait", "wait"):
        game.submit(line)
    game.save("h", saves)
    return saves


@pytest.fixture
def saves(made, tmp_path):
    shutil.copytree(made / "h", tmp_path / "h")
    return tmp_path


def saved(saves) -> dict:
    return json.loads((saves / "h" / "save.json").read_text())


def test_a_real_save_passes_and_checking_changes_nothing(saves):
    from game.play.save_schema import check_save

    data = saved(saves)
    before = copy.deepcopy(data)
    check_save(data, "save.json")
    assert data == before


@pytest.mark.parametrize(
    "edit, says",
    [
        (
            lambda d: d["components"]["memory"]["bank"]["records"][0].__setitem__("importance", "high"),
            "components.memory.bank.records[0].importance: expected a number, got 'high'",
        ),
        (lambda d: d["engine"]["state"]["gold"].__setitem__("player", True), "engine.state.gold.player: expected a"),
        (lambda d: d["engine"]["state"].__setitem__("won", "no"), "engine.state.won: expected true or false"),
        (lambda d: d["engine"]["rng"].__setitem__("bit_generator", "MT19937"), "engine.rng.bit_generator: expected"),
        (lambda d: d["engine"].__setitem__("extra", 1), "engine.extra: unknown key"),
        (lambda d: d.__setitem__("format_version", 2.0), "format_version: expected a whole number, got 2.0"),
        (lambda d: d["engine"]["rng"].__setitem__("has_uint32", True), "engine.rng.has_uint32: expected a whole"),
        (lambda d: d["engine"]["state"].__setitem__("score", 1.0), "engine.state.score: expected a whole number"),
        (lambda d: d["world"].pop("path"), "world.path: missing"),
        (lambda d: d.__setitem__("llm", {"model": ["x"]}), "llm.model: "),
        (
            lambda d: d["engine"]["state"].__setitem__("quests_done", ["q"] * 20_000),
            "engine.state.quests_done: too long",
        ),
        (lambda d: d["engine"]["state"]["where"].__setitem__("player", "x" * 500), "engine.state.where.player: "),
    ],
)
def test_the_schema_names_the_file_and_field_path(saves, edit, says):
    from game.play.save_schema import check_save

    data = saved(saves)
    edit(data)
    with pytest.raises(SaveError) as err:
        check_save(data, "saves/h/save.json")
    assert err.value.message.startswith(f"saves/h/save.json: {says}"), err.value.message
    assert err.value.exit_code == 2


def test_field_paths_leave_union_tags_out():
    from game.play.save_schema import field_path

    data = {"a": [{"b": [["x", "y"]]}]}
    assert field_path(("a", 0, "b", 0, "8", 1), data) == "a[0].b[0][1]"
    assert field_path(("a", 0, "c"), data) == "a[0].c"  # a missing key is named
    assert field_path(("~x", "y" * 200), {"~x": {"y" * 200: 1}}) == "~x." + "y" * 77 + "..."


@pytest.mark.parametrize(
    "edit, says",
    [
        (lambda d: d["engine"]["state"]["where"].__setitem__("dray", "atlantis"), "'atlantis' is not a known place"),
        (lambda d: d["engine"]["state"]["opened"].append("ghost_box"), "engine.state.opened[0]: 'ghost_box'"),
        (lambda d: d["engine"]["state"]["quests_done"].append("ghost"), "engine.state.quests_done[0]: 'ghost'"),
        (lambda d: d["components"]["agents"].__setitem__("ghost", {}), "components.agents.ghost: not an NPC"),
        (lambda d: d["engine"]["state"]["where"].pop("jory"), "engine.state.where.jory: missing"),
        (lambda d: d["engine"]["state"]["gold"].pop("player"), "engine.state.gold.player: missing"),
        (
            lambda d: d["engine"]["state"]["item_at"].__setitem__("strongbox", "strongbox"),
            "engine.state.item_at.strongbox: it is inside itself",
        ),
        (
            lambda d: d["engine"]["state"].__setitem__("active_scene", "ghost"),
            "engine.state.active_scene: 'ghost' is not a trade scene",
        ),
        (lambda d: d["components"]["agents"]["jory"].pop("rng"), "components.agents.jory.rng: missing"),
        (lambda d: d["components"]["agents"]["hobb"].__setitem__("i", 3), "components.agents.hobb.i: unknown key"),
        (
            lambda d: d["components"]["agents"]["dray"].__setitem__("i", 9),
            "dray.i: 9 is past the end of its route of 6",
        ),
        (
            lambda d: d["components"]["memory"]["bank"]["records"][0].__setitem__("scope", "private:ghost"),
            "components.memory.bank.records[0].scope: 'private:ghost' is not an agent",
        ),
        (
            lambda d: d["components"]["memory"]["witnesses"].__setitem__("ghost", {"known": []}),
            "components.memory.witnesses.ghost: not an agent",
        ),
    ],
)
def test_ids_that_must_name_something_of_the_world_are_checked_at_load(saves, edit, says):
    forge_save(saves / "h", edit)
    with pytest.raises(SaveError, match="h/save.json: ") as err:
        Game.load("h", base=saves)
    assert says in err.value.message


def test_a_failed_check_finishes_no_interrupted_write(saves):
    """A save whose pending transcript is still to be renamed into place is left as it is when
    it fails its checks (they run before the tidy-up)."""
    folder = saves / "h"
    data = forge_save(folder, lambda d: d["engine"]["state"]["where"].__setitem__("dray", "atlantis"))
    (folder / "transcript.jsonl").rename(folder / pending_name(data["transcript"]))
    (folder / ".save.json.x.tmp").write_text("left")
    before = sorted(p.name for p in folder.iterdir())
    with pytest.raises(SaveError, match="atlantis"):
        Game.load("h", base=saves)
    with pytest.raises(SaveError, match="atlantis"):
        replay_report("h", saves)
    assert sorted(p.name for p in folder.iterdir()) == before


def test_older_save_shapes_still_load(saves):
    """Keys older saves lack (``lit``, ``asks``, ``recent``, ``llm``, world-fact memory, the newer
    parts of a negotiation state) are optional; such saves keep loading."""

    def older(d):
        for k in ("asks", "recent"):
            d["engine"].pop(k, None)
        d["engine"]["state"].pop("lit", None)
        d.pop("llm")
        del d["components"]["facts"]

    forge_save(saves / "h", older)
    game = Game.load("h", base=saves)
    assert game.engine.state.turn == read_save(saves / "h")["turn"]


def test_a_trade_with_a_forged_move_is_refused_at_load(tmp_path):
    game = Game(ROOT / "worlds" / "bazaar", seed=0, facts=False)
    for line in ("go north", "go east", "trade with ozra", "offer price=16 grade=fair extras=none"):
        game.submit(line)
    game.save("t", tmp_path)
    forge_save(
        tmp_path / "t",
        lambda d: d["engine"]["state"]["scenes"]["saffron_deal"]["session"]["history"][0]["terms"].__setitem__(
            "price", "9999"
        ),
    )
    with pytest.raises(SaveError, match=r"scenes\.saffron_deal\.session: .*9999"):
        Game.load("t", base=tmp_path)


# -- the CLI: findings on forged memory and world-fact fields ------------------------------------


@pytest.mark.parametrize(
    "edit, field",
    [
        (
            lambda d: d["components"]["memory"]["bank"]["records"][0].__setitem__("importance", "high"),
            "components.memory.bank.records[0].importance",
        ),
        (lambda d: d["components"]["facts"].__setitem__("claims", {"x": 1}), "components.facts.claims"),
        (lambda d: d["components"]["facts"]["sigma"].__setitem__("zz", 1), "components.facts.sigma.zz"),
        (lambda d: d["components"]["memory"]["bank"].__setitem__("access", []), "components.memory.bank.access"),
    ],
)
def test_forged_memory_and_fact_fields_are_exit_2_for_every_command(saves, edit, field):
    forge_save(saves / "h", edit)
    before = {p.name: p.read_bytes() for p in (saves / "h").iterdir()}
    d = ["--saves-dir", str(saves)]
    for args in (
        ["inspect", "h", "--agent", "player", *d],
        ["replay", "h", *d],
        ["trust", "h", "--audit", *d],
        ["play", "--plain", "--load", "h", *d],
    ):
        r = parley(*args, input="")
        assert r.returncode == 2 and "Traceback" not in r.stderr, (args, r.stderr)
        assert f"h/save.json: {field}" in r.stderr, (args, r.stderr)
    assert {p.name: p.read_bytes() for p in (saves / "h").iterdir()} == before


# -- replay compares every part the transcript determines ----------------------------------------


def _flip_first_known(states: dict) -> None:
    w = next(v for v in states.values() if v["known"])
    w["known"][0]["truth"] = not w["known"][0]["truth"]


@pytest.mark.parametrize(
    "edit, part",
    [
        (lambda d: _flip_first_known(d["components"]["memory"]["witnesses"]), "memory"),
        (lambda d: d["components"]["memory"]["bank"].__setitem__("seq", 999), "memory"),
        (
            lambda d: d["components"]["facts"]["witness"]["known"][0].__setitem__(
                "truth", not d["components"]["facts"]["witness"]["known"][0]["truth"]
            ),
            "claims",
        ),
        (lambda d: d["components"]["memory"]["reflector"]["pressure"].__setitem__("player", 0.0), "memory"),
        (
            lambda d: d["components"]["agents"]["dray"].__setitem__(
                "i", (d["components"]["agents"]["dray"]["i"] + 1) % 2
            ),
            "agents",
        ),
        (lambda d: d["components"]["agents"]["jory"]["rng"].__setitem__("uinteger", 7), "agents"),
        (lambda d: d["components"]["facts"]["settled"].append(["lantern", "located_in", "quay", True]), "claims"),
    ],
)
def test_replay_finds_a_forged_memory_or_fact_part_and_names_it(saves, edit, part):
    forge_save(saves / "h", edit)
    report = replay_report("h", saves)
    assert part in report.diverged, report
    r = parley("replay", "h", "--saves-dir", str(saves))
    assert r.returncode == 1 and f"MISMATCH in {part}" in r.stderr, r.stderr


def test_an_untouched_save_replays_with_every_part_matching(saves):
    r = parley("replay", "h", "--saves-dir", str(saves))
    assert r.returncode == 0 and "engine, agents, gate, sigma, claims, memory checked" in r.stdout, r.stderr


def test_the_in_game_load_of_a_forged_save_says_what_is_wrong_and_plays_on(saves):
    from game.cli.console import run_console
    from tests.conftest import typed

    forge_save(saves / "h", lambda d: d["engine"]["state"]["gold"].__setitem__("player", "lots"))
    before = (saves / "h" / "save.json").read_bytes()
    game, out = Game(ROOT / "worlds" / "harbor", seed=0, memory={"embedder": "hash"}), []
    run_console(game, saves_base=str(saves), read=typed(["load h", "wait"]), write=out.append)
    text = "\n".join(out)
    assert "Could not load: " in text and "h/save.json: engine.state.gold.player: expected a whole number" in text
    assert game.engine.state.turn == 1 and (saves / "h" / "save.json").read_bytes() == before
