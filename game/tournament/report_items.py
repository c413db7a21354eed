"""What a tournament report is made of (tables, figures, notes, in sections), how its numbers are
written, and what a kind's part of the report is built from (``ReportInput``).
``game.tournament.report`` builds and renders it; each kind adds its own sections."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from game.tournament.summary import Estimate, TournamentSummary


@dataclass
class Table:
    title: str
    headers: list[str]
    rows: list[list[str]]
    caption: str = ""


@dataclass
class Figure:
    title: str
    caption: str
    png: str  # base64


@dataclass
class Report:
    title: str
    facts: list[tuple[str, str]]
    sections: list[tuple[str, list[Table | Figure | str]]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class ReportInput:
    """What a kind's sections are built from: its rows, the summary of all rows, ``scenarios.json``
    and ``tournament.json`` (empty when absent), whether there are plots, and ``figure(section,
    title, caption, make, *args)``, which appends ``Figure(title, caption, make(*args))`` to
    ``section`` when there are plots, and a note instead when ``make`` fails."""

    rows: list[dict[str, Any]]
    summary: TournamentSummary
    scenarios: dict[str, Any]
    config: dict[str, Any]
    plotting: bool
    figure: Callable[..., None]


def fmt_number(x: float | None, digits: int = 3) -> str:
    if x is None:
        return "—"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.{digits}f}"


def fmt_estimate(e: Estimate | None, digits: int = 3) -> str:
    """The mean, with its 95% CI when it has one."""
    if e is None:
        return "—"
    if e.n == 1 or e.lo == e.hi:
        return fmt_number(e.mean, digits)
    return f"{fmt_number(e.mean, digits)} [{fmt_number(e.lo, digits)}, {fmt_number(e.hi, digits)}]"


def fmt_p(p: float | None) -> str:
    if p is None:
        return "—"
    return "<0.001" if p < 0.001 else f"{p:.3f}"
