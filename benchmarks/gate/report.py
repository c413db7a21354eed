"""Rich tables for the gate benchmark: headline, error rates, per class, and where the gate loses."""

from __future__ import annotations

import math

from rich.markup import escape
from rich.table import Table

from benchmarks.gate.run import describe
from benchmarks.gate.tables import cost_table, curve_table, diff_table, tuned_table, wording_table


def ci(v: list[float], pct: bool = False) -> str:
    if v is None or math.isnan(v[0]):
        return "–"
    if pct:
        return f"{100 * v[0]:.1f}% [{100 * v[1]:.1f}, {100 * v[2]:.1f}]"
    return f"{v[0]:.3f} [{v[1]:.3f}, {v[2]:.3f}]"


def print_report(console, args, tuned, res, summ, stats, goals, diffs=None, curve=None) -> None:
    console.print(
        f"[bold]Gate benchmark[/bold]: held-out seeds {args.seeds}, {args.writes} writes each, "
        f"embedder {args.embedder}; {stats['writes']} writes ({stats['false']} false, "
        f"{stats['text']} as text), {stats['observations']} observations"
    )
    console.print(
        "credibility vs truth by band: "
        + "; ".join(
            f"{b} {c['writes']} writes, mean credibility {c['mean_credibility']:.2f}, {100 * c['true_share']:.0f}% true"
            for b, c in stats["calibration"].items()
        )
    )
    console.print(
        "true updates by band: " + ", ".join(f"{k} {v}" for k, v in stats["updates_by_band"].items() if k != "-")
    )
    console.print(
        f"wording the world file declares: {stats['declared']} of {stats['writes']} writes "
        f"({stats['undeclared_by_class']} not declared, by class)"
    )
    if res["gate_missing"]:
        console.print(f"[yellow]gate not run: {res['gate_missing']}[/yellow]")
    show(console, tuned_table(tuned))
    show(console, cost_table(summ))
    if diffs:
        show(console, diff_table(diffs))
    show(console, wording_table(summ))
    if curve:
        show(console, curve_table(curve))
    _headline(console, summ)
    _errors(console, summ)
    _classes(console, summ, stats)
    if "gate" in summ:
        _gate_classes(console, summ["gate"]["per_class"])
        _goals(console, summ["gate"]["metrics"], goals)
        _examples(console, res, args.examples)
        _latency(console, res)


def show(console, table) -> None:
    title, header, rows = table
    t = Table(title=title)
    for c in header:
        t.add_column(c)
    for r in rows:
        t.add_row(*(escape(x) for x in r))
    console.print(t)


def _headline(console, summ) -> None:
    t = Table(title="Rejection of false claims, all classes (95% CI over held-out seeds)")
    for c in ("method", "precision", "recall", "F1", "F1 kept out", "F1 structured", "F1 text"):
        t.add_column(c)
    for name, s in summ.items():
        m = s["metrics"]
        t.add_row(
            name,
            ci(m["precision"]),
            ci(m["recall"]),
            ci(m["f1"]),
            ci(m["f1_kept_out"]),
            ci(m["f1_struct"]),
            ci(m["f1_text"]),
        )
    m = next(iter(summ.values()))["metrics"]
    t.add_row(
        "[dim](reference: reject everything)[/dim]", "", "1.000", f"[dim]{m['reject_all_f1'][0]:.3f}[/dim]", "", "", ""
    )
    console.print(t)


def _errors(console, summ) -> None:
    t = Table(title="Error rates (95% CI)")
    for c in (
        "method",
        "poison admitted",
        "true updates rejected",
        "… held / admitted",
        "… rejected: trusted / stranger / untrusted",
        "quarantined",
        "nothing extracted",
        "misparsed text / struct",
        "end: false in memory",
        "end: true missing",
    ):
        t.add_column(c)
    for name, s in summ.items():
        m = s["metrics"]
        bands = " / ".join(_pct(m[f"updates_rejected_{b}"][0]) for b in ("trusted", "stranger", "untrusted"))
        admitted = 1 - m["updates_rejected"][0] - m["updates_held"][0]
        t.add_row(
            name,
            ci(m["poison_admitted"], True),
            ci(m["updates_rejected"], True),
            f"{_pct(m['updates_held'][0])} / {_pct(admitted)}",
            bands,
            ci(m["quarantine_rate"], True),
            ci(m["extraction_miss"], True),
            f"{_pct(m['misparsed_text'][0])} / {_pct(m['misparsed_struct'][0])}",
            ci(m["final_poison_in_memory"], True),
            ci(m["final_true_missing"], True),
        )
    console.print(t)


