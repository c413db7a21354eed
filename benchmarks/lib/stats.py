"""The benchmarks' statistics, on scipy: percentile bootstrap intervals (of a mean, of a paired
difference, of any statistic of paired samples), Wilson intervals for a proportion, AUROC.

Every bootstrap is ``scipy.stats.bootstrap(..., method="percentile")`` drawing from a seeded numpy
Generator: the same seed gives the same interval. Pass a Generator instead of a seed to draw a
series of intervals from one stream.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence

import numpy as np
from scipy import stats

SEED = 12345
RESAMPLES = 2000

Seed = int | np.random.Generator


def resample_ci(
    samples: Sequence[np.ndarray],
    statistic: Callable[..., np.ndarray],
    *,
    n_resamples: int = RESAMPLES,
    seed: Seed = SEED,
    confidence: float = 0.95,
) -> tuple[np.ndarray, np.ndarray]:
    """(low, high) of a percentile bootstrap interval of ``statistic(*samples, axis=-1)``.

    The samples are paired (one index drawn per resample serves all of them); the statistic may
    return several values (an array whose last axis is the resamples). Resamples on which a value
    is undefined (NaN, e.g. an empty denominator) are left out of that value's interval. With one
    observation the interval is the statistic itself.
    """
    if min(len(s) for s in samples) < 2:  # one observation: nothing to resample
        value = np.asarray(statistic(*(np.asarray(s) for s in samples), axis=-1))
        return value, value
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    with warnings.catch_warnings():  # scipy warns when a NaN resample makes the interval NaN: handled below
        warnings.simplefilter("ignore", stats.DegenerateDataWarning)
        res = stats.bootstrap(
            tuple(samples),
            statistic,
            paired=True,
            vectorized=True,
            n_resamples=n_resamples,
            confidence_level=confidence,
            method="percentile",
            rng=rng,
        )
    low, high = np.asarray(res.confidence_interval.low), np.asarray(res.confidence_interval.high)
    if np.isnan(low).any() or np.isnan(high).any():
        alpha = (1 - confidence) / 2
        q = stats.quantile(res.bootstrap_distribution, np.asarray([alpha, 1 - alpha]), axis=-1, nan_policy="omit")
        low, high = q[..., 0], q[..., 1]
    return low, high


def _finite(values) -> np.ndarray:
    return np.asarray([np.nan if x is None else x for x in values], dtype=np.float64)


def _mean(x: np.ndarray, axis: int = -1) -> np.ndarray:
    return x.mean(axis=axis)


def _difference(a: np.ndarray, b: np.ndarray, axis: int = -1) -> np.ndarray:
    return (a - b).mean(axis=axis)


def mean_ci(
    values, *, n_resamples: int = RESAMPLES, seed: Seed = SEED, confidence: float = 0.95
) -> tuple[float, float, float]:
    """The mean of the finite values and its percentile bootstrap interval (NaN, NaN, NaN for none)."""
    v = _finite(values)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return float("nan"), float("nan"), float("nan")
    lo, hi = resample_ci((v,), _mean, n_resamples=n_resamples, seed=seed, confidence=confidence)
    return float(v.mean()), float(lo), float(hi)


def paired_ci(
    a, b, *, n_resamples: int = RESAMPLES, seed: Seed = SEED, confidence: float = 0.95
) -> tuple[float, float, float]:
    """Mean of ``a - b`` over the pairs where both are finite, and its percentile bootstrap interval
    resampling the pairs (NaN, NaN, NaN for no pair)."""
    x, y = _finite(a), _finite(b)
    if x.shape != y.shape:
        raise ValueError(f"paired samples differ in length: {x.size} and {y.size}")
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if x.size == 0:
        return float("nan"), float("nan"), float("nan")
    d = float((x - y).mean())
    lo, hi = resample_ci((x, y), _difference, n_resamples=n_resamples, seed=seed, confidence=confidence)
    return d, float(lo), float(hi)


def wilson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for k successes in n trials ((0, 1) for no trials)."""
    if n == 0:
        return (0.0, 1.0)
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=confidence, method="wilson")
    return (float(ci.low), float(ci.high))


def auroc(pos, neg) -> float:
    """P(score of a positive > score of a negative), ties counting 1/2: the Mann-Whitney U of the
    positives over n_pos x n_neg (NaN when either side is empty)."""
    p, q = np.asarray(pos, dtype=np.float64).ravel(), np.asarray(neg, dtype=np.float64).ravel()
    if p.size == 0 or q.size == 0:
        return float("nan")
    u = stats.mannwhitneyu(p, q, alternative="two-sided", method="asymptotic").statistic
    return float(u / (p.size * q.size))
