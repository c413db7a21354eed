"""Vector stores behind one protocol: exact numpy search and chromadb (HNSW).

Both stores keep unit-norm float32 vectors with a small metadata dict each
(values str/int/float) and answer ``query(vector, k, where)`` with
``[(id, cosine_similarity), ...]`` sorted by similarity descending, then id
ascending, so results are deterministic even with ties.

* :class:`FlatStore` is exact brute force in numpy. Vectors live in one growing
  float32 matrix; the metadata fields used by :class:`Where` are kept as numpy
  columns so filters are vectorised.
* :class:`ChromaStore` wraps a chromadb collection (in-memory, on disk or over
  HTTP) with cosine space and a raised HNSW ``ef_search``.

Choose one with :func:`make_store`. Vectors are normalised on the way in, so
similarities are cosines even for callers that pass raw vectors.

Importing this module loads numpy only; chromadb is imported when a
ChromaStore is created.
"""

from __future__ import annotations

import contextlib
import uuid
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from game.errors import InputError, did_you_mean

STORE_KINDS = ("flat", "chroma")
MetaValue = str | int | float


# --------------------------------------------------------------------------- filters


def _as_tuple(value: Any) -> tuple | None:
    if value is None:
        return None
    if isinstance(value, (str, int, float)):
        return (value,)
    return tuple(value)


@dataclass(frozen=True)
class Where:
    """A conjunction of metadata conditions; ``None`` fields don't filter.

    * ``scopes``: metadata "scope" is one of these
    * ``kinds``: metadata "kind" is one of these
    * ``min_turn``: metadata "turn" >= this
    * ``status``: metadata "status" is one of these

    A row missing a filtered key never matches. An empty tuple matches nothing.
    """

    scopes: tuple[str, ...] | None = None
    kinds: tuple[str, ...] | None = None
    min_turn: int | None = None
    status: tuple[str, ...] | None = None

    def __post_init__(self) -> None:  # accept lists and single strings
        for name in ("scopes", "kinds", "status"):
            object.__setattr__(self, name, _as_tuple(getattr(self, name)))

    def is_empty(self) -> bool:
        return self.scopes is None and self.kinds is None and self.min_turn is None and self.status is None

    def matches_nothing(self) -> bool:
        return any(s is not None and len(s) == 0 for s in (self.scopes, self.kinds, self.status))

    def matches(self, meta: dict[str, MetaValue]) -> bool:
        """Reference semantics (used by tests and for single rows)."""
        for key, allowed in (("scope", self.scopes), ("kind", self.kinds), ("status", self.status)):
            if allowed is not None and (key not in meta or meta[key] not in allowed):
                return False
        if self.min_turn is not None:
            turn = meta.get("turn")
            if isinstance(turn, bool) or not isinstance(turn, (int, float)) or not turn >= self.min_turn:
                return False
        return True

    def to_chroma(self) -> dict[str, Any] | None:
        """This filter in chromadb's ``where`` syntax ($and/$in/$gte); None when it filters nothing."""
        clauses: list[dict[str, Any]] = []
        for key, allowed in (("scope", self.scopes), ("kind", self.kinds), ("status", self.status)):
            if allowed is not None:
                clauses.append({key: {"$in": list(allowed)}})
        if self.min_turn is not None:
            clauses.append({"turn": {"$gte": self.min_turn}})
        if not clauses:
            return None
        return clauses[0] if len(clauses) == 1 else {"$and": clauses}


# --------------------------------------------------------------------------- protocol


@runtime_checkable
class VectorStore(Protocol):
    def add(self, ids: Sequence[str], vectors: np.ndarray, metadatas: Sequence[dict]) -> None:
        """Insert or replace (upsert) these rows."""

    def query(self, vector: np.ndarray, k: int, where: Where | None = None) -> list[tuple[str, float]]:
        """Top ``k`` (id, cosine similarity), similarity desc then id asc."""

    def delete(self, ids: Sequence[str]) -> None: ...

    def count(self) -> int: ...

    def reset(self) -> None: ...


