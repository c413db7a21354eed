"""game.core.claims: one normal form for claim values and one answer to "does a verified fact settle
this claim", shared by the world-fact memory, the consistency gate and the lessons of a game."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from game.core.claims import as_number, canonical, same_value, settles, verdict


@pytest.mark.parametrize(
    "a, b",
    [
        ("15", "15.0"),
        ("15", "15.00"),
        (" 15 ", "15"),
        ("15", 15),
        ("15", 15.0),
        ("-5", "-5.0"),
        ("1e3", "1000"),
        ("0.50", ".5"),
        ("Iron_Key", "iron key"),
        ("north-gate", "North Gate"),
        ("the  old\tmill", "The old mill"),
    ],
)
def test_the_same_value_spelled_differently(a, b):
    assert same_value(a, b)
    assert canonical(a) == canonical(b)


@pytest.mark.parametrize(
    "a, b",
    [
        ("15", "16"),
        ("-5", "5"),
        ("15", "15 m"),
        ("1234567", "1234568"),
        ("0.1234567", "0.1234568"),
        ("gem", "gems"),
        ("nan", "0"),
    ],
)
def test_different_values(a, b):
    assert not same_value(a, b)


def test_only_finite_numbers_are_numbers():
    assert as_number(" 2.5 ") == 2.5
    assert as_number("nan") is None and as_number("inf") is None and as_number("-inf") is None
    assert as_number("True") is None and as_number("gem") is None
    assert canonical("NaN") == "nan"  # compared as text


def test_settles():
    assert settles("15", True, "15.0") is True  # verified true, same value
    assert settles("15", False, "15.0") is False  # verified false, same value
    assert settles("20", True, "15", functional=True) is False  # one value per subject, another one is true
    assert settles("20", True, "15", functional=False) is None  # several values may hold
    assert settles("20", False, "15", functional=True) is None  # that another value is false says nothing


def test_verdict_a_fact_about_the_claimed_value_decides_first():
    assert verdict([("20", True), ("15", True)], "15.0", functional=True) is True
    assert verdict([("20", True), ("15", False)], "15", functional=True) is False
    assert verdict([("20", True)], "15", functional=True) is False
    assert verdict([("20", False)], "15", functional=True) is None
    assert verdict([], "15") is None


finite = st.floats(allow_nan=False, allow_infinity=False)


@given(
    st.integers(min_value=-(10**15), max_value=10**15),
    st.integers(min_value=0, max_value=4),
    st.sampled_from(["", " ", "\t"]),
)
def test_integers_with_trailing_zeros_are_the_same_value(n, zeros, pad):
    spelled = f"{pad}{n}.{'0' * zeros}{pad}" if zeros else f"{pad}{n}{pad}"
    assert same_value(str(n), spelled)
    assert same_value(n, spelled)


@given(finite, finite)
def test_numbers_are_the_same_value_exactly_when_they_are_equal(a, b):
    assert same_value(repr(a), repr(b)) == (a == b)
    assert same_value(str(a), repr(a))


@given(st.one_of(st.text(max_size=20), finite.map(repr), st.integers().map(str)))
def test_the_normal_form_is_a_normal_form(x):
    assert canonical(canonical(x)) == canonical(x)
    assert same_value(x, x)
    assert same_value(x, x.upper()) == same_value(x.upper(), x)


@given(
    st.one_of(st.text(max_size=8), st.integers(-50, 50).map(str)),
    st.one_of(st.text(max_size=8), st.integers(-50, 50).map(str)),
    st.booleans(),
    st.booleans(),
)
def test_settles_agrees_with_same_value(fact_obj, claim_obj, true, functional):
    got = settles(fact_obj, true, claim_obj, functional)
    if same_value(fact_obj, claim_obj):
        assert got is true
    else:
        assert got is (False if true and functional else None)
    assert verdict([(fact_obj, true)], claim_obj, functional) is got


# --- the callers treat "15" and "15.0" alike ------------------------------------------------------------


def _spec(fact_object: str):
    rel = SimpleNamespace(functional=True, range=None, temporal=None, thresholds=None)
    fact = SimpleNamespace(
        subject="tower",
        relation="height",
        object=fact_object,
        topic="towers",
        text=f"The tower is {fact_object} m tall",
    )
    return SimpleNamespace(relations={"height": rel}, facts={"f1": fact}, npcs={"lou": None})


def _claim(obj: str) -> dict:
    return {"speaker": "lou", "subject": "tower", "relation": "height", "object": obj, "topic": "towers"}


@pytest.mark.parametrize(
    "fact_obj, claim_obj, proved",
    [("15", "15.0", True), ("15.00", "15", True), ("15", "16", False), ("1234568", "1234567", False)],
)
def test_lessons_judge_a_claim_by_its_value(fact_obj, claim_obj, proved):
    """The lessons of a game used to compare the strings: "15.0" about a tower verified at 15 was a lie."""
    from memory.lessons import _judge

    ctx = SimpleNamespace(spec=_spec(fact_obj))
    assert _judge(ctx, _claim(claim_obj), {"f1": True}) is proved


@pytest.mark.parametrize(
    "fact_obj, claim_obj, proved",
    [("15", "15.0", True), ("15.00", "15", True), ("15", "16", False), ("1234568", "1234567", False)],
)
@pytest.mark.parametrize("claim_first", [True, False])
def test_world_facts_judge_a_claim_by_its_value(fact_obj, claim_obj, proved, claim_first):
    """Σ-Mem learns that the speaker was right (or wrong), whether the claim came before the
    verification or after it. Seven-digit values used to compare by their first six digits."""
    from memory.fact_listener import WorldFacts

    wf = WorldFacts(_spec(fact_obj))
    say = SimpleNamespace(kind="say", turn=1, data={"claims": [_claim(claim_obj)]})
    verify = SimpleNamespace(kind="verify", turn=2, data={"truth": {"f1": True}})
    for ev in [say, verify] if claim_first else [verify, say]:
        wf.on_event(ev)
    assert wf.judged == {0}
    score = wf.sigma.score("lou", "towers")
    assert (score > 0) if proved else (score < 0)


def test_the_gate_treats_the_same_number_as_the_same_fact():
    from memory.gate import ClaimCandidate, ConsistencyGate, RelationRule

    gate = ConsistencyGate({"height": RelationRule(functional=True)})
    gate.observe("tower", "height", "15", True, turn=1)
    same = gate.submit(ClaimCandidate("tower", "height", "15.0", "towers", "lou", 2))
    other = gate.submit(ClaimCandidate("tower", "height", "15.5", "towers", "lou", 2))
    assert same.outcome == "admit" and same.reason == "corroborates a known fact"
    assert other.outcome == "reject"


def test_claims_imports_neither_agents_nor_memory():
    import ast
    from pathlib import Path

    import game.core.claims

    tree = ast.parse(Path(game.core.claims.__file__).read_text(encoding="utf-8"))
    mods = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    mods += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not [m for m in mods if m.split(".")[0] in ("agents", "memory", "game")]


def test_a_leading_article_does_not_make_another_value():
    from game.core.claims import canonical, same_value

    assert same_value("the sea cave", "sea_cave") and same_value("The Gem", "gem")
    assert same_value("an old map", "old-map") and canonical("a") == "a"
    assert not same_value("the well", "the chest")
    assert canonical("theatre") == "theatre" and canonical("anvil") == "anvil"  # words, not articles
