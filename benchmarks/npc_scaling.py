"""How a turn's cost grows with the number of NPCs: harbor copies grown to N NPCs.

Usage:  python -m benchmarks.npc_scaling [--sizes 100 1000 10000] [--turns 10] [--reps 5]
            [--over-turns 3] [--over-reps 2] [--per-room 10] [--baseline DIR] [--game-baseline DIR]
            [--baseline-max 1000] [--refuse 10000] [--json FILE] [--page FILE]

``--sizes`` counts all the world's NPCs (the harbor's own 7 and the extra ones). The world
(``write_world``): a copy of worlds/harbor plus N − 7 extra NPCs in a street of extra
rooms (``lane_0000`` … , ``--per-room`` NPCs each, so a room's crowd stays the same size as N
grows): a third stand idle, a third wander (p = 0.3), a third patrol between their room and the
next. Each rep loads and validates the world (``game.play.worlds.load_world``), builds the
standard engine (the world's NPC agents, ``game.testing.standard_engine``) and plays ``--turns``
rounds in which the player waits and every NPC with an agent acts (the engine). The full game
path is measured too, as ``parley run W --autopilot --no-memory`` builds it (``measure_game``): a
``Game`` with agent memory off and world-fact memory on (the consistency gate, Σ-Mem, the witness),
the autopilot playing; its setup is reported whole and in parts (the NPC agents, the gate's
lexicon, Σ-Mem's start-up, the witness), and a Σ-Mem write (3 judged NPCs) is timed on its own.
Reported per size: load + validate time, time per turn and per NPC-turn (mean of the reps, 95%
bootstrap interval), and the fitted exponent b of time ∝ N^b (the log-log slope over the sizes,
with a bootstrap interval over the reps): b ≈ 1 is linear.

Sizes above the world limit (``game.world.limits.MAX_NPCS``) are refused to users; the benchmark
loads them inside ``game.world.limits.lifted()`` and plays ``--over-turns`` rounds in
``--over-reps`` reps there. ``--baseline DIR``: the engine measurement run by the code checked out
in DIR (an older commit, in a subprocess with DIR first on the import path); ``--game-baseline
DIR``: the same for the game path; both only up to ``--baseline-max`` NPCs. ``--refuse N``: the
time ``parley validate`` takes to refuse a world of N NPCs (above the limit). Timings drift with the
machine's load: compare ratios and slopes.
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
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
HARBOR = ROOT / "worlds" / "harbor"
OWN = 7
"""The harbor's own NPCs (``--sizes`` count them; a test checks the number)."""


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


def _lifted():
    """``game.world.limits.lifted()`` where the checked-out code has it (older code has no limits)."""
    try:
        from game.world.limits import lifted
    except ImportError:
        return nullcontext()
    return lifted()


def _load(folder: Path) -> tuple[Any, float]:
    from game.play.worlds import load_world

    t0 = time.perf_counter()
    with _lifted():
        world = load_world(folder)
    return world, time.perf_counter() - t0


def _timed(fn: Any, *args: Any) -> float:
    t0 = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0


def measure(folder: Path, turns: int) -> dict[str, Any]:
    """Seconds to load and validate the world, and per turn of ``turns`` rounds in which the player
    waits and every NPC with an agent acts (the standard engine). Uses only APIs older commits
    have too, so a baseline checkout can run it."""
    from agents.registry import npc_agents
    from game.core.types import PLAYER, Action, Verb
    from game.testing import standard_engine

    world, load = _load(folder)
    engine = standard_engine(world, seed=0, actors=npc_agents(world, 0))
    acting = sum(1 for a in engine.actors.values() if not a.passive)
    t0 = time.perf_counter()
    for _ in range(turns):
        engine.run_round(Action(PLAYER, Verb.WAIT))
    per_turn = (time.perf_counter() - t0) / turns
    return {"load": load, "turn": per_turn, "acting": acting, "state": engine.state_hash()}


