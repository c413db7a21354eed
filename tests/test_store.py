"""Vector stores: FlatStore (exact numpy) and ChromaStore (real chromadb, in memory and on disk)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core.errors import InputError
from memory.store import ChromaStore, FlatStore, VectorStore, Where, make_store
from tests.conftest import ROOT

DIM = 24
SCOPES = ("world", "npc:mara", "npc:ilse", "player")
KINDS = ("fact", "event", "claim")
STATUSES = ("open", "done")


def unit(rng: np.random.Generator, n: int, d: int = DIM) -> np.ndarray:
    x = rng.standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def dataset(seed: int, n: int, d: int = DIM):
    rng = np.random.default_rng(seed)
    vecs = unit(rng, n, d)
    ids = [f"m{i:04d}" for i in range(n)]
    metas = []
    for i in range(n):
        m = {
            "scope": SCOPES[int(rng.integers(len(SCOPES)))],
            "kind": KINDS[int(rng.integers(len(KINDS)))],
            "turn": int(rng.integers(0, 50)),
            "status": STATUSES[int(rng.integers(2))],
        }
        if i % 11 == 0:
            del m["status"]  # some rows lack a key: they never match a filter on it
        metas.append(m)
    return ids, vecs, metas


def brute(ids, vecs, metas, q, k, where=None):
    q = q / np.linalg.norm(q)
    pairs = [(i, float(v @ q)) for i, v, m in zip(ids, vecs, metas) if where is None or where.matches(m)]
    return sorted(pairs, key=lambda p: (-p[1], p[0]))[:k]


@pytest.fixture(params=["flat", "chroma-mem", "chroma-disk"])
def store(request, tmp_path):
    if request.param == "flat":
        s = FlatStore()
    elif request.param == "chroma-mem":
        s = ChromaStore()
    else:
        s = ChromaStore(collection="mem", path=tmp_path / "chroma")
    yield s
    if isinstance(s, ChromaStore):
        s.close()


FILTERS = [
    None,
    Where(),
    Where(scopes=("world",)),
    Where(scopes=("npc:mara", "player")),
    Where(kinds=("fact",)),
    Where(min_turn=25),
    Where(status=("open",)),
    Where(scopes=("world", "npc:ilse"), kinds=("claim", "event")),
    Where(scopes=("player",), min_turn=10, status=("done",)),
    Where(scopes=("world",), kinds=("fact",), min_turn=5, status=("open", "done")),
    Where(scopes=("nowhere",)),
    Where(kinds=()),
]


def test_protocol_and_factory(tmp_path):
    assert isinstance(make_store(), FlatStore)
    assert isinstance(make_store("flat", dim=8), VectorStore)
    c = make_store("chroma", path=tmp_path / "c")
    assert isinstance(c, ChromaStore) and isinstance(c, VectorStore)
    with pytest.raises(InputError) as info:
        make_store("flta")
    assert "did you mean 'flat'?" in info.value.hint and info.value.exit_code == 2
    with pytest.raises(InputError, match="unknown vector store"):
        make_store("faiss")


def test_where_normalises_and_translates():
    w = Where(scopes=["a", "b"], kinds="fact")
    assert w.scopes == ("a", "b") and w.kinds == ("fact",)
    assert Where().is_empty() and Where().to_chroma() is None
    assert Where(scopes=("a",)).to_chroma() == {"scope": {"$in": ["a"]}}
    assert Where(scopes=("a",), min_turn=3).to_chroma() == {"$and": [{"scope": {"$in": ["a"]}}, {"turn": {"$gte": 3}}]}
    assert Where(status=()).matches_nothing()


@pytest.mark.parametrize("where", FILTERS, ids=repr)
def test_topk_matches_brute_force(store, where):
    ids, vecs, metas = dataset(1, 80)
    store.add(ids, vecs, metas)
    assert store.count() == 80
    rng = np.random.default_rng(2)
    for q in unit(rng, 8):
        want = brute(ids, vecs, metas, q, 7, where)
        got = store.query(q, 7, where)
        assert [i for i, _ in got] == [i for i, _ in want]
        np.testing.assert_allclose([s for _, s in got], [s for _, s in want], atol=1e-5)


def test_flat_and_chroma_agree(tmp_path):
    ids, vecs, metas = dataset(3, 90)
    stores = [FlatStore(), ChromaStore(), ChromaStore(path=tmp_path / "db")]
    for s in stores:
        s.add(ids, vecs, metas)
    rng = np.random.default_rng(4)
    for q in unit(rng, 10):
        for where in (None, Where(scopes=("world", "player"), min_turn=10)):
            results = [[i for i, _ in s.query(q, 10, where)] for s in stores]
            assert results[0] == results[1] == results[2]
    stores[1].close()


def test_k_larger_than_store_and_empty_store(store):
    q = np.ones(DIM, dtype=np.float32)
    assert store.query(q, 5) == []
    ids, vecs, metas = dataset(5, 6)
    store.add(ids, vecs, metas)
    assert len(store.query(q, 50)) == 6
    assert store.query(q, 0) == []


def test_upsert_replaces(store):
    ids, vecs, metas = dataset(6, 20)
    store.add(ids, vecs, metas)
    target = unit(np.random.default_rng(7), 1)[0]
    store.add(["m0003"], target[None, :], [{"scope": "secret", "kind": "fact", "turn": 99}])
    assert store.count() == 20
    top = store.query(target, 1)
    assert top[0][0] == "m0003" and top[0][1] == pytest.approx(1.0, abs=1e-5)
    assert [i for i, _ in store.query(target, 5, Where(scopes=("secret",)))] == ["m0003"]
    old_scope = metas[3]["scope"]
    assert "m0003" not in [i for i, _ in store.query(target, 20, Where(scopes=(old_scope,)))]


def test_duplicate_ids_in_one_add_keep_the_last(store):
    v = unit(np.random.default_rng(8), 2)
    store.add(["x", "x"], v, [{"scope": "a"}, {"scope": "b"}])
    assert store.count() == 1
    assert store.query(v[1], 1)[0][0] == "x"
    assert store.query(v[1], 1)[0][1] == pytest.approx(1.0, abs=1e-5)
    assert store.query(v[1], 1, Where(scopes=("a",))) == []


def test_delete_removes(store):
    ids, vecs, metas = dataset(9, 30)
    store.add(ids, vecs, metas)
    store.delete(["m0000", "m0010", "m0029", "not-there"])
    assert store.count() == 27
    keep = [n for n, i in enumerate(ids) if i not in ("m0000", "m0010", "m0029")]
    for q in vecs[[0, 10, 29, 5]]:
        got = store.query(q, 30)
        assert {"m0000", "m0010", "m0029"}.isdisjoint(i for i, _ in got)
        want = brute([ids[n] for n in keep], vecs[keep], [metas[n] for n in keep], q, 30)
        assert [i for i, _ in got] == [i for i, _ in want]
    store.delete([])
    assert store.count() == 27


def test_reset_empties(store):
    ids, vecs, metas = dataset(10, 15)
    store.add(ids, vecs, metas)
    store.reset()
    assert store.count() == 0
    assert store.query(vecs[0], 3) == []
    store.add(ids[:2], vecs[:2], metas[:2])
    assert store.count() == 2


def test_ties_are_ordered_by_id(store):
    v = unit(np.random.default_rng(11), 2)
    same = np.repeat(v[:1], 5, axis=0)
    store.add(["e", "c", "a", "d", "b"], same, [{"scope": "s"}] * 5)
    store.add(["z"], v[1:], [{"scope": "s"}])
    assert [i for i, _ in store.query(v[0], 10)][:5] == ["a", "b", "c", "d", "e"]
    assert [i for i, _ in store.query(v[0], 3)] == ["a", "b", "c"]
    assert [i for i, _ in store.query(v[0], 3, Where(scopes=("s",)))] == ["a", "b", "c"]


def test_metadata_and_shape_validation(store):
    v = unit(np.random.default_rng(12), 2)
    with pytest.raises(TypeError):
        store.add(["a"], v[:1], [{"scope": None}])
    with pytest.raises(TypeError):
        store.add(["a"], v[:1], [{"tags": ["x"]}])
    with pytest.raises(ValueError):
        store.add(["a", "b"], v[:1], [{}, {}])
    with pytest.raises(ValueError):
        store.add(["a"], np.array([[np.nan] * DIM]), [{}])
    store.add(["a"], v[:1], [{}])  # empty metadata is fine
    assert store.count() == 1


def test_flat_dimension_checks():
    s = FlatStore()
    s.add(["a"], np.ones((1, 4)), [{}])
    with pytest.raises(ValueError, match="dimension"):
        s.add(["b"], np.ones((1, 5)), [{}])
    with pytest.raises(ValueError, match="dimension"):
        s.query(np.ones(5), 1)
    assert s.metadata("a") == {} and "a" in s and len(s) == 1


def test_flat_grows_past_initial_capacity():
    ids, vecs, metas = dataset(13, 300)
    s = FlatStore()
    for lo in range(0, 300, 7):
        s.add(ids[lo : lo + 7], vecs[lo : lo + 7], metas[lo : lo + 7])
    assert s.count() == 300
    q = vecs[123]
    assert s.query(q, 1)[0][0] == "m0123"
    assert [i for i, _ in s.query(q, 10)] == [i for i, _ in brute(ids, vecs, metas, q, 10)]


def test_chroma_persists_across_processes(tmp_path):
    path = tmp_path / "save" / "chroma"
    ids, vecs, metas = dataset(14, 60)
    s = ChromaStore(collection="notes", path=path)
    s.add(ids, vecs, metas)
    q = unit(np.random.default_rng(15), 1)[0]
    where = Where(scopes=("world", "npc:mara"), min_turn=5)
    want = [i for i, _ in brute(ids, vecs, metas, q, 8, where)]
    assert [i for i, _ in s.query(q, 8, where)] == want
    # reopen in this process
    again = ChromaStore(collection="notes", path=path)
    assert again.count() == 60 and [i for i, _ in again.query(q, 8, where)] == want
    # and from a brand-new process: the data is on disk
    code = (
        "import json, sys, numpy as np\n"
        "from memory.store import ChromaStore, Where\n"
        "s = ChromaStore(collection='notes', path=sys.argv[1], ef_search=50)\n"
        "q = np.array(json.loads(sys.argv[2]), dtype=np.float32)\n"
        "w = Where(scopes=('world', 'npc:mara'), min_turn=5)\n"
        "print(json.dumps([s.count(), [i for i, _ in s.query(q, 8, w)], s.ef_search]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(path), json.dumps(q.tolist())],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ),
    )
    assert out.returncode == 0, out.stderr
    count, got, ef = json.loads(out.stdout.strip().splitlines()[-1])
    assert count == 60 and got == want and ef == 50


def test_chroma_in_memory_stores_are_private():
    a, b = ChromaStore(), ChromaStore()
    v = unit(np.random.default_rng(16), 1)
    a.add(["only-in-a"], v, [{}])
    assert a.count() == 1 and b.count() == 0
    a.close()
    b.close()


def test_chroma_collection_settings(tmp_path):
    s = ChromaStore(path=tmp_path / "c", ef_search=123)
    hnsw = s._col.configuration["hnsw"]
    assert hnsw["space"] == "cosine" and hnsw["ef_search"] == 123 and hnsw["ef_construction"] == 200
    assert s._col.configuration["embedding_function"].name() == "parley"
    reopened = ChromaStore(path=tmp_path / "c", ef_search=40)  # persisted for the next index load
    assert reopened._col.configuration["hnsw"]["ef_search"] == 40


# --------------------------------------------------------------------------- property test (FlatStore)

meta_st = st.fixed_dictionaries(
    {},
    optional={
        "scope": st.sampled_from(SCOPES[:3]),
        "kind": st.sampled_from(KINDS),
        "turn": st.integers(0, 20),
        "status": st.sampled_from(STATUSES),
    },
)
where_st = st.builds(
    Where,
    scopes=st.none() | st.lists(st.sampled_from(SCOPES), max_size=3).map(tuple),
    kinds=st.none() | st.lists(st.sampled_from(KINDS), min_size=1, max_size=2).map(tuple),
    min_turn=st.none() | st.integers(-1, 21),
    status=st.none() | st.lists(st.sampled_from(STATUSES), min_size=1, max_size=2).map(tuple),
)
op_st = st.tuples(
    st.sampled_from(["add", "add", "add", "delete"]),
    st.integers(0, 25),  # id number
    st.integers(0, 2**32 - 1),
    meta_st,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ops=st.lists(op_st, min_size=1, max_size=60),
    where=st.none() | where_st,
    k=st.integers(1, 12),
    qseed=st.integers(0, 2**32 - 1),
    dupes=st.booleans(),
)
def test_flat_equals_brute_force(ops, where, k, qseed, dupes):
    d = 6
    s = FlatStore()
    model: dict[str, tuple[np.ndarray, dict]] = {}
    pool = unit(np.random.default_rng(0), 4, d)  # a few shared vectors make exact ties likely
    for op, num, seed, meta in ops:
        key = f"id{num:02d}"
        if op == "delete":
            s.delete([key])
            model.pop(key, None)
            continue
        v = pool[seed % 4] if dupes else unit(np.random.default_rng(seed), 1, d)[0]
        s.add([key], v[None, :], [meta])
        model[key] = (v, meta)
    assert s.count() == len(model)
    q = unit(np.random.default_rng(qseed), 1, d)[0]
    got = s.query(q, k, where)
    # reference: filtered, scored one row at a time
    ref = sorted(
        ((i, float(np.dot(v, q))) for i, (v, m) in model.items() if where is None or where.matches(m)),
        key=lambda p: (-p[1], p[0]),
    )
    assert len(got) == min(k, len(ref))
    assert got == sorted(got, key=lambda p: (-p[1], p[0]))
    sims = dict(ref)
    for i, sim in got:
        assert i in sims and sim == pytest.approx(sims[i], abs=1e-5)
    np.testing.assert_allclose([x for _, x in got], [x for _, x in ref[: len(got)]], atol=1e-5)
    if len(got) == k and len(ref) > k:  # nothing clearly better was left out
        cut = got[-1][1]
        returned = {i for i, _ in got}
        assert all(i in returned for i, x in ref if x > cut + 1e-5)
    if dupes:  # exact ties are broken by id
        assert [i for i, _ in got] == [i for i, _ in ref[: len(got)]]


def test_query_many_matches_one_query_per_vector():
    from memory.store import FlatStore, Where

    rng = np.random.default_rng(7)
    vecs = rng.standard_normal((500, 384)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    store = FlatStore()
    store.add(
        [f"r{i}" for i in range(500)],
        vecs,
        [
            {"scope": "shared" if i % 3 else "private:a", "kind": "observation", "turn": i, "status": "active"}
            for i in range(500)
        ],
    )
    qs = vecs[:3] + 0.01
    for where in (None, Where(scopes=("shared",)), Where(scopes=("private:a",), min_turn=100)):
        assert store.query_many(qs, 10, where) == [store.query(q, 10, where) for q in qs]


def test_a_write_is_retried_while_the_database_is_locked():
    """Another process (a game, and an inspect of its save) may hold the SQLite write lock for a
    moment: a store write is retried while chromadb says 'database is locked', and only then."""
    from chromadb.errors import InternalError

    from memory.store_chroma import when_unlocked

    calls = []

    def write(n: int) -> int:
        calls.append(n)
        if len(calls) < 3:
            raise InternalError("Database error: error returned from database: (code: 5) database is locked")
        return n

    assert when_unlocked(write, n=7) == 7 and calls == [7, 7, 7]

    def broken() -> None:
        calls.append(0)
        raise InternalError("no such table: collections")

    calls.clear()
    with pytest.raises(InternalError, match="no such table"):
        when_unlocked(broken)
    assert calls == [0]
