"""Context benchmark: does MEMO's context hold the fact a decision needs, against simple baselines?

Usage:  python -m benchmarks.context_bench [--quick] [--seeds 100-129] [--held-out-family D]
            [--extra-seeds 100-129 --extra-family B] [--tune-seeds 0-9] [--settings ledger correction ...]
            [--lengths 1000 5000] [--budgets 200 400 800] [--builds 20] [--embedder minilm|hash] [--out FILE]

Logs (benchmarks/context/logs.py) are synthetic, one per seed, setting and
length: an agent called "player" reads shared memories and its own private
ones, 1-3 a turn, of mixed kinds. Settings: ``flood-d1``/``flood-d2`` (a
seller's floor price overheard once, early, midway or late, under 1 or 2
near-duplicate offers and price lines a turn), ``correction`` (a value stated,
echoed, then corrected; the stale value must not be shown), ``council`` (a
member's condition, or who spoke against a proposal, said once in a long
debate), ``rumours`` (where an item is hidden, heard once among movement,
look and gossip lines) and ``ledger`` (a journey's log, about 2.2 lines a
turn: a person's allergy, a promise, a time of day, a countersign and a debt,
each stated early among near-duplicates about other people and values, some
corrected once or twice, with or without a cue word, and asked about near the
end). Questions never repeat the needed line's words beyond the asked thing
(the item, the member, the people).

Seeds and phrasing families (benchmarks/context/phrasing.py): ``--tune-seeds``
use family A; ``--seeds`` (held-out) use ``--held-out-family``, by default D
(benchmarks/context/family_d.py), the blind family, whose wordings and names
appear in no other family and were never shown to the memory code's authors.
The goals are judged on this range only. Families B and C are held out but no
longer blind: the memory code's correction cues were extended after B's
wordings were seen, and C's wordings were read while the memory code was
tuned. ``--extra-seeds`` (default none) add a second held-out range in
``--extra-family`` (default B); it is reported, not judged. Run another family
alone with e.g. ``--held-out-family C``. Tune seeds may not overlap a held-out
range; two ranges may not share a family.

A decision is a hit when every answer token is shown in the rendered context
as a whole token (70 does not match 170) and no superseded value of the same
fact is shown. Every method gets the question (the focus) and the situation
(the last few lines the agent saw) and the same budget B, counted with
memory.tokens.count_tokens on the rendered text:

* full history, recency window, top-k, top-k+collapse, top-k+collapse
  (newest), MMR: see benchmarks/context/baselines.py (real MiniLM vectors, one batch per log;
  ``--embedder hash`` swaps in the hash embedder for a quick check, for every method);
* MEMO: ``memory.memo.Memo`` with the default MemoConfig and the same
  embedder object, fed every visible line in turn order with what the
  baselines get: its text and turn (every line an utterance of no speaker,
  in shared memory: no kind, speaker or scope labels); a context is built as a game
  builds one, with ``touch=True``: at every decision (focus = question,
  query = situation) and ``--builds`` times between them, evenly spaced
  (query = the last lines seen, no focus), so what is shown is refreshed as
  in play (a game builds one every turn; building that often would make the
  default run take hours, so this is the compromise);
* MEMO cold: the same at the headline budget, but contexts are built only at
  decisions.

Recall is the mean hit rate over a seed's decisions; intervals are 95%
bootstrap intervals over seeds (resampling seeds). "MEMO - best" is MEMO's
recall minus the best baseline's (by point estimate) in the same cell, paired
by seed. Every cell where a baseline's point estimate beats MEMO is listed.

Latency (benchmarks/context_latency.py): Memo stores of 10k and 100k
memories of two kinds: template-heavy (held-out logs; MiniLM vectors of each
text with its digits masked) and distinct (memories that do not collapse:
different people, things, places, numbers and sentence shapes; MiniLM vectors
up to ``--latency-minilm-max`` memories, default 10k, the hash embedder above
it, as MiniLM embeds only about 100 texts a second here). ``Memo.context``
cannot take precomputed vectors, so ``memo.optimizer.build`` is timed with the
question and situation vectors precomputed, touch=True, B=400; the top-k
baseline is timed on the same store as the reference.

Output: tables (rich), goals, where MEMO loses; the full results as JSON
(``--out``), each finished log's rows as JSON lines beside it as the run goes
(``<out>.rows.jsonl``), and a PNG when matplotlib is installed. ``--quick``: 200
turns, held-out seeds 100-101, no tune seeds, budget 400, latency at 2k memories.
Budgets other than 400 run at the ``--sweep-lengths`` only (default 1000),
to keep the default run near 15 minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections import deque
from contextlib import nullcontext
from pathlib import Path

import numpy as np

from benchmarks.context.baselines import BASELINES, Costs, Pool
from benchmarks.context.logs import AGENT, VISIBLE, hit, make_log
from benchmarks.context.phrasing import FAMILIES
from benchmarks.context_latency import latency
from benchmarks.lib.cli import seed_list

HERE = Path(__file__).resolve().parent

SETTINGS = ("flood-d1", "flood-d2", "correction", "council", "rumours", "ledger")
EMBEDDERS = ("minilm", "hash")  # names memory.embedder.get_embedder knows
MEMO, COLD = "MEMO", "MEMO cold"
METHODS = (*BASELINES, MEMO, COLD)
HEADLINE = 400
SITUATION_LINES = 3
DEFAULT_OUT = HERE / "results" / "context_bench.json"


def split(setting: str) -> tuple[str, int]:
    base, _, d = setting.partition("-d")
    return base, int(d or 1)


def one_blas_thread():
    """A context in which numpy's BLAS uses one thread (when threadpoolctl is installed). The baselines
    make many small matrix-vector products, which a threaded BLAS slows down several times on a busy
    machine; their results do not change. MEMO and the latency part run with the default threads."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return nullcontext()
    return threadpool_limits(1, user_api="blas")


