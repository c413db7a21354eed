"""Every baseline of the gate benchmark, tuned as well as the gate: a grid per baseline, searched on
the tune seeds for the least cost per write (``benchmarks/gate/costs.py``), fixed before the
held-out seeds are generated.

``BASELINES`` names each baseline with its factory and grid; ``tune`` returns, per name, the
parameters with the least pooled cost on the tune streams (and that cost, and every grid point's
figures for the trade-off curve); ``outcomes`` runs every baseline with its tuned parameters.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

from benchmarks.gate.baselines import ContestDict, HoldAll, HoldBand, SimilarityTable, TrustSource, run_simple
from benchmarks.gate.costs import components, cost_of

SIMILARITY = "similarity (cost-tuned)"
Grid = dict[str, list[float]]
CONTEST_GRID = {
    "margin": [-0.5, -0.4, -0.3, -0.2, -0.1, 0.0, 0.1, 0.2],
    "news_min": [0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9],
}

BASELINES: dict[str, tuple[Callable, Grid]] = {
    "hold band (oracle ids)": (
        HoldBand,
        {
            "news_below": [0.5, 0.6, 0.7, 0.8, 0.9, 0.95],
            "news_reject": [0.0, 0.2, 0.35],
            "fresh": [0.0, 0.25, 0.5, 1.0],
            "margin": [-0.3, -0.2, -0.1, 0.0, 0.1],
            "reject_below": [0.0, 0.3, 0.5],
        },
    ),
    "contest (oracle ids)": (lambda **kw: ContestDict(canonical=True, **kw), CONTEST_GRID),
    "contest (exact strings)": (lambda **kw: ContestDict(canonical=False, **kw), CONTEST_GRID),
    "reject any contradiction (oracle ids)": (
        lambda **kw: ContestDict(canonical=True, contest=False, **kw),
        {"news_min": CONTEST_GRID["news_min"]},
    ),
    "trust the source": (TrustSource, {"threshold": [round(float(x), 2) for x in np.arange(0.05, 0.96, 0.05)]}),
    "hold all": (lambda: HoldAll(), {}),
}
SIMILARITY_GRID = {
    "t_high": [round(float(x), 3) for x in np.arange(0.40, 1.0001, 0.04)] + [1.01],
    "t_low": [round(float(x), 3) for x in np.arange(0.0, 1.0, 0.04)],
}


def points(grid: Grid) -> list[dict[str, float]]:
    keys = list(grid)
    return [dict(zip(keys, vals)) for vals in itertools.product(*(grid[k] for k in keys))]


def pooled(runs: list[list[str]], labels: list[list[bool]]) -> dict[str, float]:
    """Cost and rates over several streams' outcomes, pooled (every write weighs the same)."""
    c = {"n": 0, "false_admitted": 0, "true_rejected": 0, "true_held": 0, "false_held": 0}
    n_true = n_false = 0
    for outs, labs in zip(runs, labels):
        for k, v in components(outs, labs).items():
            c[k] += v
        n_true += sum(labs)
        n_false += len(labs) - sum(labs)
    return {
        "cost": cost_of(c),
        "false_admitted": c["false_admitted"] / max(n_false, 1),
        "true_rejected": c["true_rejected"] / max(n_true, 1),
        "true_held": c["true_held"] / max(n_true, 1),
    }


def tune(streams, tables: list[SimilarityTable] | None) -> dict[str, dict]:
    """name -> {"params", "cost" (pooled over the tune streams), "grid" (every point's figures)}."""
    labels = [[w.label for w in st.writes] for st in streams]
    out: dict[str, dict] = {}
    for name, (make, grid) in BASELINES.items():
        out[name] = _search(grid, lambda p, make=make: [run_simple(st.events, make(**p)) for st in streams], labels)
    if tables:
        pts = [p for p in points(SIMILARITY_GRID) if p["t_low"] < p["t_high"]]
        out[SIMILARITY] = _search_points(pts, lambda p: [t.run(p["t_low"], p["t_high"]) for t in tables], labels)
    return out


def _search(grid: Grid, run: Callable, labels) -> dict:
    return _search_points(points(grid), run, labels)


def _search_points(pts: list[dict], run: Callable, labels) -> dict:
    rows = [{"params": p, **pooled(run(p), labels)} for p in pts]
    best = min(rows, key=lambda r: r["cost"])
    return {"params": best["params"], "cost": best["cost"], "grid": rows}


def outcomes(stream, table: SimilarityTable | None, tuned: dict[str, dict]) -> dict[str, list[str]]:
    """name -> outcomes per write for every baseline, with its tuned parameters."""
    out = {}
    for name, (make, _grid) in BASELINES.items():
        out[name] = run_simple(stream.events, make(**tuned[name]["params"]))
    if table is not None and SIMILARITY in tuned:
        p = tuned[SIMILARITY]["params"]
        out[SIMILARITY] = table.run(p["t_low"], p["t_high"])
    return out
