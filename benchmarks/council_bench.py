"""Council debates with masked working memory on hidden-profile tasks.

Every mode (``none``, ``window``, ``dedupe``, ``memo``, ``objective``) debates the same generated
hidden-profile tasks with the same scripted debaters, seeds and token budget. Reported per
generator, chair and council size: decision accuracy (95% bootstrap CI), rounds, redundancy,
effective-turn ratio, context tokens per member per turn and the share of the stated evidence
members still know of at the vote; the paired accuracy differences memo - none, memo - window and
memo - dedupe (same tasks, same seeds) with 95% bootstrap CIs; and the token budget sweep (none,
window, dedupe and memo at 120-300 tokens). With ``--ablations``, on the first generator and chair:
ablations of memo and the stop rule, and sweeps of memo's controversy weight and of how many
statements it keeps.

The chair (``--chair``): ``transcript`` (the default) knows only what was said; ``declared`` also
hears each member declare how many of its own items it has not stated; ``oracle`` (an ablation)
reads who holds what. See ``game.council.session``.

The debaters' and maskers' parameters are FIXED below, chosen with ``--tune`` on the tune seeds
(``--tune-seeds``, default 0-199); the tables come from the held-out seeds (``--seeds``, default
1000-1299), never used to choose anything.

    python -m benchmarks.council_bench                         # held-out 1000-1299, transcript chair
    python -m benchmarks.council_bench --chair transcript declared oracle --generator parley hidden-profile
    python -m benchmarks.council_bench --members 2 7 --seeds 1000-1199
    python -m benchmarks.council_bench --embedder minilm --seeds 1000-1099
    python -m benchmarks.council_bench --tune                  # the grid on the tune seeds
    python -m benchmarks.council_bench --markdown              # the tables as Markdown (the docs' tables)
    python -m benchmarks.council_bench --llm local --llm-tasks 3   # LLM members (the bundled local model)
"""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np

from benchmarks.lib.cli import seed_range
from benchmarks.lib.stats import mean_ci, paired_ci
from game.council.context import MaskingConfig
from game.council.debaters import DebaterConfig
from game.council.session import CHAIRS, CouncilConfig
from game.council.tasks import CouncilTask, hidden_profile_task

TUNE_SEEDS = range(200)
HELD_OUT = range(1000, 1300)
GENERATORS = ("parley", "hidden-profile")
EMBEDDERS = ("hash", "minilm")
BUDGET = 200  # context tokens for every mode (anchors and summary included)
BUDGETS = (120, 150, 300)  # the budget sweep (and BUDGET)
# FIXED before the held-out run, picked on TUNE_SEEDS with the transcript and declared chairs at 150
# and 200 tokens (a point scores its mean memo - dedupe over the four): counting controversy over
# the last round only (controversy_rounds 1, now the MaskingConfig default) scored +1.9 points against
# dedupe where counting it over the whole debate scored -2.6 (the chair before its last call); the
# novelty weight (1.0 or 2.0) and the resolved factor (0.1 or 0.3) changed nothing. `--tune` on the
# final chair gives this point +4.1 and whole-debate controversy -0.1; controversy 0 with novelty
# 2.0 scores +5.0 (0.9 points more, within noise): left as fixed. The window (6) and the rest were
# fixed on the first tuning (seeds 0-99, the oracle chair).
WINDOW = 6
MEMO = {"controversy_weight": 0.3, "novelty_weight": 1.0, "redundancy": 0.8, "controversy_rounds": 1}
COUNCIL = CouncilConfig(
    max_rounds=10,
    speaker_policy="fixed",
    consensus="either",
    variance_threshold=0.01,
    stable_rounds=3,
    chair="transcript",
    crux_guard=True,
    stalemate_breaker=True,
)
DEBATER = DebaterConfig()  # defaults, never tuned
MODES: dict[str, MaskingConfig] = {
    "none": MaskingConfig(mode="none", budget=BUDGET),
    "window": MaskingConfig(mode="window", budget=BUDGET, window=WINDOW),
    "dedupe": MaskingConfig(mode="dedupe", budget=BUDGET),  # the simple baseline: first mentions only
    "memo": MaskingConfig(mode="memo", budget=BUDGET, **MEMO),
    "objective": MaskingConfig(mode="objective", budget=BUDGET),
}
SWEPT = ("none", "window", "dedupe", "memo")
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
BOOT = 4000  # bootstrap resamples over tasks