def _pct(x: float) -> str:
    return "–" if x is None or math.isnan(x) else f"{100 * x:.0f}%"


def _classes(console, summ, stats) -> None:
    t = Table(title="Correct decisions per class (false claim rejected, true claim not rejected)")
    t.add_column("class")
    t.add_column("n")
    t.add_column("false")
    for name in summ:
        t.add_column(name)
    first = next(iter(summ.values()))["per_class"]
    for cls in sorted(first, key=list(stats["by_class"]).index):
        row = first[cls]
        t.add_row(
            cls,
            str(row["n"]),
            _pct(row["n_false"] / row["n"]),
            *(_pct(s["per_class"][cls]["correct"]) for s in summ.values()),
        )
    console.print(t)


def _gate_classes(console, table) -> None:
    t = Table(title="The gate per class: outcome shares among true claims | among false claims")
    for c in (
        "class",
        "n true",
        "true: rej",
        "quar",
        "adm",
        "none",
        "n false",
        "false: rej",
        "quar",
        "adm",
        "none",
        "misparsed",
    ):
        t.add_column(c)
    for cls, r in sorted(table.items()):
        t.add_row(
            cls,
            str(r["n_true"]),
            *(_pct(r[f"true_{o}"]) for o in ("reject", "quarantine", "admit", "none")),
            str(r["n_false"]),
            *(_pct(r[f"false_{o}"]) for o in ("reject", "quarantine", "admit", "none")),
            _pct(r["misparsed"]),
        )
    console.print(t)


def _goals(console, m, goals) -> None:
    parts = []
    for k, (op, x) in goals.items():
        v = m[k][0]
        ok = v >= x if op == ">=" else v <= x
        parts.append(f"{k} {v:.3f} {op} {x}: " + ("[green]met[/green]" if ok else "[red]missed[/red]"))
    console.print("Goals (gate, rule judge): " + "; ".join(parts))


def misdecided(res, limit: int) -> dict[str, list[dict]]:
    """class -> up to ``limit`` writes the gate got wrong (false not rejected, or true rejected)."""
    out: dict[str, list[dict]] = {}
    for stream, run in zip(res["streams"], res["gate_runs"]):
        if run is None:
            continue
        for w, outcome, ds, fin in zip(stream.writes, run.outcomes, run.decisions, run.finals):
            wrong = (outcome == "reject") == w.label
            rows = out.setdefault(w.cls, [])
            if wrong and len(rows) < limit:
                rows.append(
                    {
                        "seed": stream.seed,
                        "turn": w.turn,
                        "write": w.text or repr(w.form),
                        "meaning": f"{w.subject} {w.relation} {'' if w.truth else 'NOT '}{w.object}",
                        "base": w.base,
                        "source": w.source,
                        "cred": round(w.cred, 2),
                        "band": w.band,
                        "label": "true" if w.label else "false",
                        "outcome": outcome,
                        "gate": describe(ds),
                        "final": fin,
                    }
                )
    return out


def _examples(console, res, limit: int) -> None:
    if limit <= 0:
        return
    t = Table(title="Where the gate loses: misdecided writes (first per class)")
    for c in ("class", "write", "meaning", "source (cred)", "label", "outcome", "end"):
        t.add_column(c)
    for cls, rows in misdecided(res, limit).items():
        for r in rows:
            t.add_row(
                cls,
                escape(r["write"]),
                r["meaning"],
                f"{r['band']} ({r['cred']})",
                r["label"],
                escape(r["gate"]),
                r["final"],
            )
    console.print(t)


def _latency(console, res) -> None:
    import numpy as np

    if res["latency_ms"]:
        lat, obs = np.array(res["latency_ms"]), np.array(res["observe_ms"] or [np.nan])
        console.print(
            f"gate latency per write: p50 {np.percentile(lat, 50):.2f} ms, p95 {np.percentile(lat, 95):.2f} "
            f"ms; per observation p50 {np.nanpercentile(obs, 50):.2f} ms"
        )
    if res["errors"]:
        console.print(f"[red]{len(res['errors'])} writes raised in the gate[/red], e.g. {res['errors'][0]}")
