"""Memory's cost per turn, as a multiple of the embedder's own time for that turn's new texts.

Usage:  python -m benchmarks.memory_cost_bench [--worlds harbor,council,bazaar] [--seed 0]
                                               [--repeats 3] [--rounds N] [--json FILE]

Each world is played headless from the player's seat by the autopilot (``Game.play_turn``,
as ``game.play.episode`` plays it), the same seed with memory off and with MiniLM memory on. The
autopilot does not read its context, so both games make the same moves turn for turn, and the
difference in a turn's wall time is what memory cost that turn: writing the events, building
the context (retrieve, score, mask, compress, assemble) and embedding.

The reference is the embedder alone: for each turn, the texts that turn sent through the model
for the first time (writes, queries, focus, the fact gate's claims; the embedder's cache is
emptied before each game) are embedded again in one batch by a cache-less MiniLM embedder, and
timed. The figure is ``(time on - time off) / reference``, summed over the game (``ratio``) and
per turn (``median`` of the turns that embedded anything). 1.0 would mean memory costs nothing
but the model's forward pass on the new texts in one batch; the goal is at most 2.

Also shown: embedder calls per turn and texts per call (the writes and queries of a round go in
one call), and the model's load time (import and load, paid once per process), reported apart.
Each game is played ``--repeats`` times and each turn's fastest time is kept (the machine may be
busy); the figures are ratios, so they hold on a slower or faster machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.lib.cli import write_json
from game.play.config import GameConfig
from game.play.session import Game

ROOT = Path(__file__).resolve().parents[1]


class Recorder:
    """The MiniLM embedder, recording each call's texts and the game turn it came in."""

    def __init__(self, real: Any):
        self.real, self.name, self.dim = real, "minilm", real.dim
        self.turn = lambda: -1
        self.calls: list[tuple[int, list[str]]] = []

    def __call__(self, texts):
        self.calls.append((self.turn(), list(texts)))
        return self.real(texts)


def play(world: str, seed: int, rounds: int | None, memory: Any) -> tuple[list[float], Game]:
    """Play one game; each turn's wall time, in order."""
    game = Game(
        ROOT / "worlds" / world,
        config=GameConfig(world=str(ROOT / "worlds" / world), seed=seed, player="autopilot"),
        memory=memory,
    )
    if isinstance(memory, dict):
        memory["embedder"].turn = lambda: game.engine.state.turn
    times = []
    while not game.engine.done and (rounds is None or len(times) < rounds):
        t0 = time.perf_counter()
        game.play_turn()
        times.append(time.perf_counter() - t0)
    return times, game


def new_texts(calls: list[tuple[int, list[str]]], turns: int) -> list[list[str]]:
    """Per turn, the texts sent to the embedder that no earlier call of the game had sent."""
    seen: set[str] = set()
    out: list[list[str]] = [[] for _ in range(turns + 1)]
    for turn, texts in calls:
        for t in texts:
            if t not in seen:
                seen.add(t)
                out[min(max(turn, 0), turns)].append(t)
    return out


def measure(world: str, seed: int, repeats: int, rounds: int | None) -> dict[str, Any]:
    from memory.embedder import MiniLMEmbedder, get_embedder

    real = get_embedder("minilm")
    off = on = None
    rec = None
    for _ in range(repeats):
        t_off, g_off = play(world, seed, rounds, None)
        real.clear_cache()
        rec = Recorder(real)
        t_on, g_on = play(world, seed, rounds, {"embedder": rec})
        if len(t_off) != len(t_on):
            raise SystemExit(f"{world}: the games diverged ({len(t_off)} vs {len(t_on)} turns)")
        off = t_off if off is None else [min(a, b) for a, b in zip(off, t_off)]
        on = t_on if on is None else [min(a, b) for a, b in zip(on, t_on)]
    turns = len(on)
    fresh = new_texts(rec.calls, turns)
    reference = MiniLMEmbedder(cache_size=0)
    ref = []
    for texts in fresh[:turns]:
        best = float("inf")
        for _ in range(repeats):
            t0 = time.perf_counter()
            if texts:
                reference(texts)
            best = min(best, time.perf_counter() - t0)
        ref.append(best if texts else 0.0)
    cost = [max(a - b, 0.0) for a, b in zip(on, off)]
    calls = [0] * (turns + 1)
    for turn, _ in rec.calls:
        calls[min(max(turn, 0), turns)] += 1
    per_turn = [c / r for c, r in zip(cost, ref) if r > 0]
    return {
        "world": world,
        "seed": seed,
        "turns": turns,
        "calls_per_turn": round(sum(calls) / turns, 2),
        "max_calls_in_a_turn": max(calls),
        "texts_per_call": round(sum(len(t) for _, t in rec.calls) / max(len(rec.calls), 1), 1),
        "new_texts_per_turn": round(sum(len(f) for f in fresh) / turns, 1),
        "off_ms_per_turn": round(1000 * sum(off) / turns, 2),
        "on_ms_per_turn": round(1000 * sum(on) / turns, 2),
        "reference_ms_per_turn": round(1000 * sum(ref) / turns, 2),
        "ratio": round(sum(cost) / sum(ref), 2) if sum(ref) else None,
        "median_ratio": round(statistics.median(per_turn), 2) if per_turn else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n", 1)[1].split("Usage:")[0] + __doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--worlds", default="harbor,council", help="shipped worlds to play (default: harbor,council)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeats", type=int, default=3, help="games per setting; each turn's fastest time is kept")
    ap.add_argument("--rounds", type=int, default=None, help="stop after this many turns (default: the whole game)")
    ap.add_argument("--json", help="also write the figures to this file")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    from memory.embedder import get_embedder

    get_embedder("minilm").load()
    load = time.perf_counter() - t0
    rows = [measure(w.strip(), args.seed, args.repeats, args.rounds) for w in args.worlds.split(",") if w.strip()]
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Memory's cost per turn (x the embedder's own time on the turn's new texts, one batch)")
    for col in ("world", "turns", "calls/turn", "max calls", "texts/call", "new texts/turn", "ratio", "median"):
        table.add_column(col, justify="left" if col == "world" else "right")
    for r in rows:
        table.add_row(
            r["world"],
            str(r["turns"]),
            str(r["calls_per_turn"]),
            str(r["max_calls_in_a_turn"]),
            str(r["texts_per_call"]),
            str(r["new_texts_per_turn"]),
            f"{r['ratio']}x",
            f"{r['median_ratio']}x",
        )
    console = Console(width=130)
    console.print(table)
    console.print(
        f"Model load (import torch + sentence-transformers, load MiniLM), once per process: {load:.1f} s. "
        "Goal: ratio <= 2x. Absolute times (ms per turn, off / on / reference): "
        + "; ".join(
            f"{r['world']} {r['off_ms_per_turn']} / {r['on_ms_per_turn']} / {r['reference_ms_per_turn']}" for r in rows
        )
    )
    if args.json:
        write_json(args.json, {"load_seconds": round(load, 2), "worlds": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
