"""What a gate's decisions cost: the one objective every method in the gate benchmark is tuned on.

Costs per write, fixed before anything was measured:

* a false claim admitted: 1.0 (a lie in memory);
* a true claim rejected: 1.0 (the truth thrown away); a text from which nothing was read counts
  as rejected (it never enters memory and is never looked at again), so a true one costs 1.0 and
  a false one nothing;
* a true claim held: 0.25 (kept out until evidence arrives: late, and someone must look);
* a false claim held: 0.05 (the look costs a little, though it is the right call).

An admitted true claim and a rejected false one cost nothing. The figure is the mean cost per
write, so 0 is perfect and holding everything costs 0.25 x (share of true claims) + 0.05 x
(share of false ones).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

COSTS = {"false_admitted": 1.0, "true_rejected": 1.0, "true_held": 0.25, "false_held": 0.05}
OUT = ("reject", "none")  # outcomes that leave a claim out for good


def components(outcomes: Sequence[str], labels: Sequence[bool]) -> dict[str, int]:
    """How many writes fall in each cost component (labels: True = the claim is true)."""
    out = np.asarray(outcomes, dtype=object)
    lab = np.asarray(labels, dtype=bool)
    if out.shape != lab.shape:
        raise ValueError(f"{out.size} outcomes for {lab.size} labels")
    held, admitted, dropped = out == "quarantine", out == "admit", np.isin(out, OUT)
    return {
        "n": int(lab.size),
        "false_admitted": int((~lab & admitted).sum()),
        "true_rejected": int((lab & dropped).sum()),
        "true_held": int((lab & held).sum()),
        "false_held": int((~lab & held).sum()),
    }


def cost_of(c: dict):
    """Mean cost per write from component counts (``components``; numpy arrays of counts give an
    array; no writes give NaN)."""
    total = sum(w * np.asarray(c[k], dtype=float) for k, w in COSTS.items())
    n = np.asarray(c["n"], dtype=float)
    out = np.where(n > 0, total / np.where(n > 0, n, 1.0), np.nan)
    return float(out) if out.ndim == 0 else out


def rates(outcomes: Sequence[str], labels: Sequence[bool]) -> dict[str, float]:
    """The mean cost per write and each component as a share of all writes."""
    c = components(outcomes, labels)
    n = max(c["n"], 1)
    return {"cost": cost_of(c), **{k: c[k] / n for k in COSTS}}


def expected(p_true: np.ndarray) -> dict[str, np.ndarray]:
    """The expected cost of each decision for claims true with probability ``p_true``."""
    p = np.asarray(p_true, dtype=float)
    return {
        "admit": (1 - p) * COSTS["false_admitted"],
        "reject": p * COSTS["true_rejected"],
        "quarantine": p * COSTS["true_held"] + (1 - p) * COSTS["false_held"],
    }


def best_decision(p_true: np.ndarray) -> np.ndarray:
    """The decision with the least expected cost for each probability (ties: hold, then reject)."""
    e = expected(p_true)
    names = ["quarantine", "reject", "admit"]
    stack = np.stack([e[k] for k in names])
    return np.asarray(names, dtype=object)[np.argmin(stack, axis=0)]
