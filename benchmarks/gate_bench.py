"""Consistency-gate benchmark: a labelled stream of world-fact claims, written from a simulated world.

Usage:  python -m benchmarks.gate_bench [--seeds 100-119] [--tune-seeds 0-9] [--oracle-seeds 1000-1079]
            [--curve-seeds 0-3] [--writes 600] [--embedder hash|minilm|none] [--llm URL [--llm-model NAME]]
            [--quick] [--json FILE] [--page docs/benchmarks/gate_bench.md] [--plot docs/benchmarks/gate_tradeoff.png]

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
collusion, corroboration, sybil, repeat. About half of every class but
paraphrase (all text) arrives as text through ``gate.hear``; a text from which
nothing is extracted scores as "none". About one event in ten is a verified
observation (``gate.observe``).

The gate's lexicon comes from the world file ``benchmarks/gate/world/world.toml``
alone (``game.world.loader`` and ``Lexicon.from_spec``, as a game builds it): the
stream words its claims in more ways than the file declares, and writes whose
wording it does not declare are reported apart.

Methods on the same events: the gate (rule judge; with ``--llm`` also the gate
with an LLM jury), the credibility contest on exact strings and on oracle ids,
reject-any-contradiction, trust-the-source, the hold band (a contest with a hold
tier), hold-everything and embedding similarity -- every baseline tuned on the
tune seeds for the least cost per write (``benchmarks/gate/costs.py``,
``benchmarks/gate/tuning.py``) -- and an oracle bound: the cost-optimal decision
from P(true | the evidence a gate could observe), fitted on the oracle seeds
(``benchmarks/gate/oracle.py``).

Figures (positive = false claim, predicted positive = rejected): cost per write
and its parts, kept-out F1 (quarantine counts as rejection) and strict F1, per
class, per credibility band, the gate minus each method paired over seeds, and
trade-off curves (``benchmarks/gate/tradeoff.py``) on a subset of the tune seeds.
95 % bootstrap intervals resample the held-out seeds. Parameters are fixed on
the tune seeds before the held-out seeds are generated.
Goals: F1 >= 0.9 over all classes (no LLM), >= 0.95 on structured writes,
poison admitted <= 5 %, true updates rejected <= 5 %.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

from benchmarks.gate.baselines import SimilarityTable
from benchmarks.gate.metrics import counts, paired_difference, per_class, subset, summarize, write_info
from benchmarks.gate.oracle import OracleBound, observable
from benchmarks.gate.report import misdecided, print_report
from benchmarks.gate.run import gate_available, run_gate, world_lexicon
from benchmarks.gate.stream import generate
from benchmarks.gate.tuning import outcomes as baseline_outcomes
from benchmarks.gate.tuning import tune as tune_baselines
from benchmarks.gate.wording import declared_mask
from benchmarks.lib.cli import seed_list, write_json

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ORACLE = "oracle bound (observable evidence, generative model)"

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


def half_lives() -> dict[str, float]:
    """The world's change rates, as its world file declares them."""
    return {r: i.half_life for r, i in world_lexicon().relations.items() if i.changes}


def tune(args, embedder, progress) -> dict:
    """Every baseline's parameters, for the least cost on the tune seeds (fixed before held-out)."""
    seeds = seed_list(args.tune_seeds)
    task = progress.add_task("tuning the baselines", total=len(seeds) + 1)
    streams, tables = [], []
    for s in seeds:
        streams.append(generate(s, args.writes))
        if embedder is not None:
            tables.append(SimilarityTable(streams[-1].events, embedder))
        progress.advance(task)
    tuned = tune_baselines(streams, tables or None)
    progress.advance(task)
    return {"seeds": seeds, "baselines": tuned}


def fit_oracle(args, progress) -> OracleBound | None:
    if args.no_oracle:
        return None
    seeds = seed_list(args.oracle_seeds)
    task = progress.add_task("fitting the oracle bound", total=1)
    oracle = OracleBound(half_lives()).fit([generate(s, args.writes) for s in seeds])
    progress.advance(task)
    return oracle


