"""Scores for the gate benchmark: counts per seed, pooled figures, bootstrap intervals over seeds.

Positive class = a false claim; predicted positive = rejected. "strict": only
``reject`` counts as rejected (quarantine and "none" -- nothing extracted from a
text -- count as not rejected). "kept out": ``reject`` or ``quarantine``.
"""

from __future__ import annotations

import numpy as np

from benchmarks.gate.costs import OUT, cost_of
from benchmarks.lib.stats import resample_ci

IN_MEMORY = ("admitted", "verified")
KEYS = (
    "n",
    "tp",
    "fp",
    "fn",
    "tp_k",
    "fp_k",
    "fn_k",
    "tp_s",
    "fp_s",
    "fn_s",
    "tp_t",
    "fp_t",
    "fn_t",
    "n_false",
    "adm_false",
    "n_upd",
    "rej_upd",
    "quar_upd",
    "quar",
    "n_text",
    "none_text",
    "n_false_fin",
    "fin_false_in",
    "n_true_end",
    "fin_true_out",
    "parsed_runs",
    "n_struct",
    "wrong_struct",
    "wrong_text",
    "n_true",
    "true_out",
    "true_held",
    "false_held",
    "true_none",
    *(f"{k}_{b}" for b in ("trusted", "stranger", "untrusted") for k in ("n_upd", "rej_upd")),
)


def write_info(stream) -> dict[str, np.ndarray]:
    """Per-write facts the scores need (nothing here depends on any method's decisions)."""
    ws = stream.writes
    end = max((e.turn for e in stream.events), default=0)
    w = stream.world
    return {
        "label": np.array([x.label for x in ws], bool),
        "cls": np.array([x.cls for x in ws], object),
        "mode": np.array([x.mode for x in ws], object),
        "band": np.array([x.band for x in ws], object),
        "update": np.array([x.update for x in ws], bool),
        "true_end": np.array([x.truth and w.holds(x.subject, x.relation, x.object, x.truth, end) for x in ws], bool),
    }


def _f1_counts(pos, pred):
    return int((pos & pred).sum()), int((~pos & pred).sum()), int((pos & ~pred).sum())


def counts(info, outcomes, finals=None, parsed=None) -> np.ndarray:
    out = np.asarray(outcomes, object)
    pos, rej, quar = ~info["label"], out == "reject", out == "quarantine"
    struct, text, upd = info["mode"] == "struct", info["mode"] == "text", info["update"]
    c = {"n": len(out)}
    c["tp"], c["fp"], c["fn"] = _f1_counts(pos, rej)
    c["tp_k"], c["fp_k"], c["fn_k"] = _f1_counts(pos, rej | quar)
    c["tp_s"], c["fp_s"], c["fn_s"] = _f1_counts(pos[struct], rej[struct])
    c["tp_t"], c["fp_t"], c["fn_t"] = _f1_counts(pos[text], rej[text])
    c["n_false"], c["adm_false"] = int(pos.sum()), int((pos & (out == "admit")).sum())
    c["n_upd"], c["rej_upd"], c["quar_upd"] = int(upd.sum()), int((upd & rej).sum()), int((upd & quar).sum())
    for b in ("trusted", "stranger", "untrusted"):
        m = upd & (info["band"] == b)
        c[f"n_upd_{b}"], c[f"rej_upd_{b}"] = int(m.sum()), int((m & rej).sum())
    c["n_true"], c["true_out"] = int((~pos).sum()), int((~pos & np.isin(out, OUT)).sum())
    c["true_held"], c["false_held"] = int((~pos & quar).sum()), int((pos & quar).sum())
    c["true_none"] = int((~pos & (out == "none")).sum())
    c["quar"], c["n_text"], c["none_text"] = int(quar.sum()), int(text.sum()), int((text & (out == "none")).sum())
    if finals is not None:
        inmem = np.array([f in IN_MEMORY for f in finals], bool)
        c["n_false_fin"], c["fin_false_in"] = int(pos.sum()), int((pos & inmem).sum())
        c["n_true_end"] = int(info["true_end"].sum())
        c["fin_true_out"] = int((info["true_end"] & ~inmem & (out != "none")).sum())
    if parsed is not None:
        wrong = np.asarray(parsed, object) == "wrong"
        c["parsed_runs"], c["n_struct"] = 1, int(struct.sum())
        c["wrong_struct"], c["wrong_text"] = int((wrong & struct).sum()), int((wrong & text).sum())
    return np.array([c.get(k, 0) for k in KEYS], float)


def _div(a, b):
    return np.where(b > 0, a / np.where(b > 0, b, 1), np.nan)


