"""Plots the command line writes (matplotlib, the ``tournament`` extra): a council debate's
viewpoint flow."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def plot_flow(
    flow: Sequence[dict[str, float]],
    path: str | Path,
    title: str = "Viewpoint flow",
    labels: dict[str, str] | None = None,
) -> Path:
    """Each member's stance per round, as a PNG (or SVG, by the suffix) at ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    path = Path(path)
    fig, ax = plt.subplots(figsize=(6.4, 3.6))
    try:
        members = list(flow[0]) if flow else []
        xs = list(range(len(flow)))
        for m in members:
            ax.plot(xs, [f[m] for f in flow], marker="o", label=(labels or {}).get(m, m))
        ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
        ax.set_ylim(0, 1)
        ax.set_xlabel("round (0 = after the briefing)")
        ax.set_ylabel("P(vote yes)")
        ax.set_title(title)
        if members:
            ax.legend(loc="best", fontsize=8)
        fig.tight_layout()
        fig.savefig(path)
    finally:
        plt.close(fig)
    return path
