"""The consistency gate's reading on a world written apart from its own tests and benchmark: an
airship yard (tests/data/skyhook) with sovereigns and shillings, fathoms and feet, a currency it does
not take (thalers, marks), watch bells for times, and sentences in wording of their own
(tests/data/skyhook/sentences.py). What must hold: no number in a unit the relation does not take, and
no time where a number is meant, corroborates that number; questions, conditions, hearsay, wishes and
numbers that name things assert nothing; the declared wording reads as meant; sentences once misread
read as meant or as nothing."""

from __future__ import annotations

import pytest

from game.play.worlds import load_world
from memory.embedder import EmbedderUnavailable, get_embedder
from memory.extract import RuleExtractor
from memory.gate import ConsistencyGate
from memory.lexicon import Lexicon
from tests.conftest import ROOT
from tests.data.skyhook.sentences import ACTIONS, CLAIMS, MORE_MISREADS, NONE, PERSON_WITH_AMOUNT, TRAP_GAPS, TRAPS, W

EMBEDDERS = ("hash", "minilm")
DECLARED = CLAIMS[:41]  # the sentences in the world's own relation words; the rest are paraphrases
# once read otherwise than meant: each must now read as meant or as nothing (MISREAD_WHY says how it went wrong)
MISREAD = {
    "The Wren's berth fee was 12 sovereigns but is now 15 sovereigns.",
    "The Albatross won't be casting off until the dawn bell.",
    "The Grey Wren is not moored at Bay 7 but at the gasworks.",
    "Pike dropped the ledger, and the Wren departs at 8 pm.",
}
NOTHING_AT_MOST = 3  # paraphrases the rules and MiniLM may pass over (5% of 65): a miss costs a hold, not a lie


@pytest.fixture(scope="module")
def world() -> Lexicon:
    return Lexicon.from_spec(load_world(ROOT / "tests" / "data" / "skyhook").spec)


@pytest.fixture(scope="module", params=EMBEDDERS)
def embedder(request):
    emb = get_embedder(request.param)
    try:
        emb(["an airship"])
    except EmbedderUnavailable as exc:  # the light install: no meaning reader
        pytest.skip(str(exc))
    return emb


def read(lex: Lexicon, text: str, embedder) -> list[tuple]:
    return [(e.subject, e.relation, e.object, e.truth) for e in RuleExtractor(lex, embedder=embedder).extract(text)]


def test_the_world_declares_convertible_units_a_clock_and_a_time_relation(world):
    assert world.value("altitude", "2,400 feet") == "400" and world.value("berth_fee", "240 shillings") == "12"
    assert world.value("berth_fee", "12 thalers") != "12" and world.value("casts_off_at", "first watch") == "20:00"


def corroborates(world, embedder, said, subject, relation, truth) -> list:
    g = ConsistencyGate(lexicon=world, credibility=lambda s, t: 0.9, embedder=embedder)
    g.observe(subject, relation, truth, True, turn=1)
    ds = g.hear(said, source="anon", turn=2)
    held = world.value(relation, truth, subject)
    return [(d.candidate["object"], d.outcome) for d in ds if d.outcome == "admit" or d.candidate["object"] == held]


@pytest.mark.parametrize(("said", "subject", "relation", "truth"), TRAPS, ids=[t[0] for t in TRAPS])
def test_a_unit_trap_never_corroborates(world, embedder, said, subject, relation, truth):
    assert corroborates(world, embedder, said, subject, relation, truth) == []


@pytest.mark.parametrize(("said", "subject", "relation", "truth"), TRAP_GAPS, ids=[t[0] for t in TRAP_GAPS])
def test_a_multiplier_qualifier_or_foreign_currency_after_a_number_never_corroborates(
    world, said, subject, relation, truth
):
    assert corroborates(world, get_embedder("hash"), said, subject, relation, truth) == []


@pytest.mark.parametrize(("said", "want"), DECLARED, ids=[c[0] for c in DECLARED])
def test_the_declared_wording_reads_as_meant(world, embedder, said, want):
    assert read(world, said, embedder) == want


def test_paraphrases_read_as_meant_or_as_nothing_never_otherwise_beyond_the_known(world, embedder):
    got = {said: read(world, said, embedder) for said, _ in CLAIMS}
    wrong = {s for s, want in CLAIMS if got[s] and got[s] != want}
    nothing = [s for s, _ in CLAIMS if not got[s]]
    assert wrong <= MISREAD, wrong - MISREAD
    assert len(nothing) <= NOTHING_AT_MOST, nothing


@pytest.mark.parametrize("said", NONE)
def test_what_asserts_nothing_reads_as_nothing(world, embedder, said):
    assert read(world, said, embedder) == []


MISREAD_WHY = {
    "The Wren's berth fee was 12 sovereigns but is now 15 sovereigns.": "a past value ('was') is read as the current fee",
    "The Albatross won't be casting off until the dawn bell.": "'won't ... until' is read as a negation of the time",
    "The Grey Wren is not moored at Bay 7 but at the gasworks.": "'not X but Y' drops the Y the sentence asserts",
    "Pike dropped the ledger, and the Wren departs at 8 pm.": "'and' joins clauses: the person before it becomes the subject",
}


@pytest.mark.parametrize("said", sorted(MISREAD))
def test_known_misreads_read_as_meant_or_as_nothing(world, said):
    want = dict(CLAIMS)[said]
    got = read(world, said, get_embedder("hash"))
    assert got in ([], want), MISREAD_WHY[said]


# hash reads nothing for "walked to Bay 7 at 8 pm" (kinds alone: no likeness check); MiniLM reads it
PERSON_CASES = [(s, e) for s in PERSON_WITH_AMOUNT for e in EMBEDDERS if (s, e) != (PERSON_WITH_AMOUNT[2], "hash")]


@pytest.mark.parametrize(("said", "kind"), PERSON_CASES)
def test_a_person_with_an_amount_is_no_ships_fee_or_hour(world, said, kind):
    emb = get_embedder(kind)
    try:
        emb(["x"])
    except EmbedderUnavailable as exc:
        pytest.skip(str(exc))
    assert read(world, said, emb) == []


def test_actions_whose_kinds_fit_are_mostly_passed_over_by_meaning(world):
    """Not promised by the docs (a kinds-only reading stands when its relation is the likest one): counted.
    Measured: the hashing embedder reads 5 of 6 of these as claims, MiniLM 3 of 6."""
    hashed = sum(bool(read(world, s, get_embedder("hash"))) for s in ACTIONS)
    assert hashed <= 5
    emb = get_embedder("minilm")
    try:
        emb(["x"])
    except EmbedderUnavailable:
        return
    assert sum(bool(read(world, s, emb)) for s in ACTIONS) <= 3


@pytest.mark.parametrize(("said", "want"), MORE_MISREADS, ids=[m[0] for m in MORE_MISREADS])
def test_coordination_contrast_clefts_denials_and_hearsay_read_as_meant_or_as_nothing(world, said, want):
    assert read(world, said, get_embedder("hash")) in ([], want)


def test_a_head_noun_after_a_bare_number_is_another_value_only_where_the_relation_has_a_unit(world):
    emb = get_embedder("hash")
    assert read(world, "The Grey Wren's berth fee is 12 apples.", emb) == [(W, "berth_fee", "12 apples", True)]
    assert read(world, "The Grey Wren's berth fee is 12 now.", emb) == [(W, "berth_fee", "12", True)]
    assert read(world, "The Wren's crew is 18 men.", emb) == [(W, "crew", "18", True)]