def metrics(c: np.ndarray) -> dict[str, np.ndarray]:
    """Figures from summed counts; c has shape (..., len(KEYS))."""
    g = {k: c[..., i] for i, k in enumerate(KEYS)}
    f1 = lambda tp, fp, fn: _div(2 * tp, 2 * tp + fp + fn)
    out = {
        "precision": _div(g["tp"], g["tp"] + g["fp"]),
        "recall": _div(g["tp"], g["tp"] + g["fn"]),
        "f1": f1(g["tp"], g["fp"], g["fn"]),
        "f1_kept_out": f1(g["tp_k"], g["fp_k"], g["fn_k"]),
        "f1_struct": f1(g["tp_s"], g["fp_s"], g["fn_s"]),
        "f1_text": f1(g["tp_t"], g["fp_t"], g["fn_t"]),
        "poison_admitted": _div(g["adm_false"], g["n_false"]),
        "updates_rejected": _div(g["rej_upd"], g["n_upd"]),
        "updates_held": _div(g["quar_upd"], g["n_upd"]),
        "quarantine_rate": _div(g["quar"], g["n"]),
        "extraction_miss": _div(g["none_text"], g["n_text"]),
        "final_poison_in_memory": _div(g["fin_false_in"], g["n_false_fin"]),
        "final_true_missing": _div(g["fin_true_out"], g["n_true_end"]),
        "misparsed_struct": _div(g["wrong_struct"], g["n_struct"]),
        "misparsed_text": _div(g["wrong_text"], g["n_text"] * (g["parsed_runs"] > 0)),
        "cost": cost_of(
            {
                "n": g["n"],
                "false_admitted": g["adm_false"],
                "true_rejected": g["true_out"],
                "true_held": g["true_held"],
                "false_held": g["false_held"],
            }
        ),
        "true_rejected": _div(g["true_out"], g["n_true"]),
        "true_held": _div(g["true_held"], g["n_true"]),
        "true_unread": _div(g["true_none"], g["n_true"]),
        "false_held": _div(g["false_held"], g["n_false"]),
        "reject_all_f1": _div(2 * (g["tp"] + g["fn"]), 2 * (g["tp"] + g["fn"]) + g["n"] - g["tp"] - g["fn"]),
    }
    for b in ("trusted", "stranger", "untrusted"):
        out[f"updates_rejected_{b}"] = _div(g[f"rej_upd_{b}"], g[f"n_upd_{b}"])
    return out


def summarize(per_seed: np.ndarray, rng: np.random.Generator, n_boot: int = 2000) -> dict[str, list[float]]:
    """metric -> [pooled value, 2.5 %, 97.5 %] with seeds resampled (per_seed: (seeds, len(KEYS))); a
    resample on which a metric is undefined (no writes of its kind) is left out of that interval."""
    point = metrics(per_seed.sum(0))
    names = list(point)

    def pooled(*columns: np.ndarray, axis: int = -1) -> np.ndarray:
        m = metrics(np.stack([c.sum(axis=axis) for c in columns], axis=-1))
        return np.stack([m[k] for k in names])

    lo, hi = resample_ci(tuple(per_seed.T), pooled, n_resamples=n_boot, seed=rng)
    return {k: [float(point[k]), float(lo[i]), float(hi[i])] for i, k in enumerate(names)}


def per_class(infos: list[dict], outcomes: list[list[str]], parsed=None) -> dict[str, dict[str, float]]:
    """class -> n, false share, % rejected / quarantined / admitted / none split by label, % misparsed."""
    cls = np.concatenate([i["cls"] for i in infos])
    lab = np.concatenate([i["label"] for i in infos])
    out_ = np.concatenate([np.asarray(o, object) for o in outcomes])
    par = np.concatenate([np.asarray(p, object) for p in parsed]) if parsed else None
    table = {}
    for c in dict.fromkeys(cls.tolist()):
        m = cls == c
        row = {"n": int(m.sum()), "n_true": int((m & lab).sum()), "n_false": int((m & ~lab).sum())}
        for name, sel in (("true", m & lab), ("false", m & ~lab)):
            for o in ("reject", "quarantine", "admit", "none"):
                row[f"{name}_{o}"] = float((out_[sel] == o).mean()) if sel.any() else float("nan")
        row["correct"] = float(((out_[m] == "reject") == ~lab[m]).mean())
        row["misparsed"] = float((par[m] == "wrong").mean()) if par is not None else float("nan")
        table[c] = row
    return table


def strict_f1(pos: list[bool], pred: list[bool]) -> float:
    p, q = np.asarray(pos, bool), np.asarray(pred, bool)
    tp, fp, fn = _f1_counts(p, q)
    return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0


def paired_difference(
    a: np.ndarray, b: np.ndarray, names: tuple[str, ...], rng: np.random.Generator, n_boot: int = 2000
) -> dict[str, list[float]]:
    """metric -> [pooled a minus pooled b, 2.5 %, 97.5 %], the seeds resampled together for both
    methods (a, b: per-seed counts on the same seeds, shape (seeds, len(KEYS)))."""
    k = a.shape[1]
    point = {n: float(metrics(a.sum(0))[n] - metrics(b.sum(0))[n]) for n in names}

    def diff(*columns: np.ndarray, axis: int = -1) -> np.ndarray:
        sums = np.stack([c.sum(axis=axis) for c in columns], axis=-1)
        ma, mb = metrics(sums[..., :k]), metrics(sums[..., k:])
        return np.stack([ma[n] - mb[n] for n in names])

    lo, hi = resample_ci(tuple(a.T) + tuple(b.T), diff, n_resamples=n_boot, seed=rng)
    return {n: [point[n], float(lo[i]), float(hi[i])] for i, n in enumerate(names)}


def subset(info: dict[str, np.ndarray], mask: np.ndarray) -> dict[str, np.ndarray]:
    """The per-write facts of the writes in ``mask``."""
    return {k: v[mask] for k, v in info.items()}
