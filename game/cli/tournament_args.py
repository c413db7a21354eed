"""The arguments of ``parley tournament`` and ``parley import``: their flags, checks and help.
Only argparse (and the tournament package's limits, no heavy import) is loaded here."""

from __future__ import annotations

import argparse
from typing import Any

from game.cli.flags import folder_value
from game.tournament import DEFAULT_MAX_MATCHES, MAX_MATCHES_CEILING, max_workers


def _whole(low: int, high: int, note: str = "") -> Any:
    """argparse type: a whole number from ``low`` to ``high`` (argparse names the flag)."""

    def check(text: str) -> int:
        try:
            n = int(text.strip())
        except ValueError:
            n = None
        if n is None or not low <= n <= high:
            shown = text if len(text) <= 30 else text[:27] + "..."
            raise argparse.ArgumentTypeError(f"must be a whole number from {low:,} to {high:,}{note}, got {shown!r}")
        return n

    return check


TOURNAMENT_EPILOG = """examples:
  parley tournament examples/tournaments/negotiation.toml                 run, with progress and a report
  parley tournament examples/tournaments/negotiation.toml --dry-run       count the matches, estimate the time
  parley tournament CONFIG.toml --backend processes --workers 2           a process pool
  parley tournament CONFIG.toml --backend ray --ray-address auto          an existing Ray cluster
  parley tournament CONFIG.toml --out DIR --resume                        continue a stopped run
  parley tournament CONFIG.toml --dry-run --max-matches 1000000          count one above the default limit
  parley tournament report DIR                                            rebuild report.html and summary.md
  parley tournament schema > tournament.schema.json                       the config's JSON Schema
"""


def add_tournament_parsers(sub: Any) -> None:
    """``parley tournament`` and ``parley import``."""
    t = sub.add_parser(
        "tournament",
        help="run a headless agent-vs-agent tournament from a TOML config; 'tournament report DIR' rebuilds its report",
        description="Run every competitor against every other in every role, on every scenario, "
        "seed and repetition; results go to DIR/results.jsonl one line per finished "
        "match, then ratings and a report (report.html, summary.md).",
        epilog=TOURNAMENT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    t.add_argument(
        "target",
        metavar="CONFIG|report|schema",
        help="a tournament file (.toml or .json), or 'report' (then DIR), or 'schema'",
    )
    t.add_argument("dir", metavar="DIR", nargs="?", help="with report: the tournament's folder")
    t.add_argument(
        "--out", metavar="DIR", type=folder_value, help="where results and the report go (default tournaments/<name>)"
    )
    most = max_workers()
    t.add_argument(
        "--workers",
        type=_whole(0, most, " (0: one per CPU core)"),
        default=1,
        metavar="N",
        help=f"parallel workers, 1 to {most} (four per CPU core); 0: one per CPU core (default 1)",
    )
    t.add_argument(
        "--max-matches",
        type=_whole(1, MAX_MATCHES_CEILING),
        default=DEFAULT_MAX_MATCHES,
        metavar="N",
        help=f"refuse a tournament of more matches, counted from the config before anything is played "
        f"(default {DEFAULT_MAX_MATCHES:,}); also bounds the results file read (4 KiB a match)",
    )
    t.add_argument(
        "--backend",
        choices=("local", "processes", "ray"),
        default=None,
        help="local: this process (the default with one worker); processes: a process pool (the "
        "default with more); ray: a Ray cluster (needs the scale extra: pip install 'parley-engine[scale]')",
    )
    t.add_argument(
        "--ray-address",
        metavar="ADDR",
        default=None,
        help="join this Ray cluster (e.g. auto, or ray://host:10001); default: start a local one",
    )
    t.add_argument("--resume", action="store_true", help="continue the run in --out: finished matches are skipped")
    t.add_argument("--dry-run", action="store_true", help="print the match count and a time estimate; play nothing")
    t.add_argument("--quiet", action="store_true", help="log lines instead of the progress bar")
    t.add_argument("--no-report", action="store_true", help="write results only (build the report later)")

    im = sub.add_parser(
        "import",
        help="turn a negotiation dataset into a scenario set for tournaments",
        description="Read a public negotiation dataset (not shipped: fetch it yourself) into a "
        "scenario set (JSON) that a tournament lists as  [[scenarios]] imported = FILE. "
        "The humans' outcomes come along, so reports can compare agents with people.",
    )
    im.add_argument(
        "format",
        choices=("dond", "casino", "genius"),
        help="dond: Deal or No Deal (src/data/negotiate/*.txt); casino: CaSiNo (casino.json); "
        "genius: a folder of GENIUS XML domain and profile files",
    )
    im.add_argument("source", metavar="FILE|DIR", help="the dataset file (or GENIUS folder)")
    im.add_argument("--out", metavar="FILE", help="the scenario set to write (default: ./<format>-<name>.json)")
    im.add_argument(
        "--skip-bad",
        action="store_true",
        help="list malformed records in the set's 'skipped' instead of stopping at the first",
    )
