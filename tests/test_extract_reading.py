"""Claims read beyond the declared words: by the kinds of a clause's values, by meaning (MiniLM), and
by one distinctive word of a name; never from a question, a condition, hearsay or a wish, never from
a word two names share, and never a number that names a place ("Lock No. 4", "Room 12")."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.play.worlds import load_world
from memory.embedder import EmbedderUnavailable, get_embedder
from memory.extract import RuleExtractor
from memory.lexicon import Lexicon, RelationInfo
from memory.relation_sense import RelationSense
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def world() -> Lexicon:
    return Lexicon.from_spec(load_world(ROOT / "tests" / "data" / "saltmarsh").spec)


@pytest.fixture(scope="module")
def minilm():
    emb = get_embedder("minilm")
    try:
        emb(["a boat"])
    except EmbedderUnavailable as exc:  # the light install: the meaning reader is not there
        pytest.skip(str(exc))
    return emb


def read(lex: Lexicon, text: str, embedder=None) -> list[tuple]:
    return [(e.subject, e.relation, e.object, e.truth) for e in RuleExtractor(lex, embedder=embedder).extract(text)]


def test_kinds_come_from_the_world_tables(world):
    assert world.kind("heron") == "item" and world.kind("boathouse") == "place" and world.kind("quay") == "place"
    assert world.kind("Orla Vane") == "person" and world.kind("nobody") is None
    assert world.sorts("moored_at") == ({"item"}, {"place"})
    assert world.sorts("skippered_by") == ({"item"}, {"person"})


# --- by kinds: one relation fits the clause's kinds, with no relation word ---------------------------
@pytest.mark.parametrize(
    ("said", "want"),
    [
        # the Heron has no skipper fact: the kinds (a boat, a person) leave one relation
        ("Orla Vane sails the Grey Heron these days.", ("heron", "skippered_by", "orla", True)),
        ("The Grey Kestrel rode out the gale at Saltmarsh quay.", ("kestrel", "moored_at", "quay", True)),
        ("The Grey Kestrel never left the boathouse.", ("kestrel", "moored_at", "boathouse", False)),
        ("Passage on the Grey Kestrel is 4 shillings.", ("kestrel", "fare", "4", True)),
        ("Passage on the Grey Kestrel is 24 pence.", ("kestrel", "fare", "2", True)),  # converts to shillings
        ("The Grey Kestrel leaves at half past five in the morning.", ("kestrel", "sails_at", "05:30", True)),
        ("Mae Dunn doesn't crew the Grey Heron.", ("heron", "skippered_by", "mae", False)),
    ],
)
def test_the_kinds_of_the_values_pick_the_one_relation_that_fits(world, said, want):
    assert read(world, said) == [want]


def test_an_amount_in_a_unit_no_relation_takes_fits_none(world):
    assert read(world, "Passage on the Grey Kestrel is 4 hours.") == []
    assert read(world, "The Grey Kestrel is the one with the storm lantern.") == []  # "one" is no amount


def test_a_person_with_a_person_fits_several_relations_and_the_rules_read_nothing(world):
    assert read(world, "Orla Vane has faith in Mae Dunn.") == []
    assert read(world, "Orla Vane has faith in Mae Dunn.", get_embedder("hash")) == []  # words, not meaning


# --- by meaning ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("said", "want"),
    [
        ("Orla Vane has faith in Mae Dunn.", ("orla", "trusts", "mae", True)),
        ("Tam Dunn borrowed heavily from Orla Vane.", ("tam", "owes", "orla", True)),
        ("Orla Vane is in debt to Mae Dunn.", ("orla", "owes", "mae", True)),
        ("Mae Dunn has never had faith in Orla Vane.", ("mae", "trusts", "orla", False)),
    ],
)
def test_an_undeclared_verb_is_read_by_its_meaning(world, minilm, said, want):
    assert read(world, said, minilm) == [want]


@pytest.mark.parametrize(
    "said",
    [
        "Orla Vane danced with Tam Dunn at the fair.",  # like no relation: below the floor
        "Orla Vane counts on Mae Dunn.",  # likest to owing, but not clearly: no reading
        "Orla Vane and Tam Dunn are old shipmates.",  # two subjects, no object
    ],
)
def test_meaning_reads_nothing_it_is_not_sure_of(world, minilm, said):
    assert read(world, said, minilm) == []


def test_the_floor_and_margin_decide(world, minilm):
    sense = RelationSense(world, minilm)
    ex = RuleExtractor(world, embedder=minilm)
    scores = sense.likeness("someone is in debt to someone", ["trusts", "owes"], ex._mask)
    assert scores["owes"] > scores["trusts"] + sense.margin and scores["owes"] > sense.floor
    assert sense.choose("someone is in debt to someone", ["trusts", "owes"], ex._mask) == "owes"
    assert RelationSense(world, minilm, floor=0.99).choose("someone is in debt to someone", ["owes"], ex._mask) is None
    assert not RelationSense(world, get_embedder("hash")).usable and not RelationSense(world).usable


# --- names -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("said", "want"),
    [
        ("The Heron is moored at the boathouse.", ("heron", "moored_at", "boathouse", True)),
        ("The grey KESTREL is skippered by Skipper Vane.", ("kestrel", "skippered_by", "orla", True)),
        ("Vane trusts Tam Dunn.", ("orla", "trusts", "tam", True)),
        ("Orla trusts Tam Dunn.", ("orla", "trusts", "tam", True)),
        ("The Heron? Orla sails it.", ("heron", "skippered_by", "orla", True)),
        ("The Kestrel's skipper is Orla Vane.", ("kestrel", "skippered_by", "orla", True)),
    ],
)
def test_a_distinctive_word_of_a_name_names_its_entity(world, said, want):
    assert read(world, said) == [want]


@pytest.mark.parametrize(
    "said",
    [
        "The Grey is moored at the boathouse.",  # both boats are grey
        "Dunn trusts Orla Vane.",  # Tam and Mae are both Dunns
        "Mr. Dunn trusts Orla Vane.",
    ],
)
def test_a_word_two_names_share_names_neither(world, said):
    assert read(world, said) == []


# --- numbers that name places ----------------------------------------------------------------------
def test_a_number_in_a_name_is_no_value_and_no_is_no_negation(world):
    assert read(world, "The Grey Heron is moored at Lock No. 4.") == [("heron", "moored_at", "lock_four", True)]
    assert read(world, "The depth at Lock No. 4 is 12 feet.") == [("lock_four", "depth", "12", True)]
    assert read(world, "The Heron lies in Room 12.") == [("heron", "moored_at", "room_twelve", True)]
    assert read(world, "No, the Heron lies in Room 12.") == [("heron", "moored_at", "room_twelve", True)]
    assert read(world, "The Heron is not in Room 12.") == [("heron", "moored_at", "room_twelve", False)]


# --- nothing asserted ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "said",
    [
        "Is the Grey Heron moored at the boathouse?",
        "Does Orla Vane sail the Grey Heron?",
        "If the Heron were at the quay, we would see it.",
        "Tam Dunn says the Heron is moored at the boathouse.",
        "I heard Orla Vane sails the Grey Heron.",
        "I wish the Heron were moored at the quay.",
        "Let's hope Orla Vane has faith in Mae Dunn.",
        "Maybe the Grey Kestrel leaves at half past five in the morning.",
    ],
)
def test_questions_conditions_hearsay_and_wishes_assert_nothing(world, minilm, said):
    assert read(world, said) == [] and read(world, said, minilm) == []


def test_a_concessive_opening_is_not_hearsay(world):
    got = read(world, "Whatever they told you, the Heron is not in Room 12.")
    assert got == [("heron", "moored_at", "room_twelve", False)]


# --- fuzz: any text over any world ----------------------------------------------------------------
WORDS = st.sampled_from(
    "the a grey red old heron gull lock no 4 12 room is in at by not never if says ? . , ; but and "
    "twenty shillings pence 9 pm half past six it them Mr. Dr. St. skipper 's there before after".split()
)
NAME = st.lists(st.sampled_from("grey red heron gull tam dunn vane orla lock no 4 room 12 quay".split()), min_size=1)


@st.composite
def worlds(draw) -> Lexicon:
    n = draw(st.integers(1, 6))
    ents = {f"e{i}": [" ".join(draw(NAME))] for i in range(n)}
    kinds = {e: draw(st.sampled_from(["item", "place", "person", ""])) for e in ents}
    rels = {
        "r0": RelationInfo(aliases=tuple(draw(st.lists(st.sampled_from(["is in", "lies at", "trusts"]), max_size=2)))),
        "r1": RelationInfo(unit=draw(st.sampled_from(["shilling", "gold", None])), range=(0, 100)),
        "r2": RelationInfo(kind="time"),
    }
    objects = {(draw(st.sampled_from(list(ents))), "r0"): [draw(st.sampled_from(list(ents)))]}
    texts = {"r0": [draw(st.text(max_size=30))]}
    return Lexicon(ents, rels, {k: "t" for k in objects}, objects, kinds=kinds, texts=texts)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(worlds(), st.lists(st.one_of(WORDS, st.text(max_size=6)), max_size=16))
def test_the_extractor_never_fails_on_random_text_over_a_random_world(lex, pieces):
    for e in RuleExtractor(lex, seen=lambda r: {"e0"}).extract(" ".join(pieces)):
        assert e.relation in lex.relations and lex.entity(e.subject) == e.subject


# --- names by meaning, "there", adjuncts ------------------------------------------------------------
def test_an_undeclared_name_is_read_by_meaning_but_not_a_modifier_or_compound_part(world, minilm):
    got = read(world, "The storm lantern hangs in the boatshed.", minilm)
    assert got == [("lantern", "moored_at", "boathouse", True)]
    assert read(world, "The storm lantern hangs in the boatshed.") == []  # the rules know no "boatshed"
    assert read(world, "The storm lantern is on the boat.", minilm) == []  # a boat is no boathouse
    assert read(world, "The Grey Kestrel is moored at the Fairhaven.", minilm) == []  # a capitalised name


def test_there_is_the_place_the_clause_before_named(world):
    got = read(world, "Look in the boathouse; the storm lantern is there.")
    assert got == [("lantern", "moored_at", "boathouse", True)]
    assert read(world, "The storm lantern is there.") == []


def test_before_a_person_is_when_not_what_where_no_relation_orders_people(world, minilm):
    said = "Orla Vane was skippering the Heron before Tam Dunn."
    assert read(world, said) == read(world, said, minilm) == [("heron", "skippered_by", "orla", True)]


def test_the_gate_reads_by_meaning_with_its_own_embedder(world, minilm):
    from memory.gate import ConsistencyGate

    g = ConsistencyGate(lexicon=world, embedder=minilm)
    (d,) = g.hear("Orla Vane has faith in Mae Dunn.", source="anon", turn=1)
    assert (d.candidate["subject"], d.candidate["relation"], d.candidate["object"]) == ("orla", "trusts", "mae")


@pytest.mark.parametrize(
    "said",
    [
        "Tam Dunn wants the storm lantern.",
        "Tam Dunn lost the storm lantern.",
        "Mae Dunn is looking for the Grey Heron.",
        "Orla Vane sold the Grey Heron to Mae Dunn.",
    ],
)
def test_meaning_overrules_a_reading_by_kinds_when_another_relation_is_likelier(world, minilm, said):
    assert read(world, said, minilm) == []


def test_a_given_name_alone_counts_only_written_as_a_name(world):
    assert read(world, "Vane trusts Tam Dunn.") == [("orla", "trusts", "tam", True)]
    assert read(world, "The vane trusts Tam Dunn.") == []  # a weather vane, not Orla Vane