class GeneratorMissing(RuntimeError):
    """``--generator hidden-profile`` without ``game.council.hidden_profile``."""


def _hidden_profile_module() -> Any:
    try:
        return importlib.import_module("game.council.hidden_profile")
    except ModuleNotFoundError as e:
        if e.name != "game.council.hidden_profile":
            raise
        raise GeneratorMissing(
            "--generator hidden-profile needs game.council.hidden_profile "
            "(hidden_profile_task(seed, members)), which this checkout does not have"
        ) from None


def make_task(generator: str, seed: int, members: int | None = None) -> CouncilTask:
    """The task of ``seed`` from ``generator`` (``members``: council size, None: the generator's own)."""
    if generator == "parley":
        return hidden_profile_task(seed, members)
    mod = _hidden_profile_module()
    return mod.hidden_profile_task(seed) if members is None else mod.hidden_profile_task(seed, members=members)


def answer(task: CouncilTask) -> bool:
    """The right decision: the task's truth, else what the pooled evidence says."""
    return task.truth if task.truth is not None else task.pooled() > 0


Job = tuple[str, int, int | None, dict[str, Any], dict[str, Any], str]


def _one(job: Job) -> dict[str, float]:
    from game.play.debates import run_debate
    from memory.embedder import get_embedder

    generator, seed, members, masking, council, embedder = job
    task = make_task(generator, seed, members)
    s, m = run_debate(
        task,
        CouncilConfig(**{**council, "seed": seed}),
        MaskingConfig(**masking),
        embedder=get_embedder(embedder),
        debater_config=DEBATER,
    )
    assert m is not None
    row = {f: float(getattr(m, f) or 0.0) for f in FIELDS}
    row["correct"] = float(s.outcome.decision == answer(task))
    return row


Configs = dict[str, tuple[MaskingConfig, CouncilConfig]]


def run_many(
    configs: Configs,
    seeds: range,
    workers: int,
    label: str = "debates",
    *,
    generator: str = "parley",
    members: int | None = None,
    embedder: str = "hash",
) -> dict[str, dict[str, np.ndarray]]:
    """Every config on every seed; {name: {field: array over seeds}} (seed order kept)."""
    jobs: list[Job] = [
        (generator, s, members, mc.model_dump(), cc.model_dump(), embedder)
        for mc, cc in configs.values()
        for s in seeds
    ]
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
    return {
        name: {f: np.array([r[f] for r in rows[k * n : (k + 1) * n]]) for f in FIELDS} for k, name in enumerate(configs)
    }


def _console():
    from rich.console import Console

    return Console(stderr=True)


def summary(res: dict[str, dict[str, np.ndarray]]) -> dict[str, dict[str, Any]]:
    out = {}
    for name, r in res.items():
        acc, lo, hi = mean_ci(r["correct"], n_resamples=BOOT, seed=0)
        out[name] = {"accuracy": acc, "ci": [lo, hi], **{f: float(r[f].mean()) for f in FIELDS if f != "correct"}}
    return out


def paired(res: dict[str, dict[str, np.ndarray]], a: str, b: str) -> dict[str, float]:
    d, lo, hi = paired_ci(res[a]["correct"], res[b]["correct"], n_resamples=BOOT, seed=1)
    return {"diff": d, "lo": lo, "hi": hi}


def with_chair(chair: str) -> CouncilConfig:
    return COUNCIL.model_copy(update={"chair": chair})


def tune(seeds: range, workers: int, chairs: list[str]) -> dict[str, float]:
    """The grid that fixed MEMO, on the tune seeds only: each point's mean memo - dedupe (points)
    over ``chairs`` at 150 and 200 tokens."""
    grid = {
        f"cw={cw} rounds={cr} nw={nw} rf={rf}": {
            "controversy_weight": cw,
            "controversy_rounds": cr,
            "novelty_weight": nw,
            "resolved_factor": rf,
        }
        for cw, cr, nw, rf in itertools.product((0.0, 0.3), (1, 2, None), (1.0, 2.0), (0.1, 0.3))
    }
    configs: Configs = {}
    for chair, b in itertools.product(chairs, (150, 200)):
        configs[f"dedupe {chair} {b}"] = (MODES["dedupe"].model_copy(update={"budget": b}), with_chair(chair))
        for name, upd in grid.items():
            configs[f"{name} {chair} {b}"] = (MODES["memo"].model_copy(update={"budget": b, **upd}), with_chair(chair))
    res = run_many(configs, seeds, workers, "tuning")
    acc = {name: float(r["correct"].mean()) for name, r in res.items()}
    cells = list(itertools.product(chairs, (150, 200)))
    return {
        name: 100 * float(np.mean([acc[f"{name} {c} {b}"] - acc[f"dedupe {c} {b}"] for c, b in cells])) for name in grid
    }


