"""Forged saves whose values are well-typed but could not come out of a game: money a player
cannot have, turns after the save, a council's vote that does not add up, a Σ-Mem matrix that no
update makes, a secret in the LLM header, a repeated key, a transcript of another game. Each is
refused by every command that opens a save (exit 2, the file and field named, nothing on disk
changed); the real saves these forgeries start from pass, replay, and play on."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT, forge_save, forge_transcript
from tests.test_save_mutation import check_refused, cli, commands

GAMES = {
    "harbor": ("harbor", 0, ["look", "ask dray about lantern", "wait", "wait"]),
    "council": ("council", 0, ["go north", "wait", "wait", "say the weir is cracked", "wait", "wait"]),
    "voted": ("council", 3, ["go north", *["wait"] * 8, "vote yes", "look"]),
    "trade": ("bazaar", 0, ["go north", "go east", "trade with ozra", "offer price=16 grade=fair extras=none"]),
    "closed": (
        "bazaar",
        0,
        ["go north", "go east", "trade with ozra", "offer price=16 grade=fair extras=none", "accept"],
    ),
}


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    from game.play.session import Game

    saves = tmp_path_factory.mktemp("forgeries")
    for name, (world, seed, lines) in GAMES.items():
        game = Game(ROOT / "worlds" / world, seed=seed, memory={"embedder": "hash"})
        for line in lines:
            game.submit(line)
        game.save(name, saves)
    return saves


def state(d):
    return d["engine"]["state"]


def council(d):
    return state(d)["scenes"]["weir_council"]


def records(d):
    return d["components"]["memory"]["bank"]["records"]


def facts(d):
    return d["components"]["facts"]


def sigma(d):
    return facts(d)["sigma"]


def events(d):
    return [e for evs in d["engine"]["recent"].values() for e in evs]


def deal(d):
    return state(d)["scenes"]["saffron_deal"]


def recount(d, result):
    """A voted council whose status says ``result`` whatever its votes say."""
    council(d)["status"] = council(d)["outcome"] = result


FORGERIES = [
    ("harbor", lambda d: state(d)["gold"].__setitem__("player", -5), "engine.state.gold.player"),
    ("harbor", lambda d: d["engine"]["rng"]["state"].__setitem__("inc", 2), "engine.rng.state: inc 2 is even"),
    ("harbor", lambda d: d["components"]["agents"]["jory"]["rng"]["state"].__setitem__("inc", 0), "jory.rng.state"),
    ("harbor", lambda d: d.__setitem__("llm", {"model": "m", "api_key": "sk-1"}), "llm: 'api_key' is not a public"),
    ("harbor", lambda d: d.__setitem__("llm", {"base_url": "http://u:pw@h/v1"}), "llm: base_url"),
    ("harbor", lambda d: records(d)[0].__setitem__("turn", 10**6), "records[0].turn: turn 1000000 is after"),
    ("harbor", lambda d: records(d)[2].__setitem__("references", [records(d)[2]["id"]]), "records[2].references"),
    ("trade", lambda d: [e.__setitem__("turn", 10**9) for e in events(d)], "].turn: turn 1000000000 is after"),
    ("trade", lambda d: [e.__setitem__("seq", 10**9) for e in events(d)], "].seq: event 1000000000 is past"),
    ("harbor", lambda d: state(d)["where"].__setitem__("Dray", "quay"), "engine.state.where.Dray"),
    ("harbor", lambda d: records(d)[0].__setitem__("last_access", 10**9), "records[0].last_access: turn 1000000000"),
    ("harbor", lambda d: state(d).__setitem__("won", True), "engine.state.won: a won game is done"),
    ("harbor", lambda d: state(d).__setitem__("opened", ["strongbox"] * 2), "opened: 'strongbox' is listed twice"),
    ("harbor", lambda d: state(d).__setitem__("unlocked", ["strongbox", "quay:north"]), "unlocked: 'quay:north' comes"),
    ("council", lambda d: council(d).__setitem__("persuaded", ["wick", "wick"]), "persuaded: 'wick' is listed twice"),
    (
        "trade",
        lambda d: deal(d).__setitem__("outcome", "agreement"),
        "active_scene: 'saffron_deal' is a trade that has",
    ),
    ("closed", lambda d: deal(d).__setitem__("outcome", "no_agreement"), "saffron_deal.outcome: 'no_agreement', but"),
    (
        "closed",
        lambda d: deal(d).pop("outcome"),
        "saffron_deal.outcome: None, but the negotiation it holds is agreement",
    ),
    ("council", lambda d: council(d).__setitem__("round", 10**9), "weir_council.round: round 1000000000"),
    ("council", lambda d: council(d).__setitem__("votes", {"wick": "yes"}), "weir_council.votes: a council still"),
    ("council", lambda d: council(d).__setitem__("outcome", "passed"), "weir_council.outcome"),
    ("voted", lambda d: recount(d, "passed"), "weir_council.status: the votes make the motion failed"),
    ("voted", lambda d: council(d)["votes"].pop("wick"), "weir_council.votes: a council that voted"),
    ("council", lambda d: sigma(d)["peers"].__setitem__(0, "ghost"), "sigma.peers[0]: 'ghost' is not an agent"),
    ("council", lambda d: facts(d)["claims"][0].__setitem__("speaker", "Fenn"), "claims[0].speaker: 'Fenn' is not"),
    ("council", lambda d: facts(d)["claims"][1].__setitem__("turn", 13), "claims[1].turn: turn 13 is after"),
    ("council", lambda d: facts(d)["gate"]["facts"][0].__setitem__("turn", 99), "gate.facts[0].turn: turn 99"),
    ("council", lambda d: sigma(d)["S"][0].__setitem__(1, 5.0), "components.facts.sigma.S[0][1]"),
    ("council", lambda d: sigma(d)["S"][2].__setitem__(2, -1.0), "components.facts.sigma.S[2][2]"),
    ("council", lambda d: [sigma(d)["S"][i].__setitem__(j, 1e12) for i, j in ((0, 1), (1, 0))], "sigma.S[0][1]"),
    ("council", lambda d: [sigma(d)["M"][0][i].__setitem__(j, 3.0 * i) for i, j in ((0, 1), (1, 0))], "sigma.M[0]"),
    ("council", lambda d: sigma(d)["c_num"].__setitem__(0, 5.0), "components.facts.sigma.c_num[0]"),
]


@pytest.mark.parametrize("name, edit, named", FORGERIES, ids=[f[2] for f in FORGERIES])
def test_a_well_typed_forgery_no_game_makes_is_refused_by_every_command(made, tmp_path, name, edit, named):
    check_refused(made, tmp_path, name, edit, named)


def _raw(made: Path, tmp_path: Path, name: str, change) -> Path:
    saves = tmp_path / "saves"
    shutil.copytree(made / name, saves / name)
    (saves / name / ".lock").unlink()
    change(saves / name)
    return saves


def _refused_everywhere(saves: Path, name: str, tmp_path: Path, says: str) -> None:
    before = {p.name: p.read_bytes() for p in (saves / name).iterdir()}
    for args in commands(name, saves, tmp_path / "m.png"):
        code, _, err = cli(*args)
        assert code == 2 and "Traceback" not in err and says in err, (args, err[-2000:])
        assert {p.name: p.read_bytes() for p in (saves / name).iterdir()} == before, args


def test_a_key_written_twice_in_save_json_is_refused(made, tmp_path):
    """JSON keeps the last of two equal keys: a reader that kept the first would see another save."""

    def twice(folder: Path) -> None:
        path = folder / "save.json"
        text = path.read_text()
        path.write_text(text.replace('"seed": 0', '"seed": 1, "seed": 0', 1))

    saves = _raw(made, tmp_path, "harbor", twice)
    _refused_everywhere(saves, "harbor", tmp_path, "key 'seed' appears twice")


def test_a_transcript_of_another_game_resealed_is_refused(made, tmp_path):
    """The digest matches (the forger recomputed it) but the transcript starts another seed's game."""

    def other(folder: Path) -> None:
        text = (folder / "transcript.jsonl").read_text()
        forge_transcript(folder, text.replace('"seed":0', '"seed":7', 1))

    saves = _raw(made, tmp_path, "harbor", other)
    _refused_everywhere(saves, "harbor", tmp_path, "transcript.jsonl:1: seed: 7 is not the save's 0")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_real_saves_pass_replay_and_play_on(made, tmp_path, name):
    saves = tmp_path / "saves"
    shutil.copytree(made / name, saves / name)
    code, out, err = cli("replay", name, "--saves-dir", str(saves))
    assert code == 0 and "replay ok" in out, err
    code, out, err = cli("saves", "--saves-dir", str(saves), "show", name)
    assert code == 0, err


