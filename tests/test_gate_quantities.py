"""Numbers, units, times and sentences as the consistency gate reads them from free text.

A number in a unit the relation does not take, or a time where a number is meant, never
corroborates that number; amounts in words ("a dozen and a half"), Roman numerals, declared
units with their conversions and times of day are read as what they say; sentences split where
they end, not at "St."; "doesn't" and "nowhere near" negate."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.play.worlds import load_world
from memory.extract import RuleExtractor
from memory.gate import ConsistencyGate
from memory.lexicon import Lexicon, RelationInfo
from tests.conftest import ROOT

# a world that names its toll's unit but declares no other: "pennies" and "crowns" are units it does not take
LEX = Lexicon(
    entities={"dunmere_lock": ["Dunmere lock", "the lock"], "fair": ["the fair"], "brannoc_day": ["St. Brannoc's Day"]},
    relations={
        "toll": RelationInfo(aliases=("charges", "costs"), functional=True, range=(0, 5000), unit="mark"),
        "depth": RelationInfo(aliases=("is deep",), functional=True, range=(0, 100), unit="feet"),
        "precedes": RelationInfo(aliases=("precedes", "comes before"), temporal="before"),
    },
    # the lock has a toll and a depth: a clause must name which one it speaks of
    topics={
        ("dunmere_lock", "toll"): "tolls",
        ("dunmere_lock", "depth"): "locks",
        ("brannoc_day", "precedes"): "calendar",
    },
)


def gate(lex: Lexicon = LEX) -> ConsistencyGate:
    return ConsistencyGate(lexicon=lex, credibility=lambda s, t: 0.9)


def read(text: str, lex: Lexicon = LEX) -> list[tuple]:
    return [(e.subject, e.relation, e.object, e.truth) for e in RuleExtractor(lex).extract(text)]


# --- 1. unit traps: what another unit or a time says is never the number ---------------------------
@pytest.mark.parametrize(
    ("truth", "said"),
    [
        ("12", "The toll at the Dunmere lock is a dozen and a half marks."),  # 18, not 12
        ("12", "The toll at the Dunmere lock is twelve pennies."),  # not marks
        ("6", "The toll at the Dunmere lock is 6 gold crowns."),
        ("9", "The toll at the Dunmere lock is 9 pm."),
        ("6", "The toll at the Dunmere lock is half past six."),
        ("20", "The Dunmere lock charges twenty crowns."),
        ("3", "The toll at the Dunmere lock is three hours."),
    ],
)
def test_a_number_in_another_unit_or_a_time_never_corroborates(truth, said):
    g = gate()
    g.observe("dunmere_lock", "toll", truth, True, turn=1)
    ds = g.hear(said, source="anon", turn=2)
    assert ds, "a claim about the toll is read"
    assert all(d.outcome != "admit" for d in ds), [(d.outcome, d.candidate, d.reason) for d in ds]
    assert all(d.candidate["object"] != truth for d in ds)


@pytest.mark.parametrize(
    ("said", "n"),
    [
        ("The toll at the Dunmere lock is a dozen and a half marks.", "18"),
        ("The toll at the Dunmere lock is half a dozen marks.", "6"),
        ("The toll at the Dunmere lock is three score and ten marks.", "70"),
        ("The toll at the Dunmere lock is two and a half marks.", "2.5"),
        ("The toll at the Dunmere lock is XXX marks.", "30"),
        ("The toll at the Dunmere lock is 1,200 marks.", "1200"),
        ("The Dunmere lock charges eighteen marks, no more.", "18"),
    ],
)
def test_amounts_are_read_as_what_they_say_and_corroborate_it(said, n):
    assert read(said) == [("dunmere_lock", "toll", n, True)]
    g = gate()
    g.observe("dunmere_lock", "toll", n, True, turn=1)
    (d,) = g.hear(said, source="anon", turn=2)
    assert d.outcome == "admit" and "corroborates" in d.reason, d.reason


def test_the_pronoun_i_and_a_numeral_in_a_name_are_no_numbers():
    assert read("I paid the Dunmere lock toll gladly.") == []
    assert LEX.value("toll", "XXX") == "30" and LEX.value("toll", "I") == "I"
    from memory.quantities import arabic

    assert arabic("Henry VIII paid XXX marks and I paid IV.", {"marks"}) == "Henry VIII paid 30 marks and I paid IV."


# --- 2. sentences that were read as no claim -------------------------------------------------------
def test_a_sentence_does_not_end_at_an_abbreviation():
    got = read("The St. Brannoc's Day toll reckoning precedes the fair. Mr. Dunn has it from Dr. Vell.")
    assert got == [("brannoc_day", "precedes", "fair", True)]


@pytest.mark.parametrize(
    "said",
    [
        "The Dunmere lock doesn't charge 18 marks.",
        "The Dunmere lock doesnt charge 18 marks.",
        "The Dunmere lock won\u2019t charge 18 marks.",
        "The toll at the Dunmere lock isn't 18 marks.",
        "The toll at the Dunmere lock is nowhere near 18 marks.",
        "The Dunmere lock can't cost 18 marks.",
    ],
)
def test_contractions_and_nowhere_near_negate_the_value(said):
    assert read(said) == [("dunmere_lock", "toll", "18", False)]
    g = gate()
    g.observe("dunmere_lock", "toll", "18", True, turn=1)
    (d,) = g.hear(said, source="anon", turn=2)
    assert d.outcome == "reject"


def test_a_negation_ends_at_a_clause_boundary():
    assert read("No, the Dunmere lock charges 18 marks.") == [("dunmere_lock", "toll", "18", True)]
    assert read("It isn't cheap, the Dunmere lock charges 18 marks.") == [("dunmere_lock", "toll", "18", True)]
    assert read("It is not true that the Dunmere lock charges 18 marks.") == [("dunmere_lock", "toll", "18", False)]


# --- a world's [units] and [clock] -----------------------------------------------------------------
@pytest.fixture(scope="module")
def world() -> Lexicon:
    return Lexicon.from_spec(load_world(ROOT / "tests" / "data" / "dunmere").spec)


@pytest.mark.parametrize(
    ("said", "value"),
    [
        ("The toll at the Dunmere lock is 216 pennies.", "18"),
        ("The toll at the Dunmere lock is two dozen pence.", "2"),
        ("The toll at the Dunmere lock is 18 marks.", "18"),
        ("The grain barge charges a mark and a half.", "1.5"),
        ("The grain barge charges a penny.", "0.0833333"),
        ("The toll at the Dunmere lock is a score of marks.", "20"),
        ("The toll at the Dunmere lock is 6 gold crowns.", "6 gold crowns"),
    ],
)
def test_declared_units_convert_to_the_relations_unit(world, said, value):
    got = read(said, world)
    assert got == ([(got[0][0], "toll", value, True)] if value else []), got


@pytest.mark.parametrize(
    ("said", "hhmm"),
    [
        ("The Dunmere lock opens at 9 pm.", "21:00"),
        ("The Dunmere lock opens at 21:00.", "21:00"),
        ("The Dunmere lock opens at nine in the evening.", "21:00"),
        ("The Dunmere lock opens at 9.", "21:00"),  # a bare hour: the evening's, the one the world knows of
        ("The Dunmere lock opens at dusk.", "19:00"),
        ("The Dunmere lock opens at first bell.", "06:00"),
        ("The Dunmere lock opens at noon.", "12:00"),
        ("The Dunmere lock opens at half past six in the morning.", "06:30"),
        ("The Dunmere lock opens at a quarter to ten p.m.", "21:45"),
    ],
)
def test_times_of_day_are_one_value_however_written(world, said, hhmm):
    assert read(said, world) == [("dunmere_lock", "opens_at", hhmm, True)]


def test_a_time_corroborates_the_same_time_and_contradicts_another(world):
    g = gate(world)
    g.observe("dunmere_lock", "opens_at", "9 pm", True, turn=1)
    (same,) = g.hear("The Dunmere lock opens at nine in the evening.", source="anon", turn=2)
    assert same.outcome == "admit" and "corroborates" in same.reason
    (other,) = g.hear("The Dunmere lock opens at half past six in the morning.", source="anon", turn=3)
    assert other.outcome == "reject"
    (money,) = g.hear("The Dunmere lock opens at 21 marks.", source="anon", turn=4)
    assert money.outcome != "admit" and money.candidate["object"] != "21:00"


def test_a_converted_amount_corroborates_the_same_amount_in_the_relations_unit(world):
    g = gate(world)
    g.observe("dunmere_lock", "toll", "18", True, turn=1)
    (d,) = g.hear("The Dunmere lock charges 216 pennies.", source="anon", turn=2)
    assert d.outcome == "admit" and d.candidate["object"] == "18"
    (x,) = g.hear("The Dunmere lock charges 216 marks.", source="anon", turn=3)
    assert x.outcome == "reject"


def test_a_free_unit_word_without_a_units_table_keeps_working():
    lex = Lexicon(
        entities={"sextant": ["brass sextant"]},
        relations={"price": RelationInfo(aliases=("costs",), functional=True, range=(1, 500), unit="gold")},
    )
    for said in ("20 gold", "twenty gold coins", "Twenty gold pieces", "a score of gold", "20", "20 gold crowns"):
        assert lex.value("price", said) == "20", said
    for said in ("20 crowns", "20 pennies", "8 pm", "20 silver"):
        assert lex.value("price", said) == said, said


PIECES = st.sampled_from(
    [
        "The Dunmere lock",
        "the grain barge",
        "St.",
        "Mr.",
        "e.g.",
        "No. 4",
        "charges",
        "opens at",
        "doesn't",
        "nowhere near",
        "XXX",
        "IV",
        "I",
        "a dozen and a half",
        "half past",
        "six",
        "9 pm",
        "21:00",
        "dusk",
        "pennies",
        "marks",
        "crowns",
        ",",
        ".",
        "?",
        ";",
        "but",
        "not",
    ]
)


@given(st.lists(st.one_of(PIECES, st.text(max_size=8)), max_size=14))
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_the_extractor_never_fails_and_reads_only_known_relations(world, pieces):
    text = " ".join(pieces)
    for lex in (LEX, world):
        for e in RuleExtractor(lex).extract(text):
            assert e.relation in lex.relations
            assert lex.value(e.relation, e.object, e.subject) == e.object  # read once, it stays as read
