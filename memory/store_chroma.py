"""The chromadb vector store: a collection (in memory, on disk or over HTTP) with
cosine space and a raised HNSW ``ef_search``.

On a Chroma server every game has its own collection, named by :func:`game_collection`
from the world id, the seed and a game id made when the game starts
(``parley-<world>-s<seed>-<game id>``); memory ids (``m1``, ``m2``, ...) are unique within
it, so two games on one server never read each other's memories. A saved game records the
collection's name (:meth:`ChromaStore.options`) and reopens it when loaded; nothing is
shared between collections, so dropping one (:meth:`ChromaStore.drop`) touches no other game.

chromadb is imported when a ChromaStore is created, never when this module is.
"""

from __future__ import annotations

import re
import uuid
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from game.core.errors import InputError
from game.core.extras import CHROMA, require
from memory.store_base import Where, _check_batch, _check_query, _order

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
        def build_from_config(config: dict[str, Any]) -> ParleyEmbeddingFunction:
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


def game_collection(world: str, seed: int, game_id: str | None = None) -> str:
    """The collection of one game: ``parley-<world>-s<seed>-<game id>`` (a new random game id
    when none is given). Characters Chroma does not allow in a name become ``-``."""
    gid = re.sub(r"[^a-zA-Z0-9]+", "", game_id or "") or uuid.uuid4().hex[:16]
    slug = re.sub(r"[^a-zA-Z0-9_-]+", "-", str(world)).strip("-_")[:48] or "world"
    return f"parley-{slug}-s{int(seed)}-{gid}"


def _http_client(host: str, port: int, settings: Any) -> Any:
    import chromadb

    try:
        return chromadb.HttpClient(host=host, port=int(port), settings=settings)
    except Exception as e:
        raise InputError(
            f"cannot reach a Chroma server at {host}:{port} ({type(e).__name__}: {e})",
            hint=f"start one with: chroma run --path DIR --port {port}",
        ) from None


def _drop_collection(client: Any, name: str) -> None:
    try:
        client.delete_collection(name)
    except Exception:
        pass


def _locked(exc: BaseException) -> bool:
    return "database is locked" in str(exc)


def when_unlocked(write: Any, **kw: Any) -> Any:
    """``write(**kw)``, retried with backoff for up to 10 s while another process (a game and a
    ``parley inspect`` of its save) holds the store's SQLite write lock."""
    from tenacity import retry, retry_if_exception, stop_after_delay, wait_exponential

    again = retry(
        retry=retry_if_exception(_locked),
        wait=wait_exponential(multiplier=0.05, max=1.0),
        stop=stop_after_delay(10),
        reraise=True,
    )
    return again(write)(**kw)


class ChromaStore:
    """A chromadb collection with cosine space, our embedding function and a raised HNSW ef_search.

    * ``path`` given: ``PersistentClient(path)`` (e.g. inside a save folder);
    * ``host`` given: ``HttpClient(host, port)``; ``collection`` should name one game
      (:func:`game_collection`), and :meth:`drop` removes it from the server;
    * neither: ``EphemeralClient()``, in memory. chromadb shares one in-memory
      database per process, so each in-memory store gets a private collection
      (``<collection>-<random>``) that is dropped by :meth:`close` or when the
      store is garbage-collected.

    Telemetry is always off. Vectors are added precomputed; the embedding
    function is registered only so chroma never instantiates its default one
    (which would try to download a model).
    """

    TIE_MARGIN = 8

    def __init__(
        self,
        collection: str = "parley",
        path: str | Path | None = None,
        host: str | None = None,
        port: int = 8000,
        ef_search: int = 200,
        ef_construction: int = 200,
        embedder: Any = "minilm",
    ):
        require(
            "memory",
            "the Chroma vector store (--store chroma)",
            CHROMA,
            hint="the default flat store needs no extra; --no-memory plays without agent memory",
        )
        import chromadb
        from chromadb.config import Settings

        if path is not None and host is not None:
            raise ValueError("give either path (local on-disk store) or host (chroma server), not both")
        settings = Settings(anonymized_telemetry=False, allow_reset=True)
        if host is not None:
            self._client = _http_client(host, port, settings)
            self.mode = "http"
        elif path is not None:
            Path(path).mkdir(parents=True, exist_ok=True)
            self._client = chromadb.PersistentClient(path=str(path), settings=settings)
            self.mode = "persistent"
        else:
            self._client = chromadb.EphemeralClient(settings=settings)
            self.mode = "memory"
        self.path = None if path is None else Path(path)
        self.host, self.port = host, int(port)
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
        self._finalizer = (
            weakref.finalize(self, _drop_collection, self._client, self.name) if self.mode == "memory" else None
        )

    def _open(self) -> Any:
        col = self._client.get_or_create_collection(
            name=self.name,
            configuration={
                "hnsw": {"space": "cosine", "ef_search": self.ef_search, "ef_construction": self.ef_construction}
            },
            embedding_function=self._ef,
        )
        current = (col.configuration or {}).get("hnsw") or {}
        if current.get("ef_search") not in (None, self.ef_search):
            # Reopened with another ef_search: persist it. chromadb 1.5.9 applies it when the
            # index is loaded, i.e. in a process that has not queried this collection yet; an
            # index already loaded in this process keeps the ef_search it was loaded with.
            when_unlocked(col.modify, configuration={"hnsw": {"ef_search": self.ef_search}})
        return col

    def add(self, ids: Sequence[str], vectors: np.ndarray, metadatas: Sequence[dict]) -> None:
        ids, vecs, metas = _check_batch(ids, vectors, metadatas, None)
        step = max(1, self._max_batch)
        for s in range(0, len(ids), step):
            chunk = slice(s, s + step)
            when_unlocked(
                self._col.upsert, ids=ids[chunk], embeddings=vecs[chunk], metadatas=[m or None for m in metas[chunk]]
            )

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
        res = self._col.query(
            query_embeddings=q[None, :],
            n_results=fetch,
            where=None if where is None else where.to_chroma(),
            include=["distances"],
        )
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

    def options(self) -> dict[str, Any]:
        """What reopens this store's collection on a server (host, port, collection); empty for an
        in-memory or on-disk store, whose data a save does not point to."""
        if self.mode != "http":
            return {}
        return {"host": self.host, "port": self.port, "collection": self.name}

    def drop(self) -> None:
        """Delete this store's collection (on a server: from the server). The store is empty
        and unusable afterwards."""
        if self._finalizer is not None:
            self._finalizer()
        else:
            _drop_collection(self._client, self.name)

    def close(self) -> None:
        """Drop an in-memory store's collection (no-op for on-disk and HTTP stores)."""
        if self._finalizer is not None:
            self._finalizer()
