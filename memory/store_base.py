"""What every vector store shares: the metadata filter (:class:`Where`), the store
protocol, and the checks on vectors and metadata coming in."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

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


def _check_batch(
    ids: Sequence[str], vectors: np.ndarray, metadatas: Sequence[dict] | None, dim: int | None
) -> tuple[list[str], np.ndarray, list[dict]]:
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
