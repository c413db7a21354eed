"""Council debates with masked working memory on hidden-profile tasks.

Every mode (``none``, ``window``, ``dedupe``, ``memo``, ``objective``) debates the same generated
hidden-profile tasks with the same scripted debaters, seeds and token budget. Reported per mode:
decision accuracy (95% bootstrap CI), rounds, redundancy, effective-turn ratio, context tokens per
member per turn, and the share of the stated evidence members still know of at the vote. Then the
paired accuracy differences memo - none and memo - window (same tasks, same seeds) with 95%
bootstrap CIs, two ablations (memo without the long-term summary, none with it), the stop rule
(crux guard on/off), and sweeps of memo's controversy weight, of how many statements it keeps and of
the token budget (none, dedupe and memo at 100-300 tokens).

The debaters' and maskers' parameters are FIXED below. They were chosen with ``--tune`` on the
tune seeds (0-99); the tables come from the held-out seeds (1000-1299), which were never used to
choose anything.

    python -m benchmarks.council_bench             # held-out 1000-1299 (~1-2 min on 2 cores)
    python -m benchmarks.council_bench --quick     # 100 held-out tasks, smaller sweeps
    python -m benchmarks.council_bench --tune      # the grid on the tune seeds that fixed the parameters
    python -m benchmarks.council_bench --json      # results as JSON
    python -m benchmarks.council_bench --plot flow.png   # viewpoint flow of one held-out debate
    python -m benchmarks.council_bench --llm URL --model NAME --llm-tasks 30
        # LLM members on the first 30 held-out tasks: none, window, dedupe, memo, subjective
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.lib.stats import mean_ci, paired_ci
from game.council.context import MaskingConfig
from game.council.debaters import DebaterConfig
from game.council.session import CouncilConfig
from game.council.tasks import hidden_profile_task
from game.play.debates import run_debate

TUNE_SEEDS = range(100)
HELD_OUT = range(1000, 1300)
QUICK_HELD_OUT = range(1000, 1100)
BUDGET = 200  # context tokens for every mode (anchors and summary included)
# FIXED before the held-out run, picked by --tune on TUNE_SEEDS under two stop rules (this benchmark's,
# and stopping on stance variance only, where debates run longer; a point scores its mean over both):
# window k in 2..12 -> 6 (6, 8 and 12 tied on the tasks of the first seeding; on the seed tree's tasks
# 8 and 12 score 0.665 against 0.640, and memo's redundancy 0.9 scores 0.930 against 0.920 at 0.8:
# left as fixed, not re-tuned after seeing the held-out figures); memo controversy x
# novelty x redundancy -> novelty 1.0 (0.895 against 0.865 at 0.5 and 0.835 at 0.25: with longer debates
# the first mentions of evidence must outrank fresh talk); controversy (0.1 or 0.3) and the redundancy
# threshold change nothing, since memo masks restated evidence by the item it cites (same_evidence);
# kept at 0.3 and 0.8, the threshold the design names
WINDOW = 6
MEMO = {"controversy_weight": 0.3, "novelty_weight": 1.0, "redundancy": 0.8}
COUNCIL = CouncilConfig(
    max_rounds=10,
    speaker_policy="fixed",
    consensus="either",
    variance_threshold=0.01,
    stable_rounds=3,
    crux_guard=True,
    stalemate_breaker=True,
)
VARIANCE_STOP = COUNCIL.model_copy(update={"consensus": "variance"})  # stops on low stance variance only
DEBATER = DebaterConfig()  # defaults, never tuned
MODES: dict[str, MaskingConfig] = {
    "none": MaskingConfig(mode="none", budget=BUDGET),
    "window": MaskingConfig(mode="window", budget=BUDGET, window=WINDOW),
    "dedupe": MaskingConfig(mode="dedupe", budget=BUDGET),  # the simple baseline: first mentions only
    "memo": MaskingConfig(mode="memo", budget=BUDGET, **MEMO),
    "objective": MaskingConfig(mode="objective", budget=BUDGET),
}
ABLATIONS: dict[str, tuple[MaskingConfig, CouncilConfig]] = {
    "memo, no long-term summary": (MODES["memo"].model_copy(update={"long_term": False}), COUNCIL),
    "none + long-term summary": (MODES["none"].model_copy(update={"long_term": True}), COUNCIL),
    "none, no crux guard": (MODES["none"], COUNCIL.model_copy(update={"crux_guard": False})),
    "memo, no crux guard": (MODES["memo"], COUNCIL.model_copy(update={"crux_guard": False})),
    "memo, repeats by wording only (no evidence identity)": (
        MODES["memo"].model_copy(update={"same_evidence": False}),
        COUNCIL,
    ),
    "none, unbounded budget": (MODES["none"].model_copy(update={"budget": 100_000}), COUNCIL),
    "none, stop on stance variance only": (MODES["none"], VARIANCE_STOP),
    "dedupe, stop on stance variance only": (MODES["dedupe"], VARIANCE_STOP),
    "memo, stop on stance variance only": (MODES["memo"], VARIANCE_STOP),
}
FIELDS = (
    "correct",
    "rounds",
    "redundancy",
    "redundancy_max",
    "self_redundancy",
    "effective_ratio",
    "tokens_per_member_round",
    "recall",
    "interventions",
)


def _one(job: tuple[int, dict[str, Any], dict[str, Any]]) -> dict[str, float]:
    seed, masking, council = job
    _, m = run_debate(
        hidden_profile_task(seed),
        CouncilConfig(**{**council, "seed": seed}),
        MaskingConfig(**masking),
        debater_config=DEBATER,
    )
    assert m is not None
    return {f: float(getattr(m, f) or 0.0) for f in FIELDS}


def run_many(
    configs: dict[str, tuple[MaskingConfig, CouncilConfig]], seeds: range, workers: int, label: str = "debates"
) -> dict[str, dict[str, np.ndarray]]:
    """Every config on every seed; {name: {field: array over seeds}} (seed order kept)."""
    jobs = [(s, mc.model_dump(), cc.model_dump()) for mc, cc in configs.values() for s in seeds]
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    rows: list[dict[str, float]] = []
    with Progress(
        TextColumn(f"[bold]{label}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=True,
        console=_console(),
    ) as bar:
        task = bar.add_task(label, total=len(jobs))
        if workers > 1:
            with ProcessPoolExecutor(workers) as pool:
                for row in pool.map(_one, jobs, chunksize=16):
                    rows.append(row)
                    bar.advance(task)
        else:
            for job in jobs:
                rows.append(_one(job))
                bar.advance(task)
    n = len(seeds)
    out = {}
    for k, name in enumerate(configs):
        chunk = rows[k * n : (k + 1) * n]
        out[name] = {f: np.array([r[f] for r in chunk]) for f in FIELDS}
    return out


def _console():
    from rich.console import Console

    return Console(stderr=True)


BOOT = 4000  # bootstrap resamples over tasks


def summary(res: dict[str, dict[str, np.ndarray]]) -> dict[str, dict[str, Any]]:
    out = {}
    for name, r in res.items():
        acc, lo, hi = mean_ci(r["correct"], n_resamples=BOOT, seed=0)
        out[name] = {"accuracy": acc, "ci": [lo, hi], **{f: float(r[f].mean()) for f in FIELDS if f != "correct"}}
    return out


def paired(res: dict[str, dict[str, np.ndarray]], a: str, b: str) -> dict[str, float]:
    d, lo, hi = paired_ci(res[a]["correct"], res[b]["correct"], n_resamples=BOOT, seed=1)
    return {"diff": d, "lo": lo, "hi": hi}


def tune(workers: int) -> dict[str, Any]:
    """The grid that fixed WINDOW and MEMO, on the tune seeds only, under both stop rules (the
    benchmark's, and stopping only on low stance variance, where debates run longer); a point's
    score is its mean over the two."""
    configs: dict[str, tuple[MaskingConfig, CouncilConfig]] = {}
    rules = {"": COUNCIL, " variance": VARIANCE_STOP}
    for (tag, rule), k in itertools.product(rules.items(), (2, 3, 4, 6, 8, 12)):
        configs[f"window k={k}{tag}"] = (MaskingConfig(mode="window", budget=BUDGET, window=k), rule)
    for (tag, rule), cw, nw, rd in itertools.product(rules.items(), (0.1, 0.3, 1.0), (0.25, 0.5, 1.0), (0.7, 0.8, 0.9)):
        configs[f"memo cw={cw} nw={nw} red={rd}{tag}"] = (
            MaskingConfig(
                mode="memo", budget=BUDGET, controversy_weight=cw, novelty_weight=nw, redundancy=rd, soft=min(0.7, rd)
            ),
            rule,
        )
    res = run_many(configs, TUNE_SEEDS, workers, "tuning")
    acc = {name: float(r["correct"].mean()) for name, r in res.items()}
    return {name: (acc[name] + acc[f"{name} variance"]) / 2 for name in acc if not name.endswith(" variance")}


def sweeps(seeds: range, workers: int, quick: bool) -> dict[str, dict[str, dict[str, Any]]]:
    cws = (0.0, 0.3, 1.0, 3.0) if quick else (0.0, 0.1, 0.3, 1.0, 3.0, 10.0)
    keeps = (1, 2, 4, None) if quick else (1, 2, 3, 4, 6, None)
    cfg_c = {f"controversy {w}": (MODES["memo"].model_copy(update={"controversy_weight": w}), COUNCIL) for w in cws}
    cfg_k = {f"keep {k or 'all'}": (MODES["memo"].model_copy(update={"max_items": k}), COUNCIL) for k in keeps}
    budgets = (100, 150, 300) if quick else (100, 120, 150, 300)
    cfg_b = {
        f"{mode} @ {b}": (MODES[mode].model_copy(update={"budget": b}), COUNCIL)
        for b in budgets
        for mode in ("none", "dedupe", "memo")
    }
    res = run_many({**cfg_c, **cfg_k, **cfg_b}, seeds, workers, "sweeps")
    s = summary(res)
    return {
        "controversy": {k: s[k] for k in cfg_c},
        "keep": {k: s[k] for k in cfg_k},
        "budget": {k: s[k] for k in cfg_b},
        "budget_paired": {f"memo - dedupe @ {b}": paired(res, f"memo @ {b}", f"dedupe @ {b}") for b in budgets},
    }


def plot(path: str, seed: int) -> list[str]:
    from game.cli.plots import plot_flow

    out = []
    for mode in ("memo", "none"):
        _, m = run_debate(
            hidden_profile_task(seed), COUNCIL.model_copy(update={"seed": seed}), MODES[mode], debater_config=DEBATER
        )
        assert m is not None
        p = Path(path)
        target = p if mode == "memo" else p.with_name(f"{p.stem}-none{p.suffix}")
        verdict = "right" if m.correct else "wrong"
        plot_flow(m.flow, target, title=f"task {seed}, {mode}: {m.rounds} rounds, decision {verdict}")
        out.append(str(target))
    return out


def print_tables(report: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    con = Console(width=160)
    con.print(
        f"held-out seeds {report['seeds']} ({report['n']} tasks); parameters fixed on tune seeds "
        f"{report['tune_seeds']}; budget {BUDGET} tokens; window k={WINDOW}; memo {MEMO}"
    )

    def table(title: str, rows: dict[str, dict[str, Any]]) -> None:
        t = Table(title=title)
        for col in (
            "mode",
            "accuracy [95% CI]",
            "rounds",
            "redund.",
            "redund. max",
            "self redund.",
            "effective",
            "ctx tokens",
            "recall",
        ):
            t.add_column(col, justify="right" if col != "mode" else "left")
        for name, r in rows.items():
            t.add_row(
                name,
                f"{r['accuracy']:.3f} [{r['ci'][0]:.3f}, {r['ci'][1]:.3f}]",
                f"{r['rounds']:.2f}",
                f"{r['redundancy']:.3f}",
                f"{r['redundancy_max']:.3f}",
                f"{r['self_redundancy']:.3f}",
                f"{r['effective_ratio']:.3f}",
                f"{r['tokens_per_member_round']:.0f}",
                f"{r['recall']:.3f}",
            )
        con.print(t)

    table("Masking modes, same budget, held-out tasks", report["modes"])
    for k, v in report["paired"].items():
        con.print(f"paired accuracy {k}: {v['diff']:+.3f}  95% CI [{v['lo']:+.3f}, {v['hi']:+.3f}]")
    if "ablations" in report:
        table("Ablations and the stop rule", report["ablations"])
    if "sweeps" in report:
        table("Sweep: memo's controversy weight", report["sweeps"]["controversy"])
        table("Sweep: how many statements memo keeps (max_items)", report["sweeps"]["keep"])
        table("Sweep: the token budget (every mode gets the same)", report["sweeps"]["budget"])
        for k, v in report["sweeps"]["budget_paired"].items():
            con.print(f"paired accuracy {k}: {v['diff']:+.3f}  95% CI [{v['lo']:+.3f}, {v['hi']:+.3f}]")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="100 held-out tasks and smaller sweeps")
    ap.add_argument("--tune", action="store_true", help="run the tuning grid on the tune seeds and stop")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    ap.add_argument("--plot", metavar="FILE", help="viewpoint flow of one held-out debate (memo; and none)")
    ap.add_argument("--no-sweeps", action="store_true")
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument(
        "--llm",
        metavar="URL",
        help="LLM members through this OpenAI-compatible endpoint "
        "(key from $OPENAI_API_KEY) instead of the scripted ones",
    )
    ap.add_argument("--model", help="the model for --llm (default $PARLEY_MODEL, else gpt-4o-mini)")
    ap.add_argument("--llm-tasks", type=int, default=30, metavar="N", help="held-out tasks for --llm (default 30)")
    ap.add_argument("--llm-cache", metavar="DIR", help="cache LLM replies here (a re-run makes no requests)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    if args.llm:
        return llm_main(args, t0)
    if args.tune:
        res = tune(args.workers)
        print(json.dumps(res, indent=1) if args.json else "\n".join(f"{k}: {v:.3f}" for k, v in res.items()))
        return 0
    seeds = QUICK_HELD_OUT if args.quick else HELD_OUT
    res = run_many({k: (v, COUNCIL) for k, v in MODES.items()}, seeds, args.workers, "modes")
    abl = run_many(ABLATIONS, seeds, args.workers, "ablations")
    report: dict[str, Any] = {
        "seeds": f"{seeds.start}-{seeds.stop - 1}",
        "n": len(seeds),
        "tune_seeds": f"{TUNE_SEEDS.start}-{TUNE_SEEDS.stop - 1}",
        "budget": BUDGET,
        "fixed": {"window": WINDOW, "memo": MEMO, "council": COUNCIL.model_dump(), "debater": DEBATER.model_dump()},
        "modes": summary(res),
        "paired": {
            "memo - none": paired(res, "memo", "none"),
            "memo - window": paired(res, "memo", "window"),
            "memo - dedupe": paired(res, "memo", "dedupe"),
            "memo - objective": paired(res, "memo", "objective"),
        },
        "ablations": summary(abl),
    }
    if not args.no_sweeps:
        report["sweeps"] = sweeps(seeds, args.workers, args.quick)
    if args.plot:
        report["plots"] = plot(args.plot, seeds.start)
    return emit(report, args, t0)


def llm_main(args: argparse.Namespace, t0: float) -> int:
    from benchmarks.council.llm import llm_client, run_llm

    seeds = range(HELD_OUT.start, HELD_OUT.start + max(1, args.llm_tasks))
    res = run_llm(llm_client(args.llm, args.model, args.llm_cache), seeds, MODES, COUNCIL, FIELDS)
    report: dict[str, Any] = {
        "seeds": f"{seeds.start}-{seeds.stop - 1}",
        "n": len(seeds),
        "llm": True,
        "tune_seeds": f"{TUNE_SEEDS.start}-{TUNE_SEEDS.stop - 1}",
        "modes": summary(res),
        "paired": {f"memo - {b}": paired(res, "memo", b) for b in res if b != "memo"},
    }
    return emit(report, args, t0)


def emit(report: dict[str, Any], args: argparse.Namespace, t0: float) -> int:
    report["seconds"] = round(time.perf_counter() - t0, 1)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_tables(report)
        print(f"{report['seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
