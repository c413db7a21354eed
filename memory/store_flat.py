"""The exact vector store: brute-force cosine search in numpy.

Vectors live in one growing float32 matrix; the metadata fields used by
:class:`~memory.store_base.Where` are kept as numpy columns, so filters are vectorised.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import numpy as np

from memory.blas import one_blas_thread as _one_blas_thread  # steadier p95 on a shared 2-core machine
from memory.store_base import MetaValue, Where, _check_batch, _check_query, _order


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
        wanted = [self.vocab[v] for v in allowed if v in self.vocab]
        col = self.codes[:n]
        if not wanted:
            return np.zeros(n, dtype=bool)
        if len(wanted) == 1:
            return col == wanted[0]
        # one gather through a lookup table (the last entry, read by code -1 = missing, stays False)
        table = np.zeros(len(self.vocab) + 1, dtype=bool)
        table[wanted] = True
        return table[col]


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
            self._vecs[start : start + len(new)] = vecs[new] if len(new) != len(ids) else vecs
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
                part = np.argpartition(sims, m - k)[m - k :]
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
