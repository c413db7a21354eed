"""The parts of the gate posterior's calibration: run the gate over seeded streams, fit the prior and
the weights by maximum likelihood, and report reliability and decision figures. The script and
what it does: ``benchmarks.gate_calibrate``.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

from benchmarks.gate.run import run_gate
from benchmarks.gate.stream import generate
from benchmarks.lib.stats import resample_ci
from memory.fact_memory import GateConfig
from memory.gate_posterior import FITTED_TERMS, Costs, Posterior

L2 = 1e-3  # per write: keeps the weights finite when a term separates the tune data
BINS = np.linspace(0.0, 1.0, 11)
FIGURES = ("false admitted", "true updates rejected", "true claims held", "F1 kept out", "cost per write")


def config(params: dict[str, float]) -> GateConfig:
    """The gate's config with ``params`` (prior and fitted weights) as its posterior."""
    weights = {**Posterior().weights, **{k: v for k, v in params.items() if k != "prior"}}
    return GateConfig(posterior=Posterior(prior=params["prior"], weights=weights))


def run_seeds(seeds: list[int], writes: int, embedder, params: dict[str, float]) -> list[dict]:
    """Per seed: the writes' labels, update flags, outcomes, and per decided write its terms and p."""
    out = []
    for s in seeds:
        stream = generate(s, n_writes=writes)
        run = run_gate(stream, embedder, config=config(params))
        ws = stream.writes
        rows, ps, labels = [], [], []
        for w, ds, parsed in zip(ws, run.decisions, run.parsed):
            if parsed != "ok" or len(ds) != 1 or getattr(ds[0], "p", None) is None:
                continue
            d = ds[0]
            ps.append(float(d.p))
            labels.append(bool(w.label))
            terms = {e["term"]: e["x"] for e in d.evidence}
            if "hard" not in terms and "verified" not in terms:  # decided by a verified fact, not the weights
                rows.append(([float(terms.get(t, 0.0)) for t in FITTED_TERMS], bool(w.label)))
        out.append(
            {
                "label": np.array([w.label for w in ws], bool),
                "update": np.array([w.update for w in ws], bool),
                "outcome": np.array(run.outcomes, object),
                "rows": rows,
                "p": np.array(ps, float),
                "p_label": np.array(labels, bool),
            }
        )
    return out


def fit(runs: list[dict]) -> dict[str, float]:
    """The prior and the weights of FITTED_TERMS by penalised maximum likelihood."""
    rows = [r for run in runs for r in run["rows"]]
    x = np.array([r[0] for r in rows], float)
    y = np.array([r[1] for r in rows], float)
    a = np.hstack([np.ones((len(x), 1)), x])
    n = len(y)

    def loss(theta: np.ndarray) -> tuple[float, np.ndarray]:
        z = a @ theta
        nll = np.sum(np.logaddexp(0.0, z) - y * z)
        grad = a.T @ (1.0 / (1.0 + np.exp(-z)) - y)
        pen = L2 * n * np.sum(theta[1:] ** 2)
        grad[1:] += 2 * L2 * n * theta[1:]
        return (nll + pen) / n, grad / n

    res = minimize(loss, np.zeros(a.shape[1]), jac=True, method="L-BFGS-B")
    return {"prior": float(res.x[0]), **{t: float(w) for t, w in zip(FITTED_TERMS, res.x[1:])}}


def reliability(runs: list[dict]) -> tuple[list[tuple[float, float, int, float, float]], float]:
    """Rows (bin low, bin high, n, mean p, share true) and the Brier score."""
    p = np.concatenate([r["p"] for r in runs])
    y = np.concatenate([r["p_label"] for r in runs]).astype(float)
    idx = np.clip(np.digitize(p, BINS) - 1, 0, len(BINS) - 2)
    rows = []
    for b in range(len(BINS) - 1):
        m = idx == b
        if m.any():
            rows.append((BINS[b], BINS[b + 1], int(m.sum()), float(p[m].mean()), float(y[m].mean())))
    return rows, float(np.mean((p - y) ** 2))


def seed_counts(run: dict, costs: Costs) -> np.ndarray:
    """Counts one seed adds: false, false admitted, updates, updates rejected, true, true held,
    tp / fp / fn kept out, cost, writes."""
    lab, upd, out = run["label"], run["update"], run["outcome"]
    adm, rej, hold = out == "admit", out == "reject", out == "quarantine"
    kept = rej | hold
    gone = rej | (out == "none")  # a text read as nothing never enters memory: rejected, for the cost
    cost = (
        costs.false_admitted * (~lab & adm).sum()
        + costs.true_rejected * (lab & gone).sum()
        + costs.true_held * (lab & hold).sum()
        + costs.false_held * (~lab & hold).sum()
    )
    return np.array(
        [
            (~lab).sum(),
            (~lab & adm).sum(),
            upd.sum(),
            (upd & rej).sum(),
            lab.sum(),
            (lab & hold).sum(),
            (~lab & kept).sum(),
            (lab & kept).sum(),
            (~lab & ~kept).sum(),
            cost,
            len(lab),
        ],
        float,
    )


def figures(c: np.ndarray) -> np.ndarray:
    """FIGURES from summed counts (c: (..., 11))."""
    div = lambda a, b: np.where(b > 0, a / np.where(b > 0, b, 1), np.nan)
    g = [c[..., i] for i in range(c.shape[-1])]
    f1 = div(2 * g[6], 2 * g[6] + g[7] + g[8])
    return np.stack([div(g[1], g[0]), div(g[3], g[2]), div(g[5], g[4]), f1, div(g[9], g[10])])


def summary(runs: list[dict], costs: Costs, boot: int) -> dict[str, tuple[float, float, float]]:
    per_seed = np.array([seed_counts(r, costs) for r in runs])
    point = figures(per_seed.sum(0))
    lo, hi = resample_ci(
        tuple(per_seed.T),
        lambda *cols, axis=-1: figures(np.stack([c.sum(axis=axis) for c in cols], -1)),
        n_resamples=boot,
    )
    return {k: (float(point[i]), float(lo[i]), float(hi[i])) for i, k in enumerate(FIGURES)}


def report(name: str, runs: list[dict], costs: Costs, boot: int) -> None:
    rows, brier = reliability(runs)
    print(f"\n{name}: reliability (p bin, writes, mean p, share true), Brier {brier:.3f}")
    for lo, hi, n, mp, share in rows:
        print(f"  [{lo:.1f}, {hi:.1f})  {n:6d}  {mp:.3f}  {share:.3f}")
    for k, (v, lo, hi) in summary(runs, costs, boot).items():
        print(f"  {k:24s} {v:.3f} [{lo:.3f}, {hi:.3f}]")
