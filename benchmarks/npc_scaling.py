"""How a turn's cost grows with the number of NPCs: harbor copies with N extra NPCs.

Usage:  python -m benchmarks.npc_scaling [--sizes 100 300 990] [--turns 2] [--reps 5]
            [--per-room 10] [--baseline DIR] [--refuse 10000] [--json FILE] [--page FILE]

The world (``write_world``): a copy of worlds/harbor plus N extra NPCs in a street of extra
rooms (``lane_0000`` … , ``--per-room`` NPCs each, so a room's crowd stays the same size as N
grows): a third stand idle, a third wander (p = 0.3), a third patrol between their room and the
next. Each rep loads and validates the world (``game.play.worlds.load_world``), builds the
standard engine (the world's NPC agents, ``game.testing.standard_engine``) and plays ``--turns``
rounds in which the player waits and every NPC with an agent acts. Reported per size: load +
validate time, time per turn and per NPC-turn (mean of the reps, 95% bootstrap interval), and the
fitted exponent b of time ∝ N^b (the log-log slope over the sizes, with a bootstrap interval over
the reps): b ≈ 1 is linear. ``--baseline DIR``: the same measurement run by the code checked out
in DIR (a worktree of an older commit, in a subprocess with DIR first on the import path), shown as
its times over ours. ``--refuse N``: the time ``parley validate`` takes to refuse a world above the
NPC limit. Timings drift with the machine's load: compare ratios and slopes.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
HARBOR = ROOT / "worlds" / "harbor"


def write_world(folder: Path, extra: int, per_room: int = 10, source: Path = HARBOR) -> Path:
    """Write a copy of the harbor world with ``extra`` more NPCs into ``folder`` (replaced if it
    exists): ``per_room`` to a room, in a street of new rooms east of the pier's beach; kinds cycle
    idle, wanderer, patrol. Returns the folder."""
    folder = Path(folder)
    if folder.exists():
        shutil.rmtree(folder)
    shutil.copytree(source, folder)
    rooms = max(1, math.ceil(extra / per_room)) if extra else 0
    (folder / "locations").mkdir(exist_ok=True)
    (folder / "npcs").mkdir(exist_ok=True)
    for r in range(rooms):
        exits = [f'west = "{f"lane_{r - 1:04d}" if r else "quay"}"']
        if r + 1 < rooms:
            exits.append(f'east = "lane_{r + 1:04d}"')
        (folder / "locations" / f"lane_{r:04d}.toml").write_text(
            f'name = "Lane {r}"\ndescription = "A narrow lane of net lofts, number {r}."\n'
            f"exits = {{ {', '.join(exits)} }}\n",
            encoding="utf-8",
        )
    for i in range(extra):
        room = i // per_room
        kind = ("idle", "wanderer", "patrol")[i % 3]
        agent = f'[agent]\nkind = "{kind}"\n'
        if kind == "wanderer":
            agent += "params = { p = 0.3 }\n"
        elif kind == "patrol":
            nxt = f"lane_{room + 1:04d}" if room + 1 < rooms else (f"lane_{room - 1:04d}" if room else "quay")
            agent += f'params = {{ route = ["lane_{room:04d}", "{nxt}"] }}\n'
        (folder / "npcs" / f"extra_{i:05d}.toml").write_text(
            f'name = "Netter {i}"\nlocation = "lane_{room:04d}"\n{agent}', encoding="utf-8"
        )
    return folder


def measure(folder: Path, turns: int) -> dict[str, float]:
    """Seconds to load and validate the world, and per turn of ``turns`` rounds in which the player
    waits and every NPC with an agent acts (the standard engine). Uses only APIs older commits
    have too, so a baseline checkout can run it."""
    from game.core.types import PLAYER, Action, Verb
    from game.play.worlds import load_world
    from game.testing import standard_engine

    t0 = time.perf_counter()
    world = load_world(folder)
    load = time.perf_counter() - t0
    from agents.registry import npc_agents

    engine = standard_engine(world, seed=0, actors=npc_agents(world, 0))
    acting = sum(1 for a in engine.actors.values() if not a.passive)
    t0 = time.perf_counter()
    for _ in range(turns):
        engine.run_round(Action(PLAYER, Verb.WAIT))
    per_turn = (time.perf_counter() - t0) / turns
    return {"load": load, "turn": per_turn, "acting": acting, "state": engine.state_hash()}


def _worker(args: argparse.Namespace) -> int:
    print(json.dumps(measure(Path(args.worker), args.turns)))
    return 0


def _run(folder: Path, turns: int, code: Path | None) -> dict[str, float]:
    """``measure`` in a fresh process, with ``code`` (a checkout) first on the import path."""
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(code), str(ROOT)])
    here = code if code is not None else ROOT
    cmd = [sys.executable, "-m", "benchmarks.npc_scaling", "--worker", str(folder), "--turns", str(turns)]
    if code is not None:  # the older checkout may not have this script: run ours with its code
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", str(folder), "--turns", str(turns)]
    out = subprocess.run(cmd, cwd=here, env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"measurement failed ({folder.name}): {out.stderr.strip()[-400:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def slope_ci(sizes: list[int], times: np.ndarray, seed: int = 12345) -> tuple[float, float, float]:
    """The log-log slope of time against N (``times``: sizes × reps) and a bootstrap interval
    resampling the reps of each size independently."""
    x = np.log(np.asarray(sizes, dtype=float))

    def fit(t: np.ndarray) -> float:
        return float(np.polyfit(x, np.log(t), 1)[0])

    b = fit(times.mean(axis=1))
    rng = np.random.default_rng(seed)
    reps = times.shape[1]
    draws = [fit(np.array([row[rng.integers(reps, size=reps)].mean() for row in times])) for _ in range(2000)]
    lo, hi = np.percentile(draws, [2.5, 97.5])
    return b, float(lo), float(hi)


def refusal_time(n: int, folder: Path) -> tuple[float, int, str]:
    """Seconds ``parley validate`` takes on a harbor copy with ``n`` extra NPCs, its exit code and
    the first problem line."""
    write_world(folder, n)
    cmd = [sys.executable, "-c", "import sys; from game.cli.main import main; sys.exit(main(sys.argv[1:]))"]
    t0 = time.perf_counter()
    out = subprocess.run([*cmd, "validate", str(folder)], cwd=ROOT, capture_output=True, text=True, check=False)
    took = time.perf_counter() - t0
    line = next((ln.strip() for ln in out.stdout.splitlines() if ln.startswith("  ")), out.stdout.strip())
    return took, out.returncode, line.replace(str(folder), "W")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[100, 300, 990],
        help="extra NPCs (default 100 300 990: the harbor has 7, a world at most 1,000)",
    )
    ap.add_argument("--turns", type=int, default=2, help="rounds per rep (default 2)")
    ap.add_argument("--reps", type=int, default=5, help="reps per size, each in a fresh process (default 5)")
    ap.add_argument("--per-room", type=int, default=10, help="extra NPCs per extra room (default 10)")
    ap.add_argument("--baseline", metavar="DIR", help="a checkout of the code to compare against")
    ap.add_argument("--refuse", type=int, default=10_000, help="time the refusal of this many NPCs (0: skip)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    ap.add_argument("--page", metavar="FILE", help="write the Markdown page (docs/benchmarks/npc_scaling.md)")
    ap.add_argument("--worker", metavar="WORLD", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        return _worker(args)
    if min(args.sizes) < 1 or args.turns < 1 or args.reps < 1 or args.per_room < 1 or len(args.sizes) < 2:
        ap.error("--sizes needs two or more sizes; sizes, --turns, --reps and --per-room must be at least 1")
    from benchmarks.lib.stats import mean_ci

    base = Path(tempfile.mkdtemp(prefix="parley-npcs-"))
    codes = {"ours": None} | ({"baseline": Path(args.baseline).resolve()} if args.baseline else {})
    runs: dict[str, dict[int, list[dict[str, float]]]] = {k: {n: [] for n in args.sizes} for k in codes}
    try:
        for n in args.sizes:
            folder = write_world(base / f"w{n}", n, args.per_room)
            for _ in range(args.reps):
                for name, code in codes.items():
                    runs[name][n].append(_run(folder, args.turns, code))
            print(f"  measured {n} extra NPCs", file=sys.stderr)
        refused = refusal_time(args.refuse, base / "refused") if args.refuse else None
    finally:
        shutil.rmtree(base, ignore_errors=True)
    rows, fits = [], {}
    for name in codes:
        turn = np.array([[r["turn"] for r in runs[name][n]] for n in args.sizes])
        fits[name] = slope_ci(args.sizes, turn)
    for n in args.sizes:
        ours = runs["ours"][n]
        npcs = n + 7
        t = mean_ci([r["turn"] for r in ours])
        per = mean_ci([r["turn"] / npcs for r in ours])
        load = mean_ci([r["load"] for r in ours])
        row = {"extra": n, "npcs": npcs, "acting": ours[0]["acting"], "turn": t, "per_npc_turn": per, "load": load}
        if "baseline" in runs:
            old = runs["baseline"][n]
            row["baseline_turn"] = mean_ci([r["turn"] for r in old])
            row["baseline_load"] = mean_ci([r["load"] for r in old])
            row["same_state"] = all(a["state"] == b["state"] for a, b in zip(ours, old, strict=True))
        rows.append(row)
    lines = report(rows, fits, refused, args)
    print("\n".join(lines))
    if args.json:
        from benchmarks.lib.cli import write_json

        write_json(args.json, {"rows": rows, "fits": fits, "refused": refused, "args": vars(args)})
    if args.page:
        Path(args.page).write_text(page(lines, args), encoding="utf-8")
    return 0


def _ci(v: tuple[float, float, float], scale: float = 1e3, digits: int = 1) -> str:
    return f"{v[0] * scale:.{digits}f} [{v[1] * scale:.{digits}f}, {v[2] * scale:.{digits}f}]"


def report(rows: list[dict], fits: dict, refused: tuple | None, args: argparse.Namespace) -> list[str]:
    """The table and the fitted exponents, as Markdown lines."""
    base = "baseline_turn" in rows[0]
    head = "| extra NPCs | NPCs acting | load + validate, s | ms per turn | µs per NPC-turn |"
    rule = "|---|---|---|---|---|"
    if base:
        head += " baseline ms per turn | baseline / ours | same final state |"
        rule += "---|---|---|"
    out = [head, rule]
    for r in rows:
        line = (
            f"| {r['extra']:,} | {r['acting']:,} | {_ci(r['load'], 1, 2)} | {_ci(r['turn'])} |"
            f" {_ci(r['per_npc_turn'], 1e6, 0)} |"
        )
        if base:
            ratio = r["baseline_turn"][0] / r["turn"][0]
            line += f" {_ci(r['baseline_turn'])} | {ratio:.1f}x | {'yes' if r['same_state'] else 'NO'} |"
        out.append(line)
    out.append("")
    for name, (b, lo, hi) in fits.items():
        out.append(f"- exponent of time per turn against N ({name}): {b:.2f} [{lo:.2f}, {hi:.2f}]")
    if refused is not None:
        took, code, msg = refused
        out.append(f"- `parley validate` on {args.refuse:,} extra NPCs: exit {code} in {took:.2f} s: `{msg}`")
    return out


def page(lines: list[str], args: argparse.Namespace) -> str:
    sizes = " ".join(str(n) for n in args.sizes)
    cmd = f"python -m benchmarks.npc_scaling --sizes {sizes} --turns {args.turns} --reps {args.reps}"
    if args.baseline:
        cmd += " --baseline DIR"
    return (
        "# NPC scaling\n\n"
        "How a turn's cost grows with the number of NPCs. The world is a copy of the harbor with N extra\n"
        f"NPCs, {args.per_room} to a room in a street of extra rooms (a third idle, a third wandering, a third\n"
        "patrolling); each rep loads and validates it, then plays rounds in which the player waits and\n"
        "every NPC with an agent acts (the standard engine, memory off). Times are means over the reps\n"
        "with 95% bootstrap intervals; the exponent is the log-log slope of time per turn against N\n"
        "(1 is linear). The baseline is the code before who-is-where was indexed, run on the same\n"
        "worlds in the same run (`--baseline DIR`, a checkout of that commit).\n\n"
        f"Command: `{cmd}`\n\n" + "\n".join(lines) + "\n\n"
        "Where it loses: a turn is linear in the NPCs that act only while rooms stay the same size.\n"
        "Everyone in a room sees every event there, so a crowd costs its size for each event in it, and a\n"
        "save keeps each entity's recent events with their witnesses; the limits on NPCs and on NPCs per\n"
        "starting location (docs/guide/limits.md, World sizes) bound both. Wanderers may still gather in\n"
        "one room during play. With memory on, each perceiver also stores what it saw, so memory's\n"
        "work per turn is the sum of the crowds the acting NPCs stand in. An exponent below 1 comes from\n"
        "the turn's fixed cost (the player, the round's bookkeeping), which small worlds feel most.\n"
        "Worlds above the limit of 1,000 NPCs are refused at load, so the 10,000-NPC world is timed as a\n"
        "refusal only.\n"
    )


if __name__ == "__main__":
    sys.exit(main())
