"""What ``game.tournament.stats.summarise`` finds: ratings with their ranking, per-competitor
estimates with bootstrap CIs, and paired comparisons, as plain dataclasses (JSON-able)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

ALPHA = 0.05


@dataclass
class Estimate:
    """A mean with its bootstrap 95% CI over ``n`` observations."""

    mean: float
    lo: float
    hi: float
    n: int


@dataclass
class Pairwise:
    """``a`` vs ``b`` over the groups both played: mean of points(a) - points(b)."""

    a: str
    b: str
    n: int  # shared groups
    mean_diff: float
    wins: int  # groups where a scored more
    losses: int
    ties: int
    p_value: float
    p_holm: float
    significant: bool


@dataclass
class RankEntry:
    rank: int
    competitor: str
    mu: float
    sigma: float
    ordinal: float
    games: int  # rated games
    matches: int  # matches played, self-play included
    points: Estimate | None  # mean points with 95% CI
    differs_from_next: bool | None  # significant vs the next competitor; None: last, or never met
    p_next: float | None  # Holm-adjusted p-value vs the next competitor


@dataclass
class TournamentSummary:
    kinds: list[str]
    matches: int
    groups: int
    rated_games: int
    self_play: int
    competitors: list[str]  # in ranking order
    ranking: list[RankEntry]
    metrics: dict[str, dict[str, Estimate]]  # competitor -> metric -> estimate
    pairwise: list[Pairwise]
    seed: int
    n_boot: int
    alpha: float = ALPHA
    notes: list[str] = field(default_factory=list)
    unscored: int = 0  # groups that score nobody (debates with no known right decision)

    def pair(self, a: str, b: str) -> tuple[float, Pairwise] | None:
        """(mean points of a minus b, the comparison) or None if they never met."""
        for p in self.pairwise:
            if (p.a, p.b) == (a, b):
                return p.mean_diff, p
            if (p.a, p.b) == (b, a):
                return -p.mean_diff, p
        return None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data (no NaN)."""
        return asdict(self)

    def to_json(self, **kw) -> str:
        return json.dumps(self.to_dict(), allow_nan=False, **kw)