def evaluate(args, embedder, tuned, oracle, jury, progress) -> dict:
    seeds = seed_list(args.seeds)
    why = gate_available() if not args.no_gate else "--no-gate"
    res: dict = {
        "seeds": seeds,
        "infos": [],
        "streams": [],
        "outcomes": {},
        "finals": {},
        "counts": {},
        "wording": {},
        "gate_runs": [],
        "gate_missing": why,
        "latency_ms": [],
        "observe_ms": [],
        "errors": [],
    }
    lexicon = world_lexicon()
    task = progress.add_task("held-out seeds", total=len(seeds))
    for s in seeds:
        stream = generate(s, args.writes)
        info = write_info(stream)
        info["declared"] = declared_mask(stream, lexicon)
        res["infos"].append(info)
        res["streams"].append(stream)
        table = SimilarityTable(stream.events, embedder) if embedder is not None else None
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
        if oracle is not None:
            _add(res, ORACLE, info, oracle.decide(observable(stream)), None, None)
        for name, outs in baseline_outcomes(stream, table, tuned["baselines"]).items():
            _add(res, name, info, outs, None, None)
        progress.advance(task)
    return res


def _add(res, name, info, outcomes, finals, parsed) -> None:
    res["outcomes"].setdefault(name, []).append(outcomes)
    res["finals"].setdefault(name, []).append(finals)
    res.setdefault("parsed", {}).setdefault(name, []).append(parsed)
    res["counts"].setdefault(name, []).append(counts(info, outcomes, finals, parsed))
    out = np.asarray(outcomes, dtype=object)
    for key, mask in (("declared", info["declared"]), ("undeclared", ~info["declared"])):
        par = None if parsed is None else np.asarray(parsed, dtype=object)[mask]
        c = counts(subset(info, mask), out[mask], None, par)
        res["wording"].setdefault(name, {}).setdefault(key, []).append(c)


def summaries(res, boot: int) -> dict:
    rng = np.random.default_rng(20240)
    out = {}
    for name, per_seed in res["counts"].items():
        m = summarize(np.array(per_seed), rng, boot)
        if res["finals"][name][0] is None:
            m["final_poison_in_memory"] = m["final_true_missing"] = [float("nan")] * 3
        parsed = res["parsed"][name] if res["parsed"][name][0] is not None else None
        out[name] = {"metrics": m, "per_class": per_class(res["infos"], res["outcomes"][name], parsed)}
        out[name]["wording"] = {
            k: summarize(np.array(v), rng, boot) for k, v in res["wording"][name].items() if np.array(v)[:, 0].sum()
        }
    return out


def differences(res, tuned, boot: int) -> dict:
    """The gate minus each tuned baseline (and minus the oracle bound), paired over held-out seeds."""
    if "gate" not in res["counts"]:
        return {}
    rng = np.random.default_rng(20241)
    gate = np.array(res["counts"]["gate"])
    names = ("cost", "f1_kept_out", "poison_admitted", "true_rejected", "true_held")
    out = {}
    for name in res["counts"]:
        if name != "gate":
            out[name] = paired_difference(gate, np.array(res["counts"][name]), names, rng, boot)
    tune_cost = {k: v["cost"] for k, v in tuned["baselines"].items() if k != "hold all"}
    best = min(tune_cost, key=tune_cost.get)
    return {"by_method": out, "best_baseline": best}


