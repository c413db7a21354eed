"""MEMO ablation: what each part of MEMO adds, on LoCoMo and on the context benchmark's logs.

Usage:  python -m benchmarks.memo_ablation --locomo PATH [--conversations 3-9] [--budgets 512 1024]
            [--family A] [--seeds 0-3] [--settings flood-d1 correction ledger] [--length 1000]
            [--variants ...] [--out docs/benchmarks/memo_ablation.md]

Each variant is the default MemoConfig with one part taken out or set back to its
earlier rule:

* ``MEMO``: the defaults;
* ``no lexical``: ``lexical_weight=0`` (relevance by meaning only, no BM25 candidates; the contiguity
  term goes too, as MEMO applies it only beside the focus's words);
* ``no contiguity``: ``contiguity=0`` (a memory's neighbours lend it nothing);
* ``no repeat discount``: ``duplicate_penalty=0`` (near-duplicates claim the budget by score alone);
* ``value per token``: ``length_penalty=0.5``, the earlier packing (score / tokens^0.5);
* ``no meaning floor``: ``w_relevance_focus=0.8``, the earlier weight of relevance at a decision.

LoCoMo (``--locomo``; see docs/benchmarks/locomo.md for the data): evidence recall «all» and «any»
at each budget over the held-out conversations (default 3-9: the baselines' and MEMO's tune
conversations 0-2 left out), intervals resampling conversations. Context logs: MEMO's recall on
``benchmarks.context.logs`` logs of ``--family`` and ``--seeds`` (default the tune family A, seeds
0-3), fed text and turn only as in the context benchmark, at budget 400, contexts built at the
decisions only; intervals resample seeds. Every variant sees the same data and vectors.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "docs" / "benchmarks" / "memo_ablation.md"
VARIANTS: dict[str, dict] = {
    "MEMO": {},
    "no lexical": {"lexical_weight": 0.0},
    "no contiguity": {"contiguity": 0.0},
    "no repeat discount": {"duplicate_penalty": 0.0},
    "value per token": {"length_penalty": 0.5},
    "no meaning floor": {"w_relevance_focus": 0.8},
}


def locomo_rows(path: Path, conversations: list[int], budgets: list[int], variants: list[str], emb) -> list[list]:
    """Per variant and budget: (recall all, recall any) as (mean, low, high) over conversations."""
    from benchmarks.lib.stats import resample_ci
    from benchmarks.locomo.data import load
    from benchmarks.locomo.methods import memo_arm

    convs = load(path)
    chosen = [convs[i] for i in conversations]
    hits: dict[tuple[str, int], list[tuple[int, int, int]]] = {}
    for name in variants:
        for c in chosen:
            qs = [q for q in c.questions if q.evidence]
            run = memo_arm(
                [(t.line, t.speaker) for t in c.turns],
                [q.question for q in qs],
                budgets,
                embedder=emb,
                overrides=VARIANTS[name],
            )
            for b in budgets:
                every = some = 0
                for qi, q in enumerate(qs):
                    shown = set(run.shown[(qi, b)].turns)
                    every += set(q.evidence) <= shown
                    some += bool(set(q.evidence) & shown)
                hits.setdefault((name, b), []).append((every, some, len(qs)))
            print(f"  LoCoMo {name}: conversation {c.id} done", file=sys.stderr, flush=True)
    rows = []
    for name in variants:
        for b in budgets:
            h = np.array(hits[(name, b)], dtype=np.float64)
            cells = []
            for col in (0, 1):
                ratio = lambda x, n, axis=-1: x.sum(axis=axis) / n.sum(axis=axis)  # noqa: E731
                lo, hi = resample_ci((h[:, col], h[:, 2]), ratio)
                cells.append((float(h[:, col].sum() / h[:, 2].sum()), float(lo), float(hi)))
            rows.append([name, b, *cells])
    return rows


def context_rows(family: str, seeds: list[int], settings: list[str], length: int, variants: list[str], emb) -> list:
    """Per variant and setting: MEMO's recall (mean, low, high over seeds) at budget 400."""
    from benchmarks.context.logs import make_log
    from benchmarks.context_bench import memo_hits, split
    from benchmarks.lib.stats import mean_ci
    from benchmarks.locomo.methods import memo_config
    from memory.memo import Memo

    rows = []
    for setting in settings:
        base, density = split(setting)
        logs = [make_log(base, family, s, length, density) for s in seeds]
        for name in variants:
            per_seed = []
            for log in logs:
                got = memo_hits(log, Memo(embedder=emb, config=memo_config(VARIANTS[name])), budget=400)
                per_seed.append(float(np.mean(got)) if got else float("nan"))
            rows.append([setting, name, mean_ci(per_seed)])
            print(f"  {setting} {name}: {rows[-1][2][0]:.2f}", file=sys.stderr, flush=True)
    return rows


