"""Simple baselines of the gate benchmark against the gate: "verified first" (admit what an
observation supports, reject what a fresh one contradicts, decide the rest by credibility) and the
hold band on a finer grid than the benchmark's, both tuned on the tune seeds for the least cost per
write, reported on the held-out seeds with bootstrap intervals and paired against the gate.

    python -m benchmarks.gate_verified_first [--tune-seeds 0-9] [--seeds 100-119] [--writes 600] [--no-gate]
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from benchmarks.gate.baselines import HoldBand, run_simple
from benchmarks.gate.metrics import counts, paired_difference, summarize, write_info
from benchmarks.gate.stream import generate
from benchmarks.gate.tuning import BASELINES, _search
from benchmarks.gate.verified_first import GRID, SEEN_ONLY, VerifiedFirst
from benchmarks.lib.cli import seed_list

HOLD_BAND = "hold band (oracle ids)"
FINE_HOLD_BAND = {
    "news_below": [0.7, 0.75, 0.775, 0.8, 0.825, 0.85, 0.9, 0.95],
    "news_reject": [0.0, 0.2, 0.35],
    "fresh": [0.0, 0.25, 0.5, 1.0],
    "margin": [-0.3, -0.2, -0.15, -0.1, -0.05, 0.0, 0.1],
    "reject_below": [0.0, 0.3],
}
FIGURES = ("cost", "f1_kept_out", "poison_admitted", "true_rejected", "true_held")


def tune(streams) -> dict[str, tuple]:
    """name -> (factory, params, pooled tune cost)."""
    labels = [[w.label for w in st.writes] for st in streams]
    specs = {
        "verified first": (VerifiedFirst, GRID),
        HOLD_BAND: (HoldBand, BASELINES[HOLD_BAND][1]),
        "hold band, finer grid": (HoldBand, FINE_HOLD_BAND),
    }
    out = {}
    for name, (make, grid) in specs.items():
        best = _search(grid, lambda p, make=make: [run_simple(st.events, make(**p)) for st in streams], labels)
        out[name] = (make, best["params"], best["cost"])
    seen = [run_simple(st.events, VerifiedFirst(**SEEN_ONLY)) for st in streams]
    out["seen only (untuned)"] = (VerifiedFirst, SEEN_ONLY, _search({}, lambda p: seen, labels)["cost"])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.gate_verified_first", description=__doc__.split("\n")[0])
    ap.add_argument("--tune-seeds", default="0-9")
    ap.add_argument("--seeds", default="100-119")
    ap.add_argument("--writes", type=int, default=600)
    ap.add_argument("--no-gate", action="store_true", help="leave the gate out (baselines only)")
    ap.add_argument("--boot", type=int, default=2000)
    a = ap.parse_args(argv)
    t0 = time.perf_counter()
    tuned = tune([generate(s, a.writes) for s in seed_list(a.tune_seeds)])
    print(f"tuned on seeds {a.tune_seeds} ({time.perf_counter() - t0:.0f} s):")
    for name, (_, params, cost) in tuned.items():
        print(f"  {name}: {params}  tune cost {cost:.4f}")
    per: dict[str, list[np.ndarray]] = {name: [] for name in tuned}
    if not a.no_gate:
        from benchmarks.gate.run import run_gate
        from memory.embedder import get_embedder

        per["gate"] = []
        emb = get_embedder("hash")
    for seed in seed_list(a.seeds):
        stream = generate(seed, a.writes)
        info = write_info(stream)
        for name, (make, params, _) in tuned.items():
            per[name].append(counts(info, run_simple(stream.events, make(**params))))
        if not a.no_gate:
            per["gate"].append(counts(info, run_gate(stream, emb).outcomes))
    rng = np.random.default_rng(0)
    print(f"\nheld-out seeds {a.seeds} ({time.perf_counter() - t0:.0f} s); 95% bootstrap intervals over seeds")
    print(f"{'method':28} " + " ".join(f"{f:>26}" for f in FIGURES))
    for name, rows in per.items():
        s = summarize(np.stack(rows), rng, a.boot)
        print(f"{name:28} " + " ".join(f"{s[f][0]:8.3f} [{s[f][1]:.3f}, {s[f][2]:.3f}]" for f in FIGURES))
    if "gate" in per:
        print("\nbaseline minus gate (paired over seeds): cost per write, F1 kept out")
        for name in tuned:
            d = paired_difference(np.stack(per[name]), np.stack(per["gate"]), ("cost", "f1_kept_out"), rng, a.boot)
            print(f"  {name:28} " + "  ".join(f"{k} {v[0]:+.3f} [{v[1]:+.3f}, {v[2]:+.3f}]" for k, v in d.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