class Runner:
    """Runs every method on logs and collects one row per decision, method and budget."""

    def __init__(self, budgets: list[int], builds: int, sweep_lengths=None, embedder: str = "minilm"):
        from memory.embedder import get_embedder

        self.emb = get_embedder(embedder)
        self.costs = Costs()
        self.all_budgets, self.builds, self.sweep = budgets, builds, sweep_lengths
        self.rows: list[dict] = []

    def run_log(self, setting: str, family: str, seed: int, length: int) -> None:
        base, density = split(setting)
        sweep = self.sweep is None or length in self.sweep
        self.budgets = self.all_budgets if sweep else [HEADLINE]
        log = make_log(base, family, seed, length, density)
        views = self._views(log)
        texts = list(dict.fromkeys(log.texts() + list(views.values())))
        vecs = self.emb(texts)
        row = {t: k for k, t in enumerate(texts)}
        meta = {"setting": setting, "family": family, "seed": seed, "length": length}
        memo_rows = self._memo(log, views)
        for d, budget, method, shown in memo_rows:
            self._row(meta, d, budget, method, shown)
        seen = [ln for ln in log.lines if ln.scope in VISIBLE]
        all_vecs = vecs[[row[ln.text] for ln in seen]]
        all_costs = self.costs.of([ln.text for ln in seen])
        turns = np.array([ln.turn for ln in seen])
        for d in log.decisions:
            n = int(np.searchsorted(turns, d.turn))
            pool = Pool([ln.text for ln in seen[:n]], turns[:n], all_vecs[:n], all_costs[:n])
            qv, sv = vecs[row[d.question]], vecs[row[d.situation]]
            with one_blas_thread():
                for budget in self.budgets:
                    for method, fn in BASELINES.items():
                        s = fn(pool, d.question, d.situation, qv, sv, budget, self.costs)
                        self._row(meta, d, budget, method, (s.text, s.tokens))

    def _row(self, meta: dict, d, budget: int, method: str, shown: tuple[str, int]) -> None:
        text, tokens = shown
        self.rows.append(
            {
                **meta,
                "turn": d.turn,
                "label": d.label,
                "age": d.turn - d.planted,
                "budget": budget,
                "method": method,
                "hit": hit(d, text),
                "tokens": tokens,
            }
        )

    def _views(self, log) -> dict[int, str]:
        """The situation at every periodic build: the last few lines the agent saw before that turn."""
        asks = {d.turn for d in log.decisions}
        every = max(1, log.length // self.builds) if self.builds else log.length + 1
        out, recent, k = {}, deque(maxlen=SITUATION_LINES), 0
        for t in range(log.length + 1):
            if t not in asks and t % every == 0 and t and recent:
                out[t] = "\n".join(recent)
            while k < len(log.lines) and log.lines[k].turn == t:
                if log.lines[k].scope in VISIBLE:
                    recent.append(log.lines[k].text)
                k += 1
        return out

    def _memo(self, log, views: dict[int, str]) -> list[tuple]:
        """MEMO and MEMO cold at every budget, fed the log turn by turn; contexts at decisions and,
        for MEMO, at the periodic builds of ``views``."""
        from memory.memo import Memo

        memos = {(MEMO, b): Memo(embedder=self.emb) for b in self.budgets}
        memos[(COLD, HEADLINE)] = Memo(embedder=self.emb)
        asks: dict[int, list] = {}
        for d in log.decisions:
            asks.setdefault(d.turn, []).append(d)
        out, k = [], 0
        for t in range(log.length + 1):
            for d in asks.get(t, ()):
                for (method, b), memo in memos.items():
                    ctx = memo.context(AGENT, t, budget=b, focus=d.question, query=d.situation, touch=True)
                    out.append((d, b, method, (ctx.text(), ctx.tokens)))
            if t in views:
                for b in self.budgets:
                    memos[(MEMO, b)].context(AGENT, t, budget=b, query=views[t], touch=True)
            while k < len(log.lines) and log.lines[k].turn == t:
                ln = log.lines[k]
                if ln.scope in VISIBLE:  # what the baselines get: the text and its turn, no labels
                    for memo in memos.values():
                        memo.add(**memo_line(ln))
                k += 1
        return out


def memo_line(line) -> dict:
    """What MEMO is told of a visible line: its text and turn, as the baselines are. No kind, speaker or
    scope: a log's labels (which line is a claim, a fact, whose) would be a hint no baseline gets."""
    return {"text": line.text, "turn": line.turn, "kind": "utterance"}


def memo_hits(log, memo, budget: int = HEADLINE) -> list[bool]:
    """Feed ``memo`` the log's visible lines (``memo_line``) in turn order and build a context at each
    decision only (focus = question, query = situation): whether each shows its answer (``hit``)."""
    asks: dict[int, list] = {}
    for d in log.decisions:
        asks.setdefault(d.turn, []).append(d)
    got, k = [], 0
    for t in range(log.length + 1):
        for d in asks.get(t, ()):
            got.append(hit(d, memo.context(AGENT, t, budget=budget, focus=d.question, query=d.situation).text()))
        while k < len(log.lines) and log.lines[k].turn == t:
            if log.lines[k].scope in VISIBLE:
                memo.add(**memo_line(log.lines[k]))
            k += 1
    return got


# --------------------------------------------------------------------------- CLI


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n", 1)[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "--seeds",
        default="100-129",
        help="held-out seeds, phrasing --held-out-family; the goals are judged on them (default 100-129)",
    )
    ap.add_argument(
        "--held-out-family", default="D", choices=FAMILIES, help="phrasing family of --seeds (default D, the blind one)"
    )
    ap.add_argument(
        "--extra-seeds",
        default="none",
        help="a second held-out range in --extra-family, reported but not judged, e.g. 100-129 (default none)",
    )
    ap.add_argument(
        "--extra-family", default="B", choices=FAMILIES, help="phrasing family of --extra-seeds (default B)"
    )
    ap.add_argument(
        "--tune-seeds",
        default="none",
        help="tune seeds, phrasing family A, e.g. 0-9 (default none: the goals use held-out seeds)",
    )
    ap.add_argument("--lengths", type=int, nargs="+", default=[1000, 5000], help="log lengths in turns")
    ap.add_argument(
        "--budgets", type=int, nargs="+", default=[200, 400, 800], help=f"token budgets; {HEADLINE} is the headline"
    )
    ap.add_argument(
        "--sweep-lengths",
        type=int,
        nargs="*",
        default=[1000],
        help=f"lengths at which every budget is run; other lengths run B={HEADLINE} only (default 1000)",
    )
    ap.add_argument(
        "--settings", nargs="+", default=list(SETTINGS), choices=SETTINGS, help="settings to run (default: all)"
    )
    ap.add_argument(
        "--embedder",
        default="minilm",
        choices=EMBEDDERS,
        help="embedder of every method (default minilm; hash is fast but blind to meaning)",
    )
    ap.add_argument(
        "--builds",
        type=int,
        default=20,
        help="contexts MEMO builds between decisions, evenly spaced over a log (default 20)",
    )
    ap.add_argument(
        "--latency-sizes",
        type=int,
        nargs="*",
        default=[10_000, 100_000],
        help="store sizes for the latency part, each as a template-heavy and a distinct store (none to skip)",
    )
    ap.add_argument(
        "--latency-minilm-max",
        type=int,
        default=10_000,
        help="distinct stores up to this size get MiniLM vectors, larger ones the hash embedder (default 10000)",
    )
    ap.add_argument("--latency-queries", type=int, default=100)
    ap.add_argument("--boot", type=int, default=2000, help="bootstrap resamples")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT, help="JSON results (a PNG goes beside it)")
    ap.add_argument(
        "--quick",
        action="store_true",
        help="200 turns, held-out seeds 100-101, no tune seeds, budget 400, latency at 2k memories",
    )
    return ap


