"""Vector stores behind one protocol: exact numpy search and chromadb (HNSW).

Both stores keep unit-norm float32 vectors with a small metadata dict each
(values str/int/float) and answer ``query(vector, k, where)`` with
``[(id, cosine_similarity), ...]`` sorted by similarity descending, then id
ascending, so results are deterministic even with ties.

* :class:`FlatStore` is exact brute force in numpy. Vectors live in one growing
  float32 matrix; the metadata fields used by :class:`Where` are kept as numpy
  columns so filters are vectorised.
* :class:`ChromaStore` wraps a chromadb collection (in-memory, on disk or over
  HTTP) with cosine space and a raised HNSW ``ef_search``. On a Chroma server each game
  has its own collection (:func:`game_collection`).

Choose one with :func:`make_store`. Vectors are normalised on the way in, so
similarities are cosines even for callers that pass raw vectors.

Importing this module loads numpy only; chromadb is imported when a
ChromaStore is created. The stores live in memory.store_flat and memory.store_chroma, what
they share in memory.store_base; every name is importable from here.
"""

from __future__ import annotations

from typing import Any

from game.core.errors import InputError, did_you_mean
from memory.store_base import MetaValue, VectorStore, Where
from memory.store_chroma import ChromaStore, game_collection
from memory.store_flat import FlatStore

STORE_KINDS = ("flat", "chroma")
__all__ = [
    "STORE_KINDS",
    "ChromaStore",
    "FlatStore",
    "MetaValue",
    "VectorStore",
    "Where",
    "game_collection",
    "make_store",
]


def make_store(kind: str = "flat", **kw: Any) -> VectorStore:
    """A vector store: "flat" (exact numpy, the default) or "chroma" (``host``/``port``: a Chroma
    server, ``collection``: its collection; without ``host`` an embedded in-memory collection)."""
    key = kind.strip().lower() if isinstance(kind, str) else kind
    if key == "flat":
        return FlatStore(**kw)
    if key == "chroma":
        return ChromaStore(**kw)
    hint = did_you_mean(key, STORE_KINDS)
    choices = "choose one of: " + ", ".join(STORE_KINDS)
    raise InputError(f"unknown vector store {kind!r}", hint=f"{hint} ({choices})" if hint else choices)