def ablations(chair: CouncilConfig) -> Configs:
    variance = chair.model_copy(update={"consensus": "variance"})
    return {
        "memo, no long-term summary": (MODES["memo"].model_copy(update={"long_term": False}), chair),
        "none + long-term summary": (MODES["none"].model_copy(update={"long_term": True}), chair),
        "memo, controversy over the whole debate": (
            MODES["memo"].model_copy(update={"controversy_rounds": None}),
            chair,
        ),
        "memo, repeats by wording only (no evidence identity)": (
            MODES["memo"].model_copy(update={"same_evidence": False}),
            chair,
        ),
        "none, no evidence guard": (MODES["none"], chair.model_copy(update={"crux_guard": False})),
        "memo, no evidence guard": (MODES["memo"], chair.model_copy(update={"crux_guard": False})),
        "none, unbounded budget": (MODES["none"].model_copy(update={"budget": 100_000}), chair),
        "none, stop on stance variance only": (MODES["none"], variance),
        "dedupe, stop on stance variance only": (MODES["dedupe"], variance),
        "memo, stop on stance variance only": (MODES["memo"], variance),
    }


def cell(args: argparse.Namespace, generator: str, chair: str, members: int | None, first: bool) -> dict[str, Any]:
    """One generator x chair x council size: the modes, the paired differences, the budget sweep
    (and, for the first cell with --ablations, the ablations and memo's sweeps)."""
    council = with_chair(chair)
    kw = {"generator": generator, "members": members, "embedder": args.embedder}
    tag = f"{generator}, {chair} chair" + (f", {members} members" if members else "")
    configs: Configs = {k: (v, council) for k, v in MODES.items()}
    budgets = () if args.no_sweeps else BUDGETS
    for b in budgets:
        configs.update({f"{m} @ {b}": (MODES[m].model_copy(update={"budget": b}), council) for m in SWEPT})
    res = run_many(configs, args.seeds, args.workers, tag, **kw)
    for m in SWEPT:
        res[f"{m} @ {BUDGET}"] = res[m]
    out: dict[str, Any] = {
        "generator": generator,
        "chair": chair,
        "members": members,
        "modes": summary({k: res[k] for k in MODES}),
        "paired": {f"memo - {b}": paired(res, "memo", b) for b in ("none", "window", "dedupe", "objective")},
    }
    if budgets:
        out["budget"] = {
            str(b): {
                **{m: summary({m: res[f"{m} @ {b}"]})[m] for m in SWEPT},
                **{f"memo - {m}": paired(res, f"memo @ {b}", f"{m} @ {b}") for m in ("none", "window", "dedupe")},
            }
            for b in sorted((*budgets, BUDGET))
        }
    if first and args.ablations:
        out["ablations"] = summary(run_many(ablations(council), args.seeds, args.workers, "ablations", **kw))
        cws = (0.0, 0.1, 0.3, 1.0, 3.0)
        keeps = (2, 3, 4, 6, None)
        more: Configs = {
            **{f"controversy {w}": (MODES["memo"].model_copy(update={"controversy_weight": w}), council) for w in cws},
            **{f"keep {k or 'all'}": (MODES["memo"].model_copy(update={"max_items": k}), council) for k in keeps},
        }
        out["memo_sweeps"] = summary(run_many(more, args.seeds, args.workers, "memo sweeps", **kw))
    return out


COLUMNS = ("accuracy [95% CI]", "rounds", "redund. mean / max", "self redund.", "effective", "ctx tokens", "recall")


