"""Statistics and the printed report of the context benchmark (benchmarks/context_bench.py).

A cell is (family, setting, length, budget, method). Its recall is the mean of
per-seed recalls (each seed's hit rate over its decisions); the 95% interval
resamples seeds with replacement (numpy Generator, fixed seed). "all" pools
every setting and "flood" both flood densities, per seed. MEMO minus the best
baseline is paired by seed; the best baseline is the one with the highest
point estimate in that cell.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from benchmarks.context.baselines import BASELINES
from benchmarks.lib.cli import write_json
from benchmarks.lib.stats import mean_ci, paired_ci

MEMO, COLD = "MEMO", "MEMO cold"
GOAL_RECALL = 0.95
GOAL_MARGIN = 0.10
GOAL_P95_MS = {10_000: 10.0, 100_000: 30.0}


def _groups(rows: list[dict]) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows:
        for setting in {r["setting"], "all", "flood" if r["setting"].startswith("flood") else None} - {None}:
            out[(r["family"], setting, r["length"], r["budget"])].append(r)
    return out


def summarise(rows: list[dict], boot: int = 2000) -> list[dict]:
    """One dict per cell: recall, its interval, tokens, decisions, seeds; and per (family, setting,
    length, budget) MEMO minus the best baseline with its interval."""
    rng = np.random.default_rng(12345)
    cells = []
    for (family, setting, length, budget), rs in sorted(_groups(rows).items()):
        seeds = sorted({r["seed"] for r in rs})
        per: dict[str, np.ndarray] = {}
        for method in dict.fromkeys(r["method"] for r in rs):
            mine = [r for r in rs if r["method"] == method]
            by_seed = defaultdict(list)
            for r in mine:
                by_seed[r["seed"]].append(r["hit"])
            per[method] = np.array([np.mean(by_seed[s]) for s in seeds])
            _, lo, hi = mean_ci(per[method], n_resamples=boot, seed=rng)
            cells.append(
                {
                    "family": family,
                    "setting": setting,
                    "length": length,
                    "budget": budget,
                    "method": method,
                    "recall": float(per[method].mean()),
                    "lo": lo,
                    "hi": hi,
                    "tokens": float(np.mean([r["tokens"] for r in mine])),
                    "decisions": len(mine),
                    "seeds": len(seeds),
                }
            )
        base = {m: v for m, v in per.items() if m in BASELINES}
        if MEMO in per and base:
            best = max(base, key=lambda m: (base[m].mean(), m))
            diff, lo, hi = paired_ci(per[MEMO], base[best], n_resamples=boot, seed=rng)
            cells.append(
                {
                    "family": family,
                    "setting": setting,
                    "length": length,
                    "budget": budget,
                    "method": "MEMO - best",
                    "best": best,
                    "recall": diff,
                    "lo": lo,
                    "hi": hi,
                    "losses": sorted(m for m in base if base[m].mean() > per[MEMO].mean()),
                }
            )
    return cells


def by_label(rows: list[dict], family: str, budget: int) -> dict[tuple, dict[str, float]]:
    """(setting, length, label) -> method -> recall over decisions (no interval; for reading misses)."""
    acc: dict[tuple, dict[str, list]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        if r["family"] == family and r["budget"] == budget:
            acc[(r["setting"], r["length"], r["label"])][r["method"]].append(r["hit"])
    return {k: {m: float(np.mean(v)) for m, v in ms.items()} for k, ms in sorted(acc.items())}


def _cell(c: dict | None, tokens: bool = True) -> str:
    if c is None:
        return "-"
    s = f"{100 * c['recall']:.0f}% [{100 * c['lo']:.0f}-{100 * c['hi']:.0f}]"
    return s + (f"\n{c['tokens']:.0f} tok" if tokens else "")


def _table(cells: list[dict], family: str, budget: int, methods: list[str], title: str):
    from rich.table import Table

    t = Table(title=title, show_lines=True)
    t.add_column("setting", no_wrap=True)
    t.add_column("turns", justify="right")
    for m in methods:
        t.add_column(m, justify="right", overflow="fold")
    t.add_column("MEMO - best baseline", justify="right")
    index = {
        (c["setting"], c["length"], c["method"]): c for c in cells if c["family"] == family and c["budget"] == budget
    }
    settings = list(dict.fromkeys(c["setting"] for c in cells if c["family"] == family))
    order = [s for s in settings if s not in ("all", "flood")] + [s for s in ("flood", "all") if s in settings]
    lengths = sorted({c["length"] for c in cells if c["family"] == family})
    for s in order:
        for n in lengths:
            d = index.get((s, n, "MEMO - best"))
            diff = (
                "-"
                if d is None
                else (f"{100 * d['recall']:+.0f} [{100 * d['lo']:+.0f}, {100 * d['hi']:+.0f}]\nvs {d['best']}")
            )
            t.add_row(s, f"{n:,}", *[_cell(index.get((s, n, m))) for m in methods], diff)
    return t


def losses(cells: list[dict]) -> list[str]:
    out = []
    for c in cells:
        if c["method"] == "MEMO - best" and c["losses"]:
            out.append(
                f"family {c['family']}, {c['setting']}, {c['length']:,} turns, B={c['budget']}: "
                f"{', '.join(c['losses'])} beat MEMO (MEMO - {c['best']} = {100 * c['recall']:+.1f} points, "
                f"95% CI [{100 * c['lo']:+.1f}, {100 * c['hi']:+.1f}])"
            )
    return out


def goals(cells: list[dict], lat: list[dict], headline: int, family: str | None = "C") -> list[dict]:
    """The goals, judged on the held-out seeds (phrasing ``family``) at the headline budget, and latency."""
    idx = {(c["family"], c["setting"], c["length"], c["budget"], c["method"]): c for c in cells}
    lengths = sorted({c["length"] for c in cells if c["family"] == family})
    out = []
    for n in lengths:
        c = idx.get((family, "all", n, headline, MEMO))
        if c is not None:
            out.append(
                {
                    "goal": f"MEMO recall >= {GOAL_RECALL:.0%} held-out (family {family}), {n:,} turns, B={headline}",
                    "met": c["recall"] >= GOAL_RECALL,
                    "value": f"{100 * c['recall']:.1f}% [{100 * c['lo']:.1f}, {100 * c['hi']:.1f}]",
                }
            )
        d = idx.get((family, "flood", n, headline, "MEMO - best"))
        if d is not None:
            out.append(
                {
                    "goal": f"flood: MEMO >= best baseline + {100 * GOAL_MARGIN:.0f} points, {n:,} turns",
                    "met": d["recall"] >= GOAL_MARGIN,
                    "value": f"{100 * d['recall']:+.1f} points vs {d['best']} "
                    f"[{100 * d['lo']:+.1f}, {100 * d['hi']:+.1f}]",
                }
            )
    for r in lat:
        lim = GOAL_P95_MS.get(r["memories"])
        if lim is not None:
            out.append(
                {
                    "goal": f"p95 build <= {lim:.0f} ms at {r['memories']:,} memories ({r['store']} store)",
                    "met": r["memo_p95"] <= lim,
                    "value": f"{r['memo_p95']:.1f} ms (top-k baseline {r['topk_p95']:.1f} ms)",
                }
            )
    return out


def show(
    console,
    cells: list[dict],
    rows: list[dict],
    lat: list[dict],
    budgets: list[int],
    headline: int,
    names: dict[str, str] | None = None,
    judged: str | None = "C",
) -> list[dict]:
    """Print every table, the losses, latency and goals; return the goals. ``names``: family -> its
    description, in print order; ``judged``: the family the goals are judged on."""
    from rich.table import Table

    methods = [*BASELINES, MEMO, COLD]
    names = names or {f: f"family {f}" for f in sorted({c["family"] for c in cells})}
    for family in names:
        if not any(c["family"] == family for c in cells):
            continue
        for b in [headline] + [b for b in budgets if b != headline]:
            console.print(
                _table(cells, family, b, methods, f"Recall, 95% CI over seeds, mean tokens: {names[family]}, B={b}")
            )
        labels = by_label(rows, family, headline)
        t = Table(title=f"Recall by decision type ({names[family]}, B={headline}; no intervals)")
        for col in ("setting", "turns", "decision", *methods):
            t.add_column(col, justify="right" if col in methods or col == "turns" else "left")
        for (s, n, label), rec in labels.items():
            t.add_row(s, f"{n:,}", label, *[f"{100 * rec[m]:.0f}%" if m in rec else "-" for m in methods])
        console.print(t)
    lost = losses(cells)
    console.print("[bold]Where MEMO loses[/bold] (a baseline's point estimate above MEMO's):")
    for line in lost or ["nowhere"]:
        console.print(f"  {line}")
    if lat:
        t = Table(title="Context build latency, vectors precomputed (ms)")
        for col in (
            "store",
            "vectors",
            "memories",
            "agent's",
            "near-dup",
            "MEMO build p50",
            "MEMO build p95",
            "top-k p50",
            "top-k p95",
            "ratio p95",
        ):
            t.add_column(col, justify="left" if col in ("store", "vectors") else "right")
        for r in lat:
            t.add_row(
                r["store"],
                r["vectors"],
                f"{r['memories']:,}",
                f"{r['visible']:,}",
                f"{100 * r['near_dup']:.0f}%",
                f"{r['memo_p50']:.1f}",
                f"{r['memo_p95']:.1f}",
                f"{r['topk_p50']:.1f}",
                f"{r['topk_p95']:.1f}",
                f"{r['memo_p95'] / r['topk_p95']:.1f}x",
            )
        console.print(t)
        console.print(
            "  timed: memo.optimizer.build(..., query_vector=, focus_vector=, link_vector=, touch=True), since Memo.context "
            "takes no precomputed vectors; near-dup: share of the agent's lines with another at cosine >= 0.9"
        )
    out = goals(cells, lat, headline, judged)
    console.print(f"[bold]Goals[/bold] (held-out seeds, family {judged}):")
    for g in out or [{"goal": "no held-out seeds run", "met": None, "value": ""}]:
        mark = "met    " if g["met"] else "n/a    " if g["met"] is None else "NOT met"
        console.print(f"  {mark} {g['goal']}: {g['value']}")
    return out


def save(path: Path, data: dict, console) -> None:
    """The results as JSON at ``path`` and, when matplotlib is installed, a PNG beside it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    write_json(path, data, indent=1)
    console.print(f"results: {path}")
    try:
        import matplotlib
    except ImportError:
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = [c for c in data["cells"] if c["setting"] == "all" and c["method"] in data["methods"]]
    keys = sorted({(c["family"], c["length"], c["budget"]) for c in cells})
    fig, ax = plt.subplots(figsize=(max(6, len(keys) * 1.4), 4))
    width = 0.8 / max(1, len(data["methods"]))
    for j, m in enumerate(data["methods"]):
        cs = {(c["family"], c["length"], c["budget"]): c for c in cells if c["method"] == m}
        ys = [cs[k]["recall"] if k in cs else np.nan for k in keys]
        err = [
            [cs[k]["recall"] - cs[k]["lo"] if k in cs else 0 for k in keys],
            [cs[k]["hi"] - cs[k]["recall"] if k in cs else 0 for k in keys],
        ]
        ax.bar(np.arange(len(keys)) + j * width, ys, width, yerr=err, label=m)
    ax.set_xticks(np.arange(len(keys)) + 0.4 - width / 2, [f"{f} {n}\nB={b}" for f, n, b in keys])
    ax.set_ylabel("recall (all settings)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path.with_suffix(".png"), dpi=120)
    console.print(f"plot: {path.with_suffix('.png')}")
