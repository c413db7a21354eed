"""Fits the consistency gate's posterior on the benchmark's tune seeds and checks its calibration.

Usage:  python -m benchmarks.gate_calibrate [--tune-seeds 0-9] [--seeds 100-119] [--writes 600]
            [--rounds 3] [--embedder hash|none] [--boot 2000]

The gate's ``P(true | evidence)`` is a prior log-odds plus one weighted term per piece of
evidence (``memory.gate_posterior``). Each decision records the terms' strengths; this script
runs the gate over the tune seeds' streams, pairs every write the gate read as meant (one
decision, not a hard contradiction) with the write's label, and fits the prior and the weights
by maximum likelihood (logistic regression, a small L2 penalty). What the gate holds depends on
what it decided, so the fit is repeated on streams run with the new weights (``--rounds``)
until the weights settle. It prints the weights (to ship as ``memory.gate_posterior.FITTED``),
a reliability table (predicted p in bins against the observed share of true claims, and the
Brier score) on the tune and the held-out seeds, and the decision figures with 95 % bootstrap
intervals over seeds: false claims admitted, true updates rejected, true claims held, F1 with
held claims counted as kept out (a false claim is the positive class), and the mean cost per
write under the gate's costs (a text the gate reads nothing from counts as rejected, as in the
benchmark). Labels are read here, to fit and to score; never by the gate.
"""

from __future__ import annotations

import argparse
import sys
import time

from benchmarks.gate.calibrate import fit, report, run_seeds
from benchmarks.lib.cli import seed_list
from memory import gate_posterior
from memory.gate_posterior import Costs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tune-seeds", default="0-9", help="seeds the weights are fitted on (default 0-9)")
    ap.add_argument("--seeds", default="100-119", help="held-out seeds reported (default 100-119)")
    ap.add_argument("--writes", type=int, default=600, help="writes per seed (default 600)")
    ap.add_argument("--rounds", type=int, default=3, help="fit, re-run, re-fit rounds (default 3)")
    ap.add_argument("--embedder", default="hash", choices=("hash", "none"), help="the gate's neighbours (hash)")
    ap.add_argument("--boot", type=int, default=2000, help="bootstrap resamples (default 2000)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    embedder = None
    if args.embedder != "none":
        from memory.embedder import get_embedder

        embedder = get_embedder(args.embedder)
    tune, held = seed_list(args.tune_seeds), seed_list(args.seeds)
    params = {k: v for k, v in gate_posterior.FITTED.items() if k != "jury"}
    for r in range(args.rounds):
        runs = run_seeds(tune, args.writes, embedder, params)
        params = fit(runs)
        n = sum(len(x["rows"]) for x in runs)
        print(f"round {r + 1}: {n} writes; " + ", ".join(f"{k} {v:+.3f}" for k, v in params.items()))
    costs = Costs()
    print("\nfitted (memory.gate_posterior.FITTED):")
    print("    " + ",\n    ".join(f'"{k}": {v:.3f}' for k, v in params.items()))
    print(f"costs: {costs.model_dump()}; cut points {gate_posterior.cut_points(costs)}")
    report(f"tune seeds {args.tune_seeds}", run_seeds(tune, args.writes, embedder, params), costs, args.boot)
    report(f"held-out seeds {args.seeds}", run_seeds(held, args.writes, embedder, params), costs, args.boot)
    print(f"\n{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
