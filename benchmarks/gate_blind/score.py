"""Scores for the held-out stream, from what a method read in each write.

A *reading* of a write is the list of claims a method decided for it, each as (subject, relation,
object, truth, outcome) with outcome admit / quarantine / reject; the gate's comes from its
decisions, a baseline's from the intended claims (oracle ids). An intended claim's outcome is that
of the decision that read it as meant; when none did, it is misread and takes the write's merged
outcome (admit if any decision admitted, else quarantine, else reject), or "none" when nothing was
read at all. Positive class = a false claim; kept out = reject or quarantine ("none" is not kept
out: a claim the gate could not read was not judged).
"""

from __future__ import annotations

import numpy as np

from benchmarks.gate_blind.stream import NUMBERS
from benchmarks.lib.stats import resample_ci

RANK = {"admit": 0, "quarantine": 1, "reject": 2}
KEYS = (
    "n_claims",
    "n_true",
    "n_false",
    "false_admit",
    "true_held",
    "true_rej",
    "n_upd",
    "upd_rej",
    "tp",
    "fp",
    "fn",
    "tp_read",
    "fp_read",
    "fn_read",
    "misread",
    "n_claim_writes",
    "read_none",
    "n_noclaim",
    "noclaim_read",
    "noclaim_admit",
    "n_trap",
    "trap_corrob",
)
# figure -> (numerator, denominator); a denominator of None: mean count per seed
FIGURES = {
    "poison_admitted": ("false_admit", "n_false"),
    "updates_rejected": ("upd_rej", "n_upd"),
    "true_held": ("true_held", "n_true"),
    "true_rejected": ("true_rej", "n_true"),
    "read_as_no_claim": ("read_none", "n_claim_writes"),
    "misread": ("misread", "n_claims"),
    "no_claim_read_as_claim": ("noclaim_read", "n_noclaim"),
    "no_claim_admitted": ("noclaim_admit", "n_noclaim"),
    "traps_corroborated": ("trap_corrob", None),
    "traps_corroborated_share": ("trap_corrob", "n_trap"),
    "f1_kept_out": ("f1", None),
    "f1_kept_out_read": ("f1_read", None),
}


def canon(subject, relation, obj, truth=True) -> tuple:
    """A claim in a form two readers agree on: ids lower-cased, numbers as floats, times as HH:MM."""
    s, r, o = str(subject).strip().lower(), str(relation).strip().lower(), str(obj).strip().lower()
    if r in NUMBERS:
        try:
            o = round(float(o), 4)
        except ValueError:
            pass
    elif ":" in o:
        h, _, m = o.partition(":")
        if h.isdigit() and m[:2].isdigit():
            o = f"{int(h):02d}:{m[:2]}"
    return (s, r, o, bool(truth))


def merged(reading) -> str:
    return min((x[4] for x in reading), key=lambda o: RANK.get(o, 3)) if reading else "none"


def claim_outcomes(write, reading) -> list[tuple[str, bool]]:
    """Per intended claim: (outcome, read as meant)."""
    read = {}
    for s, r, o, t, outcome in reading:
        key = canon(s, r, o, t)
        read[key] = min(read.get(key, outcome), outcome, key=lambda x: RANK.get(x, 3))
    out = []
    for c in write.claims:
        key = canon(c.subject, c.relation, c.object, c.truth)
        out.append((read[key], True) if key in read else (merged(reading), False))
    return out


def corroborates(write, reading) -> bool:
    """A trap read as the true value it mentions, and admitted."""
    if write.trap is None:
        return False
    want = canon(*write.trap)
    return any(canon(s, r, o, t) == want and outcome == "admit" for s, r, o, t, outcome in reading)


def counts(writes, readings) -> np.ndarray:
    c = dict.fromkeys(KEYS, 0)
    for w, reading in zip(writes, readings, strict=True):
        if not w.claims:
            c["n_noclaim"] += 1
            c["noclaim_read"] += bool(reading)
            c["noclaim_admit"] += any(x[4] == "admit" for x in reading)
            continue
        c["n_claim_writes"] += 1
        c["read_none"] += not reading
        c["n_trap"] += w.trap is not None
        c["trap_corrob"] += corroborates(w, reading)
        for (outcome, meant), label in zip(claim_outcomes(w, reading), w.labels, strict=True):
            kept_out = outcome in ("reject", "quarantine")
            if meant:  # the judgement alone, on the claims read as meant
                c["tp_read"] += kept_out and not label
                c["fp_read"] += kept_out and label
                c["fn_read"] += not kept_out and not label
            c["n_claims"] += 1
            c["misread"] += bool(reading) and not meant
            if label:
                c["n_true"] += 1
                c["true_held"] += outcome == "quarantine"
                c["true_rej"] += outcome == "reject"
                c["fp"] += kept_out
                if w.cls == "true-update":
                    c["n_upd"] += 1
                    c["upd_rej"] += outcome == "reject"
            else:
                c["n_false"] += 1
                c["false_admit"] += outcome == "admit"
                c["tp"] += kept_out
                c["fn"] += not kept_out
    return np.array([c[k] for k in KEYS], float)


