"""The seed tree (game.core.seeds): named children are stable, distinct and documented."""

from __future__ import annotations

import ast
import dataclasses
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.core import seeds
from game.core.seeds import SeedTree, derive, rng, seed_tree, sequence
from tests.conftest import ROOT

SEED = st.integers(min_value=0, max_value=2**160)
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


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=0, max_value=2**128 - 1), PATH)
def test_a_child_is_the_seed_sequence_with_its_key_as_spawn_key(seed, path):
    tree = seed_tree(seed).child(*path)
    want = np.random.SeedSequence(seed, spawn_key=tree.key).generate_state(8).tolist()
    assert tree.sequence().generate_state(8).tolist() == want


def test_a_node_copies_and_pickles_as_itself():
    import copy
    import pickle

    node = seed_tree(9).child("npc", "jory", 3)
    for other in (copy.copy(node), copy.deepcopy(node), pickle.loads(pickle.dumps(node))):
        assert other == node and other.path == node.path and draws(other.rng()) == draws(node.rng())
        assert draws(other.child("x").rng()) == draws(node.child("x").rng())


def test_name_types_and_splits_are_distinct():
    keys = {
        seed_tree(7).child(*p).key
        for p in [("ab", "c"), ("a", "bc"), ("abc",), ("a", "b", "c"), ("3",), (3,), ("",), ("", "")]
    }
    assert len(keys) == 8
    assert seed_tree(7).key == () and seed_tree(7).sequence().entropy == 7


def test_the_digest_is_pinned():
    """The tree is part of every transcript: its derivation must not drift between versions or
    machines (a changed value here changes every seeded game)."""
    assert seed_tree(0).child("engine").key == (4127764461, 822450743, 3871074140, 1302419663)
    assert derive(0, "aec", "episode", 1) == 4260723931


def test_the_digest_ignores_pythonhashseed():
    code = "from game.core.seeds import derive; print(derive(5, 'npc', 'jory', 'voice', 3, 1))"
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": h, "PATH": ""},
        ).stdout
        for h in ("1", "2", "3")
    }
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


# --- every Generator in the game comes from the tree, and every name is documented --------------

SOURCES = [p for pkg in ("game", "agents", "memory") for p in sorted((ROOT / pkg).rglob("*.py"))]
TREE_CALLS = {"rng", "sequence", "derive", "child"}


def _documented_paths() -> list[tuple[str, ...]]:
    """The name paths listed in the module docstring; ``<...>`` parts stand for any name."""
    listed = re.findall(r"^\* ``([^`]+)``:", seeds.__doc__ or "", flags=re.MULTILINE)
    assert len(listed) >= 15
    return [tuple(part.strip() for part in entry.split(",")) for entry in listed]


def _fits(names: tuple[str | None, ...], path: tuple[str, ...], at: int) -> bool:
    """``names`` (None: not a literal) match ``path`` from position ``at``."""
    got = path[at : at + len(names)]
    return len(got) == len(names) and all(p.startswith("<") if n is None else n == p for n, p in zip(names, got))