# --------------------------------------------------------------------------- shared checks


def _check_batch(ids: Sequence[str], vectors: np.ndarray, metadatas: Sequence[dict] | None,
                 dim: int | None) -> tuple[list[str], np.ndarray, list[dict]]:
    """Validate one add(): returns ids, normalised float32 vectors, metadata dicts; last duplicate id wins."""
    if isinstance(ids, str):
        raise TypeError("ids must be a sequence of strings, not one string")
    ids = list(ids)
    vecs = np.asarray(vectors, dtype=np.float32)
    if vecs.ndim == 1 and len(ids) == 1:
        vecs = vecs[None, :]
    if vecs.ndim != 2 or vecs.shape[0] != len(ids):
        raise ValueError(f"expected vectors of shape ({len(ids)}, dim), got {vecs.shape}")
    if dim is not None and vecs.shape[1] != dim:
        raise ValueError(f"vector dimension {vecs.shape[1]} does not match the store's {dim}")
    metas = [{} for _ in ids] if metadatas is None else [dict(m or {}) for m in metadatas]
    if len(metas) != len(ids):
        raise ValueError(f"{len(ids)} ids but {len(metas)} metadata dicts")
    for i in ids:
        if not isinstance(i, str) or not i:
            raise TypeError(f"ids must be non-empty strings, got {i!r}")
    for m in metas:
        for key, value in m.items():
            if not isinstance(key, str) or not isinstance(value, (str, int, float)):
                raise TypeError(f"metadata values must be str/int/float, got {key!r}: {value!r}")
    if not np.all(np.isfinite(vecs)):
        raise ValueError("vectors contain NaN or infinity")
    norms = np.linalg.norm(vecs, axis=1, keepdims=True)
    vecs = vecs / np.where(norms == 0, 1.0, norms)
    if len(set(ids)) != len(ids):  # keep the last occurrence of each id
        last = {i: n for n, i in enumerate(ids)}
        keep = sorted(last.values())
        ids = [ids[n] for n in keep]
        vecs = vecs[keep]
        metas = [metas[n] for n in keep]
    return ids, np.ascontiguousarray(vecs, dtype=np.float32), metas


def _check_query(vector: np.ndarray, dim: int | None) -> np.ndarray:
    q = np.asarray(vector, dtype=np.float32).reshape(-1)
    if dim is not None and q.shape[0] != dim:
        raise ValueError(f"query dimension {q.shape[0]} does not match the store's {dim}")
    if not np.all(np.isfinite(q)):
        raise ValueError("query vector contains NaN or infinity")
    norm = float(np.linalg.norm(q))
    return q / norm if norm > 0 else q


def _order(pairs: list[tuple[str, float]]) -> list[tuple[str, float]]:
    return sorted(pairs, key=lambda p: (-p[1], p[0]))


# --------------------------------------------------------------------------- flat

_BLAS: Any = None  # threadpoolctl controller, False when unavailable


def _one_blas_thread() -> Any:
    """A context that runs numpy's BLAS on one thread.

    For a mat-vec over a few thousand rows a second BLAS thread saves a fraction
    of a millisecond, but on a busy 2-core machine it can cost a lot: the call
    waits for a descheduled helper thread, which showed up as ~12 ms p95 spikes
    at 10k rows. threadpoolctl is optional (it comes with scikit-learn); without
    it BLAS keeps its default.
    """
    global _BLAS
    if _BLAS is None:
        try:
            from threadpoolctl import ThreadpoolController
            _BLAS = ThreadpoolController()
        except Exception:
            _BLAS = False
    if _BLAS is False:
        return contextlib.nullcontext()
    return _BLAS.limit(limits=1, user_api="blas")


