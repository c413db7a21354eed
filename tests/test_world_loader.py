"""World loading: every problem reported with file, line/column or field path, and a hint."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core.errors import WorldError
from game.play.worlds import collect_problems, load_world
from game.world.scaffold import scaffold_text
from tests.conftest import ROOT, SHIPPED, write_world

GOOD = scaffold_text("demo")


def problems_of(tmp_path, text, name="w"):
    world, problems = collect_problems(write_world(tmp_path / name, text))
    assert world is None
    return [p.render() for p in problems]


def test_scaffold_loads(demo_world):
    assert demo_world.id == "demo-v1"
    assert set(demo_world.spec.locations) == {"gate", "yard"}
    assert len(demo_world.content_hash) == 16


def test_toml_syntax_error_has_line_and_column(tmp_path):
    text = GOOD.replace('title = "Demo"', 'title = "Demo')
    [msg] = problems_of(tmp_path, text)
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith('title = "Demo'))
    assert f"world.toml:{line}:" in msg and "TOML syntax error" in msg


def test_unknown_location_gets_did_you_mean(tmp_path):
    text = GOOD.replace('location = "gate"', 'location = "gaet"')
    [msg] = problems_of(tmp_path, text)
    assert "npcs.keeper.location" in msg and "'gaet'" in msg and "did you mean 'gate'?" in msg


def test_every_cross_reference_error_is_reported(tmp_path):
    text = (
        GOOD.replace('north = "yard"', 'north = "yrad"')
        .replace('items = ["lamp"]', 'items = ["lamp", "sword"]')
        .replace('knowledge = ["lamp_in_yard",', 'knowledge = ["lamp_in_yrd",')
    )
    msgs = problems_of(tmp_path, text)
    assert len(msgs) == 3
    assert any("locations.gate.exits.north" in m and "did you mean 'yard'" in m for m in msgs)
    assert any("locations.yard.items[1]" in m and "'sword'" in m for m in msgs)
    assert any("npcs.keeper.knowledge[0]" in m and "did you mean 'lamp_in_yard'" in m for m in msgs)


def test_unknown_key_and_wrong_type(tmp_path):
    text = GOOD.replace("value = 3", 'value = "three"\ndescripton = "x"')
    msgs = problems_of(tmp_path, text)
    assert any("items.lamp.descripton" in m and "did you mean 'description'" in m for m in msgs)
    assert any("items.lamp.value" in m and "'three'" in m for m in msgs)


def test_missing_required_key(tmp_path):
    msgs = problems_of(tmp_path, GOOD.replace('title = "Demo"\n', ""))
    assert any("missing required key 'title'" in m for m in msgs)


def test_bad_quest_condition_path_is_readable(tmp_path):
    text = GOOD.replace('{ kind = "has", item = "lamp" }', '{ kind = "has", item = "lammp" }')
    [msg] = problems_of(tmp_path, text)
    assert "quests.find_lamp.goal[0].item" in msg and "did you mean 'lamp'" in msg


def test_extra_file_errors_name_that_file(tmp_path):
    folder = write_world(tmp_path / "w", GOOD)
    (folder / "npcs").mkdir()
    (folder / "npcs" / "guard.toml").write_text('name = "Guard"\nlocation = "moat"\n')
    _, problems = collect_problems(folder)
    [p] = problems
    assert p.file.endswith("guard.toml") and p.path == "npcs.guard.location"


def test_extra_files_merge(tmp_path):
    folder = write_world(tmp_path / "w", GOOD)
    (folder / "npcs").mkdir()
    (folder / "npcs" / "guard.toml").write_text('name = "Guard"\nlocation = "yard"\n')
    world = load_world(folder)
    assert world.spec.npcs["guard"].location == "yard"


def test_duplicate_definition_across_files(tmp_path):
    folder = write_world(tmp_path / "w", GOOD)
    (folder / "npcs").mkdir()
    (folder / "npcs" / "keeper.toml").write_text('name = "K"\nlocation = "yard"\n')
    _, problems = collect_problems(folder)
    assert any("defined twice" in p.message for p in problems)


def test_load_world_raises_with_all_problems(tmp_path):
    text = GOOD.replace('north = "yard"', 'north = "nowhere"').replace('location = "gate"', 'location = "x"')
    with pytest.raises(WorldError) as ei:
        load_world(write_world(tmp_path / "w", text))
    assert len(ei.value.problems) == 2 and ei.value.exit_code == 2


def test_committed_schema_is_current():
    from game.cli.world import schema_text

    committed = (ROOT / "worlds" / "schema" / "world.schema.json").read_text()
    assert committed == schema_text(), "regenerate with `make schema`"


@pytest.mark.parametrize("folder", SHIPPED, ids=[p.name for p in SHIPPED])
def test_shipped_world_validates_against_models_and_schema(folder):
    import tomllib

    import jsonschema

    world = load_world(folder)
    assert world.spec.id.endswith("-v1")
    schema = json.loads((ROOT / "worlds" / "schema" / "world.schema.json").read_text())
    data = tomllib.loads((folder / "world.toml").read_text())
    jsonschema.validate(data, schema)
    assert (folder / "world.toml").read_text().startswith("#:schema ../schema/world.schema.json")


def test_shipped_worlds_exist():
    assert {p.name for p in SHIPPED} >= {"harbor", "bazaar", "council"}


# --- fuzzing: the loader never raises anything but a clean report ----------------

_toml_scalar = st.one_of(st.integers(-5, 5), st.booleans(), st.text(max_size=8), st.floats(allow_nan=False))
_toml_value = st.recursive(
    _toml_scalar,
    lambda c: st.one_of(
        st.lists(c, max_size=3), st.dictionaries(st.from_regex(r"[a-z_]{1,8}", fullmatch=True), c, max_size=3)
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=300))
def test_fuzz_raw_bytes(tmp_path, raw):
    folder = tmp_path / "fz"
    folder.mkdir(exist_ok=True)
    (folder / "world.toml").write_bytes(raw)
    world, problems = collect_problems(folder)
    assert world is None and problems and all(p.render() for p in problems)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    doc=st.dictionaries(
        st.sampled_from(
            [
                "id",
                "title",
                "start",
                "locations",
                "items",
                "npcs",
                "facts",
                "quests",
                "scenes",
                "player",
                "relations",
                "bogus",
            ]
        ),
        _toml_value,
        max_size=8,
    )
)
def test_fuzz_structured_documents(tmp_path, doc):
    import tomli_w

    folder = tmp_path / "fz2"
    folder.mkdir(exist_ok=True)
    (folder / "world.toml").write_text(tomli_w.dumps(doc))
    world, problems = collect_problems(folder)
    assert (world is None) == bool(problems)
    for p in problems:
        assert p.render()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzz_mutated_scaffold(tmp_path, data):
    """Replace one value in a valid world with junk: a clean report or a valid world, never a crash."""
    lines = GOOD.splitlines()
    idx = data.draw(st.sampled_from([i for i, ln in enumerate(lines) if " = " in ln]))
    key = lines[idx].split(" = ")[0]
    junk = data.draw(st.sampled_from(['"zzz"', "42", "true", "[]", "{}", '["a", 1]', '{ kind = "x" }']))
    lines[idx] = f"{key} = {junk}"
    folder = tmp_path / "fz3"
    folder.mkdir(exist_ok=True)
    (folder / "world.toml").write_text("\n".join(lines))
    world, problems = collect_problems(folder)
    assert (world is None) == bool(problems)


MINI_TEXT = (ROOT / "tests" / "fixtures" / "mini" / "world.toml").read_text()


@pytest.mark.parametrize(
    "old,new,expect",
    [
        ('inventory = ["lamp"]\ntrade', "trade", "does not start with the item 'lamp'"),
        (
            "reward = { score = 5 }\n\n[quests.vote]",
            'reward = { score = 5, items = ["rock"] }\n\n[quests.vote]',
            "reward item 'rock' is already placed",
        ),
        (
            'scene = "motion", outcome = "passed"',
            'scene = "motion", outcome = "agreement"',
            "outcome 'agreement' cannot happen in scene 'motion'",
        ),
        (
            'kind = "idle", params = { negotiator = "boulware" }',
            'kind = "idle", params = { negotiator = "bouldware" }',
            "did you mean 'boulware'?",
        ),
        (
            'location = "yard"\nknowledge',
            'location = "yard"\nagent = { kind = "wandrer" }\nknowledge',
            "did you mean 'wanderer'?",
        ),
        (
            'issues = { price = ["5", "10", "15", "20"] }',
            'issues = { price = ["5", "10", "15", "²"] }',
            "not a whole number of gold",
        ),
        (
            "[items.seal]",
            '[items.box_a]\nname = "a"\ncontainer = true\ncontents = ["box_b"]\n'
            '[items.box_b]\nname = "b"\ncontainer = true\ncontents = ["box_a"]\n\n[items.seal]',
            "inside itself",
        ),
    ],
)
def test_semantic_checks(tmp_path, old, new, expect):
    assert old in MINI_TEXT
    msgs = problems_of(tmp_path, MINI_TEXT.replace(old, new, 1))
    assert any(expect in m for m in msgs), msgs


def test_validate_checks_the_world_that_play_would_load(tmp_path, monkeypatch):
    """A world under ./worlds wins over a shipped one of the same name, for validate as for play."""
    import shutil

    from game.play.worlds import collect_problems
    from game.world.loader import resolve_world_path

    monkeypatch.chdir(tmp_path)
    local = tmp_path / "worlds" / "harbor"
    shutil.copytree(ROOT / "worlds" / "harbor", local)
    text = (local / "world.toml").read_text(encoding="utf-8")
    (local / "world.toml").write_text(text.replace('start = "', 'starts = "', 1), encoding="utf-8")
    assert resolve_world_path("harbor").resolve() == local.resolve()
    world, problems = collect_problems("harbor")
    assert world is None and any("start" in p.render() for p in problems)
    shutil.rmtree(local)
    world, problems = collect_problems("harbor")  # no local copy: the shipped world
    assert world is not None and not problems
