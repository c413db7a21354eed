"""Ratings and statistics over a tournament's ``results.jsonl`` rows.

* **Ratings**: openskill's Plackett-Luce model with its default parameters. Every
  *group* of rows (a negotiation match; every competitor's run of one adventure or
  council scenario instance) is one game; its teams are the distinct competitors in
  it (one player each), ranked by their points in the group (mean points when a
  competitor holds several seats; equal points tie). A group with fewer than two
  distinct competitors (negotiation self-play) rates nobody, nor does one whose
  seats all have null points (a debate on a task with no known right decision). Games are rated in a
  fixed order: rows sorted by id, a group rated when its last row comes up. The
  ranking is by the *ordinal* ``mu - 3 sigma``.
* **Per-competitor metrics** are means over the matches (rows) a competitor played,
  self-play included, of what every row gives and what its kind observes besides
  (``TournamentKind.observe``: a negotiation's agreement), each with a percentile-bootstrap 95% CI drawn from
  the child ``stats, bootstrap, <competitor>, <metric>`` of the seed's tree (``game.core.seeds``) -
  deterministic.
* **Pairwise comparisons**: for two competitors that met, the per-group difference
  of their points (paired by group), its mean, a two-sided Wilcoxon signed-rank
  p-value (zero differences dropped; all zero gives p = 1), and Holm's step-down
  correction over all pairs; ``significant`` means Holm-adjusted p < alpha.

Heavy libraries (numpy, scipy, openskill) are imported inside the functions.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from game.core import seeds
from game.core.errors import InputError
from game.tournament.kinds import kind_for
from game.tournament.llm_usage import competitor_figures
from game.tournament.rows import KINDS, ResultRows, read_results, validate_row, validate_rows
from game.tournament.summary import ALPHA, Estimate, Pairwise, RankEntry, TournamentSummary

__all__ = [
    "ALPHA",
    "KINDS",
    "METRICS",
    "Estimate",
    "LiveRatings",
    "Pairwise",
    "RankEntry",
    "ResultRows",
    "TournamentSummary",
    "metric_labels",
    "read_results",
    "summarise",
    "validate_row",
    "validate_rows",
]

# (key, label) of the per-competitor metrics, in table order (a kind's own come after: metric_labels)
METRICS: tuple[tuple[str, str], ...] = (
    ("points", "points"),
    ("accuracy", "accuracy"),
    ("agreement", "agreement rate"),
    ("utility", "utility"),
    ("advantage", "advantage"),
    ("welfare", "welfare"),
    ("pareto_distance", "Pareto distance"),
    ("nash_distance", "Nash distance"),
    ("ks_distance", "KS distance"),
    ("rounds", "rounds"),
    ("win_rate", "win rate"),
    ("score", "score"),
    ("invalid", "invalid moves"),
    ("false_leads", "false leads"),
    ("redundancy", "redundancy"),
    ("effective_ratio", "effective-turn ratio"),
    ("tokens_per_member_round", "tokens / member-round"),
    ("llm_calls", "LLM calls"),
    ("llm_tokens", "LLM tokens"),
    ("llm_seconds", "LLM seconds"),
    ("cost", "cost"),
    ("wall_time", "wall time (s)"),
)


def metric_labels() -> list[tuple[str, str]]:
    """(key, label) of every per-competitor metric in table order: ``METRICS``, then the kinds' own
    (``TournamentKind.metrics``)."""
    out = list(METRICS)
    known = {k for k, _ in out}
    for kind in KINDS.values():
        for key, label in kind.metrics:
            if key not in known:
                out.append((key, label))
                known.add(key)
    return out


# --- per-row observations ---------------------------------------------------------------


def _mean(xs: Sequence[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _seat_values(seats: Sequence[dict], key: str) -> list[float]:
    return [float(s[key]) for s in seats if s.get(key) is not None]


def competitor_points(rows: Iterable[dict]) -> dict[str, float]:
    """Each competitor's mean points over its seats in ``rows`` (one group); seats with null points
    (an unscored debate) left out."""
    acc: dict[str, list[float]] = {}
    for row in rows:
        for seat in row["seats"]:
            if seat["points"] is not None:
                acc.setdefault(seat["competitor"], []).append(float(seat["points"]))
    return {c: sum(v) / len(v) for c, v in acc.items()}


def observations(row: dict) -> dict[str, dict[str, float]]:
    """competitor -> metric -> value for one match (absent metrics left out)."""
    by_comp: dict[str, list[dict]] = {}
    for seat in row["seats"]:
        by_comp.setdefault(seat["competitor"], []).append(seat)
    out: dict[str, dict[str, float]] = {}
    kind = kind_for(row["kind"])
    for comp, seats in by_comp.items():
        obs: dict[str, float | None] = {"points": _mean(_seat_values(seats, "points"))}
        for key in (
            "utility",
            "advantage",
            "score",
            "invalid",
            "false_leads",
            "redundancy",
            "effective_ratio",
            "tokens_per_member_round",
        ):
            obs[key] = _mean(_seat_values(seats, key))
        won = [float(s["won"]) for s in seats if s.get("won") is not None]
        obs["win_rate"] = _mean(won)
        obs["accuracy"] = _mean([float(s["correct"]) for s in seats if s.get("correct") is not None])
        for key in ("welfare", "pareto_distance", "nash_distance", "ks_distance", "rounds", "wall_time"):
            obs[key] = None if row[key] is None else float(row[key])
        obs.update(competitor_figures(row, seats))  # an LLM seat's own; blank for a rule-based one
        obs.update(kind.observe(row, seats))
        out[comp] = {k: v for k, v in obs.items() if v is not None}
    return out


def _groups(rows: Sequence[dict]) -> list[list[dict]]:
    """Groups in rating order: rows sorted by id, each group placed at its last row."""
    ordered = sorted(rows, key=lambda r: r["id"])
    members: dict[str, list[dict]] = {}
    last: dict[str, int] = {}
    for i, row in enumerate(ordered):
        members.setdefault(row["group"], []).append(row)
        last[row["group"]] = i
    return [members[g] for g in sorted(members, key=last.__getitem__)]


# --- ratings ---------------------------------------------------------------------------


@dataclass
class Rating:
    competitor: str
    mu: float
    sigma: float
    ordinal: float
    games: int  # rated games (self-play not counted)


def _model():
    from openskill.models import PlackettLuce

    return PlackettLuce()


def _ranks(points: Sequence[float]) -> list[int]:
    """Competition ranks (1 = best; equal points share a rank)."""
    q = [round(p, 12) for p in points]
    return [1 + sum(other > mine for other in q) for mine in q]


class LiveRatings:
    """Incremental openskill ratings for a live leaderboard.

    ``update(row)`` rates a match that is a game of its own (its kind's ``one_match_games``:
    a negotiation) at once; a multiplayer group (adventure, council, debate) is rated when it
    holds ``group_size`` rows (pass the number of competitors), or at ``flush()`` when
    ``group_size`` is None. Fed the rows in id order and flushed,
    it gives exactly :func:`rate`'s ratings; fed in completion order it is a close,
    order-dependent approximation (openskill updates are not commutative).
    """

    def __init__(self, group_size: int | None = None):
        self.group_size = group_size
        self._model = _model()
        self._ratings: dict[str, Any] = {}
        self._games: dict[str, int] = {}
        self._pending: dict[str, list[dict]] = {}
        self._last: dict[str, int] = {}
        self._count = 0
        self.self_play = 0  # groups not rated: fewer than two distinct competitors
        self.unscored = 0  # groups not rated: no seat has points (debates with no known right decision)

    def _ensure(self, competitor: str) -> None:
        if competitor not in self._ratings:
            self._ratings[competitor] = self._model.rating(name=competitor)
            self._games[competitor] = 0

    def rate_group(self, rows: Sequence[dict]) -> bool:
        """Rate one complete group now; False (and nothing changes) for self-play."""
        pts = competitor_points(rows)
        for c in pts:
            self._ensure(c)
        if not pts:
            self.unscored += 1
            return False
        if len(pts) < 2:
            self.self_play += 1
            return False
        comps = sorted(pts)
        teams = [[self._ratings[c]] for c in comps]
        new = self._model.rate(teams, ranks=_ranks([pts[c] for c in comps]))
        for c, team in zip(comps, new):
            self._ratings[c] = team[0]
            self._games[c] += 1
        return True

    def update(self, row: dict) -> bool:
        """Add one finished match; True when a game was rated by it."""
        validate_row(row)
        for seat in row["seats"]:
            self._ensure(seat["competitor"])
        g = row["group"]
        self._pending.setdefault(g, []).append(row)
        self._count += 1
        self._last[g] = self._count
        complete = kind_for(row["kind"]).one_match_games or (
            self.group_size is not None and len(self._pending[g]) >= self.group_size
        )
        if not complete:
            return False
        return self.rate_group(self._pending.pop(g))

    def flush(self) -> int:
        """Rate every pending group (in the order their last rows came); returns how many rated."""
        n = 0
        for g in sorted(self._pending, key=self._last.__getitem__):
            n += self.rate_group(self._pending[g])
        self._pending.clear()
        return n

    def ratings(self) -> dict[str, Rating]:
        out = {}
        for c, r in self._ratings.items():
            out[c] = Rating(c, float(r.mu), float(r.sigma), float(r.mu - 3 * r.sigma), self._games[c])
        return out

    def top(self, n: int | None = None) -> list[tuple[str, float, int]]:
        """The best ``n`` (all when None) as (competitor, ordinal, rated games), best first."""
        rows = [(c, float(r.mu - 3 * r.sigma), self._games[c]) for c, r in self._ratings.items()]
        rows.sort(key=lambda t: (-t[1], t[0]))
        return rows if n is None else rows[: max(n, 0)]


def rate(rows: Sequence[dict]) -> dict[str, Rating]:
    """Batch ratings of all rows (validated), in the fixed order described above."""
    rows = validate_rows(rows)
    live = LiveRatings()
    for row in rows:
        for seat in row["seats"]:
            live._ensure(seat["competitor"])
    for group in _groups(rows):
        live.rate_group(group)
    return live.ratings()


# --- statistics -------------------------------------------------------------------------


def bootstrap_mean(
    values: Sequence[float], *, seed: int | seeds.SeedTree = 0, n_boot: int = 1000, level: float = 0.95
) -> Estimate | None:
    """Percentile-bootstrap CI of the mean (None for no values). Deterministic in ``seed``: a node
    of a seed tree to draw from, or a plain seed (its child ``stats, bootstrap``)."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    n = x.size
    if n == 0:
        return None
    mean = float(x.mean())
    if n == 1 or n_boot <= 0 or np.all(x == x[0]):
        return Estimate(mean, mean, mean, int(n))
    rng = seed.rng() if isinstance(seed, seeds.SeedTree) else seeds.rng(seed, "stats", "bootstrap")
    means = np.empty(n_boot)
    chunk = max(1, 2_000_000 // n)
    for start in range(0, n_boot, chunk):
        stop = min(n_boot, start + chunk)
        idx = rng.integers(0, n, size=(stop - start, n))
        means[start:stop] = x[idx].mean(axis=1)
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(means, [tail, 100 - tail])
    return Estimate(mean, min(float(lo), mean), max(float(hi), mean), int(n))


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm step-down adjusted p-values, in input order."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for k, i in enumerate(order):
        running = max(running, min(1.0, (m - k) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def paired_p_value(diffs: Sequence[float]) -> float:
    """Two-sided Wilcoxon signed-rank p-value; zero differences are dropped, none left -> 1."""
    nonzero = [d for d in diffs if round(d, 12) != 0]
    if not nonzero:
        return 1.0
    import warnings

    from scipy.stats import wilcoxon

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = wilcoxon(nonzero, zero_method="wilcox", alternative="two-sided")
    p = float(res.pvalue)
    return 1.0 if math.isnan(p) else min(1.0, p)


def pairwise(rows: Sequence[dict], *, alpha: float = ALPHA, order: Sequence[str] | None = None) -> list[Pairwise]:
    """Paired comparisons of every two competitors that shared a group, Holm-corrected.
    Each pair is oriented by ``order`` (e.g. the ranking; default alphabetical)."""
    pos = {c: i for i, c in enumerate(order or [])}
    diffs: dict[tuple[str, str], list[float]] = {}
    for group in _groups(rows):
        pts = competitor_points(group)
        comps = sorted(pts, key=lambda c: (pos.get(c, len(pos)), c))
        for i, a in enumerate(comps):
            for b in comps[i + 1 :]:
                diffs.setdefault((a, b), []).append(pts[a] - pts[b])
    keys = sorted(diffs, key=lambda ab: (pos.get(ab[0], len(pos)), ab[0], pos.get(ab[1], len(pos)), ab[1]))
    ps = [paired_p_value(diffs[k]) for k in keys]
    adj = holm(ps)
    out = []
    for (a, b), p, q in zip(keys, ps, adj):
        d = diffs[(a, b)]
        r = [round(x, 12) for x in d]
        out.append(
            Pairwise(
                a,
                b,
                len(d),
                sum(d) / len(d),
                sum(x > 0 for x in r),
                sum(x < 0 for x in r),
                sum(x == 0 for x in r),
                p,
                q,
                q < alpha,
            )
        )
    return out


def _metric_seed(seed: int, competitor: str, metric: str) -> seeds.SeedTree:
    return seeds.seed_tree(int(seed)).child("stats", "bootstrap", competitor, metric)


def _competitor_metrics(
    rows: Sequence[dict], competitors: Iterable[str], *, seed: int, n_boot: int
) -> tuple[dict[str, dict[str, Estimate]], dict[str, int]]:
    """Each competitor's metrics (bootstrap means of what its rows observe) and its match count."""
    obs: dict[str, dict[str, list[float]]] = {c: {} for c in competitors}
    matches = dict.fromkeys(obs, 0)
    for row in sorted(rows, key=lambda r: r["id"]):
        for comp, values in observations(row).items():
            matches[comp] += 1
            for k, v in values.items():
                obs[comp].setdefault(k, []).append(v)
    metrics: dict[str, dict[str, Estimate]] = {}
    for comp in sorted(obs):
        metrics[comp] = {}
        for key, _label in metric_labels():
            est = bootstrap_mean(obs[comp].get(key, []), seed=_metric_seed(seed, comp, key), n_boot=n_boot)
            if est is not None:
                metrics[comp][key] = est
    return metrics, matches


def _ranking(
    order: Sequence[str],
    ratings: Mapping[str, Rating],
    matches: Mapping[str, int],
    metrics: Mapping[str, dict[str, Estimate]],
    pairs: Sequence[Pairwise],
    notes: list[str],
) -> list[RankEntry]:
    """The ranking's entries, each with whether it differs significantly from the next one; a
    competitor that ranks above one it loses to head to head (significantly) gets a note."""
    lookup = {(p.a, p.b): p for p in pairs}
    ranking = []
    for i, c in enumerate(order):
        nxt = order[i + 1] if i + 1 < len(order) else None
        p = lookup.get((c, nxt)) or lookup.get((nxt, c)) if nxt else None
        r = ratings[c]
        differs = None
        if p is not None:  # significant, and the head-to-head favours the higher-ranked one
            ahead = p.mean_diff if p.a == c else -p.mean_diff
            differs = bool(p.significant and ahead > 0)
            if p.significant and ahead < 0:
                notes.append(
                    f"{c} ranks above {nxt} but loses to it head to head "
                    f"(mean points {ahead:+.3f}, Holm p={p.p_holm:.3g})"
                )
        ranking.append(
            RankEntry(
                i + 1,
                c,
                r.mu,
                r.sigma,
                r.ordinal,
                r.games,
                matches[c],
                metrics[c].get("points"),
                differs,
                None if p is None else p.p_holm,
            )
        )
    return ranking


def summarise(
    rows: Sequence[Mapping[str, Any]], *, seed: int = 0, n_boot: int = 1000, alpha: float = ALPHA
) -> TournamentSummary:
    """Ratings, per-competitor metrics with bootstrap CIs and Holm-corrected pairwise tests."""
    notes = list(getattr(rows, "notes", []))
    rows = validate_rows(rows)
    if not rows:
        raise InputError("no finished matches to summarise", hint="results.jsonl has no rows yet")
    ratings = rate(rows)
    groups = _groups(rows)
    metrics, matches = _competitor_metrics(rows, ratings, seed=seed, n_boot=n_boot)

    def sort_key(c: str):
        pts = metrics[c].get("points")
        return (-ratings[c].ordinal, -(pts.mean if pts else 0.0), c)

    order = sorted(ratings, key=sort_key)
    pairs = pairwise(rows, alpha=alpha, order=order)
    ranking = _ranking(order, ratings, matches, metrics, pairs, notes)
    scored = [len(competitor_points(g)) for g in groups]
    self_play, unscored = scored.count(1), scored.count(0)
    if self_play:
        notes.append(
            f"{self_play} self-play game{'s' if self_play != 1 else ''} counted in the means "
            "but not in ratings or pairwise comparisons"
        )
    for kind, n in sorted(Counter(g[0]["kind"] for g, k in zip(groups, scored) if k == 0).items()):
        notes.append(kind_for(kind).unscored_note(n))
    return TournamentSummary(
        kinds=sorted({r["kind"] for r in rows}),
        matches=len(rows),
        groups=len(groups),
        rated_games=len(groups) - self_play - unscored,
        self_play=self_play,
        competitors=order,
        ranking=ranking,
        metrics=metrics,
        pairwise=pairs,
        seed=seed,
        n_boot=n_boot,
        alpha=alpha,
        notes=notes,
        unscored=unscored,
    )
