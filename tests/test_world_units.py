"""A world's [units], [clock] and relation kinds: what loads, and what `parley validate` reports."""

from __future__ import annotations

import pytest

from game.play.worlds import collect_problems, load_world
from tests.conftest import ROOT, parley, write_world

DUNMERE = ROOT / "tests" / "data" / "dunmere"
TEXT = (DUNMERE / "world.toml").read_text()


def problems(tmp_path, old: str, new: str) -> list[str]:
    assert old in TEXT, old
    folder = write_world(tmp_path / "w", TEXT.replace(old, new, 1))
    world, found = collect_problems(folder)
    assert world is None, "expected problems"
    return [p.render() for p in found]


def test_units_clock_and_kinds_load():
    spec = load_world(DUNMERE).spec
    assert spec.units["penny"].base == "mark"
    assert spec.units["penny"].factor == pytest.approx(1 / 12, rel=1e-5)
    assert spec.clock == {"dusk": "19:00", "first bell": "06:00"}
    assert spec.relations["opens_at"].kind == "time"
    assert spec.relations["toll"].kind is None and spec.relations["toll"].unit == "mark"


@pytest.mark.parametrize(
    ("old", "new", "expect"),
    [
        ('base = "mark"', 'base = "marc"', ["units.penny.base: unknown unit 'marc'", "did you mean 'mark'"]),
        ("factor = 0.0833333", "factor = 0", ["units.penny.factor", "greater than 0"]),
        ("factor = 0.0833333", "factor = -2", ["units.penny.factor", "greater than 0"]),
        ('unit = "mark"', 'unit = "crown"', ["relations.toll.unit: unknown unit 'crown'", "declared units"]),
        ('dusk = "19:00"', 'dusk = "7pm"', ["clock.dusk", "HH:MM", "'7pm'"]),
        ('dusk = "19:00"', 'dusk = "25:00"', ["clock.dusk", "HH:MM"]),
        ('kind = "time"', 'kind = "time"\nunit = "mark"', ["relations.opens_at.unit", "kind 'time' takes no unit"]),
        ('kind = "time"', 'kind = "clock"', ["relations.opens_at.kind"]),
    ],
)
def test_bad_units_and_clock_name_file_table_and_field(tmp_path, old, new, expect):
    lines = problems(tmp_path, old, new)
    assert any(all(e in line for e in expect) and "world.toml" in line for line in lines), lines


def test_a_cycle_of_bases_is_reported_once(tmp_path):
    lines = problems(tmp_path, "[units.mark]\n", '[units.mark]\nbase = "penny"\nfactor = 12\n')
    loops = [line for line in lines if "loop" in line]
    assert len(loops) == 1, lines
    assert "mark -> penny -> mark" in loops[0] or "penny -> mark -> penny" in loops[0], lines


def test_a_unit_may_be_named_by_its_alias_in_a_relation(tmp_path):
    folder = write_world(tmp_path / "w", TEXT.replace('unit = "mark"', 'unit = "marks"', 1))
    world, found = collect_problems(folder)
    assert world is not None, [p.render() for p in found]


def test_a_free_unit_word_still_loads_without_a_units_table(tmp_path):
    text = TEXT.split("[units.mark]")[0] + TEXT.split("factor = 0.0833333\n")[1]
    folder = write_world(tmp_path / "w", text.replace('unit = "mark"', 'unit = "gold"', 1))
    world, found = collect_problems(folder)
    assert world is not None, [p.render() for p in found]


def test_validate_cli_exits_2_and_names_the_field(tmp_path):
    folder = write_world(tmp_path / "w", TEXT.replace('base = "mark"', 'base = "shilling"', 1))
    r = parley("validate", str(folder))
    assert r.returncode == 2, r.stdout + r.stderr
    assert "units.penny.base" in r.stdout + r.stderr and "world.toml" in r.stdout + r.stderr