def measure_game(folder: Path, turns: int, writes: int = 20) -> dict[str, Any]:
    """The full game path as ``parley run W --autopilot --turns T --no-memory`` builds it: seconds to
    load, to build the ``Game`` (and, timed apart, its parts: the NPC agents, the gate's lexicon,
    Σ-Mem over every NPC, the witness), per autopilot turn, and per Σ-Mem write judging 3 NPCs."""
    import agents.autopilot  # noqa: F401  (imports are not setup)
    import game.play.compose  # noqa: F401
    from agents.registry import npc_agents
    from game.play.config import GameConfig
    from game.play.session import Game
    from memory.lexicon import Lexicon
    from memory.sigma import SigmaMem
    from memory.witness import Sight, Witness

    world, load = _load(folder)
    spec = world.spec
    topics = sorted({f.topic for f in spec.facts.values()})
    parts = {
        "agents": _timed(npc_agents, world, 0),
        "lexicon": _timed(Lexicon.from_spec, spec),
        "sigma": _timed(SigmaMem.for_world, list(spec.npcs), topics),
        "witness": _timed(lambda: Witness(Sight.from_spec(spec))),
    }
    config = GameConfig(world=str(world.folder), seed=0, player="autopilot", memory=None)
    t0 = time.perf_counter()
    game = Game(world, config=config)
    seat = game.seat
    setup = time.perf_counter() - t0
    t0 = time.perf_counter()
    for _ in range(turns):
        game.play_turn(seat)
    per_turn = (time.perf_counter() - t0) / turns
    acting = sum(1 for a in game.engine.actors.values() if not a.passive)
    state = game.engine.state_hash()
    sigma, judged = game.facts.sigma, sorted(spec.npcs)[:3]
    t0 = time.perf_counter()
    for i in range(writes):
        sigma.write(topics[i % len(topics)], {p: 1 if (i + k) % 3 else -1 for k, p in enumerate(judged)})
    write = (time.perf_counter() - t0) / writes
    return {"load": load, "setup": setup, **parts, "turn": per_turn, "write": write, "acting": acting, "state": state}


def _worker(args: argparse.Namespace) -> int:
    fn = measure_game if args.mode == "game" else measure
    print(json.dumps(fn(Path(args.worker), args.turns)))
    return 0


