"""How tournament backends scale: the same round robin run by ``local``, ``processes`` and ``ray``.

Usage:  python -m benchmarks.tournament_scaling [--scenes 150] [--workers 2] [--repeats 3]
            [--backends local processes ray] [--json FILE]

The tournament: every rule-based negotiator kind with default parameters plus the opponent-model
variants of boulware, linear and tit-for-tat (10 competitors), on ``--scenes`` generated scenes
(seed 11, deadline 20), every ordered pair with both openers: ``90 × 2 × scenes`` matches. Each
backend runs it ``--repeats`` times into a fresh folder through ``game.tournament.runner.run``
(results written and fsynced, as in a real run; no report); the median wall time is reported.

Figures: matches/s, speed-up over ``local`` (the goal for 2 workers is >= 1.8x), and Ray's
overhead per match over the process pool (``(T_ray - T_processes) / matches``; it includes
starting and stopping the local Ray cluster, which a long tournament pays once). Rows are checked
to be identical across backends (apart from ``wall_time``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.lib.cli import write_json
from game.tournament.config import parse_config
from game.tournament.runner import plan, run

KINDS = ("boulware", "linear", "conceder", "hardliner", "tit_for_tat", "aspiration", "random")
MODELLED = ("boulware", "linear", "tit_for_tat")


def config(scenes: int) -> dict:
    comps = [{"name": k, "agent": k} for k in KINDS]
    comps += [{"name": f"{k}+om", "agent": k, "params": {"opponent_model": True}} for k in MODELLED]
    return {
        "name": "scaling",
        "kind": "negotiation",
        "competitors": comps,
        "scenarios": [{"generate": scenes, "seed": 11, "deadline": 20}],
    }


def digest(folder: Path) -> str:
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    for r in rows:
        r.pop("wall_time")
    rows.sort(key=lambda r: r["id"])
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()[:16]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--scenes", type=int, default=150, help="generated scenes (default 150)")
    ap.add_argument("--workers", type=int, default=2, help="workers for processes and ray (default 2)")
    ap.add_argument("--repeats", type=int, default=3, help="runs per backend; the median is reported (default 3)")
    ap.add_argument(
        "--backends", nargs="+", default=["local", "processes", "ray"], choices=("local", "processes", "ray")
    )
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = ap.parse_args(argv)
    if args.scenes < 1 or args.workers < 1 or args.repeats < 1:
        ap.error("--scenes, --workers and --repeats must be at least 1")
    cfg = parse_config(config(args.scenes))
    base = Path(tempfile.mkdtemp(prefix="parley-scaling-"))
    times: dict[str, list[float]] = {}
    digests: dict[str, str] = {}
    n = 0
    try:
        for rep in range(args.repeats):
            for backend in args.backends:
                if backend == "ray":
                    try:
                        import ray  # noqa: F401
                    except ImportError:
                        print("ray is not installed (pip install 'parley-engine[scale]'); skipping it", file=sys.stderr)
                        continue
                out = base / f"{backend}-{rep}"
                p = plan(cfg, Path.cwd())
                n = len(p.matches)
                workers = 1 if backend == "local" else args.workers
                t = time.perf_counter()
                run(p, out, backend=backend, workers=workers)
                times.setdefault(backend, []).append(time.perf_counter() - t)
                digests[backend] = digest(out)
                shutil.rmtree(out)
                print(f"  {backend:9s} run {rep + 1}: {times[backend][-1]:.2f} s", file=sys.stderr)
    finally:
        shutil.rmtree(base, ignore_errors=True)
    med = {b: statistics.median(v) for b, v in times.items()}
    print(
        f"\n{n:,} negotiations ({args.scenes} scenes x 90 ordered pairs x 2 openers), "
        f"{args.workers} workers, median of {args.repeats}"
    )
    print(f"{'backend':10s} {'seconds':>8s} {'matches/s':>10s} {'speed-up':>9s}")
    for b, s in med.items():
        up = med["local"] / s if "local" in med else float("nan")
        print(f"{b:10s} {s:8.2f} {n / s:10,.0f} {up:8.2f}x")
    if "ray" in med and "processes" in med:
        print(
            f"ray overhead over the process pool: {(med['ray'] - med['processes']) / n * 1e6:,.0f} µs per match "
            f"({med['ray'] - med['processes']:.2f} s in all, cluster start and stop included)"
        )
    same = len(set(digests.values())) == 1
    print(f"identical rows across backends: {'yes' if same else 'NO'} ({', '.join(sorted(set(digests.values())))})")
    if args.json:
        write_json(
            args.json,
            {"matches": n, "workers": args.workers, "median_seconds": med, "all_seconds": times, "identical": same},
            indent=1,
        )
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
