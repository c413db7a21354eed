"""Plots the command line writes (matplotlib, the ``tournament`` extra): a council debate's
viewpoint flow. The picture is drawn in memory and written by ``game.core.files.write_output``:
a file that cannot be written is an error naming it, never a plot said to be written."""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path

from game.core.errors import InputError
from game.core.files import check_output
from game.core.text import shown

FORMATS = (".png", ".svg", ".pdf")
"""The suffixes a plot file may have (a stream, such as /dev/stdout, gets a PNG)."""


def plot_format(path: str | Path, what: str = "--plot") -> str:
    """The format ``path`` is written in (from its suffix), checked before any work with
    ``check_output``: an unknown suffix or an unwritable place is an ``InputError``."""
    path = check_output(path, what)
    suffix = path.suffix.lower()
    if suffix in FORMATS:
        return suffix[1:]
    if not path.exists() or path.is_file():
        raise InputError(
            f"{what} {shown(str(path))}: the file name must end in {', '.join(FORMATS)}", hint="e.g. flow.png"
        )
    return "png"


def plot_flow(
    flow: Sequence[dict[str, float]],
    path: str | Path,
    title: str = "Viewpoint flow",
    labels: dict[str, str] | None = None,
    what: str = "--plot",
) -> Path:
    """Each member's stance per round, as a PNG (or SVG or PDF, by the suffix) at ``path``
    (``what``: the flag that named it, for errors)."""
    import matplotlib

    from game.core.files import write_output

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fmt = plot_format(path, what)
    buf = io.BytesIO()
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
        fig.savefig(buf, format=fmt)
    finally:
        plt.close(fig)
    return write_output(path, buf.getvalue(), what)