def _run(folder: Path, turns: int, code: Path | None, mode: str = "engine") -> dict[str, Any]:
    """``measure`` (or ``measure_game``) in a fresh process, with ``code`` (a checkout; None: this
    one) first on the import path, ahead of any installed copy; this script runs with the
    checkout's code (the checkout may not have it)."""
    here = code if code is not None else ROOT
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join(dict.fromkeys([str(here), str(ROOT)])), PYTHONDONTWRITEBYTECODE="1"
    )
    tail = ["--worker", str(folder), "--turns", str(turns), "--mode", mode]
    cmd = [sys.executable, str(Path(__file__).resolve()), *tail]
    out = subprocess.run(cmd, cwd=here, env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"measurement failed ({folder.name}, {mode}): {out.stderr.strip()[-400:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def slope_ci(sizes: list[int], times: list[list[float]], seed: int = 12345) -> tuple[float, float, float]:
    """The log-log slope of time against N (``times``: each size's reps, as many as it has) and a
    bootstrap interval resampling the reps of each size independently."""
    x = np.log(np.asarray(sizes, dtype=float))
    rows = [np.asarray(t, dtype=float) for t in times]

    def fit(means: list[float]) -> float:
        return float(np.polyfit(x, np.log(means), 1)[0])

    b = fit([row.mean() for row in rows])
    rng = np.random.default_rng(seed)
    draws = [fit([row[rng.integers(row.size, size=row.size)].mean() for row in rows]) for _ in range(2000)]
    lo, hi = np.percentile(draws, [2.5, 97.5])
    return b, float(lo), float(hi)


def refusal_time(folder: Path) -> tuple[float, int, str]:
    """Seconds ``parley validate`` takes on the world in ``folder``, its exit code and the first
    problem line."""
    cmd = [sys.executable, "-c", "import sys; from game.cli.main import main; sys.exit(main(sys.argv[1:]))"]
    t0 = time.perf_counter()
    out = subprocess.run([*cmd, "validate", str(folder)], cwd=ROOT, capture_output=True, text=True, check=False)
    took = time.perf_counter() - t0
    line = next((ln.strip() for ln in out.stdout.splitlines() if ln.startswith("  ")), out.stdout.strip())
    return took, out.returncode, line.replace(str(folder), "W")


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=[100, 1_000, 10_000],
        help="NPCs in the world, the harbor's 7 included (default 100 1000 10000; above 1,000 the limits are lifted)",
    )
    ap.add_argument("--turns", type=int, default=10, help="rounds per rep (default 10)")
    ap.add_argument("--reps", type=int, default=5, help="reps per size, each in a fresh process (default 5)")
    ap.add_argument("--over-turns", type=int, default=3, help="rounds per rep above the NPC limit (default 3)")
    ap.add_argument("--over-reps", type=int, default=2, help="reps per size above the NPC limit (default 2)")
    ap.add_argument("--per-room", type=int, default=10, help="extra NPCs per extra room (default 10)")
    ap.add_argument("--baseline", metavar="DIR", help="a checkout of the code to compare the engine against")
    ap.add_argument("--game-baseline", metavar="DIR", help="a checkout of the code to compare the game path against")
    ap.add_argument("--baseline-max", type=int, default=1_000, help="largest size the baselines run (default 1000)")
    ap.add_argument("--refuse", type=int, default=10_000, help="time the refusal of this many NPCs (0: skip)")
    ap.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    ap.add_argument("--page", metavar="FILE", help="write the Markdown page (docs/benchmarks/npc_scaling.md)")
    ap.add_argument("--worker", metavar="WORLD", help=argparse.SUPPRESS)
    ap.add_argument("--mode", choices=["engine", "game"], default="engine", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    counts = (args.turns, args.reps, args.per_room, args.over_turns, args.over_reps)
    if not args.worker and (min(args.sizes) <= OWN or min(counts) < 1 or len(args.sizes) < 2):
        ap.error(f"--sizes needs two or more sizes above {OWN}; turns, reps and --per-room must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    if args.worker:
        return _worker(args)
    from game.world.limits import MAX_NPCS

    args.limit = MAX_NPCS
    codes = {
        ("engine", "ours"): None,
        ("game", "ours"): None,
        **({("engine", "baseline"): Path(args.baseline).resolve()} if args.baseline else {}),
        **({("game", "baseline"): Path(args.game_baseline).resolve()} if args.game_baseline else {}),
    }
    runs: dict[tuple[str, str], dict[int, list[dict[str, Any]]]] = {k: {} for k in codes}
    base = Path(tempfile.mkdtemp(prefix="parley-npcs-"))
    try:
        for n in args.sizes:
            folder = write_world(base / f"w{n}", n - OWN, args.per_room)
            over = n > MAX_NPCS
            turns, reps = (args.over_turns, args.over_reps) if over else (args.turns, args.reps)
            for _ in range(reps):
                for (mode, name), code in codes.items():
                    if name == "baseline" and n > args.baseline_max:
                        continue
                    runs[mode, name].setdefault(n, []).append(_run(folder, turns, code, mode))
            print(f"  measured {n:,} NPCs", file=sys.stderr)
            if args.refuse == n:
                refused = refusal_time(folder)
        if args.refuse and args.refuse not in args.sizes:
            refused = refusal_time(write_world(base / "refused", args.refuse - OWN, args.per_room))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    results = summarise(runs, args)
    lines = report(results, refused if args.refuse else None, args)
    print("\n".join(lines))
    if args.json:
        from benchmarks.lib.cli import write_json

        write_json(args.json, {**results, "refused": refused if args.refuse else None, "args": vars(args)})
    if args.page:
        Path(args.page).write_text(page(lines, args), encoding="utf-8")
    return 0


def summarise(runs: dict, args: argparse.Namespace) -> dict[str, Any]:
    """Per size and mode: mean and 95% interval of each figure, the baselines beside ours; and the
    fitted exponents."""
    from benchmarks.lib.stats import mean_ci

    out: dict[str, Any] = {"rows": {}, "fits": {}}
    for (mode, name), by_size in runs.items():
        sizes = sorted(by_size)
        if len(sizes) >= 2:
            out["fits"][f"{mode} turn ({name})"] = slope_ci(sizes, [[r["turn"] for r in by_size[n]] for n in sizes])
            if mode == "game":
                out["fits"][f"game setup ({name})"] = slope_ci(sizes, [[r["setup"] for r in by_size[n]] for n in sizes])
                out["fits"][f"Σ-Mem write ({name})"] = slope_ci(
                    sizes, [[r["write"] for r in by_size[n]] for n in sizes]
                )
        for n in sizes:
            reps = by_size[n]
            row = out["rows"].setdefault(mode, {}).setdefault(n, {"extra": n - OWN, "npcs": n, "reps": len(reps)})
            keys = [k for k, v in reps[0].items() if isinstance(v, float)]
            figures = {k: mean_ci([r[k] for r in reps]) for k in keys}
            figures["per_npc_turn"] = mean_ci([r["turn"] / n for r in reps])
            if name == "ours":
                row.update(figures, acting=reps[0]["acting"], states=[r["state"] for r in reps])
            else:
                row["baseline"] = figures
                row["baseline_states"] = [r["state"] for r in reps]
    for rows in out["rows"].values():
        for row in rows.values():
            if "baseline_states" in row:
                row["same_state"] = set(row.pop("baseline_states")) == set(row["states"])
            row.pop("states", None)
    return out


def _ci(v: tuple[float, float, float], scale: float = 1e3, digits: int = 1) -> str:
    return f"{v[0] * scale:.{digits}f} [{v[1] * scale:.{digits}f}, {v[2] * scale:.{digits}f}]"


def _size(row: dict, limit: int) -> str:
    return f"{row['npcs']:,}" + (" (lifted)" if row["npcs"] > limit else "")


def _baseline(row: dict, key: str, scale: float = 1e3, digits: int = 1) -> str:
    if "baseline" not in row:
        return "not run"
    return f"{_ci(row['baseline'][key], scale, digits)} ({row['baseline'][key][0] / row[key][0]:.1f}x)"


def report(results: dict, refused: tuple | None, args: argparse.Namespace) -> list[str]:
    """The engine and game tables and the fitted exponents, as Markdown lines."""
    engine, game = results["rows"].get("engine", {}), results["rows"].get("game", {})
    out = ["### The engine (memory off, the player waits)", ""]
    out += ["| NPCs | reps × turns | NPCs acting | load + validate, s | ms per turn | µs per NPC-turn |"]
    out[-1] += " baseline ms per turn (baseline / ours) | same final state |"
    out += ["|---|---|---|---|---|---|---|---|"]
    for n, r in sorted(engine.items()):
        turns = args.over_turns if r["npcs"] > args.limit else args.turns
        same = {True: "yes", False: "NO"}.get(r.get("same_state"), "—")
        out.append(
            f"| {_size(r, args.limit)} | {r['reps']} × {turns} | {r['acting']:,} | {_ci(r['load'], 1, 2)} |"
            f" {_ci(r['turn'])} | {_ci(r['per_npc_turn'], 1e6, 0)} | {_baseline(r, 'turn')} | {same} |"
        )
    out += ["", "### The game path (`parley run W --autopilot --no-memory`: gate, Σ-Mem, witness, autopilot)", ""]
    out += ["| NPCs | setup, s | agents, s | lexicon, s | Σ-Mem, s | witness, s | ms per turn |"]
    out[-1] += " µs per NPC-turn | Σ-Mem write, ms | baseline setup, s | baseline ms per turn | baseline write, ms |"
    out[-1] += " same final state |"
    out += ["|" + "---|" * 14]
    for n, r in sorted(game.items()):
        same = {True: "yes", False: "NO"}.get(r.get("same_state"), "—")
        parts = " | ".join(_ci(r[k], 1, 3) for k in ("agents", "lexicon", "sigma", "witness"))
        out.append(
            f"| {_size(r, args.limit)} | {_ci(r['setup'], 1, 2)} | {parts} | {_ci(r['turn'])} |"
            f" {_ci(r['per_npc_turn'], 1e6, 0)} | {_ci(r['write'], 1e3, 2)} | {_baseline(r, 'setup', 1, 2)} |"
            f" {_baseline(r, 'turn')} | {_baseline(r, 'write', 1e3, 2)} | {same} |"
        )
    out.append("")
    for name, (b, lo, hi) in results["fits"].items():
        out.append(f"- exponent of {name} time against N: {b:.2f} [{lo:.2f}, {hi:.2f}]")
    if refused is not None:
        took, code, msg = refused
        out.append(f"- `parley validate` on {args.refuse:,} NPCs: exit {code} in {took:.2f} s: `{msg}`")
    return out


def page(lines: list[str], args: argparse.Namespace) -> str:
    sizes = " ".join(str(n) for n in args.sizes)
    cmd = (
        f"python -m benchmarks.npc_scaling --sizes {sizes} --turns {args.turns} --reps {args.reps}"
        f" --over-turns {args.over_turns} --over-reps {args.over_reps}"
    )
    if args.baseline:
        cmd += " --baseline OLD"
    if args.game_baseline:
        cmd += " --game-baseline MAIN"
    if args.baseline or args.game_baseline:
        cmd += f" --baseline-max {args.baseline_max}"
    return PAGE.format(per_room=args.per_room, cmd=cmd, table="\n".join(lines), limit=args.limit, max=args.baseline_max)


PAGE = """# NPC scaling

How a turn's cost grows with the number of NPCs. The world is a copy of the harbor (7 NPCs) grown
to N NPCs, the extra ones {per_room} to a room in a street of extra rooms (a third idle, a third wandering, a third
patrolling). Each rep runs in a fresh process, loads and validates the world and then either
plays rounds in which the player waits and every NPC with an agent acts (the engine, memory off),
or builds the game as `parley run W --autopilot --no-memory` does (agent memory off, world-fact
memory on: the consistency gate, Σ-Mem over every NPC, the witness) and lets the autopilot play.
The game's setup is timed whole and, apart, in its parts; a Σ-Mem write (one verified claim
judging 3 NPCs) is timed on its own, after the turns. Times are means over the reps with 95%
bootstrap intervals; an exponent is the log-log slope of time against N (1 is linear), with a
bootstrap interval over the reps.

Worlds above {limit:,} NPCs are refused to users (the last line below); the benchmark loads them
with the limits lifted (`game.world.limits.lifted()`, a context manager for benchmarks and tests
that no world file or command-line flag reaches), marked "(lifted)", with fewer reps and turns
(the command says how many). The engine baseline is the code before who-is-where was indexed; the
game baseline is the code before the agents shared one map of exits and a Σ-Mem write rescaled
only the judged NPCs. Both run on the same worlds in the same run, up to {max:,} NPCs only
(the engine baseline's turn grows as N^1.5: at 10,000 it would take most of the run; the game
baseline has no way to lift the limits, so it refuses the 10,000-NPC world).

Command: `{cmd}`

{table}

Where it loses: a turn is linear in the NPCs that act only while rooms stay the same size.
Everyone in a room sees every event there, so a crowd costs its size for each event in it, and a
save keeps each entity's recent events with their witnesses; the limits on NPCs and on NPCs per
starting location (docs/guide/limits.md, World sizes) bound both. Wanderers may still gather in
one room during play. Σ-Mem keeps a dense NPCs × NPCs matrix S. It is allocated as untouched
zeros (no memory until written), and a write rescales only the nonzero entries of the judged NPCs'
rows and columns (before, every write multiplied the whole matrix through an NPCs² temporary:
the baseline's write time grows with N^1); but reading trust across all NPCs (`SigmaMem.G`),
saving a game (S is saved whole) and loading one (S is projected back onto the PSD cone, an
eigendecomposition, NPCs³) still cost at least NPCs²: 100 million numbers (800 MB) at 10,000 NPCs.
That cost is inherent to the dense matrix and bounded by the limit of {limit:,} NPCs (8 MB).
The game's turn is slower than the game baseline's (about 0.6x): before each turn the game now
keeps a snapshot of itself, so a turn that fails through a bug is put back whole
(docs/guide/limits.md, Turns that fail). The snapshot is linear in the NPCs (their places and
recent events); it shares Σ-Mem's arrays read-only instead of copying them, and Σ-Mem copies an
array only when it next changes it, so the first write after a snapshot copies S: NPCs² numbers,
8 MB at the limit, 800 MB with limits lifted at 10,000. The write column times 20 writes in a
row after the turns, one of them with that copy, which is why it grows faster than N. An
exponent below 1 comes from fixed costs (the
player, the round's bookkeeping, the game's set-up), which small worlds feel most; timings on this
shared machine drift with its load, so compare ratios and slopes.
"""


if __name__ == "__main__":
    sys.exit(main())