def _ci(v: tuple[float, float, float]) -> str:
    return f"{v[0]:.3f} [{v[1]:.3f}, {v[2]:.3f}]"


def page(args, loco: list, ctx: list, seconds: float) -> str:
    out = [
        "# MEMO ablation",
        "",
        "What each part of MEMO adds: every row is the default `MemoConfig` with one part taken out",
        "(see `python -m benchmarks.memo_ablation --help`). Written by",
        "",
        f"```sh\n{' '.join(['python -m benchmarks.memo_ablation', *args.argv])}\n```",
        "",
        f"Runtime {seconds:.0f} s.",
        "",
    ]
    if loco:
        conv = ", ".join(str(i) for i in args.conversations)
        out += [
            f"## LoCoMo, conversations {conv} (0-based; held out from every tuning)",
            "",
            "Evidence recall «all» (every evidence turn shown) and «any» (at least one); 95% intervals resample"
            " conversations.",
            "",
            "| variant | budget | recall «all» | recall «any» |",
            "|---|---|---|---|",
        ]
        out += [f"| {n} | {b} | {_ci(a)} | {_ci(s)} |" for n, b, a, s in loco]
        out.append("")
    if ctx:
        seeds = f"{args.seeds[0]}-{args.seeds[-1]}" if len(args.seeds) > 1 else str(args.seeds[0])
        out += [
            f"## Context logs, family {args.family}, seeds {seeds}, {args.length:,} turns, budget 400",
            "",
            "MEMO's recall (the context shows every answer token and no superseded one), contexts built at the"
            " decisions only; 95% intervals resample seeds.",
            "",
            "| setting | variant | recall |",
            "|---|---|---|",
        ]
        out += [f"| {s} | {n} | {_ci(v)} |" for s, n, v in ctx]
        out.append("")
    return "\n".join(out)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.memo_ablation",
        description=__doc__.split("\n\n", 1)[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--locomo", type=Path, help="LoCoMo's locomo10.zip, folder or locomo10.json (skipped without)")
    ap.add_argument("--conversations", default="3-9", help="LoCoMo conversations, 0-based (default 3-9, held out)")
    ap.add_argument("--budgets", type=int, nargs="+", default=[512, 1024], help="LoCoMo token budgets")
    ap.add_argument("--family", default="A", help="context-log phrasing family (default A, the tune family)")
    ap.add_argument("--seeds", default="0-3", help="context-log seeds (default 0-3)")
    ap.add_argument("--settings", nargs="*", default=["flood-d1", "correction", "ledger"], help="context-log settings")
    ap.add_argument("--length", type=int, default=1000, help="context-log turns (default 1000)")
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS), help="variants to run")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="Markdown page to write")
    return ap


def main(argv: list[str] | None = None) -> int:
    from benchmarks.lib.cli import seed_list
    from benchmarks.locomo.methods import CachedEmbedder
    from benchmarks.locomo_bench import DEFAULT_CACHE

    raw = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(raw)
    args.argv = raw
    try:
        args.conversations = sorted(set(seed_list(args.conversations)))
        args.seeds = sorted(set(seed_list(args.seeds)))
    except argparse.ArgumentTypeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.locomo is not None and not args.locomo.exists():
        print(f"error: --locomo {args.locomo}: no such file or directory", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    emb = CachedEmbedder(DEFAULT_CACHE)
    loco = locomo_rows(args.locomo, args.conversations, args.budgets, args.variants, emb) if args.locomo else []
    emb.save()
    ctx = context_rows(args.family, args.seeds, args.settings, args.length, args.variants, emb) if args.settings else []
    text = page(args, loco, ctx, time.perf_counter() - t0)
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