def test_a_finished_council_loads_and_plays_on(made, tmp_path):
    from game.cli.main import main

    saves = tmp_path / "saves"
    shutil.copytree(made / "voted", saves / "voted")
    assert json.loads((saves / "voted" / "save.json").read_text())["engine"]["state"]["scenes"]["weir_council"]["votes"]
    import contextlib
    import io
    import sys

    out, stdin = io.StringIO(), sys.stdin
    sys.stdin = io.StringIO("look\nwait\ngo south\nwait\nquit\n")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = main(["play", "--plain", "--load", "voted", "--saves-dir", str(saves)])
    finally:
        sys.stdin = stdin
    assert code == 0 and "turn" in out.getvalue()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    writes=st.lists(
        st.tuples(
            st.sampled_from(["weather", "trade", "crime", "a topic no world declares"]),
            st.dictionaries(st.sampled_from([f"p{i}" for i in range(6)]), st.floats(0, 1), min_size=1, max_size=5),
        ),
        min_size=1,
        max_size=60,
    ),
    gamma=st.floats(0.5, 0.99),
)
def test_every_state_sigma_mem_reaches_passes_its_checks(writes, gamma):
    """The Σ-Mem checks (symmetric S and M, a Gram matrix's diagonal and bounds, no running sum
    without a weight) refuse nothing an update makes."""
    from memory.sigma import SigmaMem
    from memory.state_schema_sigma import SigmaState

    mem = SigmaMem.for_world([f"p{i}" for i in range(6)], ["weather", "trade", "crime"], gamma=gamma)
    for topic, outcomes in writes:
        mem.write(topic, outcomes)
    SigmaState.model_validate(mem.get_state())


