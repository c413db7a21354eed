"""`parley lexicon WORLD`: the gate's lexicon for real worlds, what --read extracts, and bad worlds."""

from __future__ import annotations

import json

from tests.conftest import parley

BENCH_WORLD = "benchmarks/gate/world"

TWO_BOXES = """
id = "boxes-v1"
title = "Boxes"
start = "hall"

[locations.hall]
name = "Hall"
description = "A hall with two boxes."

[items.red_box]
name = "red box"
aliases = ["box", "crate"]

[items.blue_box]
name = "blue box"
aliases = ["box"]

[relations.located_in]
functional = true
aliases = ["is in"]

[facts.red_in_hall]
subject = "red_box"
relation = "located_in"
object = "hall"
text = "The red box is in the hall."
topic = "whereabouts"
"""


def test_a_shipped_world_as_a_table_and_a_read_sentence():
    r = parley("lexicon", "harbor", "--read", "The strongbox is in the sea cave.", "--read", "Nobody knows.")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert out.startswith("harbor-v1 (")
    assert "Entities" in out and "Relations" in out and "Topics" in out
    line = next(x for x in out.splitlines() if x.strip().startswith("strongbox "))
    assert "iron box" in line and "chest" in line
    read = out.split("Read: 'The strongbox is in the sea cave.'")[1].split("Read:")[0]
    assert "strongbox" in read and "located_in" in read and "sea_cave" in read
    assert "treasure" in read  # the topic of the world's fact about the strongbox
    assert "nothing" in out.split("Read: 'Nobody knows.'")[1]


def test_json_for_the_benchmark_world():
    r = parley(
        "lexicon",
        BENCH_WORLD,
        "--json",
        "--read",
        "The red gem is not in the old well.",
        "--read",
        "The ruby lies in the old well.",
    )
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["world"] == "gate-bench-v1"
    assert "red gem" in data["entities"]["gem"]["names"]
    assert "ruby" not in data["entities"]["gem"]["names"]  # the world file does not declare it
    price = data["relations"]["price"]
    assert price["unit"] == "gold" and price["range"] == [1, 500] and price["kind"] == "number"
    assert price["functional"] and price["changes"] and price["half_life"] == 40
    assert data["relations"]["arrives_before"]["temporal"] == "before"
    assert "sells for" in price["synonyms"] and "is priced at" not in price["synonyms"]
    assert {"subject": "gem", "relation": "located_in", "topic": "whereabouts"} in data["topics"]
    negated, alias = data["read"]
    assert negated["claims"] == [
        {
            "subject": "gem",
            "relation": "located_in",
            "object": "well",
            "negated": True,
            "topic": "whereabouts",
            "span": "The red gem is not in the old well",
        }
    ]
    assert alias["claims"] == []  # "ruby" names nothing in this world


def test_names_two_entities_share_are_listed_as_dropped(tmp_path):
    (tmp_path / "world.toml").write_text(TWO_BOXES, encoding="utf-8")
    r = parley("lexicon", str(tmp_path), "--json", "--read", "The box is in the hall.")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["shared_names"] == {"box": ["red_box", "blue_box"]}
    assert data["entities"]["red_box"]["names"] == ["red box", "crate"]
    assert data["read"][0]["claims"] == []  # "box" is ambiguous: no claim
    text = parley("lexicon", str(tmp_path)).stdout
    assert "Names dropped" in text and "red_box, blue_box" in text


def test_a_bad_world_exits_2_with_the_loaders_message():
    r = parley("lexicon", "worlds/broken/syntax")
    assert r.returncode == 2
    assert "worlds/broken/syntax/world.toml:6" in r.stderr and "TOML syntax error" in r.stderr
    r = parley("lexicon", "worlds/nope")
    assert r.returncode == 2 and "no world at" in r.stderr


def test_units_clock_and_kinds_of_a_world_that_declares_them():
    r = parley(
        "lexicon",
        "tests/data/dunmere",
        "--json",
        "--read",
        "Dunmere lock charges 216 pennies.",
        "--read",
        "Dunmere lock opens at dusk.",
    )
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["units"]["penny"]["base"] == "mark" and "pence" in data["units"]["penny"]["aliases"]
    assert data["clock"]["dusk"] == "19:00"
    assert data["relations"]["opens_at"]["kind"] == "time" and data["relations"]["toll"]["unit"] == "mark"
    toll, opens = (item["claims"][0] for item in data["read"])
    assert (toll["subject"], toll["relation"], toll["object"]) == ("dunmere_lock", "toll", "18")  # 216 pennies
    assert (opens["relation"], opens["object"]) == ("opens_at", "19:00")
    text = parley("lexicon", "tests/data/dunmere").stdout
    assert "Units" in text and "0.0833333 mark" in text and "Clock" in text and "first bell" in text