def _tree_calls(path) -> list[tuple[int, tuple[str | None, ...], str]]:
    """(line, names, how) for every seed-tree call in ``path``; a name that is not a string
    literal is None. ``how``: "final" (rng/sequence/derive: the whole path from the root),
    "root" (a child of seed_tree(...)) or "inner" (a child of some node)."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        fname = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        if fname not in TREE_CALLS:
            continue
        args = node.args if fname == "child" else node.args[1:]
        if not args or any(isinstance(a, ast.Starred) for a in args):
            continue
        names = tuple(a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in args)
        if fname != "child":
            how = "final"
        else:
            inner = f.value if isinstance(f, ast.Attribute) else None
            callee = inner.func if isinstance(inner, ast.Call) else None
            called = getattr(callee, "attr", getattr(callee, "id", ""))
            how = "root" if called == "seed_tree" else "inner"
        out.append((node.lineno, names, how))
    return out


def test_every_name_in_use_is_documented():
    documented = _documented_paths()
    calls = [(p.relative_to(ROOT).as_posix(), *c) for p in SOURCES for c in _tree_calls(p)]
    assert len(calls) >= 20
    missing = []
    for where, line, names, how in calls:
        if how == "final":
            ok = any(len(d) == len(names) and _fits(names, d, 0) for d in documented)
        elif how == "root":
            ok = any(_fits(names, d, 0) for d in documented)
        else:
            ok = any(_fits(names, d, i) for d in documented for i in range(len(d)))
        if not ok:
            missing.append(f"{where}:{line} {names}")
    assert not missing, f"seed-tree paths used but not listed in game/core/seeds.py's docstring: {missing}"


def test_no_generator_is_made_outside_the_tree():
    made = re.compile(r"default_rng\(|SeedSequence\(|PCG64\(|random\.Random\(|^\s*import random\b|^\s*from random ")
    offenders = [
        f"{p.relative_to(ROOT)}:{n}"
        for p in SOURCES
        if p.name != "seeds.py"
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if made.search(line)
    ]
    assert not offenders, offenders


# --- components draw from their own children --------------------------------------------------


@pytest.fixture(scope="module")
def bazaar():
    from game.play.worlds import load_world
    from tests.conftest import WORLDS

    return load_world(WORLDS / "bazaar")


def bodies(agents) -> dict:
    """NPC id -> the Generator its body moves by (NPCs with a random body only)."""
    out = {nid: getattr(getattr(a, "body", None), "rng", None) for nid, a in agents.items()}
    return {nid: g for nid, g in out.items() if g is not None}


def test_components_use_their_named_children(bazaar):
    from agents.autopilot import seeded_rng
    from agents.brute_player import BrutePlayer
    from agents.registry import npc_agents
    from game.engine.loop import Engine

    assert draws(Engine(bazaar, seed=4).rng) == draws(rng(4, "engine"))
    assert draws(seeded_rng(4)) == draws(rng(4, "autopilot"))
    assert draws(BrutePlayer(4).rng) == draws(rng(4, "brute"))
    moving = bodies(npc_agents(bazaar, 4))
    assert moving
    for nid, gen in moving.items():
        assert draws(gen) == draws(rng(4, "npc", nid, "body"))


def test_npc_streams_do_not_depend_on_world_order(bazaar):
    """An NPC's streams are keyed by its id, not by its place in the world's list."""
    from agents.registry import npc_agents
    from game.core.types import Request

    reordered = dict(reversed(list(bazaar.spec.npcs.items())))
    world = dataclasses.replace(bazaar, spec=bazaar.spec.model_copy(update={"npcs": reordered}))
    a, b = npc_agents(bazaar, 9), npc_agents(world, 9)
    assert list(a) == list(reversed(list(b)))
    assert {n: draws(g) for n, g in bodies(a).items()} == {n: draws(g) for n, g in bodies(b).items()}
    request = Request(kind="greet", asker="player", turn=3, seq=2)
    for nid in a:
        assert (
            draws(a[nid].voice.rng(request))
            == draws(b[nid].voice.rng(request))
            == draws(rng(9, "npc", nid, "voice", 3, 2))
        )


def test_counter_draws_are_stateless_uniform_and_keyed():
    from game.core.seeds import counter_draws, seed_tree

    node = seed_tree(7).child("negotiator", "random")
    key = node.counter_key()
    assert node.draws(3) == counter_draws(key, 3) == counter_draws(key, 3)
    assert seed_tree(8).child("negotiator", "random").counter_key() != key
    keyer = seeds.counter_keyer("negotiator", "random")
    assert keyer(7) == key and keyer(2**70) == seed_tree(2**70).child("negotiator", "random").counter_key()
    assert counter_draws(key, 3) != counter_draws(key, 4) != counter_draws(key + 1, 4)
    xs = [x for c in range(4000) for x in counter_draws(key, c)]
    assert all(0.0 <= x < 1.0 for x in xs)
    assert abs(sum(xs) / len(xs) - 0.5) < 0.02  # mean of 8,000 uniforms
    assert abs(sum(x < 0.1 for x in xs) / len(xs) - 0.1) < 0.02
    with pytest.raises(ValueError):
        counter_draws(key, -1)
