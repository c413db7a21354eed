"""Statistics and Markdown tables of the LoCoMo benchmark.

Recall is pooled over questions (hits / questions) and its 95% interval is a percentile
bootstrap that resamples conversations (``benchmarks.lib.stats.resample_ci``, seeded numpy
Generator): questions of one conversation are not independent, conversations are. A paired
difference resamples the same conversations for both methods.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from benchmarks.locomo.data import CATEGORIES
from benchmarks.locomo.methods import BASELINES, MEMO

METRICS = {"all": "every evidence turn shown", "any": "at least one evidence turn shown"}


@dataclass
class Results:
    """Per question (scored questions only, every conversation): which conversation, category, and for
    each (method, budget, metric) whether it was a hit."""

    conv: np.ndarray  # conversation number of each question
    cat: np.ndarray
    hits: dict[tuple[str, int, str], np.ndarray]  # (method, budget, metric) -> 0/1 per question


def _ratio(h: np.ndarray, n: np.ndarray, axis: int = -1) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return h.sum(axis=axis) / n.sum(axis=axis)


def _ratio_diff(a: np.ndarray, b: np.ndarray, n: np.ndarray, axis: int = -1) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return (a.sum(axis=axis) - b.sum(axis=axis)) / n.sum(axis=axis)


class Cells:
    """Point estimates and intervals over one set of conversations, computed on demand and kept."""

    def __init__(self, res: Results, convs: Sequence[int], boot: int, seed: int):
        self.res, self.convs, self.boot = res, list(convs), boot
        run = {m for m, _, _ in res.hits}
        self.baselines = [m for m in BASELINES if m in run]  # the baselines this run has
        self.rng = np.random.default_rng(seed)
        self._keep: dict[tuple, tuple[float, float, float]] = {}

    def _per_conv(self, values: np.ndarray, cat: int | None) -> tuple[np.ndarray, np.ndarray]:
        r = self.res
        sel = np.ones(len(r.conv), dtype=bool) if cat is None else r.cat == cat
        h = np.array([values[sel & (r.conv == c)].sum() for c in self.convs], dtype=np.float64)
        n = np.array([(sel & (r.conv == c)).sum() for c in self.convs], dtype=np.float64)
        return h, n

    def questions(self, cat: int | None = None) -> int:
        return int(self._per_conv(np.zeros(len(self.res.conv)), cat)[1].sum())

    def recall(self, method: str, budget: int, metric: str, cat: int | None = None) -> tuple[float, float, float]:
        key = ("r", method, budget, metric, cat)
        if key not in self._keep:
            from benchmarks.lib.stats import resample_ci

            h, n = self._per_conv(self.res.hits[(method, budget, metric)], cat)
            if n.sum() == 0:
                self._keep[key] = (float("nan"),) * 3
            else:
                lo, hi = resample_ci((h, n), _ratio, n_resamples=self.boot, seed=self.rng)
                self._keep[key] = (float(h.sum() / n.sum()), float(lo), float(hi))
        return self._keep[key]

    def best_baseline(self, budget: int, metric: str, cat: int | None = None) -> str:
        ms = self.baselines
        return max(ms, key=lambda m: (self.recall(m, budget, metric, cat)[0], -ms.index(m)))

    def diff(self, a: str, b: str, budget: int, metric: str, cat: int | None = None) -> tuple[float, float, float]:
        key = ("d", a, b, budget, metric, cat)
        if key not in self._keep:
            from benchmarks.lib.stats import resample_ci

            ha, n = self._per_conv(self.res.hits[(a, budget, metric)], cat)
            hb, _ = self._per_conv(self.res.hits[(b, budget, metric)], cat)
            if n.sum() == 0:
                self._keep[key] = (float("nan"),) * 3
            else:
                lo, hi = resample_ci((ha, hb, n), _ratio_diff, n_resamples=self.boot, seed=self.rng)
                self._keep[key] = (float((ha.sum() - hb.sum()) / n.sum()), float(lo), float(hi))
        return self._keep[key]


def _ci(v: tuple[float, float, float], signed: bool = False) -> str:
    p, lo, hi = v
    if np.isnan(p):
        return "–"
    f = "{:+.3f}" if signed else "{:.3f}"
    return f"{f.format(p)} [{f.format(lo)}, {f.format(hi)}]"


def _cats(cells: Cells) -> list[tuple[int | None, str]]:
    return [(None, f"overall (n={cells.questions()})")] + [
        (c, f"{name} (n={cells.questions(c)})") for c, name in CATEGORIES.items() if cells.questions(c)
    ]


def table(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def recall_tables(cells: Cells, budgets: Sequence[int], methods: Sequence[str], metric: str) -> str:
    """One table per budget: methods down, overall and categories across."""
    cats = _cats(cells)
    parts = []
    for b in budgets:
        rows = []
        for m in methods:
            row = [f"**{m}**" if m == MEMO else m]
            for c, _ in cats:
                v = cells.recall(m, b, metric, c)
                best = max(cells.recall(x, b, metric, c)[0] for x in methods)
                row.append(f"**{_ci(v)}**" if v[0] == best else _ci(v))
            rows.append(row)
        parts.append(
            f"Budget {b} tokens, recall «{metric}» ({METRICS[metric]}):\n\n"
            + table(["method"] + [name for _, name in cats], rows)
        )
    return "\n\n".join(parts)


def diff_table(cells: Cells, budgets: Sequence[int], metric: str) -> str:
    cats = _cats(cells)
    rows = []
    for b in budgets:
        row = [str(b)]
        for c, _ in cats:
            best = cells.best_baseline(b, metric, c)
            row.append(f"{_ci(cells.diff(MEMO, best, b, metric, c), signed=True)} vs {best}")
        rows.append(row)
    return table(["budget"] + [name for _, name in cats], rows)


def vs_each(cells: Cells, budgets: Sequence[int], metric: str) -> str:
    """MEMO minus each baseline, overall and per category (paired by conversation)."""
    cats = _cats(cells)
    rows = []
    for b in budgets:
        for m in cells.baselines:
            rows.append([str(b), m] + [_ci(cells.diff(MEMO, m, b, metric, c), signed=True) for c, _ in cats])
    return table(["budget", "MEMO − …"] + [name for _, name in cats], rows)


def losses(cells: Cells, budgets: Sequence[int]) -> list[str]:
    """Every cell (metric, budget, category) where a baseline's point estimate beats MEMO's."""
    out = []
    for metric in METRICS:
        for b in budgets:
            for c, name in _cats(cells):
                memo = cells.recall(MEMO, b, metric, c)[0]
                beat = [m for m in cells.baselines if cells.recall(m, b, metric, c)[0] > memo]
                if not beat:
                    continue
                best = cells.best_baseline(b, metric, c)
                d = cells.diff(MEMO, best, b, metric, c)
                sure = "interval excludes 0" if d[2] < 0 else "interval includes 0"
                out.append(
                    f"- «{metric}», B={b}, {name}: MEMO {memo:.3f}; beaten by {', '.join(beat)}; "
                    f"MEMO − {best} = {_ci(d, signed=True)} ({sure})"
                )
    return out
