"""The trade-off between false claims admitted and true claims rejected (and held), as thresholds vary.

* the gate: its cut points on the posterior (``t_low``, ``t_high``, overriding the ones its costs
  give) over a grid;
* the hold band: every point of its tuning grid, and the points no other point beats on all three
  rates (false admitted, true rejected, true held);
* the oracle bound: its posterior with the reject / admit thresholds swept.

All on the same streams (a subset of the tune seeds). ``plot`` draws them with matplotlib.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from benchmarks.gate.baselines import run_simple
from benchmarks.gate.tuning import BASELINES, points, pooled

HOLD_BAND = "hold band (oracle ids)"
GATE_GRID = [
    {"t_low": lo, "t_high": hi} for lo in (0.1, 0.2, 0.3, 0.4, 0.5) for hi in (0.5, 0.6, 0.7, 0.8, 0.9) if lo <= hi
]
ORACLE_GRID = [(lo, hi) for lo in (0.02, 0.0625, 0.15, 0.3) for hi in (0.5, 0.65, 0.79, 0.9, 0.97) if lo < hi]


def gate_curve(streams, embedder=None, grid=GATE_GRID) -> list[dict]:
    from benchmarks.gate.run import run_gate

    labels = [[w.label for w in st.writes] for st in streams]
    rows = []
    for overrides in [{}, *grid]:
        runs = [run_gate(st, embedder, config=overrides).outcomes for st in streams]
        rows.append({"params": overrides, "default": not overrides, **pooled(runs, labels)})
    return rows


def hold_band_curve(streams) -> list[dict]:
    make, grid = BASELINES[HOLD_BAND]
    labels = [[w.label for w in st.writes] for st in streams]
    rows = [{"params": p, **pooled([run_simple(st.events, make(**p)) for st in streams], labels)} for p in points(grid)]
    return mark_frontier(rows)


def oracle_curve(oracle, streams) -> list[dict]:
    from benchmarks.gate.oracle import observable, threshold_decisions

    labels = [[w.label for w in st.writes] for st in streams]
    post = [oracle.posterior(observable(st)) for st in streams]
    rows = [{"params": {"optimal": True}, **pooled([oracle.decide(observable(st)) for st in streams], labels)}]
    for lo, hi in ORACLE_GRID:
        runs = [threshold_decisions(p, lo, hi) for p in post]
        rows.append({"params": {"reject_below": lo, "admit_from": hi}, **pooled(runs, labels)})
    return rows


RATES = ("false_admitted", "true_rejected", "true_held")


def mark_frontier(rows: list[dict], rates=RATES, flag: str = "frontier") -> list[dict]:
    """Flag the rows no other row matches or beats on every rate (and beats on one)."""
    v = np.array([[r[k] for k in rates] for r in rows])
    for i, r in enumerate(rows):
        beaten = np.all(v <= v[i], axis=1) & np.any(v < v[i], axis=1)
        r[flag] = not bool(beaten.any())
    return rows


PANELS = (("true_rejected", "true claims rejected (%)"), ("true_held", "true claims held (%)"))


def plot(curves: dict[str, list[dict]], path: str | Path, title: str) -> None:
    """False claims admitted against true claims rejected (left) and held (right). The hold band
    shows the settings no other beats on the two rates of the panel, and its tuned one."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.8), dpi=110, sharey=True)
    styles = {"gate": ("o", "tab:blue"), HOLD_BAND: ("s", "tab:orange"), "oracle bound": ("^", "tab:green")}
    for ax, (rate, label) in zip(axes, PANELS):
        for name, rows in curves.items():
            marker, colour = styles.get(name, ("x", "grey"))
            if name == HOLD_BAND:
                mark_frontier(rows, ("false_admitted", rate), "panel")
                rows = [r for r in rows if r["panel"] or r.get("tuned")]
            rows = sorted(rows, key=lambda r: r[rate])
            x = [100 * r[rate] for r in rows]
            y = [100 * r["false_admitted"] for r in rows]
            ax.scatter(x, y, marker=marker, color=colour, alpha=0.75, s=28, label=name)
            for r in rows:
                tag = "default" if r.get("default") else "tuned" if r.get("tuned") else ""
                tag = "cost-optimal" if r["params"].get("optimal") else tag
                if tag:
                    ax.scatter(
                        [100 * r[rate]],
                        [100 * r["false_admitted"]],
                        marker=marker,
                        s=90,
                        facecolors="none",
                        edgecolors="black",
                    )
                    ax.annotate(
                        tag,
                        (100 * r[rate], 100 * r["false_admitted"]),
                        textcoords="offset points",
                        xytext=(6, 4),
                        fontsize=8,
                        color=colour,
                    )
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("false claims admitted (%)")
    axes[0].legend(loc="upper right", fontsize=8)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
