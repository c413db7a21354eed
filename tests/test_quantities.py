"""The readers of amounts, units and times of day (``memory.quantities``), and a world loader fuzzed
with ``[units]`` and ``[clock]`` tables."""

from __future__ import annotations

import tomllib

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.play.worlds import collect_problems
from memory.quantities import Units, amount, arabic, clock_table, read_amount, read_time, time_value, words
from tests.conftest import ROOT


@pytest.mark.parametrize(
    ("text", "n"),
    [
        ("a dozen and a half", 18),
        ("half a dozen", 6),
        ("two dozen", 24),
        ("a score", 20),
        ("four score and seven", 87),
        ("two and a half", 2.5),
        ("a hundred", 100),
        ("one hundred and five", 105),
        ("twenty-five", 25),
        ("1,200", 1200),
        ("3.5", 3.5),
        ("a couple of", 2),
    ],
)
def test_amounts(text, n):
    assert amount(text) == n


@pytest.mark.parametrize("text", ["nineteen ninety", "a", "and", "score", "a fair sum", "half", "1,20", ""])
def test_what_is_no_amount(text):
    assert amount(text) is None


@pytest.mark.parametrize(
    ("text", "hhmm", "loose"),
    [
        ("9 pm", "21:00", False),
        ("9 p.m.", "21:00", False),
        ("21:00", "21:00", False),
        ("nine in the evening", "21:00", False),
        ("half past six", "06:30", True),
        ("quarter to seven", "06:45", True),
        ("ten past nine at night", "21:10", False),
        ("six o'clock", "06:00", True),
        ("six thirty pm", "18:30", False),
        ("noon", "12:00", False),
        ("midnight", "00:00", False),
        ("twelve at night", "00:00", False),
        ("12 am", "00:00", False),
        ("at 9", "09:00", True),
        ("dusk", "19:00", False),
    ],
)
def test_times_of_day(text, hhmm, loose):
    t = time_value(text, clock_table({"dusk": "19:00"}))
    assert t is not None and (t.text(), t.loose) == (hhmm, loose)


@pytest.mark.parametrize("text", ["9 marks", "half a dozen", "25:00", "thirty", "dawn", "the toll"])
def test_what_is_no_time(text):
    assert time_value(text, clock_table({"dusk": "19:00"})) is None


def test_units_convert_along_their_bases_and_not_across():
    u = Units(
        {
            "mark": {"aliases": ["marks"]},
            "shilling": {"base": "mark", "factor": 0.5},
            "penny": {"aliases": ["pence"], "base": "shilling", "factor": 1 / 6},
            "bushel": {},
        }
    )
    assert u.unit("pence") == "penny" and u.unit("Marks") == "mark" and u.unit("crowns") is None
    assert u.convert(24, "penny", "mark") == 2
    assert u.convert(3, "mark", "penny") == 36
    assert u.convert(1, "bushel", "mark") is None


# --- fuzz -----------------------------------------------------------------------------------------
TEXT = st.text(alphabet=st.sampled_from(list("abcdefhilmnoprstuvwxyz XIVLC0123456789:.,-'")), max_size=40)


@given(TEXT)
@settings(max_examples=300, deadline=None)
def test_the_readers_never_fail_on_any_text(text):
    toks = words(text)
    for i in range(len(toks) + 1):
        got = read_amount(toks, i)
        assert got is None or (got[1] > i and got[0] >= 0)
        t = read_time(toks, i, {("dusk",): 1140})
        assert t is None or (t.end > i and 0 <= t.minutes < 1440)
    t = time_value(text)
    assert t is None or 0 <= t.minutes < 1440
    assert isinstance(arabic(text, {"marks"}), str)


@given(st.integers(0, 999_999))
@settings(max_examples=300, deadline=None)
def test_numbers_written_out_in_words_read_back(n):
    from num2words import num2words

    assert amount(num2words(n)) == n
    assert amount(f"{n:,}") == n


@given(st.integers(0, 199), st.integers(0, 199))
@settings(max_examples=200, deadline=None)
def test_dozens_and_halves_are_monotone(a, b):
    from num2words import num2words

    def dozens(k: int) -> str:
        return f"{num2words(k)} dozen and a half"

    if a < b:
        assert amount(dozens(a)) < amount(dozens(b))
    assert amount(dozens(a)) == 12 * a + 6


@given(st.integers(0, 23), st.integers(0, 59))
@settings(max_examples=200, deadline=None)
def test_clock_times_read_back_and_twelve_hour_times_agree(h, m):
    assert time_value(f"{h:02d}:{m:02d}").text() == f"{h:02d}:{m:02d}"
    twelve = f"{(h % 12) or 12}:{m:02d} {'pm' if h >= 12 else 'am'}"
    assert time_value(twelve).text() == f"{h:02d}:{m:02d}"


DUNMERE = tomllib.loads((ROOT / "tests" / "data" / "dunmere" / "world.toml").read_text())
UNIT_ID = st.sampled_from(["mark", "penny", "crown", "groat", "shilling"])


@given(
    st.dictionaries(
        UNIT_ID,
        st.fixed_dictionaries(
            {},
            optional={
                "base": UNIT_ID,
                "factor": st.floats(allow_nan=False, allow_infinity=False, min_value=-5, max_value=100),
                "aliases": st.lists(st.sampled_from(["marks", "pence", "crowns", "bits"]), max_size=2),
            },
        ),
        max_size=4,
    ),
    st.dictionaries(
        st.sampled_from(["dusk", "dawn", "first bell"]),
        st.one_of(st.sampled_from(["19:00", "6:30", "23:59"]), st.text(max_size=6)),
        max_size=3,
    ),
    st.sampled_from(["mark", "penny", "crown", "gold"]),
)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_loader_reports_bad_units_and_clocks_as_problems_never_a_crash(tmp_path_factory, units, clock, unit):
    from memory.lexicon import Lexicon

    doc = {k: v for k, v in DUNMERE.items() if k not in ("units", "clock")}
    doc["units"], doc["clock"] = units, clock
    doc["relations"] = {**doc["relations"], "toll": {**doc["relations"]["toll"], "unit": unit}}
    folder = tmp_path_factory.mktemp("w")
    (folder / "world.toml").write_text(tomli_w.dumps(doc), encoding="utf-8")
    world, problems = collect_problems(folder)
    assert (world is None) == bool(problems)
    for p in problems:
        assert p.file and p.path and p.message, p.render()
    if world is not None:  # a world that loads reads its tolls
        lex = Lexicon.from_spec(world.spec)
        assert lex.value("toll", "18 marks") in ("18", "18 marks")
