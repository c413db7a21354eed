"""The report's figures as base64 PNGs. matplotlib is imported inside the functions and used
through ``Figure`` + the Agg canvas only (no pyplot, no global backend switch)."""

from __future__ import annotations

import base64
import io
import warnings
from collections import Counter
from collections.abc import Sequence

from game.tournament.kind_negotiation_report import ScatterData
from game.tournament.summary import Estimate, TournamentSummary


def available() -> bool:
    try:
        import matplotlib  # noqa: F401
        from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: F401
    except ImportError:
        return False
    return True


def _label(text: str, width: int = 28) -> str:
    """A name safe for matplotlib text: no mathtext, bounded length."""
    text = " ".join(str(text).split())
    if len(text) > width:
        text = text[: width - 1] + "…"
    return text.replace("\\", "\\\\").replace("$", r"\$")


def _figure(w: float, h: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h), dpi=100)
    FigureCanvasAgg(fig)
    return fig


def _png(fig) -> str:
    buf = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # missing glyphs for exotic names
        fig.savefig(buf, format="png", bbox_inches="tight", metadata={"Software": None})
    return base64.b64encode(buf.getvalue()).decode("ascii")


def ranking_plot(s: TournamentSummary) -> str:
    """Left: rating mu with mu +- 3 sigma (the dot at mu - 3 sigma is the ordinal that ranks).
    Right: mean points with the bootstrap 95% CI. Best competitor on top."""
    comps = [r.competitor for r in s.ranking]
    n = len(comps)
    fig = _figure(10, max(2.0, 0.45 * n + 1.2))
    ax1, ax2 = fig.subplots(1, 2, sharey=True)
    ys = list(range(n))[::-1]
    for y, r in zip(ys, s.ranking):
        ax1.plot([r.mu - 3 * r.sigma, r.mu + 3 * r.sigma], [y, y], color="#9ab", lw=3, solid_capstyle="butt")
        ax1.plot([r.mu], [y], "o", color="#246")
        ax1.plot([r.ordinal], [y], "|", color="#c33", ms=14, mew=2)
        if r.points is not None:
            p = r.points
            ax2.errorbar(
                [p.mean],
                [y],
                xerr=[[p.mean - p.lo], [p.hi - p.mean]],
                fmt="o",
                color="#264" if r.differs_from_next else "#555",
                capsize=4,
            )
    ax1.set_yticks(ys, [f"{r.rank}. {_label(c)}" for r, c in zip(s.ranking, comps)])
    ax1.set_xlabel("rating: mu (dot), mu ± 3σ (bar), ordinal (red tick)")
    ax2.set_xlabel("mean points, 95% bootstrap CI")
    for ax in (ax1, ax2):
        ax.grid(axis="x", alpha=0.3)
    ax1.set_title("Ranking")
    ax2.set_title("Points (green: differs significantly from next)")
    return _png(fig)


def pairwise_heatmap(s: TournamentSummary) -> str:
    """Cell (row i, column j): mean points of i minus j over the groups they shared;
    '*' marks a Holm-significant difference, blank cells never met."""
    import numpy as np

    comps = s.competitors
    n = len(comps)
    M = np.full((n, n), np.nan)
    sig = np.zeros((n, n), dtype=bool)
    pos = {c: i for i, c in enumerate(comps)}
    for p in s.pairwise:
        i, j = pos[p.a], pos[p.b]
        M[i, j], M[j, i] = p.mean_diff, -p.mean_diff
        sig[i, j] = sig[j, i] = p.significant
    size = max(3.5, 0.6 * n + 2)
    fig = _figure(size + 1, size)
    ax = fig.subplots()
    lim = float(np.nanmax(np.abs(M))) if np.isfinite(M).any() else 1.0
    lim = lim or 1.0
    im = ax.imshow(np.ma.masked_invalid(M), cmap="RdBu", vmin=-lim, vmax=lim)
    fig.colorbar(im, ax=ax, label="mean points difference (row − column)")
    labels = [_label(c, 20) for c in comps]
    ax.set_xticks(range(n), labels, rotation=45, ha="right")
    ax.set_yticks(range(n), labels)
    if n <= 16:
        for i in range(n):
            for j in range(n):
                if np.isfinite(M[i, j]):
                    ax.text(
                        j,
                        i,
                        f"{round(float(M[i, j]), 2) + 0.0:+.2f}{'*' if sig[i, j] else ''}",
                        ha="center",
                        va="center",
                        fontsize=8,
                        color="white" if abs(M[i, j]) > 0.6 * lim else "black",
                    )
    ax.set_title("Pairwise: row minus column (* = significant, Holm)")
    return _png(fig)


