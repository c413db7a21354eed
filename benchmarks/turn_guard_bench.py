"""What it costs to make every turn whole: the snapshot taken before each turn an agent plays.

Usage:  python -m benchmarks.turn_guard_bench [--world harbor] [--seeds 100-119] [--rounds N]
                                               [--embedder minilm] [--json FILE]

A typed move costs nothing more: it is put back from the snapshot ``undo`` keeps anyway (taken
in a thread while the player reads). A move an agent makes from the player's seat (``parley
run``, ``parley watch``, ``Game.play_turn``) is preceded by a snapshot of its own
(``MetaCommands.before_turn``): that is what is measured here.

For each seed, two games of the same world are played by the autopilot, with agent memory on
(MiniLM by default, as ``parley run`` has it): one guarded (as shipped), one whose
``before_turn`` takes no snapshot (the game before turns were whole). The autopilot does not
read its memory context, so both make the same moves (checked: the same state hash at the end);
which of the two goes first alternates with the seed, and the embedder's cache is emptied
before each game. The figure is each game's total turn time
guarded / unguarded (mean over seeds, 95% bootstrap interval), and the snapshot's own time per
turn (median, p95, and at the last turn: it grows with the memory bank). Times are the CPU time
of the thread that plays (``time.thread_time``; the embedder runs on it), so a machine busy
with other work does not blur them; wall-clock ratios are printed too.

The baseline is the snapshot taken the simple way, as ``undo`` took it before: every component's
state as canonical JSON, memory records through ``dataclasses.asdict``; its time is measured on
the same states each turn (not used to play).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from typing import Any

import numpy as np

from benchmarks.lib.cli import seed_list, write_json
from benchmarks.lib.stats import resample_ci


def naive_snapshot(game: Any) -> float:
    """Seconds to take the state the simple way (canonical JSON; records by ``asdict``)."""
    from game.engine.state import canonical_json

    t = time.thread_time()
    comps = game.components()
    if game.memory is not None:
        comps["memory"]["bank"]["records"] = [dataclasses.asdict(r) for r in game.memory.bank.records.values()]
    canonical_json({"engine": game.engine.get_state(), "components": comps, "totals": game.engine.totals})
    return time.thread_time() - t


def play(world: Any, seed: int, memory: dict | None, rounds: int | None, guarded: bool) -> dict[str, Any]:
    """One game by the autopilot: each turn's CPU and wall time, and (guarded) the snapshot's own
    time and the baseline snapshot's, taken after each turn outside the turn's time."""
    from game.play.session import Game

    if memory is not None and memory.get("embedder") == "minilm":
        from memory.embedder import get_embedder

        get_embedder("minilm").clear_cache()  # each game embeds its own texts, as a fresh process does
    game = Game(world, seed=seed, player_kind="autopilot", memory=memory)
    take, spent, naive = game.meta.before_turn, [], []

    def timed(typed: bool) -> Any:
        t = time.thread_time()
        snap = take(typed)
        spent.append(time.thread_time() - t)
        return snap

    game.meta.before_turn = timed if guarded else (lambda typed: None)  # None: the turn cannot be put back
    cpu: list[float] = []
    wall: list[float] = []
    limit = rounds if rounds is not None else world.spec.max_turns
    while not game.engine.done and len(cpu) < limit:
        t, w = time.thread_time(), time.perf_counter()
        game.play_turn()
        cpu.append(time.thread_time() - t)
        wall.append(time.perf_counter() - w)
        if guarded:
            naive.append(naive_snapshot(game))
    return {"cpu": cpu, "wall": wall, "snapshot": spent, "naive": naive, "hash": game.engine.state_hash()}


def play_pair(world: Any, seed: int, memory: dict | None, rounds: int | None) -> dict[str, Any]:
    """The same seed guarded and unguarded (which goes first alternates with the seed)."""
    first = seed % 2 == 0
    runs = {g: play(world, seed, memory, rounds, g) for g in ((True, False) if first else (False, True))}
    on, off = runs[True], runs[False]
    assert on["hash"] == off["hash"], "the two games made different moves"
    return {
        "seed": seed,
        "turns": len(on["cpu"]),
        "guarded_s": sum(on["cpu"]),
        "plain_s": sum(off["cpu"]),
        "ratio": sum(on["cpu"]) / sum(off["cpu"]),
        "wall_ratio": sum(on["wall"]) / sum(off["wall"]),
        "turn_ms": float(np.median(off["cpu"]) * 1000),
        "snapshot_ms": [round(x * 1000, 3) for x in on["snapshot"]],
        "naive_ms": [round(x * 1000, 3) for x in on["naive"]],
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--world", default="harbor", help="a shipped world (default: harbor)")
    ap.add_argument("--seeds", default="100-119", help="seeds to play (default: 100-119)")
    ap.add_argument("--rounds", type=int, default=None, help="stop after this many turns (default: the whole game)")
    ap.add_argument("--embedder", default="minilm", help="memory's embedder, or 'none' for memory off")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args()
    from game.play.worlds import load_world

    world = load_world(f"worlds/{args.world}")
    memory = None if args.embedder == "none" else {"embedder": args.embedder}
    play(world, 0, memory, 3, False)  # loads the model (once per process) before anything is timed
    games = [play_pair(world, s, memory, args.rounds) for s in seed_list(args.seeds)]
    ratios = np.array([g["ratio"] for g in games])
    lo, hi = resample_ci((ratios,), lambda x, axis=-1: x.mean(axis=axis))
    snaps = np.concatenate([g["snapshot_ms"] for g in games])
    naive = np.concatenate([g["naive_ms"] for g in games])
    last = np.array([g["snapshot_ms"][-1] for g in games])
    last_naive = np.array([g["naive_ms"][-1] for g in games])
    print(
        f"world {args.world}, memory {args.embedder}, {len(games)} seeds ({args.seeds}), {sum(g['turns'] for g in games)} turns"
    )
    print(f"turn (unguarded), median of games' medians: {np.median([g['turn_ms'] for g in games]):.1f} ms")
    print(f"guarded / unguarded total turn CPU time: {ratios.mean():.3f} (95% CI {float(lo):.3f}-{float(hi):.3f})")
    print(f"the same in wall-clock time: {np.mean([g['wall_ratio'] for g in games]):.3f}")
    print(
        f"snapshot per turn: median {np.median(snaps):.2f} ms, p95 {np.percentile(snaps, 95):.2f} ms, "
        f"at the last turn {np.median(last):.2f} ms (median over games)"
    )
    print(
        f"baseline snapshot (canonical JSON, asdict records): median {np.median(naive):.2f} ms, "
        f"p95 {np.percentile(naive, 95):.2f} ms, at the last turn {np.median(last_naive):.2f} ms"
    )
    if args.json:
        write_json(args.json, {"world": args.world, "embedder": args.embedder, "games": games})


if __name__ == "__main__":
    main()