def stream_stats(res) -> dict:
    ws = [w for st in res["streams"] for w in st.writes]
    obs = sum(len(st.events) - len(st.writes) for st in res["streams"])
    by = lambda f: {k: sum(1 for w in ws if f(w) == k) for k in sorted({f(w) for w in ws})}
    declared = np.concatenate([i["declared"] for i in res["infos"]]) if res["infos"] else np.zeros(0, bool)
    return {
        "writes": len(ws),
        "declared": int(declared.sum()),
        "undeclared_by_class": dict(Counter(w.cls for w, d in zip(ws, declared) if not d).most_common()),
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


def curves(args, embedder, tuned, oracle, progress) -> dict:
    """The trade-off curves on a subset of the tune seeds (``--curve-seeds``)."""
    if args.no_curve:
        return {}
    from benchmarks.gate.tradeoff import HOLD_BAND, gate_curve, hold_band_curve, oracle_curve

    task = progress.add_task("trade-off curves", total=3)
    streams = [generate(s, args.writes) for s in seed_list(args.curve_seeds)]
    out = {}
    if not gate_available() and not args.no_gate:
        out["gate"] = gate_curve(streams, embedder)
    progress.advance(task)
    band = hold_band_curve(streams)
    for r in band:
        r["tuned"] = r["params"] == tuned["baselines"][HOLD_BAND]["params"]
    out[HOLD_BAND] = band
    progress.advance(task)
    if oracle is not None:
        out["oracle bound"] = oracle_curve(oracle, streams)
    progress.advance(task)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seeds", default="100-119", help="held-out seeds, e.g. 100-119 or 100,105 (default 100-119)")
    ap.add_argument("--tune-seeds", default="0-9", help="seeds every baseline is tuned on (default 0-9)")
    ap.add_argument(
        "--oracle-seeds", default="1000-1079", help="seeds the oracle bound's model is fitted on (default 1000-1079)"
    )
    ap.add_argument("--curve-seeds", default="0-3", help="tune seeds the trade-off curves run on (default 0-3)")
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
    ap.add_argument("--no-oracle", action="store_true", help="leave out the oracle bound")
    ap.add_argument("--no-curve", action="store_true", help="leave out the trade-off curves")
    ap.add_argument("--examples", type=int, default=3, help="misdecided gate writes shown per class (default 3)")
    ap.add_argument("--boot", type=int, default=2000, help="bootstrap resamples (default 2000)")
    ap.add_argument("--json", metavar="FILE", help="write every figure as JSON")
    ap.add_argument("--page", metavar="FILE", help="write the Markdown page (docs/benchmarks/gate_bench.md)")
    ap.add_argument("--plot", metavar="FILE", help="draw the trade-off curves (docs/benchmarks/gate_tradeoff.png)")
    args = ap.parse_args(argv)
    if args.quick:
        args.seeds = args.seeds if args.seeds != "100-119" else "100-104"
        args.tune_seeds = args.tune_seeds if args.tune_seeds != "0-9" else "0-2"
        args.oracle_seeds = args.oracle_seeds if args.oracle_seeds != "1000-1079" else "1000-1009"
        args.curve_seeds = args.curve_seeds if args.curve_seeds != "0-3" else "0-1"
        args.writes = 300 if args.writes == 600 else args.writes
    from rich.console import Console
    from rich.progress import Progress

    console, t0 = Console(), time.perf_counter()
    embedder = make_embedder(args.embedder)
    jury = make_jury(args.llm, args.llm_model, 0) if args.llm else None
    with Progress(console=console, transient=True) as progress:
        tuned = tune(args, embedder, progress)
        oracle = fit_oracle(args, progress)
        res = evaluate(args, embedder, tuned, oracle, jury, progress)
        curve = curves(args, embedder, tuned, oracle, progress)
    summ = summaries(res, args.boot)
    diffs = differences(res, tuned, args.boot)
    stats = stream_stats(res)
    seconds = time.perf_counter() - t0
    print_report(console, args, tuned, res, summ, stats, GOALS, diffs, curve)
    console.print(f"[dim]{seconds:.1f} s[/dim]")
    if args.plot and curve:
        from benchmarks.gate.tradeoff import plot

        plot(curve, args.plot, f"Trade-off on tune seeds {args.curve_seeds}, {args.writes} writes each")
    if args.page:
        from benchmarks.gate.page import page

        Path(args.page).write_text(page(args, tuned, summ, stats, diffs, curve, seconds), encoding="utf-8")
    if args.json:
        write_json(args.json, _json(args, tuned, res, summ, stats, diffs, curve), indent=1)
    return 0


def _json(args, tuned, res, summ, stats, diffs, curve) -> dict:
    lat = np.array(res["latency_ms"]) if res["latency_ms"] else np.array([np.nan])
    return {
        "args": vars(args),
        "tuned": {k: {"params": v["params"], "cost": v["cost"]} for k, v in tuned["baselines"].items()},
        "tune_seeds": tuned["seeds"],
        "stream": stats,
        "goals": GOALS,
        "gate_missing": res["gate_missing"],
        "gate_errors": res["errors"][:50],
        "latency_ms": {"p50": float(np.nanpercentile(lat, 50)), "p95": float(np.nanpercentile(lat, 95))},
        "methods": summ,
        "differences": diffs,
        "tradeoff": {
            k: [r for r in rows if k != "hold band (oracle ids)" or r["frontier"]] for k, rows in curve.items()
        },
        "gate_failures": misdecided(res, 10) if "gate" in summ else {},
    }


if __name__ == "__main__":
    sys.exit(main())
