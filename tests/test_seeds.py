"""The seed tree (game.core.seeds): named children are stable, distinct and documented."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.core.seeds import SeedTree, derive, rng, seed_tree, sequence
from tests.conftest import ROOT

SEED = st.integers(min_value=0, max_value=2**64)
NAME = st.one_of(st.text(max_size=12), st.integers(min_value=-(2**40), max_value=2**40))
PATH = st.lists(NAME, min_size=1, max_size=4).map(tuple)


def draws(gen: np.random.Generator) -> list[int]:
    return gen.integers(0, 2**63, size=4).tolist()


@settings(max_examples=200, deadline=None)
@given(SEED, PATH)
def test_same_seed_and_name_same_stream(seed, path):
    assert draws(rng(seed, *path)) == draws(seed_tree(seed).child(*path).rng())
    assert sequence(seed, *path).generate_state(4).tolist() == sequence(seed, *path).generate_state(4).tolist()
    assert derive(seed, *path) == derive(seed, *path)


@settings(max_examples=200, deadline=None)
@given(SEED, PATH, PATH)
def test_different_names_different_streams(seed, a, b):
    if a == b:
        return
    assert draws(rng(seed, *a)) != draws(rng(seed, *b))


@settings(max_examples=200, deadline=None)
@given(SEED, SEED, PATH)
def test_different_seeds_different_streams(s, t, path):
    if s == t:
        return
    assert draws(rng(s, *path)) != draws(rng(t, *path))


@settings(max_examples=200, deadline=None)
@given(SEED, st.text(min_size=2, max_size=10), st.data())
def test_paths_do_not_collide_by_concatenation(seed, text, data):
    cut = data.draw(st.integers(min_value=1, max_value=len(text) - 1))
    split = (text[:cut], text[cut:])
    assert seed_tree(seed).child(*split).key != seed_tree(seed).child(text).key
    assert draws(rng(seed, *split)) != draws(rng(seed, text))


@settings(max_examples=100, deadline=None)
@given(SEED, PATH, PATH)
def test_a_child_of_a_child_is_the_joined_path(seed, a, b):
    assert seed_tree(seed).child(*a).child(*b) == seed_tree(seed).child(*a, *b)
    assert draws(rng(seed_tree(seed).child(*a), *b)) == draws(rng(seed, *a, *b))


def test_name_types_and_splits_are_distinct():
    keys = {seed_tree(7).child(*p).key for p in [("ab", "c"), ("a", "bc"), ("abc",), ("a", "b", "c"),
                                               ("3",), (3,), ("",), ("", "")]}
    assert len(keys) == 8
    assert seed_tree(7).key == () and seed_tree(7).sequence().entropy == 7


def test_the_digest_is_pinned():
    """The tree is part of every transcript: its derivation must not drift between versions or
    machines (a changed value here changes every seeded game)."""
    assert seed_tree(0).child("engine").key == (4127764461, 822450743, 3871074140, 1302419663)
    assert derive(0, "aec", "episode", 1) == 4260723931


def test_the_digest_ignores_pythonhashseed():
    code = "from game.core.seeds import derive; print(derive(5, 'npc', 'jory', 'voice', 3, 1))"
    outs = {subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": h, "PATH": ""}).stdout for h in ("1", "2", "3")}
    assert len(outs) == 1


def test_integer_seeds_and_bad_input():
    assert 0 <= derive(3, "x") < 2**32 and 0 <= derive(3, "x", bits=64) < 2**64
    assert derive(3, "x", bits=64) != derive(3, "x")
    assert draws(rng(np.int64(3), "x")) == draws(rng(3, "x"))
    with pytest.raises(ValueError):
        seed_tree(-1)
    with pytest.raises(ValueError):
        derive(3, "x", bits=16)
    for bad_seed in (True, 1.5, "3", None):
        with pytest.raises(TypeError):
            seed_tree(bad_seed)
    for bad_name in (True, 1.5, None, b"x"):
        with pytest.raises(TypeError):
            seed_tree(3).child(bad_name)
    assert repr(seed_tree(3).child("npc", 2)) == "seed_tree(3).child('npc', 2)"
    assert isinstance(seed_tree(seed_tree(3)), SeedTree) and seed_tree(seed_tree(3)) == seed_tree(3)


def test_importing_the_tree_loads_no_numpy():
    code = "import sys, game.core.seeds; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
