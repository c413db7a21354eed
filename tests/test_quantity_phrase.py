"""Whole quantity phrases (memory.quantities.quantity_phrase) and clause shapes (memory.clause_shape)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memory.clause_shape import elided, superseded, uncleft, without_asides
from memory.quantities import amount, head_noun, quantity_phrase, words

UNITS = frozenset("sovereigns shillings thalers marks silver pieces fathoms".split())


def phrase(text: str) -> tuple[str, bool] | None:
    toks = words(text)
    got = quantity_phrase(toks, 0 if toks[0] not in ("over", "under") else 1, UNITS)
    return None if got is None else (" ".join(toks[: got[0]]), got[1])


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("12 sovereigns for the Wren", ("12 sovereigns", True)),
        ("12 Dutch thalers", ("12 dutch thalers", True)),
        ("12 of your finest thalers", ("12 of your finest thalers", True)),
        ("12 pieces of silver", ("12 pieces of silver", True)),
        ("12 sovereigns and 6 shillings", ("12 sovereigns and 6 shillings", True)),
        ("12 to 15 sovereigns", ("12 to 15 sovereigns", False)),
        ("over 12 sovereigns", ("over 12 sovereigns", False)),
        ("12 and the Wren pays 6 thalers", ("12", True)),
        ("12, in thalers", ("12", True)),
    ],
)
def test_a_quantity_phrase_runs_on_to_its_unit_and_a_bound_or_range_is_no_one_value(text, want):
    assert phrase(text) == want


def test_a_scale_after_digits_multiplies_them():
    assert amount("12 thousand") == 12000 and amount("12k") == 12000 and amount("1.2 million") == 1_200_000


@given(st.lists(st.sampled_from([*UNITS, "12", "and", "to", "of", "over", "the", "dutch", ",", "k"]), max_size=12))
def test_a_quantity_phrase_never_runs_past_the_text(toks):
    for i in range(len(toks)):
        got = quantity_phrase(toks, i, UNITS)
        assert got is None or i < got[0] <= len(toks)


def test_ellipsis_after_but_takes_the_words_before_without_their_negation():
    before = words("the grey wren is not moored at bay 7")
    assert elided(before, words("at the gasworks"), False) == words("the grey wren is moored at the gasworks")
    assert elided(words("the fee was 12 sovereigns"), words("is now 15"), False) == words("the fee is now 15")
    assert elided(before, words("the albatross is"), True) is None


def test_a_past_value_is_superseded_by_now_and_asides_and_clefts_are_reshaped():
    assert superseded(words("the fee was 12"), words("is now 15"))
    assert not superseded(words("the fee is 12"), words("is now 15"))
    assert without_asides(words("the albatross, not the wren, is moored")) == words("the albatross is moored")
    assert uncleft(words("corrie is where the wren is moored")) == words("the wren is moored at corrie")


@given(st.lists(st.sampled_from(["the", "wren", "is", "was", "not", ",", "at", "where", "now", "bay"]), max_size=10))
def test_clause_shapes_never_invent_words(toks):
    for out in (without_asides(toks), uncleft(toks), elided(toks, toks[1:], False) or []):
        assert set(out) <= set(toks) | {"at"}


def test_a_head_noun_is_a_plain_word_after_the_number_and_no_adverb():
    toks = words("12 apples 12 now 12 exactly 12 for 12")
    assert [head_noun(toks, k) for k in (1, 3, 5, 7, 9)] == ["apples", None, None, None, None]
