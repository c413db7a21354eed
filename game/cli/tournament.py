"""``parley tournament`` (run, report, schema) and ``parley import`` (negotiation datasets)."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from argparse import Namespace
from pathlib import Path
from typing import Any

from game.core.errors import InputError


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "tournament"


def cmd_tournament(args: Namespace) -> int:
    target = args.target
    if target == "schema":
        from game.tournament.config import tournament_schema

        print(json.dumps(tournament_schema(), indent=2))
        return 0
    from game.core.extras import require

    require("tournament", "parley tournament")  # ratings (openskill), statistics (scipy), plots, live table
    if target == "report":
        if not args.dir:
            raise InputError(
                "parley tournament report needs the tournament's folder",
                hint="parley tournament report tournaments/NAME",
            )
        _report(Path(args.dir), args.max_matches)
        _llm_usage(Path(args.dir), args.max_matches)
        return 0
    if args.dir:
        raise InputError(f"unexpected argument {args.dir!r}", hint="parley tournament CONFIG.toml [--out DIR]")
    from game.tournament.config import load_config
    from game.tournament.runner import estimate, plan, run

    cfg, base = load_config(target)
    p = plan(cfg, base, args.max_matches)
    out = Path(args.out) if args.out else Path("tournaments") / _slug(cfg.name)
    workers = args.workers or os.cpu_count() or 1
    if args.dry_run:
        from game.tournament.results import RESULTS, finished_ids, results_limit

        if args.resume:  # which finished rows are this tournament's: one pass over its matches
            rows, _ = finished_ids(out / RESULTS, False, results_limit(args.max_matches))
            p.done = p.scan(mid for _, mid in rows)[1] if rows else set()
        secs, llm = estimate(p, workers)
        print(
            f"{cfg.name}: {len(p.matches):,} matches ({cfg.kind}; {len(cfg.competitors)} competitors, "
            f"{len(p.scenarios):,} scenarios, {len(cfg.seeds)} seed(s) x {cfg.repetitions} repetition(s))"
        )
        if p.done:
            print(f"  {len(p.done):,} finished in {out}, {p.remaining:,} to play")
        if secs is not None:
            what = "the matches without an LLM" if llm else "estimate"
            print(f"  {what}: {_duration(secs)} on {workers} worker(s) (from timing a sample here)")
        if llm:
            print(f"  {llm:,} matches involve an LLM: their time and cost depend on the endpoint (not estimated)")
        return 0
    backend = args.backend or ("processes" if workers > 1 else "local")
    live = _Live(p, quiet=args.quiet)
    try:
        with live:
            summary = run(
                p,
                out,
                backend=backend,
                workers=workers,
                resume=args.resume,
                ray_address=args.ray_address,
                on_start=live.start,
                on_rows=live.update,
            )
    except KeyboardInterrupt:
        print(
            f"\ninterrupted; finished matches are in {out / 'results.jsonl'} (continue with --resume)", file=sys.stderr
        )
        return 130
    for note in summary.notes:
        print(f"note: {note}", file=sys.stderr)
    print(
        f"{summary.played:,} matches played, {summary.skipped:,} already finished, of {summary.total:,} "
        f"({_duration(summary.seconds)}) -> {out / 'results.jsonl'}"
    )
    if summary.stopped:
        print(f"stopped early: {summary.stopped}; continue with --resume after raising the limit")
    if (summary.played or summary.skipped) and any(c.agent == "llm" for c in cfg.competitors):
        _llm_usage(out, args.max_matches)
    if not args.no_report and (summary.played or summary.skipped):
        _report(out, args.max_matches)
    return 0


def _report(folder: Path, max_matches: int) -> int:
    from game.tournament.report import write_report

    html, md = write_report(folder, max_matches=max_matches)
    print(f"report: {html}\nsummary: {md}")
    return 0


def _llm_usage(folder: Path, max_matches: int) -> None:
    """Print what the LLM competitors used (calls, tokens, seconds, repairs), when any did."""
    from game.core.files import stat_of
    from game.tournament.llm_usage import render_text, usage_table
    from game.tournament.results import results_limit
    from game.tournament.stats import read_results

    results = folder / "results.jsonl"
    present = stat_of(results)[1] != "missing"  # anything else there is read, and refused unless a file
    table = usage_table(read_results(results, results_limit(max_matches))) if present else None
    if table is not None:
        print(render_text(table))


def _duration(s: float) -> str:
    if s < 90:
        return f"{s:.1f} s"
    if s < 5400:
        return f"{s / 60:.1f} min"
    return f"{s / 3600:.1f} h"


class _Live:
    """A progress bar with ETA and matches/s, and the live top 5 (openskill); log lines with --quiet
    or when the output is not a terminal. It shows from ``start`` (once the results folder is
    checked and what is finished is known) to the end of the ``with`` block."""

    def __init__(self, p: Any, quiet: bool):
        from game.tournament.kinds import kind_for
        from game.tournament.stats import LiveRatings

        self.plan, self.total, self.done, self.started = p, 0, 0, False
        self.quiet = quiet or not sys.stderr.isatty()
        # a game of several matches (every competitor's on one scenario instance) is rated once all are in
        games_of_one = kind_for(p.config.kind).one_match_games
        self.ratings = LiveRatings(group_size=None if games_of_one else len(p.config.competitors))
        self.name = p.config.name
        self._live: Any = None
        self._t0 = time.perf_counter()
        self._last_log = 0.0

    def __enter__(self) -> _Live:
        return self

    def start(self) -> None:
        self.total, self.started = self.plan.remaining, True
        self._t0 = time.perf_counter()
        if self.quiet:
            print(f"{self.name}: {self.total:,} matches to play", file=sys.stderr)
            return
        from rich.console import Console, Group
        from rich.live import Live
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
        )
        self.task = self.progress.add_task(self.name, total=self.total, rate="")
        self._group = Group
        self._live = Live(Group(self.progress), console=Console(stderr=True), refresh_per_second=4)
        self._live.__enter__()

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(*exc)
        elif self.quiet and self.started:
            self._log(force=True)

    def update(self, rows: list[dict[str, Any]]) -> None:
        for r in rows:
            self.ratings.update(r)
        self.done += len(rows)
        if self._live is None:
            self._log()
            return
        rate = self.done / max(1e-9, time.perf_counter() - self._t0)
        self.progress.update(self.task, advance=len(rows), rate=f"{rate:,.1f} matches/s")
        self._live.update(self._group(self.progress, self._table()))

    def _table(self) -> Any:
        from rich.table import Table

        t = Table(title="top 5 (openskill, mu - 3 sigma)", title_justify="left", box=None)
        for col in ("#", "competitor", "rating", "games"):
            t.add_column(col, justify="left" if col == "competitor" else "right")
        for n, (name, ordinal, games) in enumerate(self.ratings.top(5), 1):
            t.add_row(str(n), name, f"{ordinal:.2f}", str(games))
        return t

    def _log(self, force: bool = False) -> None:
        now = time.perf_counter()
        if not force and now - self._last_log < 10:
            return
        self._last_log = now
        top = ", ".join(f"{n} {o:.2f}" for n, o, _ in self.ratings.top(3))
        print(
            f"[{now - self._t0:7.1f}s] {self.done:,}/{self.total:,} matches" + (f"; top: {top}" if top else ""),
            file=sys.stderr,
            flush=True,
        )


def cmd_import(args: Namespace) -> int:
    from game.tournament.importers import run_import

    path, summary = run_import(args.format, args.source, args.out, skip_bad=args.skip_bad)
    print(summary)
    print(f'wrote {path}; use it in a tournament as  [[scenarios]] imported = "{path}"')
    return 0