class _Column:
    """A categorical metadata column as int codes (-1 = missing) with its vocabulary."""

    def __init__(self, key: str):
        self.key = key
        self.codes = np.full(0, -1, dtype=np.int32)
        self.vocab: dict[MetaValue, int] = {}

    def grow(self, cap: int) -> None:
        new = np.full(cap, -1, dtype=np.int32)
        new[: len(self.codes)] = self.codes
        self.codes = new

    def code(self, meta: dict) -> int:
        if self.key not in meta:
            return -1
        value = meta[self.key]
        c = self.vocab.get(value)
        if c is None:
            c = self.vocab[value] = len(self.vocab)
        return c

    def mask(self, n: int, allowed: tuple) -> np.ndarray:
        wanted = sorted({self.vocab[v] for v in allowed if v in self.vocab})
        col = self.codes[:n]
        if not wanted:
            return np.zeros(n, dtype=bool)
        if len(wanted) == 1:
            return col == wanted[0]
        return np.isin(col, wanted)


class FlatStore:
    """Exact cosine search in numpy.

    Rows live in a float32 matrix grown by doubling; deleting moves the last row
    into the hole, so the matrix stays dense. Queries score only rows that pass
    the filter (or all rows with one matrix-vector product when the filter
    keeps most of them, which is cheaper than gathering), then pick the top k
    with ``np.argpartition``; those candidates are rescored exactly (float64,
    row by row) and ties are resolved by id.
    """

    # Above this fraction of surviving rows, a full mat-vec beats gathering rows.
    GATHER_MAX_FRACTION = 0.5
    # float32 mat-vec error is far below this; candidates within it of the k-th score are rescored.
    RESCORE_MARGIN = 1e-4
    # Up to this many scored rows, BLAS runs on one thread (steadier p95 on a shared
    # 2-core machine); above it, two threads roughly halve a memory-bound mat-vec.
    SINGLE_THREAD_MAX_ROWS = 50_000

    def __init__(self, dim: int | None = None):
        self.dim = dim
        self._reset_arrays()

    def _reset_arrays(self) -> None:
        self._n = 0
        self._vecs = np.zeros((0, self.dim or 0), dtype=np.float32)
        self._ids: list[str] = []
        self._row: dict[str, int] = {}
        self._meta: list[dict] = []
        self._cols = {key: _Column(key) for key in ("scope", "kind", "status")}
        self._turn = np.full(0, np.nan, dtype=np.float64)

    # -- storage

    def _ensure(self, needed: int) -> None:
        cap = self._vecs.shape[0]
        if needed <= cap:
            return
        new_cap = max(needed, 2 * cap, 64)
        vecs = np.zeros((new_cap, self.dim), dtype=np.float32)
        vecs[: self._n] = self._vecs[: self._n]
        self._vecs = vecs
        for col in self._cols.values():
            col.grow(new_cap)
        turn = np.full(new_cap, np.nan, dtype=np.float64)
        turn[: self._n] = self._turn[: self._n]
        self._turn = turn

    def _set_meta(self, row: int, meta: dict) -> None:
        for col in self._cols.values():
            col.codes[row] = col.code(meta)
        t = meta.get("turn")
        self._turn[row] = float(t) if isinstance(t, (int, float)) and not isinstance(t, bool) else np.nan
        if row == len(self._meta):
            self._meta.append(meta)
        else:
            self._meta[row] = meta

    def add(self, ids: Sequence[str], vectors: np.ndarray, metadatas: Sequence[dict]) -> None:
        ids, vecs, metas = _check_batch(ids, vectors, metadatas, self.dim)
        if not ids:
            return
        if self.dim is None:
            self.dim = int(vecs.shape[1])
            self._vecs = np.zeros((0, self.dim), dtype=np.float32)
        old = [n for n, i in enumerate(ids) if i in self._row]
        new = [n for n, i in enumerate(ids) if i not in self._row]
        if old:
            rows = [self._row[ids[n]] for n in old]
            self._vecs[rows] = vecs[old]
            for n, r in zip(old, rows):
                self._set_meta(r, metas[n])
        if new:
            start = self._n
            self._ensure(start + len(new))
            self._vecs[start:start + len(new)] = vecs[new] if len(new) != len(ids) else vecs
            for offset, n in enumerate(new):
                r = start + offset
                self._ids.append(ids[n])
                self._row[ids[n]] = r
                self._set_meta(r, metas[n])
            self._n = start + len(new)

    def delete(self, ids: Sequence[str]) -> None:
        if isinstance(ids, str):
            ids = [ids]
        for i in ids:
            r = self._row.pop(i, None)
            if r is None:
                continue
            last = self._n - 1
            if r != last:  # move the last row into the hole
                self._vecs[r] = self._vecs[last]
                for col in self._cols.values():
                    col.codes[r] = col.codes[last]
                self._turn[r] = self._turn[last]
                moved = self._ids[last]
                self._ids[r] = moved
                self._meta[r] = self._meta[last]
                self._row[moved] = r
            self._ids.pop()
            self._meta.pop()
            self._n = last

    def count(self) -> int:
        return self._n

    def reset(self) -> None:
        self._reset_arrays()

    def metadata(self, id: str) -> dict | None:
        """The metadata stored for ``id`` (a copy), or None."""
        r = self._row.get(id)
        return None if r is None else dict(self._meta[r])

    def __contains__(self, id: object) -> bool:
        return id in self._row

    def __len__(self) -> int:
        return self._n

    # -- search

    def _mask(self, where: Where) -> np.ndarray | None:
        n = self._n
        mask: np.ndarray | None = None
        for key, allowed in (("scope", where.scopes), ("kind", where.kinds), ("status", where.status)):
            if allowed is not None:
                m = self._cols[key].mask(n, allowed)
                mask = m if mask is None else (mask & m)
        if where.min_turn is not None:
            m = self._turn[:n] >= where.min_turn  # NaN (missing) compares False
            mask = m if mask is None else (mask & m)
        return mask

    def query(self, vector: np.ndarray, k: int, where: Where | None = None) -> list[tuple[str, float]]:
        return self.query_many(np.asarray(vector)[None, :] if np.ndim(vector) == 1 else vector, k, where)[0]

    def query_many(self, vectors: np.ndarray, k: int, where: Where | None = None) -> list[list[tuple[str, float]]]:
        """Top-k for several query vectors at once: the filter runs once and the rows are read once."""
        vectors = np.asarray(vectors)
        qs = [_check_query(v, self.dim) for v in vectors]
        n = self._n
        if k <= 0 or n == 0 or not qs:
            return [[] for _ in qs]
        if where is not None and where.matches_nothing():
            return [[] for _ in qs]
        mask = None if where is None or where.is_empty() else self._mask(where)
        rows = None if mask is None else np.flatnonzero(mask)
        if rows is not None and rows.size == 0:
            return [[] for _ in qs]
        Q = np.stack(qs, axis=1)
        scored = n if rows is None or rows.size > self.GATHER_MAX_FRACTION * n else rows.size
        with _one_blas_thread() if scored <= self.SINGLE_THREAD_MAX_ROWS else contextlib.nullcontext():
            if rows is None:
                sims_all = self._vecs[:n] @ Q
            elif rows.size > self.GATHER_MAX_FRACTION * n:
                sims_all = (self._vecs[:n] @ Q)[rows]
            else:
                sims_all = self._vecs[rows] @ Q
        out = []
        for j, q in enumerate(qs):
            sims = sims_all[:, j]
            m = sims.shape[0]
            if k < m:
                part = np.argpartition(sims, m - k)[m - k:]
                cut = sims[part].min()
                cand = np.flatnonzero(sims >= cut - self.RESCORE_MARGIN)  # top k, ties and near-ties
            else:
                cand = np.arange(m)
            cand_rows = cand if rows is None else rows[cand]
            # BLAS results can differ in the last bit with a row's position in the matrix;
            # rescore the few candidates row by row in float64 so equal vectors get equal
            # scores wherever they sit, then break ties by id.
            exact = (self._vecs[cand_rows].astype(np.float64) * q.astype(np.float64)).sum(axis=1)
            ids = self._ids
            out.append(_order([(ids[int(r)], float(x)) for r, x in zip(cand_rows, exact)])[:k])
        return out


