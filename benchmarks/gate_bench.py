"""Consistency-gate benchmark: a labelled stream of world-fact claims, written from a simulated world.

Usage:  python -m benchmarks.gate_bench [--seeds 100-119] [--tune-seeds 0-9] [--writes 600]
            [--embedder hash|minilm|none] [--llm URL [--llm-model NAME]] [--quick] [--json FILE]

The stream (``benchmarks/gate/stream.py``) is generated from a seeded world with
a hidden truth over time -- things move, prices change, things are sold; who
knows whom and who arrived first are fixed -- and from sources with a hidden
honesty per topic and a credibility the gate is told (trusted liars, untrusted
truth-tellers, strangers at 0.5, sybil bursts). Every write's label is the
hidden truth at its turn: a true claim should not be rejected, a false one
should. The labels never look at what any method decides.

Classes: new-true, new-false (poison first), correction (the truth after a
poison), restatement, true-update (the world changed; sources from every
credibility band), hallucination, stale (an older value than memory holds),
stale-held (memory's value restated after the world moved on), alias, synonym,
paraphrase (hand-written sentences), units, number-words, negation (true and
false), temporal (chain premises), chain (x<y, y<z said; "z before x"),
collusion, sybil, repeat. About half of every class but paraphrase (all text)
arrives as text through ``gate.hear``; a text from which nothing is extracted
scores as "none" (not rejected, not admitted). About one event in ten is a
verified observation (``gate.observe``).

Methods on the same events: the gate (rule judge; with ``--llm`` also the gate
with an LLM jury, reported separately), the credibility-contest dict on exact
strings and on oracle ids, reject-any-contradiction, trust-the-source (>= 0.5)
and embedding similarity with two thresholds tuned on the tune seeds, once
for the best F1 and once for the best balanced accuracy (see
``benchmarks/gate/baselines.py`` for what each baseline is given).

Figures (positive = false claim, predicted positive = rejected): precision /
recall / F1 over all classes ("strict": quarantine is not rejection; also
"kept out": quarantine counts as rejection), F1 on structured and on text
writes, poison admitted (false claims admitted), true updates rejected (also
per credibility band), quarantine rate, extraction misses, and for the gate the
final state after the stream (false claims still in memory, true claims missing).
95 % bootstrap intervals resample the held-out seeds. Parameters are fixed on
the tune seeds before the held-out seeds are generated.
Goals: F1 >= 0.9 over all classes (no LLM), >= 0.95 on structured writes,
poison admitted <= 5 %, true updates rejected <= 5 %.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.gate.baselines import SimilarityTable, baseline_outcomes, tune_similarity
from benchmarks.gate.metrics import balanced_accuracy, counts, per_class, strict_f1, summarize, write_info
from benchmarks.gate.report import misdecided, print_report
from benchmarks.gate.run import gate_available, run_gate
from benchmarks.gate.stream import generate
from benchmarks.lib.cli import seed_list, write_json

HERE = Path(__file__).resolve().parent

GOALS = {
    "f1": (">=", 0.90),
    "f1_struct": (">=", 0.95),
    "poison_admitted": ("<=", 0.05),
    "updates_rejected": ("<=", 0.05),
}


def make_embedder(kind: str):
    if kind == "none":
        return None
    from memory.embedder import get_embedder

    return get_embedder(kind)


def make_jury(url: str, model: str | None, seed: int):
    from agents.llm.client import LLMClient
    from agents.llm.config import LLMConfig
    from memory.jury import LLMJury

    cfg = LLMConfig.from_env(base_url=url, **({"model": model} if model else {}))
    return LLMJury(LLMClient(cfg, rng=np.random.default_rng([seed, 11])))


def tune(args, embedder, progress) -> dict:
    """Fix the similarity baseline's thresholds on the tune seeds (the only tuned parameters)."""
    if embedder is None:
        return {"thresholds": None, "scores": None, "seeds": []}
    seeds = seed_list(args.tune_seeds)
    tables, labels = [], []
    task = progress.add_task("tuning similarity thresholds", total=len(seeds) + 1)
    for s in seeds:
        stream = generate(s, args.writes)
        tables.append(SimilarityTable(stream.events, embedder))
        labels.append([w.label for w in stream.writes])
        progress.advance(task)
    best = tune_similarity(
        tables, labels, {"similarity (F1-tuned)": strict_f1, "similarity (balanced)": balanced_accuracy}
    )
    progress.advance(task)
    return {
        "thresholds": {k: list(v[0]) for k, v in best.items()},
        "scores": {k: v[1] for k, v in best.items()},
        "seeds": seeds,
    }


def evaluate(args, embedder, thresholds, jury, progress) -> dict:
    seeds = seed_list(args.seeds)
    why = gate_available() if not args.no_gate else "--no-gate"
    res: dict = {
        "seeds": seeds,
        "infos": [],
        "streams": [],
        "outcomes": {},
        "finals": {},
        "counts": {},
        "gate_runs": [],
        "gate_missing": why,
        "latency_ms": [],
        "observe_ms": [],
        "errors": [],
    }
    task = progress.add_task("held-out seeds", total=len(seeds))
    for s in seeds:
        stream = generate(s, args.writes)
        info = write_info(stream)
        res["infos"].append(info)
        res["streams"].append(stream)
        table = SimilarityTable(stream.events, embedder) if thresholds else None
        methods = {}
        if not why:
            methods["gate"] = run_gate(stream, embedder)
            if jury is not None:
                methods["gate + LLM jury"] = run_gate(stream, embedder, jury)
        for name, run in methods.items():
            _add(res, name, info, run.outcomes, run.finals, run.parsed)
        res["gate_runs"].append(methods.get("gate"))
        if "gate" in methods:
            res["latency_ms"] += methods["gate"].latency_ms
            res["observe_ms"] += methods["gate"].observe_ms
            res["errors"] += [f"seed {s}: {e}" for e in methods["gate"].errors]
        for name, outs in baseline_outcomes(stream, table, thresholds).items():
            _add(res, name, info, outs, None, None)
        progress.advance(task)
    return res


