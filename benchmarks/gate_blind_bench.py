"""Consistency gate on held-out material: the Sallowford world and a labelled stream in its own wording.

Usage:  python -m benchmarks.gate_blind_bench [--seeds 100-119] [--tune-seeds 0-9] [--writes 400]
            [--embedder hash|minilm|none] [--markdown PATH] [--json FILE] [--boot N]

The stream (``benchmarks/gate_blind/``) is generated from a seeded hidden truth over a lock town that
changes with time, sources with a hidden honesty and a told credibility, and claims written as free
text (see ``benchmarks/gate_blind/situations.py`` for the classes). The gate hears every write through
``gate.hear`` (observations through ``gate.observe``); two baselines get the intended claims: admit
everything, and a threshold on the told credibility tuned for kept-out F1 on the tune seeds.

Figures, with 95% bootstrap intervals over the held-out seeds: poison admitted, true updates
rejected, true claims held, traps admitted as corroboration, sentences with a claim read as no
claim, claims misread, sentences without a claim read as one, kept-out F1; per class and by wording.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from benchmarks.gate_blind.report import markdown, print_report
from benchmarks.gate_blind.run import WINDOWS, oracle_readings, run_gate, tune, tune_threshold
from benchmarks.gate_blind.score import by_wording, claim_outcomes, counts, per_class, summarize
from benchmarks.gate_blind.stream import generate
from benchmarks.lib.cli import seed_list, write_json
from benchmarks.lib.stats import auroc


def make_embedder(kind: str):
    if kind == "none":
        return None
    from memory.embedder import get_embedder

    return get_embedder(kind)


def evaluate(seeds, tune_seeds, n_writes, embedder, n_boot=2000, progress=print) -> dict:
    """Every figure on ``seeds``, the threshold tuned on ``tune_seeds`` first."""
    tuning = [generate(s, n_writes) for s in tune_seeds]
    threshold = tune_threshold(tuning) if tuning else 0.5
    obs_threshold, window = tune(tuning, WINDOWS) if tuning else (0.5, WINDOWS[-1])
    per = {"gate": [], "admit everything": [], "credibility threshold": [], "threshold + observations": []}
    writes, gate_readings, thr_readings, errors, seconds = [], [], [], [], 0.0
    for seed in seeds:
        stream = generate(seed, n_writes)
        run = run_gate(stream, embedder)
        thr = oracle_readings(stream, threshold)
        per["gate"].append(counts(stream.writes, run.readings))
        per["admit everything"].append(counts(stream.writes, oracle_readings(stream, None)))
        per["credibility threshold"].append(counts(stream.writes, thr))
        per["threshold + observations"].append(counts(stream.writes, oracle_readings(stream, obs_threshold, window)))
        writes += stream.writes
        gate_readings += run.readings
        thr_readings += thr
        errors += [f"seed {seed}: {e}" for e in run.errors]
        seconds += run.seconds
        progress(f"seed {seed}: {len(stream.writes)} writes, gate {run.seconds:.1f} s")
    methods = {m: summarize(np.stack(c), n_boot=n_boot) for m, c in per.items()}
    table = per_class(writes, gate_readings)
    result = {
        "seeds": _span(seeds),
        "tune_seeds": _span(tune_seeds),
        "writes": n_writes,
        "n_writes": len(writes),
        "n_claims": sum(len(w.claims) for w in writes),
        "false_share": _false_share(writes),
        "cred_auroc": auroc([w.cred for w in writes if w.label], [w.cred for w in writes if w.label is False]),
        "threshold": threshold,
        "obs_baseline": (obs_threshold, window),
        "gate_seconds": seconds,
        "methods": methods,
        "per_class": table,
        "per_class_threshold": per_class(writes, thr_readings),
        "wording": by_wording(writes, gate_readings),
        "errors": errors,
    }
    result["losses"] = losses(result)
    result["examples"] = examples(writes, gate_readings)
    return result


def _span(seeds) -> str:
    seeds = list(seeds)
    if len(seeds) < 2:
        return str(seeds[0]) if seeds else "none"
    return f"{seeds[0]}-{seeds[-1]}" if seeds == list(range(seeds[0], seeds[-1] + 1)) else ",".join(map(str, seeds))


def _false_share(writes) -> float:
    labels = [x for w in writes for x in w.labels]
    return float(np.mean([not x for x in labels])) if labels else float("nan")


def losses(result: dict) -> list[str]:
    """Plain sentences on where the gate does worse than the credibility threshold, and its weakest classes."""
    methods = result["methods"]
    rival = max((m for m in methods if m != "gate"), key=lambda m: np.nan_to_num(methods[m]["f1_kept_out"][0]))
    g, t = methods["gate"], methods[rival]
    out = [
        f"- The gate finds a claim in {100 * (1 - g['read_as_no_claim'][0]):.0f}% of the sentences that make one; "
        f"on the claims it reads as meant its kept-out F1 is {100 * g['f1_kept_out_read'][0]:.1f}%."
    ]
    short = {
        "f1_kept_out": "kept-out F1",
        "poison_admitted": "poison admitted",
        "updates_rejected": "true updates rejected",
    }
    for name, better in (("f1_kept_out", max), ("poison_admitted", min), ("updates_rejected", min)):
        if better(g[name][0], t[name][0]) != g[name][0] and g[name][0] != t[name][0]:
            out.append(f"- {short[name]}: gate {100 * g[name][0]:.1f}% against {rival}: {100 * t[name][0]:.1f}%.")
    table = result["per_class"]
    worst = sorted((r["false_admit"], c) for c, r in table.items() if r["false"] and not np.isnan(r["false_admit"]))
    if worst:
        out.append(
            "- Most false claims admitted: " + ", ".join(f"{c} {100 * v:.0f}%" for v, c in worst[::-1][:4]) + "."
        )
    unread = sorted(((r["unread"], c) for c, r in table.items() if not c.startswith("no-claim")), reverse=True)
    out.append("- Least read (no claim found): " + ", ".join(f"{c} {100 * v:.0f}%" for v, c in unread[:4]) + ".")
    traps = {c: r["corroborated"] for c, r in table.items() if r["corroborated"]}
    if traps:
        out.append("- Traps taken as corroboration: " + ", ".join(f"{c} {n}" for c, n in traps.items()) + ".")
    return out


def examples(writes, readings, per_class_n: int = 2) -> list[str]:
    """A few writes per class that the gate got wrong: a false claim admitted, a claim unread or misread."""
    shown: dict[str, int] = {}
    out = []
    for w, r in zip(writes, readings, strict=True):
        if shown.get(w.cls, 0) >= per_class_n:
            continue
        outcomes = claim_outcomes(w, r)
        wrong = (not w.claims and r) or any(
            (not label and o == "admit") or not meant for (o, meant), label in zip(outcomes, w.labels, strict=True)
        )
        if not wrong:
            continue
        shown[w.cls] = shown.get(w.cls, 0) + 1
        meant = "; ".join(f"{c.subject} {c.relation} {'' if c.truth else 'NOT '}{c.object}" for c in w.claims)
        read = "; ".join(f"{s} {rel} {'' if t else 'NOT '}{o} → {out}" for s, rel, o, t, out in r) or "nothing"
        label = "" if w.label is None else (" (true)" if w.label else " (false)")
        out.append(f"{w.cls}: “{w.text}” meant [{meant or 'no claim'}]{label}, read [{read}]")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=seed_list, default="100-119", help="held-out seeds (default 100-119)")
    ap.add_argument("--tune-seeds", type=seed_list, default="0-9", help="seeds the threshold is tuned on (0-9)")
    ap.add_argument("--writes", type=int, default=400, help="writes per seed (default 400)")
    ap.add_argument("--embedder", default="hash", choices=("hash", "minilm", "none"), help="the gate's embedder")
    ap.add_argument("--markdown", metavar="PATH", help="write the Markdown page here")
    ap.add_argument("--json", metavar="FILE", help="write every figure as JSON")
    ap.add_argument("--boot", type=int, default=2000, help="bootstrap resamples (default 2000)")
    args = ap.parse_args(argv)
    if not args.seeds:
        ap.error("--seeds: give at least one seed")
    if not 20 <= args.writes <= 20000:
        ap.error(f"--writes: {args.writes} is outside 20..20000")
    t0 = time.perf_counter()
    result = evaluate(
        args.seeds,
        args.tune_seeds,
        args.writes,
        make_embedder(args.embedder),
        args.boot,
        lambda m: print(m, file=sys.stderr),
    )
    print_report(result)
    print(f"\n({time.perf_counter() - t0:.0f} s)")
    if args.markdown:
        Path(args.markdown).write_text(markdown(result), encoding="utf-8")
    if args.json:
        write_json(args.json, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