# --------------------------------------------------------------------------- chroma

_EF_CLASS: Any = None


def _embedding_function_class() -> Any:
    """Our chromadb EmbeddingFunction (built and registered on first use, so chromadb loads lazily)."""
    global _EF_CLASS
    if _EF_CLASS is not None:
        return _EF_CLASS
    from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
    from chromadb.utils.embedding_functions import register_embedding_function

    from memory.embedder import KINDS, get_embedder

    class ParleyEmbeddingFunction(EmbeddingFunction[Documents]):
        """Wraps a Parley Embedder; the model is loaded only if chroma ever embeds text itself."""

        def __init__(self, kind: str = "minilm", dim: int = 384, embedder: Any = None):
            self.kind = kind
            self.dim = int(dim)
            self._embedder = embedder

        def __call__(self, input: Documents) -> Embeddings:
            if self._embedder is None:
                self._embedder = get_embedder(self.kind, **({"dim": self.dim} if self.kind == "hash" else {}))
            return list(self._embedder(list(input)))

        @staticmethod
        def name() -> str:
            return "parley"

        def default_space(self) -> str:  # type: ignore[override]
            return "cosine"

        def supported_spaces(self) -> list:  # type: ignore[override]
            return ["cosine", "ip", "l2"]

        @staticmethod
        def build_from_config(config: dict[str, Any]) -> "ParleyEmbeddingFunction":
            return ParleyEmbeddingFunction(kind=config.get("kind", "minilm"), dim=config.get("dim", 384))

        def get_config(self) -> dict[str, Any]:
            return {"kind": self.kind, "dim": self.dim}

        @staticmethod
        def validate_config(config: dict[str, Any]) -> None:
            if config.get("kind", "minilm") not in KINDS:
                raise ValueError(f"unknown Parley embedder kind {config.get('kind')!r}")

    register_embedding_function(ParleyEmbeddingFunction)
    _EF_CLASS = ParleyEmbeddingFunction
    return _EF_CLASS


