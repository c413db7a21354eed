"""The gate benchmark's cost, comparison, wording, tuning and trade-off tables as plain rows, for the
terminal report (``report.py``) and the Markdown page (``page.py``) alike.

Each builder returns ``(title, header, rows)``; cells are strings.
"""

from __future__ import annotations

import math

Table = tuple[str, list[str], list[list[str]]]


def ci(v, pct: bool = False, signed: bool = False) -> str:
    if v is None or math.isnan(v[0]):
        return "–"
    f = (
        (lambda x: f"{100 * x:+.1f}" if signed else f"{100 * x:.1f}")
        if pct
        else (lambda x: f"{x:+.3f}" if signed else f"{x:.3f}")
    )
    unit = " pt" if pct and signed else "%" if pct else ""
    if math.isnan(v[1]):
        return f"{f(v[0])}{unit}"
    return f"{f(v[0])}{unit} [{f(v[1])}, {f(v[2])}]"


def pct(x: float) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def cost_table(summ: dict) -> Table:
    header = [
        "method",
        "cost per write",
        "F1 kept out",
        "false claims admitted",
        "true claims rejected",
        "… of them unread",
        "true claims held",
        "false claims held",
        "F1 (strict)",
    ]
    rows = []
    for name, s in sorted(summ.items(), key=lambda kv: kv[1]["metrics"]["cost"][0]):
        m = s["metrics"]
        rows.append(
            [
                name,
                ci(m["cost"]),
                ci(m["f1_kept_out"]),
                ci(m["poison_admitted"], True),
                ci(m["true_rejected"], True),
                pct(m["true_unread"][0]),
                pct(m["true_held"][0]),
                pct(m["false_held"][0]),
                f"{m['f1'][0]:.3f}",
            ]
        )
    return "Cost per write and kept-out F1 (95% CI over held-out seeds; lower cost is better)", header, rows


def diff_table(diffs: dict) -> Table:
    header = ["gate minus", "cost per write", "F1 kept out", "false claims admitted", "true rejected", "true held"]
    rows = []
    best = diffs.get("best_baseline")
    for name, d in diffs.get("by_method", {}).items():
        rows.append(
            [
                name + (" (best baseline on the tune seeds)" if name == best else ""),
                ci(d["cost"], signed=True),
                ci(d["f1_kept_out"], signed=True),
                ci(d["poison_admitted"], True, True),
                ci(d["true_rejected"], True, True),
                ci(d["true_held"], True, True),
            ]
        )
    title = "The gate minus each method, paired over held-out seeds (negative cost, positive F1: the gate is better)"
    return title, header, rows


def wording_table(summ: dict) -> Table:
    header = ["method", "cost: declared", "cost: not declared"]
    header += ["F1 kept out: declared", "F1 kept out: not declared", "nothing read (text): declared / not"]
    rows = []
    for name, s in sorted(summ.items(), key=lambda kv: kv[1]["metrics"]["cost"][0]):
        w = s.get("wording", {})
        dec, und = w.get("declared"), w.get("undeclared")
        if dec is None or und is None:
            continue
        rows.append(
            [
                name,
                ci(dec["cost"]),
                ci(und["cost"]),
                ci(dec["f1_kept_out"]),
                ci(und["f1_kept_out"]),
                f"{pct(dec['extraction_miss'][0])} / {pct(und['extraction_miss'][0])}"
                if name.startswith("gate")
                else "",
            ]
        )
    return "Writes whose wording the world file declares, and the rest", header, rows


def tuned_table(tuned: dict) -> Table:
    rows = []
    for name, t in tuned["baselines"].items():
        params = ", ".join(f"{k} {v:g}" for k, v in t["params"].items()) or "(none)"
        rows.append([name, params, f"{t['cost']:.4f}"])
    seeds = tuned["seeds"]
    title = f"Baselines tuned for the least cost per write on seeds {seeds[0]}-{seeds[-1]}" if seeds else "Baselines"
    return title, ["baseline", "tuned parameters", "tune cost"], rows


def _params(p: dict) -> str:
    if p.get("optimal"):
        return "cost-optimal decision"
    return ", ".join(f"{k} {v:g}" for k, v in p.items()) or "default config"


def curve_table(curve: dict, limit: int = 14) -> Table:
    header = ["method", "setting", "false claims admitted", "true claims rejected", "true claims held", "cost"]
    rows = []
    for name, pts in curve.items():
        shown = [r for r in pts if r.get("frontier", True) or r.get("tuned")]
        shown.sort(key=lambda r: (r["false_admitted"], r["true_rejected"]))
        if len(shown) > limit:  # an even spread, keeping the marked points
            keep = {round(i * (len(shown) - 1) / (limit - 1)) for i in range(limit)}
            shown = [r for i, r in enumerate(shown) if i in keep or r.get("tuned") or r.get("default")]
        for r in shown:
            mark = " (default)" if r.get("default") else " (tuned)" if r.get("tuned") else ""
            rows.append(
                [
                    name,
                    _params(r["params"]) + mark,
                    pct(r["false_admitted"]),
                    pct(r["true_rejected"]),
                    pct(r["true_held"]),
                    f"{r['cost']:.3f}",
                ]
            )
    return "Trade-off as thresholds vary (tune seeds; hold band: the points no other setting beats)", header, rows
