"""The save schema of Σ-Mem (``components.facts.sigma``, ``memory.sigma_state.state_of``).

Version 2 states and the version 1 states ``memory.sigma_state`` still loads (no ``declared``, a
config without the fields added since: they take their defaults). The arrays must fit the peers
and the config's ``r``: ``M`` is peers x r x r, ``S`` peers x peers, ``c_num`` and ``c_den`` one
number per peer; peers, topics and declared topics are each distinct, and every number finite.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field, StrictInt, model_validator
from pydantic_core import InitErrorDetails

from memory.sigma_config import SigmaConfig
from memory.state_schema_types import (
    MAX_DIM,
    MAX_KEYS,
    MAX_SIGMA_ABS,
    MAX_SIGMA_CELLS,
    Count,
    Label,
    Name,
    Real,
    Strict,
    many,
    problem,
    raise_all,
)

SYMMETRY_TOL = 1e-9  # relative to the matrix's largest entry
STATE_VERSIONS = (1, 2)  # memory.sigma_state.SUPPORTED_VERSIONS
Num = Annotated[Real, Field(ge=-MAX_SIGMA_ABS, le=MAX_SIGMA_ABS)]  # larger ones overflow S's eigendecomposition
Matrix = many(many(Num, MAX_DIM), MAX_DIM)  # r x r
PeerMatrix = many(many(Num, MAX_KEYS), MAX_KEYS)  # peers x peers


class StrictSigmaConfig(SigmaConfig):
    """Σ-Mem's parameters as saved: the same fields and bounds, strict types."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class SigmaState(Strict):
    """Σ-Mem's state: per-peer matrices ``M``, the peer Gram matrix ``S``, the running
    calibration sums, the event clock."""

    version: Annotated[StrictInt, Field(ge=min(STATE_VERSIONS), le=max(STATE_VERSIONS))]  # true is not 1
    config: StrictSigmaConfig
    embedder: Name | None = None
    peers: many(Name, MAX_KEYS)
    topics: many(Label, MAX_KEYS)
    declared: many(Label, MAX_KEYS) = []
    t: Count
    M: many(Matrix, MAX_KEYS)
    S: PeerMatrix
    c_num: many(Num, MAX_KEYS)
    c_den: many(Num, MAX_KEYS)

    @model_validator(mode="after")
    def _shapes(self) -> SigmaState:
        errors: list[InitErrorDetails] = []
        n, r = len(self.peers), self.config.r
        for name in ("peers", "topics", "declared"):
            seen: set[str] = set()
            for i, v in enumerate(getattr(self, name)):
                if v in seen:
                    errors.append(problem((name, i), f"{v!r} repeats"))
                seen.add(v)
        if n * r * r > MAX_SIGMA_CELLS:
            errors.append(problem(("M",), f"{n} x {r} x {r} numbers (at most {MAX_SIGMA_CELLS:,})"))
        if len(self.M) != n:
            errors.append(problem(("M",), f"{len(self.M)} matrices for {n} peers"))
        for p, mat in enumerate(self.M):
            errors += _square(("M", p), mat, r, "r (config.r)")
        errors += _square(("S",), self.S, n, "the peers")
        for name in ("c_num", "c_den"):
            if len(getattr(self, name)) != n:
                errors.append(problem((name,), f"{len(getattr(self, name))} numbers for {n} peers"))
        errors += [problem(("c_den", i), f"negative calibration weight {d}") for i, d in enumerate(self.c_den) if d < 0]
        errors += [
            problem(("c_num", i), f"a running sum {c} with no weight (c_den {d})")
            for i, (c, d) in enumerate(zip(self.c_num, self.c_den, strict=False))
            if d == 0 and c != 0
        ]
        if not errors:
            errors += _symmetric(("S",), self.S) or _gram(("S",), self.S)
            for p, mat in enumerate(self.M):
                errors += _symmetric(("M", p), mat)
        topics = set(self.topics)
        errors += [
            problem(("declared", i), f"declared topic {tp!r} is not among the topics")
            for i, tp in enumerate(self.declared)
            if tp not in topics
        ]
        raise_all(errors, "SigmaState")
        return self


def _symmetric(loc: tuple, mat: list[list[float]]) -> list[InitErrorDetails]:
    """``mat`` (already square) is symmetric, as every update of Σ-Mem keeps it (outer products
    and a scaling D A D), up to rounding."""
    import numpy as np  # only once a save holds Σ-Mem: checking a save stays light

    a = np.asarray(mat, dtype=np.float64)
    if a.size == 0:
        return []
    gap = np.abs(a - a.T)
    i, j = np.unravel_index(int(np.argmax(gap)), gap.shape)
    if gap[i, j] > SYMMETRY_TOL * (1.0 + float(np.abs(a).max())):
        return [problem((*loc, int(i), int(j)), f"{a[i, j]} but [{j}][{i}] is {a[j, i]} (the matrix is symmetric)")]
    return []


def _gram(loc: tuple, mat: list[list[float]]) -> list[InitErrorDetails]:
    """``mat`` (symmetric) passes the checks a Gram matrix passes in O(n²): a diagonal of no
    negative number and no entry larger than the geometric mean of its two diagonal ones
    (every 2 x 2 principal minor is nonnegative)."""
    import numpy as np

    a = np.asarray(mat, dtype=np.float64)
    if a.size == 0:
        return []
    d = np.diag(a)
    if (d < 0).any():
        i = int(np.argmin(d))
        return [problem((*loc, i, i), f"{d[i]} on the diagonal (a Gram matrix has none below 0)")]
    bound = np.sqrt(np.outer(d, d)) * (1.0 + SYMMETRY_TOL) + SYMMETRY_TOL * (1.0 + float(d.max()))
    over = np.abs(a) - bound
    i, j = np.unravel_index(int(np.argmax(over)), over.shape)
    if over[i, j] > 0:
        return [problem((*loc, int(i), int(j)), f"{a[i, j]} is more than √([{i}][{i}] x [{j}][{j}]) allows")]
    return []


def _square(loc: tuple, mat: list[list[float]], size: int, what: str) -> list[InitErrorDetails]:
    """Problems of ``mat`` (at ``loc``) as a ``size`` x ``size`` matrix, ``size`` being ``what``."""
    if len(mat) != size:
        return [problem(loc, f"{len(mat)} rows; {what} make {size}")]
    return [
        problem((*loc, i), f"{len(row)} columns; {what} make {size}") for i, row in enumerate(mat) if len(row) != size
    ]