@pytest.mark.parametrize(
    "change, line",
    [
        (lambda text: text + '{"text":"x","type":"note"}\n' * 1000, "transcript.jsonl:"),
        (lambda text: text.replace("Wet granite", "Dry granite", 1), "transcript.jsonl:3"),
    ],
    ids=["lines-added", "an-event-edited"],
)
def test_a_transcript_record_the_game_would_not_write_is_a_replay_mismatch(made, tmp_path, change, line):
    """A resealed transcript with records added or an event's text edited still replays its actions;
    the records the replay writes must be the saved ones (exit 1, the engine named)."""

    def edit(folder: Path) -> None:
        forge_transcript(folder, change((folder / "transcript.jsonl").read_text()))

    saves = _raw(made, tmp_path, "harbor", edit)
    code, out, err = cli("replay", "harbor", "--saves-dir", str(saves))
    assert code == 1 and "MISMATCH in engine" in out + err and line in out + err, (out, err)


def numbers(value, path=()):
    """(path, value) of every whole number in a save (not a bool), outside free-form data."""
    if isinstance(value, dict):
        for k, v in value.items():
            if k not in ("state_hash", "data", "metrics", "format_version"):
                yield from numbers(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from numbers(v, (*path, i))
    elif isinstance(value, int) and not isinstance(value, bool):
        yield path, value


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_whole_number_set_to_any_value_in_bounds_never_crashes_a_command(made, tmp_path, data):
    """Any counter, turn or index of a real save set to a well-typed value in its bounds: every
    command that opens the save refuses it (exit 2, the folder untouched), finds it not the
    outcome of its transcript (replay, exit 1), or runs on it; none crashes."""
    name = data.draw(st.sampled_from(sorted(GAMES)))
    found = list(numbers(json.loads((made / name / "save.json").read_text())))
    path, _ = data.draw(st.sampled_from(found))
    value = data.draw(st.one_of(st.integers(0, 20), st.sampled_from([2**31, 2**63, 10**12])))

    def edit(d):
        node = d
        for p in path[:-1]:
            node = node[p]
        node[path[-1]] = value

    saves = tmp_path / "saves"
    if saves.exists():
        shutil.rmtree(saves)
    shutil.copytree(made / name, saves / name)
    (saves / name / ".lock").unlink()
    forge_save(saves / name, edit)
    for args in commands(name, saves, tmp_path / "m.png"):
        before = {p.name: p.read_bytes() for p in (saves / name).iterdir()}
        code, _, err = cli(*args)
        assert code in (0, 1, 2) and "Traceback" not in err, (path, value, args, err[-3000:])
        if code == 2:
            assert "save.json: " in err or "transcript" in err, (path, value, args, err)
            assert {p.name: p.read_bytes() for p in (saves / name).iterdir()} == before, args


def test_a_state_the_game_refuses_as_it_loads_names_its_part_and_leaves_the_folder(made, tmp_path):
    """Σ-Mem saved with another configuration passes the schema but not the game's own restore:
    that refusal is a check too (the part named, no lock file left, nothing renamed)."""
    saves = _raw(made, tmp_path, "closed", lambda f: forge_save(f, lambda d: sigma(d)["config"].__setitem__("seed", 1)))
    before = {p.name: p.read_bytes() for p in (saves / "closed").iterdir()}
    code, _, err = cli("play", "--plain", "--load", "closed", "--saves-dir", str(saves))
    assert code == 2 and "closed/save.json: components.facts: the game cannot take this state" in err, err
    assert {p.name: p.read_bytes() for p in (saves / "closed").iterdir()} == before