def _add(res, name, info, outcomes, finals, parsed) -> None:
    res["outcomes"].setdefault(name, []).append(outcomes)
    res["finals"].setdefault(name, []).append(finals)
    res.setdefault("parsed", {}).setdefault(name, []).append(parsed)
    res["counts"].setdefault(name, []).append(counts(info, outcomes, finals, parsed))


def summaries(res, boot: int) -> dict:
    rng = np.random.default_rng(20240)
    out = {}
    for name, per_seed in res["counts"].items():
        m = summarize(np.array(per_seed), rng, boot)
        if res["finals"][name][0] is None:
            m["final_poison_in_memory"] = m["final_true_missing"] = [float("nan")] * 3
        parsed = res["parsed"][name] if res["parsed"][name][0] is not None else None
        out[name] = {"metrics": m, "per_class": per_class(res["infos"], res["outcomes"][name], parsed)}
    return out


def stream_stats(res) -> dict:
    ws = [w for st in res["streams"] for w in st.writes]
    obs = sum(len(st.events) - len(st.writes) for st in res["streams"])
    by = lambda f: {k: sum(1 for w in ws if f(w) == k) for k in sorted({f(w) for w in ws})}
    return {
        "writes": len(ws),
        "observations": obs,
        "false": sum(not w.label for w in ws),
        "text": sum(w.mode == "text" for w in ws),
        "by_class": by(lambda w: w.cls),
        "by_band": by(lambda w: w.band),
        "false_by_band": by(lambda w: w.band if not w.label else "-"),
        "updates_by_band": by(lambda w: w.band if w.update else "-"),
        "calibration": {
            b: {
                "writes": len(g),
                "mean_credibility": float(np.mean([w.cred for w in g])),
                "true_share": float(np.mean([w.label for w in g])),
            }
            for b in ("trusted", "stranger", "untrusted", "sybil")
            if (g := [w for w in ws if w.band == b])
        },
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="100-119", help="held-out seeds, e.g. 100-119 or 100,105 (default 100-119)")
    ap.add_argument("--tune-seeds", default="0-9", help="seeds the similarity thresholds are tuned on (0-9)")
    ap.add_argument("--writes", type=int, default=600, help="scored writes per seed (default 600)")
    ap.add_argument(
        "--embedder",
        default="hash",
        choices=("hash", "minilm", "none"),
        help="for the similarity baseline and the gate's neighbours (default hash)",
    )
    ap.add_argument("--llm", metavar="URL", help="also run the gate with an LLM jury at this OpenAI-compatible URL")
    ap.add_argument("--llm-model", help="model name for --llm")
    ap.add_argument("--quick", action="store_true", help="5 held-out seeds, 3 tune seeds, 300 writes each")
    ap.add_argument("--no-gate", action="store_true", help="baselines only")
    ap.add_argument("--examples", type=int, default=3, help="misdecided gate writes shown per class (default 3)")
    ap.add_argument("--boot", type=int, default=2000, help="bootstrap resamples (default 2000)")
    ap.add_argument("--json", metavar="FILE", help="write every figure as JSON")
    args = ap.parse_args(argv)
    if args.quick:
        args.seeds = args.seeds if args.seeds != "100-119" else "100-104"
        args.tune_seeds = args.tune_seeds if args.tune_seeds != "0-9" else "0-2"
        args.writes = 300 if args.writes == 600 else args.writes
    from rich.console import Console
    from rich.progress import Progress

    console, t0 = Console(), time.perf_counter()
    embedder = make_embedder(args.embedder)
    jury = make_jury(args.llm, args.llm_model, 0) if args.llm else None
    with Progress(console=console, transient=True) as progress:
        tuned = tune(args, embedder, progress)
        res = evaluate(args, embedder, tuned["thresholds"], jury, progress)
    summ = summaries(res, args.boot)
    stats = stream_stats(res)
    print_report(console, args, tuned, res, summ, stats, GOALS)
    console.print(f"[dim]{time.perf_counter() - t0:.1f} s[/dim]")
    if args.json:
        write_json(args.json, _json(args, tuned, res, summ, stats), indent=1)
    return 0


def _json(args, tuned, res, summ, stats) -> dict:
    lat = np.array(res["latency_ms"]) if res["latency_ms"] else np.array([np.nan])
    return {
        "args": vars(args),
        "tuned": tuned,
        "stream": stats,
        "goals": GOALS,
        "gate_missing": res["gate_missing"],
        "gate_errors": res["errors"][:50],
        "latency_ms": {"p50": float(np.nanpercentile(lat, 50)), "p95": float(np.nanpercentile(lat, 95))},
        "methods": summ,
        "gate_failures": misdecided(res, 10) if "gate" in summ else {},
    }


if __name__ == "__main__":
    sys.exit(main())