def _row(r: dict[str, Any]) -> list[str]:
    return [
        f"{r['accuracy']:.3f} [{r['ci'][0]:.3f}, {r['ci'][1]:.3f}]",
        f"{r['rounds']:.2f}",
        f"{r['redundancy']:.3f} / {r['redundancy_max']:.3f}",
        f"{r['self_redundancy']:.3f}",
        f"{r['effective_ratio']:.3f}",
        f"{r['tokens_per_member_round']:.0f}",
        f"{r['recall']:.3f}",
    ]


def _pts(p: dict[str, float]) -> str:
    return f"{100 * p['diff']:+.1f} [{100 * p['lo']:+.1f}, {100 * p['hi']:+.1f}]"


def tables(report: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of every table in the report."""
    out = []
    for c in report["cells"]:
        size = f", {c['members']} members" if c["members"] else ""
        tag = f"{c['generator']} generator, {c['chair']} chair{size}"
        out.append(
            (f"Modes at {BUDGET} tokens ({tag})", ["mode", *COLUMNS], [[k, *_row(r)] for k, r in c["modes"].items()])
        )
        out.append(
            (
                f"Paired accuracy differences at {BUDGET} tokens, points ({tag})",
                ["difference", "points [95% CI]"],
                [[k, _pts(v)] for k, v in c["paired"].items()],
            )
        )
        if "budget" in c:
            out.append(
                (
                    f"Token budget ({tag})",
                    ["budget", *SWEPT, "memo - none", "memo - dedupe", "memo - window"],
                    [
                        [
                            b,
                            *(f"{r[m]['accuracy']:.3f}" for m in SWEPT),
                            *(_pts(r[f"memo - {m}"]) for m in ("none", "dedupe", "window")),
                        ]
                        for b, r in c["budget"].items()
                    ],
                )
            )
        if "ablations" in c:
            out.append(
                (f"Ablations ({tag})", ["variant", *COLUMNS], [[k, *_row(r)] for k, r in c["ablations"].items()])
            )
            out.append(
                (
                    f"Memo's controversy weight and items kept ({tag})",
                    ["memo", *COLUMNS],
                    [[k, *_row(r)] for k, r in c["memo_sweeps"].items()],
                )
            )
    return out


def print_tables(report: dict[str, Any], markdown: bool) -> None:
    head = (
        f"held-out seeds {report['seeds']} ({report['n']} tasks per cell); parameters fixed on tune seeds "
        f"{report['tune_seeds']}; embedder {report['embedder']}; budget {BUDGET} tokens; window k={WINDOW}; memo {MEMO}"
    )
    if markdown:
        print(head + "\n")
        for title, header, rows in tables(report):
            print(f"**{title}**\n")
            print("| " + " | ".join(header) + " |")
            print("|" + "---|" * len(header))
            for r in rows:
                print("| " + " | ".join(r) + " |")
            print()
        return
    from rich.console import Console
    from rich.table import Table

    con = Console(width=170)
    con.print(head)
    for title, header, rows in tables(report):
        t = Table(title=title)
        for i, h in enumerate(header):
            t.add_column(h, justify="left" if i == 0 else "right")
        for r in rows:
            t.add_row(*r)
        con.print(t)


def _chair(value: str) -> str:
    if value not in CHAIRS:
        raise argparse.ArgumentTypeError(f"unknown chair {value!r}; chairs are {', '.join(CHAIRS)}")
    return value


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    a = ap.add_argument
    a("--seeds", type=seed_range, default=HELD_OUT, metavar="A-B", help="held-out task seeds (default 1000-1299)")
    a("--tune-seeds", type=seed_range, default=TUNE_SEEDS, metavar="A-B", help="seeds for --tune (default 0-199)")
    a(
        "--chair",
        nargs="+",
        type=_chair,
        default=["transcript"],
        metavar="CHAIR",
        help="what the chair knows, one or more of: transcript (default: only what was said), declared "
        "(also each member's declaration of how many of its own items it has not stated), oracle "
        "(an ablation: reads who holds what)",
    )
    a(
        "--generator",
        nargs="+",
        choices=GENERATORS,
        default=["parley"],
        help="task generators: parley (game.council.tasks, default), hidden-profile (game.council.hidden_profile)",
    )
    a(
        "--members",
        nargs="+",
        type=int,
        default=[],
        metavar="N",
        help="council sizes (default: each generator's own, 4-5 for parley)",
    )
    a("--embedder", choices=EMBEDDERS, default="hash", help="memo's and the metrics' embedder (default hash)")
    a("--tune", action="store_true", help="run the tuning grid on the tune seeds and stop")
    a("--ablations", action="store_true", help="ablations and memo's sweeps on the first generator and chair")
    a("--no-sweeps", action="store_true", help="no token budget sweep")
    a("--json", action="store_true", help="print the results as JSON")
    a("--markdown", action="store_true", help="print the tables as Markdown")
    a("--workers", type=int, default=min(2, os.cpu_count() or 1))
    a(
        "--llm",
        metavar="URL",
        help="LLM members instead of the scripted ones: local (the bundled model), local:PATH.gguf, or an "
        "OpenAI-compatible endpoint (key from $OPENAI_API_KEY)",
    )
    a("--model", help="the model for --llm (default $PARLEY_MODEL, else gpt-4o-mini)")
    a("--llm-tasks", type=int, default=30, metavar="N", help="held-out tasks for --llm (default 30)")
    a("--llm-cache", metavar="DIR", help="cache LLM replies here (a re-run makes no requests)")
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    if set(args.seeds) & set(args.tune_seeds):
        ap.error("the held-out and tune seeds overlap")
    if any(n < 2 for n in args.members):
        ap.error("a council needs at least 2 members")
    try:
        for g, n in itertools.product(args.generator, args.members or [None]):
            make_task(g, args.seeds.start, n)  # the generator exists and takes this council size
    except GeneratorMissing as e:
        ap.exit(2, f"{ap.prog}: error: {e}\n")
    except ValueError as e:
        ap.exit(2, f"{ap.prog}: error: --generator {g} --members {n}: {e}\n")
    t0 = time.perf_counter()
    if args.llm:
        return llm_main(args, t0)
    if args.tune:
        res = tune(args.tune_seeds, args.workers, [c for c in args.chair if c != "oracle"] or ["transcript"])
        best = dict(sorted(res.items(), key=lambda kv: -kv[1]))
        print(json.dumps(best, indent=1) if args.json else "\n".join(f"{k}: {v:+.2f}" for k, v in best.items()))
        return 0
    cells = [
        cell(args, g, c, n, first=(i == 0))
        for i, (g, c, n) in enumerate(itertools.product(args.generator, args.chair, args.members or [None]))
    ]
    report: dict[str, Any] = {
        "seeds": f"{args.seeds.start}-{args.seeds.stop - 1}",
        "n": len(args.seeds),
        "tune_seeds": f"{args.tune_seeds.start}-{args.tune_seeds.stop - 1}",
        "embedder": args.embedder,
        "budget": BUDGET,
        "fixed": {"window": WINDOW, "memo": MEMO, "council": COUNCIL.model_dump(), "debater": DEBATER.model_dump()},
        "cells": cells,
    }
    return emit(report, args, t0)


def llm_main(args: argparse.Namespace, t0: float) -> int:
    from benchmarks.council.llm import llm_client, run_llm

    seeds = range(args.seeds.start, args.seeds.start + max(1, args.llm_tasks))
    chair = with_chair(args.chair[0])
    res = run_llm(llm_client(args.llm, args.model, args.llm_cache), seeds, MODES, chair, FIELDS)
    report: dict[str, Any] = {
        "seeds": f"{seeds.start}-{seeds.stop - 1}",
        "n": len(seeds),
        "llm": True,
        "chair": chair.chair,
        "tune_seeds": f"{args.tune_seeds.start}-{args.tune_seeds.stop - 1}",
        "embedder": args.embedder,
        "cells": [
            {
                "generator": "parley",
                "chair": chair.chair,
                "members": None,
                "modes": summary(res),
                "paired": {f"memo - {b}": paired(res, "memo", b) for b in res if b != "memo"},
            }
        ],
    }
    report["modes"], report["paired"] = report["cells"][0]["modes"], report["cells"][0]["paired"]
    return emit(report, args, t0)


def emit(report: dict[str, Any], args: argparse.Namespace, t0: float) -> int:
    report["seconds"] = round(time.perf_counter() - t0, 1)
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_tables(report, args.markdown)
        print(f"{report['seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
