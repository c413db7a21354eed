"""LoCoMo benchmark: does MEMO's context hold the evidence turns of a question, against simple retrieval?

Usage:  python -m benchmarks.locomo_bench --locomo PATH [--budgets 256 512 1024 2048]
            [--methods ...] [--tune-conversations 0-2] [--out docs/benchmarks/locomo.md]
            [--quick] [--memo-set key=value ...]

PATH is LoCoMo's data (snap-research/locomo on GitHub, ``data/locomo10.zip``; not in this
repository): the zip, a directory of its per-conversation JSON files, or a ``locomo10.json``
(benchmarks/locomo/data.py). Every turn is one line, ``[8 May 2023] Caroline: text`` plus its
photo caption, the same for every method. For each question with valid evidence, each method
gets the question alone and a token budget B (lines counted with memory.tokens.count_tokens)
and shows turns; recall «all» is the share of questions whose every evidence turn is shown,
«any» the share with at least one shown.

Methods (benchmarks/locomo/methods.py): recency, BM25, dense (MiniLM), MMR (lambda tuned),
hybrid BM25+dense (fusion and weight tuned) and MEMO (memory.memo.Memo, default config, one
context per question at the end of the conversation; ``--memo-set`` overrides its config).
Baseline parameters are tuned on ``--tune-conversations`` (by mean recall «all» over the
budgets) and fixed; the other conversations are the held-out headline, with 95% bootstrap
intervals over conversations. MiniLM vectors are cached under ``--cache-dir``.

Exit status: 0 done, 2 bad arguments or unreadable data.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DEFAULT_OUT = ROOT / "docs" / "benchmarks" / "locomo.md"
QUICK_OUT = HERE / "results" / "locomo_quick.md"
DEFAULT_CACHE = HERE / "results" / "locomo_cache"
NOTES = ("<!-- notes:start -->", "<!-- notes:end -->")  # kept when the page is rewritten


def build_parser() -> argparse.ArgumentParser:
    from benchmarks.locomo.methods import METHODS

    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.locomo_bench",
        description=__doc__.split("\n\n", 1)[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--locomo", required=True, type=Path, help="locomo10.zip, its unzipped folder or locomo10.json")
    ap.add_argument("--budgets", type=int, nargs="+", default=[256, 512, 1024, 2048], help="token budgets")
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=METHODS, help="methods to run (default all)")
    ap.add_argument(
        "--tune-conversations",
        default="0-2",
        help="conversations (0-based, in file order) the baseline parameters are tuned on (default 0-2); "
        "'none' to use the defaults untuned",
    )
    ap.add_argument("--conversations", default="all", help="conversations to use, e.g. 0-4 (default all)")
    ap.add_argument(
        "--out", type=Path, default=None, help=f"Markdown page to write (default {DEFAULT_OUT.relative_to(ROOT)})"
    )
    ap.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE, help="where MiniLM vectors are cached")
    ap.add_argument("--boot", type=int, default=2000, help="bootstrap resamples (default 2000)")
    ap.add_argument("--seed", type=int, default=12345, help="bootstrap seed")
    ap.add_argument(
        "--memo-set",
        nargs="+",
        default=[],
        metavar="KEY=VALUE",
        help="MemoConfig overrides, e.g. w_recency=0.1 mask.redundancy_drop=0.9 (values as JSON)",
    )
    ap.add_argument(
        "--quick",
        action="store_true",
        help=f"3 conversations (tune on the first), budgets 512 1024, 300 resamples; writes "
        f"{QUICK_OUT.relative_to(ROOT)} unless --out is given",
    )
    return ap


def _indexes(spec: str, n: int, what: str) -> list[int]:
    from benchmarks.lib.cli import seed_list

    if spec.strip().lower() == "all":
        return list(range(n))
    try:
        out = sorted(set(seed_list(spec)))
    except argparse.ArgumentTypeError as exc:
        raise SystemExit(f"error: --{what}: {exc}") from None
    bad = [i for i in out if not 0 <= i < n]
    if bad:
        raise SystemExit(f"error: --{what}: no conversation {bad} (the data has {n}: 0-{n - 1})")
    return out


class Fail(Exception):
    """Bad arguments or data: printed, exit status 2."""


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except Fail as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from benchmarks.locomo import methods as M
    from benchmarks.locomo.data import LocomoDataError, load

    t0 = time.perf_counter()
    missing = [m for m in ("bm25s", "Stemmer") if importlib.util.find_spec(m) is None]
    if missing:
        raise Fail(f"the BM25 baseline needs {' and '.join(missing)}: pip install bm25s PyStemmer (the dev extra)")
    if args.quick:
        args.budgets = [512, 1024]
        args.boot = min(args.boot, 300)
        if args.conversations == "all":
            args.conversations = "0-2"
        if args.tune_conversations == "0-2":
            args.tune_conversations = "0"
    out = args.out or (QUICK_OUT if args.quick else DEFAULT_OUT)
    if any(b < 16 for b in args.budgets):
        raise Fail(f"budgets must be at least 16 tokens, got {args.budgets}")
    budgets = sorted(set(args.budgets))
    methods = [m for m in M.METHODS if m in args.methods]
    try:
        overrides = M.parse_overrides(args.memo_set)
        M.memo_config(overrides)
    except (ValueError, KeyError) as exc:  # pydantic's ValidationError is a ValueError
        raise Fail(f"--memo-set: {exc}") from None
    try:
        convs_all = load(args.locomo)
    except LocomoDataError as exc:
        raise Fail(str(exc)) from None
    try:
        use = _indexes(args.conversations, len(convs_all), "conversations")
        tune = (
            _indexes(args.tune_conversations, len(convs_all), "tune-conversations")
            if args.tune_conversations.strip().lower() != "none"
            else []
        )
    except SystemExit as exc:
        raise Fail(str(exc).removeprefix("error: ")) from None
    if set(tune) - set(use):
        raise Fail(f"tune conversations {sorted(set(tune) - set(use))} are not among --conversations")
    convs = [convs_all[i] for i in use]
    tune_pos = [use.index(i) for i in tune]
    held = [k for k in range(len(convs)) if k not in tune_pos]
    if not held:
        raise Fail("every conversation is a tune conversation: nothing is held out")

    console = Console(width=max(Console().width, 160))
    console.print(
        f"LoCoMo from {args.locomo}: {len(convs)} conversations, {sum(len(c.turns) for c in convs):,} turns; "
        f"budgets {budgets}; methods {', '.join(methods)}; tune on {[c.id for c in (convs[k] for k in tune_pos)]}; "
        f"machine {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}",
        markup=False,
    )
    state = Bench(convs, budgets, methods, overrides, args.cache_dir)
    cols = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())

    def step(what: str) -> None:  # no live bar in a log file: one line a step
        if not console.is_terminal:
            console.print(f"[{time.perf_counter() - t0:6.0f} s] {what}", markup=False)

    with Progress(*cols, console=console, transient=True) as progress:
        task = progress.add_task("embedding", total=len(convs))
        for k in range(len(convs)):
            progress.update(task, description=f"embedding conversation {convs[k].id}")
            state.prepare(k)
            progress.advance(task)
            step(f"embedded conversation {convs[k].id}")
        saved = state.emb.save()
        grid = [("mmr_lambda", lam) for lam in M.MMR_GRID] + [("hybrid", h) for h in M.HYBRID_GRID]
        grid += [("neighbours", c) for c in M.NEIGHBOUR_GRID]
        if tune_pos and ({"MMR", "hybrid", "hybrid+neighbours"} & set(methods)):
            task = progress.add_task("tuning", total=len(tune_pos))
            for k in tune_pos:
                progress.update(task, description=f"tuning on conversation {convs[k].id}")
                state.tune(k, grid)
                progress.advance(task)
                step(f"tuned on conversation {convs[k].id}")
            state.pick(grid)
        task = progress.add_task("baselines", total=len(convs))
        for k in range(len(convs)):
            progress.update(task, description=f"baselines, conversation {convs[k].id}")
            state.baselines(k)
            progress.advance(task)
            step(f"baselines on conversation {convs[k].id}")
        if M.MEMO in methods:
            task = progress.add_task("MEMO", total=sum(len(c.scored()) for c in convs))
            for k in range(len(convs)):
                progress.update(task, description=f"MEMO, conversation {convs[k].id}")
                state.memo(k, lambda: progress.advance(task))
                step(f"MEMO on conversation {convs[k].id}")
    runtime = time.perf_counter() - t0
    command = "python -m benchmarks.locomo_bench " + " ".join(_shown_argv(args))
    page = state.page(tune_pos, held, args.boot, args.seed, command, runtime, saved)
    console.print(page, markup=False, highlight=False)
    _write(out, page)
    console.print(f"runtime {runtime:.0f} s; wrote {out}", markup=False)
    return 0


def _shown_argv(args: argparse.Namespace) -> list[str]:
    argv = sys.argv[1:] if sys.argv and sys.argv[0].endswith("locomo_bench.py") else []
    return argv or [f"--locomo {args.locomo}"]


def _write(path: Path, page: str) -> None:
    """Write ``page``, keeping the notes block of the page already there."""
    old = path.read_text(encoding="utf-8") if path.is_file() else ""
    a, b = NOTES
    if a in old and b in old and a in page and b in page:
        kept = old[old.index(a) : old.index(b) + len(b)]
        page = page[: page.index(a)] + kept + page[page.index(b) + len(b) :]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(page, encoding="utf-8")


class Bench:
    """The run's state: prepared conversations, tuning scores, and hits per method and budget."""

    def __init__(self, convs, budgets, methods, overrides, cache_dir):
        import numpy as np

        from benchmarks.locomo.methods import CachedEmbedder

        self.np = np
        self.convs, self.budgets, self.methods, self.overrides = convs, budgets, methods, overrides
        self.emb = CachedEmbedder(cache_dir)
        self.corpora, self.queries = {}, {}
        self.tuning: dict[tuple, list[float]] = {}  # grid point -> [hits "all" summed over budgets, questions]
        self.params = {"mmr_lambda": 0.7, "hybrid": ("mix", 0.5), "neighbours": 0.5}  # untuned defaults
        self.tuned = False
        self.shown: dict[tuple[int, str, int], list[list[int]]] = {}  # (conv, method, budget) -> turns per question
        self.used: dict[tuple[int, str, int], list[int]] = {}  # tokens used per question
        self.memo_runs = {}

    def prepare(self, k: int) -> None:
        from benchmarks.locomo.methods import Corpus, query

        conv = self.convs[k]
        corpus = self.corpora[k] = Corpus.build(conv.lines, self.emb)
        qs = conv.scored()
        vecs = self.emb([q.question for q in qs])
        self.queries[k] = [query(corpus, q.question, v) for q, v in zip(qs, vecs)]

    @staticmethod
    def hit_all(shown, evidence) -> bool:
        return set(evidence) <= set(shown)

    def tune(self, k: int, grid) -> None:
        from benchmarks.locomo.methods import fill, rank_hybrid, rank_mmr, rank_neighbours

        corpus, conv = self.corpora[k], self.convs[k]
        for point in grid:
            name, value = point
            acc = self.tuning.setdefault(point, [0.0, 0])
            for q, Q in zip(conv.scored(), self.queries[k]):
                if name == "mmr_lambda":
                    order = rank_mmr(corpus, Q, value)
                elif name == "neighbours":
                    order = rank_neighbours(corpus, Q, "mix", 0.5, value)
                else:
                    order = rank_hybrid(corpus, Q, *value)
                for b in self.budgets:
                    acc[0] += self.hit_all(fill(order, corpus.costs, b), q.evidence)
                acc[1] += len(self.budgets)

    def pick(self, grid) -> None:
        for name in ("mmr_lambda", "hybrid", "neighbours"):
            points = [p for p in grid if p[0] == name]
            best = max(points, key=lambda p: (self.tuning[p][0] / max(1, self.tuning[p][1]), -points.index(p)))
            self.params[name] = best[1]
        self.tuned = True

    def baselines(self, k: int) -> None:
        from benchmarks.locomo.methods import BASELINES, baseline_orders, fill

        corpus = self.corpora[k]
        todo = [m for m in BASELINES if m in self.methods]
        for Q in self.queries[k]:
            orders = baseline_orders(corpus, Q, self.params, only=todo)
            for m in todo:
                for b in self.budgets:
                    chosen = fill(orders[m], corpus.costs, b)
                    self.shown.setdefault((k, m, b), []).append(chosen)
                    self.used.setdefault((k, m, b), []).append(sum(corpus.costs[i] for i in chosen))

    def memo(self, k: int, tick) -> None:
        from benchmarks.locomo.methods import MEMO, memo_arm

        conv = self.convs[k]
        qs = conv.scored()
        run = memo_arm(
            [(t.line, t.speaker) for t in conv.turns],
            [q.question for q in qs],
            self.budgets,
            embedder=self.emb,
            overrides=self.overrides,
            progress=tick,
        )
        self.memo_runs[k] = run
        for qi in range(len(qs)):
            for b in self.budgets:
                s = run.shown[(qi, b)]
                self.shown.setdefault((k, MEMO, b), []).append(s.turns)
                self.used.setdefault((k, MEMO, b), []).append(s.tokens)

    # --- results ------------------------------------------------------------------------------
    def results(self):
        from benchmarks.locomo.report import Results

        np = self.np
        conv, cat, hits = [], [], {}
        for k, c in enumerate(self.convs):
            for q in c.scored():
                conv.append(k)
                cat.append(q.category)
        for m in self.methods:
            for b in self.budgets:
                a, y = [], []
                for k, c in enumerate(self.convs):
                    for q, shown in zip(c.scored(), self.shown[(k, m, b)]):
                        s = set(shown)
                        a.append(set(q.evidence) <= s)
                        y.append(not s.isdisjoint(q.evidence))
                hits[(m, b, "all")] = np.array(a, dtype=np.float64)
                hits[(m, b, "any")] = np.array(y, dtype=np.float64)
        return Results(np.array(conv), np.array(cat), hits)

    def page(self, tune_pos, held, boot, seed, command, runtime, saved) -> str:
        from benchmarks.locomo import page

        return page.render(self, tune_pos, held, boot, seed, command, runtime, saved)


if __name__ == "__main__":
    raise SystemExit(main())