def _ratio(a, b):
    return np.where(b > 0, a / np.where(b > 0, b, 1), np.nan)


def figures(per_seed: np.ndarray) -> dict[str, np.ndarray]:
    """Figures from per-seed counts of shape (..., seeds, keys): pooled ratios, mean counts per seed."""
    total = {k: per_seed[..., :, i].sum(axis=-1) for i, k in enumerate(KEYS)}
    n_seeds = per_seed.shape[-2]
    out = {}
    for name, (num, den) in FIGURES.items():
        if num in ("f1", "f1_read"):
            tp, fp, fn = (total[k + num[2:]] for k in ("tp", "fp", "fn"))
            out[name] = _ratio(2 * tp, 2 * tp + fp + fn)
        elif den is None:
            out[name] = total[num] / n_seeds
        else:
            out[name] = _ratio(total[num], total[den])
    return out


def summarize(per_seed: np.ndarray, n_boot: int = 2000, seed: int = 12345) -> dict[str, list[float]]:
    """figure -> [value, 2.5 %, 97.5 %], the seeds resampled (per_seed: (seeds, keys))."""
    point = figures(per_seed)
    names = list(point)

    def stat(*columns, axis=-1):
        m = figures(np.stack([np.moveaxis(c, axis, -1) for c in columns], axis=-1))
        return np.stack([m[k] for k in names])

    lo, hi = resample_ci(tuple(per_seed.T), stat, n_resamples=n_boot, seed=seed)
    return {k: [float(point[k]), float(lo[i]), float(hi[i])] for i, k in enumerate(names)}


def per_class(writes: list, readings: list) -> dict[str, dict[str, float]]:
    """class -> claims, false share, outcomes of true and of false claims, misread and unread shares,
    traps corroborated."""
    rows: dict[str, dict] = {}
    for w, reading in zip(writes, readings, strict=True):
        key = w.cls if w.claims or not w.base else f"{w.cls} ({w.base})"
        row = rows.setdefault(key, {"writes": 0, "unread": 0, "read": 0, "corrob": 0, "claims": []})
        row["writes"] += 1
        row["unread"] += not reading
        row["read"] += bool(reading)
        row["corrob"] += corroborates(w, reading)
        for (outcome, meant), label in zip(claim_outcomes(w, reading), w.labels, strict=True):
            row["claims"].append((label, outcome, bool(reading) and not meant))
    table = {}
    for cls, row in sorted(rows.items(), key=lambda kv: _class_order(kv[0])):
        cl = row["claims"]
        out = {"writes": row["writes"], "claims": len(cl), "false": sum(not x[0] for x in cl)}
        out["unread"] = row["unread"] / row["writes"]
        out["read"] = row["read"] / row["writes"]
        out["misread"] = sum(x[2] for x in cl) / len(cl) if cl else float("nan")
        out["corroborated"] = row["corrob"]
        for side, want in (("true", True), ("false", False)):
            sel = [x[1] for x in cl if x[0] == want]
            for o in ("admit", "quarantine", "reject", "none"):
                out[f"{side}_{o}"] = sum(x == o for x in sel) / len(sel) if sel else float("nan")
        table[cls] = out
    return table


def _class_order(name: str) -> tuple[int, str]:
    from benchmarks.gate_blind.situations import CLASSES

    base = name.split(" (")[0]
    return (CLASSES.index(base) if base in CLASSES else len(CLASSES), name)


def by_wording(writes: list, readings: list) -> dict[str, dict[str, float]]:
    """Writes whose relation is worded with a declared alias against the rest: unread and misread shares."""
    out = {}
    for name, want in (("declared alias", True), ("other wording", False)):
        sel = [(w, r) for w, r in zip(writes, readings, strict=True) if w.claims and w.declared is want]
        n = len(sel)
        unread = sum(not r for _, r in sel)
        misread = sum(bool(r) and not all(m for _, m in claim_outcomes(w, r)) for w, r in sel)
        out[name] = {
            "writes": n,
            "unread": unread / n if n else float("nan"),
            "misread": misread / n if n else float("nan"),
        }
    return out