def _drop_collection(client: Any, name: str) -> None:
    try:
        client.delete_collection(name)
    except Exception:
        pass


class ChromaStore:
    """A chromadb collection with cosine space, our embedding function and a raised HNSW ef_search.

    * ``path`` given: ``PersistentClient(path)`` (e.g. inside a save folder);
    * ``host`` given: ``HttpClient(host, port)``;
    * neither: ``EphemeralClient()``, in memory. chromadb shares one in-memory
      database per process, so each in-memory store gets a private collection
      (``<collection>-<random>``) that is dropped by :meth:`close` or when the
      store is garbage-collected.

    Telemetry is always off. Vectors are added precomputed; the embedding
    function is registered only so chroma never instantiates its default one
    (which would try to download a model).
    """

    TIE_MARGIN = 8

    def __init__(self, collection: str = "parley", path: str | Path | None = None, host: str | None = None,
                 port: int = 8000, ef_search: int = 200, ef_construction: int = 200,
                 embedder: Any = "minilm"):
        import chromadb
        from chromadb.config import Settings

        if path is not None and host is not None:
            raise ValueError("give either path (local on-disk store) or host (chroma server), not both")
        settings = Settings(anonymized_telemetry=False, allow_reset=True)
        if host is not None:
            self._client = chromadb.HttpClient(host=host, port=int(port), settings=settings)
            self.mode = "http"
        elif path is not None:
            Path(path).mkdir(parents=True, exist_ok=True)
            self._client = chromadb.PersistentClient(path=str(path), settings=settings)
            self.mode = "persistent"
        else:
            self._client = chromadb.EphemeralClient(settings=settings)
            self.mode = "memory"
        self.path = None if path is None else Path(path)
        self.ef_search = int(ef_search)
        self.ef_construction = int(ef_construction)
        ef_cls = _embedding_function_class()
        if isinstance(embedder, str):
            kind = embedder.strip().lower()
            self._ef = ef_cls(kind=kind, dim=384)
        else:  # an Embedder instance
            self._ef = ef_cls(kind=embedder.name, dim=embedder.dim, embedder=embedder)
        self.name = f"{collection}-{uuid.uuid4().hex[:12]}" if self.mode == "memory" else collection
        self._col = self._open()
        try:
            self._max_batch = int(self._client.get_max_batch_size())
        except Exception:
            self._max_batch = 5000
        self._finalizer = (weakref.finalize(self, _drop_collection, self._client, self.name)
                           if self.mode == "memory" else None)

    def _open(self) -> Any:
        col = self._client.get_or_create_collection(
            name=self.name,
            configuration={"hnsw": {"space": "cosine", "ef_search": self.ef_search,
                                    "ef_construction": self.ef_construction}},
            embedding_function=self._ef,
        )
        current = (col.configuration or {}).get("hnsw") or {}
        if current.get("ef_search") not in (None, self.ef_search):
            # Reopened with another ef_search: persist it. chromadb 1.5.9 applies it when the
            # index is loaded, i.e. in a process that has not queried this collection yet; an
            # index already loaded in this process keeps the ef_search it was loaded with.
            col.modify(configuration={"hnsw": {"ef_search": self.ef_search}})
        return col

    def add(self, ids: Sequence[str], vectors: np.ndarray, metadatas: Sequence[dict]) -> None:
        ids, vecs, metas = _check_batch(ids, vectors, metadatas, None)
        step = max(1, self._max_batch)
        for s in range(0, len(ids), step):
            chunk = slice(s, s + step)
            self._col.upsert(ids=ids[chunk], embeddings=vecs[chunk],
                             metadatas=[m or None for m in metas[chunk]])

    def query(self, vector: np.ndarray, k: int, where: Where | None = None) -> list[tuple[str, float]]:
        if k <= 0:
            return []
        if where is not None and where.matches_nothing():
            return []
        n = self._col.count()
        if n == 0:
            return []
        q = _check_query(vector, None)
        # Fetch a few extra so that ties at the cut are resolved by id, not by index order.
        fetch = min(int(k) + self.TIE_MARGIN, n)
        res = self._col.query(query_embeddings=q[None, :], n_results=fetch,
                              where=None if where is None else where.to_chroma(), include=["distances"])
        ids = res["ids"][0]
        dists = res["distances"][0] if res.get("distances") else []
        return _order([(i, 1.0 - float(d)) for i, d in zip(ids, dists)])[:k]

    def delete(self, ids: Sequence[str]) -> None:
        if isinstance(ids, str):
            ids = [ids]
        ids = list(ids)
        if ids:
            self._col.delete(ids=ids)

    def count(self) -> int:
        return self._col.count()

    def reset(self) -> None:
        """Remove every row (the collection is dropped and recreated with the same settings)."""
        _drop_collection(self._client, self.name)
        self._col = self._open()

    def close(self) -> None:
        """Drop an in-memory store's collection (no-op for on-disk and HTTP stores)."""
        if self._finalizer is not None:
            self._finalizer()


# --------------------------------------------------------------------------- factory


def make_store(kind: str = "flat", **kw: Any) -> VectorStore:
    """A vector store: "flat" (exact numpy, the default) or "chroma"."""
    key = kind.strip().lower() if isinstance(kind, str) else kind
    if key == "flat":
        return FlatStore(**kw)
    if key == "chroma":
        return ChromaStore(**kw)
    hint = did_you_mean(key, STORE_KINDS)
    choices = "choose one of: " + ", ".join(STORE_KINDS)
    raise InputError(f"unknown vector store {kind!r}", hint=f"{hint} ({choices})" if hint else choices)