def utility_scatter(data: ScatterData) -> str:
    """Every outcome (grey), the Pareto frontier (line), the reservation point (dashed lines),
    match outcomes coloured by pairing (x = disagreement) and the human outcome (star)."""
    fig = _figure(6, 5)
    ax = fig.subplots()
    if data.cloud:
        xs, ys = zip(*data.cloud)
        ax.scatter(xs, ys, s=6, color="#ccc", label="outcomes", zorder=1)
    if data.frontier:
        fx, fy = zip(*data.frontier)
        ax.plot(fx, fy, "-o", color="#333", ms=3, lw=1, label="Pareto frontier", zorder=2)
    ax.axvline(data.reservation[0], ls="--", color="#999", lw=0.8)
    ax.axhline(data.reservation[1], ls="--", color="#999", lw=0.8)
    colours = [
        "#1f77b4",
        "#ff7f0e",
        "#2ca02c",
        "#d62728",
        "#9467bd",
        "#8c564b",
        "#e377c2",
        "#17becf",
        "#bcbd22",
        "#7f7f7f",
    ]
    points = data.points
    if len(points) > len(colours):  # too many pairings to tell apart: colour by who held the first seat
        merged: dict[str, list] = {}
        for lab, pts in points.items():
            merged.setdefault(f"{lab.split(' / ')[0]} as {data.parties[0]}", []).extend(pts)
        points = merged
    labels = sorted(points, key=lambda k: (-len(points[k]), k))
    for i, lab in enumerate(labels):
        c = colours[i] if i < len(colours) else "#bbb"
        pts = points[lab]
        name = _label(lab, 40) if i < len(colours) else None
        for ok, marker in ((True, "o"), (False, "x")):
            counts = Counter((x, y) for x, y, agreed in pts if agreed == ok)
            if not counts:
                continue
            xy = sorted(counts)
            ax.scatter(
                [p[0] for p in xy],
                [p[1] for p in xy],
                s=[25 + 12 * min(counts[p], 25) for p in xy],
                marker=marker,
                color=c,
                alpha=0.6,
                label=name,
                zorder=3,
            )
            name = None
    if data.human:
        ax.scatter(
            *zip(*data.human), s=160, marker="*", color="gold", edgecolor="black", label="human outcome", zorder=4
        )
    ax.set_xlabel(f"utility of {_label(data.parties[0])}")
    ax.set_ylabel(f"utility of {_label(data.parties[1])}")
    ax.set_title(_label(data.title, 60), fontsize=10)
    ax.legend(fontsize=7, loc="lower left")
    ax.grid(alpha=0.3)
    return _png(fig)


def agreement_rounds(points: Sequence[tuple[str, Estimate, Estimate]]) -> str:
    """One dot per competitor: agreement rate (y) against mean rounds (x), both with their
    bootstrap 95% CIs as error bars."""
    fig = _figure(6, 4.5)
    ax = fig.subplots()
    stacked: dict[tuple[float, float], int] = {}
    for name, rounds, agree in points:
        x, y = rounds.mean, agree.mean
        ax.errorbar(
            [x],
            [y],
            xerr=[[x - rounds.lo], [rounds.hi - x]],
            yerr=[[y - agree.lo], [agree.hi - y]],
            fmt="o",
            color="#246",
            ecolor="#9ab",
            capsize=3,
        )
        k = stacked.get((round(x, 3), round(y, 3)), 0)
        stacked[(round(x, 3), round(y, 3))] = k + 1
        ax.annotate(_label(name, 20), (x, y), textcoords="offset points", xytext=(6, 4 - 11 * k), fontsize=8)
    ax.set_xlabel("mean rounds")
    ax.set_ylabel("agreement rate")
    ax.set_ylim(-0.05, 1.05)
    ax.grid(alpha=0.3)
    ax.set_title("Agreement rate vs negotiation length (95% CIs)")
    return _png(fig)