def main(argv: list[str] | None = None) -> int:
    from rich.console import Console
    from rich.progress import Progress

    from benchmarks.context import report

    args = build_parser().parse_args(argv)
    if args.quick:
        args.seeds, args.tune_seeds, args.lengths, args.budgets = "100-101", "none", [200], [HEADLINE]
        args.latency_sizes, args.latency_queries = [2_000], 30
    held, tune, extra = seed_list(args.seeds), seed_list(args.tune_seeds), seed_list(args.extra_seeds)
    ranges = [
        (f, seeds) for f, seeds in (("A", tune), (args.extra_family, extra), (args.held_out_family, held)) if seeds
    ]
    for other in (held, extra):
        if set(other) & set(tune):
            raise SystemExit(f"tune and held-out seeds overlap: {sorted(set(other) & set(tune))}")
    if len({f for f, _ in ranges}) < len(ranges):
        raise SystemExit(f"two seed ranges share a phrasing family: {[f for f, _ in ranges]}")
    names = {args.held_out_family: f"held-out seeds {args.seeds}, family {args.held_out_family}"}
    if extra:
        names[args.extra_family] = f"extra held-out seeds {args.extra_seeds}, family {args.extra_family} (not judged)"
    if tune:
        names["A"] = f"tune seeds {args.tune_seeds}, family A"
    if HEADLINE not in args.budgets:
        args.budgets = sorted({*args.budgets, HEADLINE})
    console = Console(width=max(Console().width, 150))
    t0 = time.perf_counter()
    console.print(
        f"machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; {'; '.join(names.values())}; "
        f"lengths {args.lengths}; budgets {args.budgets}; MEMO builds {args.builds} contexts a log "
        f"between decisions; {args.embedder} embedder"
    )
    jobs = [(s, fam, seed, n) for fam, seeds in ranges for n in args.lengths for s in args.settings for seed in seeds]
    partial = args.out.with_suffix(".rows.jsonl")
    partial.parent.mkdir(parents=True, exist_ok=True)
    partial.write_text("")
    with Progress(console=console, transient=True) as progress:
        runner = Runner(args.budgets, args.builds, args.sweep_lengths, args.embedder)
        task = progress.add_task(f"loading the {args.embedder} embedder", total=len(jobs))
        runner.emb(["warm up"])
        for setting, fam, seed, n in jobs:
            progress.update(task, description=f"{setting} {n:,} turns, seed {seed}")
            done = len(runner.rows)
            runner.run_log(setting, fam, seed, n)
            progress.advance(task)
            with partial.open("a") as fh:  # a killed run keeps the logs it finished
                fh.writelines(json.dumps(r) + "\n" for r in runner.rows[done:])
            if not console.is_terminal:  # no live bar in a log file: one line a log
                console.print(f"[{time.perf_counter() - t0:6.0f} s] {setting} {n:,} turns, seed {seed} (family {fam})")
        lat = []
        if args.latency_sizes:
            progress.update(task, description="latency stores")
            lat = latency(
                args.latency_sizes,
                args.latency_queries,
                held or extra or tune,
                args.held_out_family if held else args.extra_family if extra else "A",
                runner.emb,
                args.latency_minilm_max,
            )
    results = report.summarise(runner.rows, args.boot)
    goals = report.show(
        console, results, runner.rows, lat, args.budgets, HEADLINE, names, args.held_out_family if held else None
    )
    runtime = time.perf_counter() - t0
    console.print(f"runtime {runtime:.0f} s; load {os.getloadavg()[0]:.2f} at the end")
    report.save(
        args.out,
        {
            "args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
            "methods": list(METHODS),
            "cells": results,
            "latency": lat,
            "goals": goals,
            "runtime_s": runtime,
            "rows": runner.rows,
        },
        console,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
