"""Engine throughput: adventure steps/s and negotiation rounds/s, against in-run baselines.

Usage:  python -m benchmarks.engine_bench [--world worlds/harbor] [--steps 50000] [--seed 0]

Adventure: a scripted mix of actions (moves, looks, takes, drops, talks, asks,
waits) built from the world with a seeded generator, applied with memory off
and no transcript. The baseline in the same run is a bare loop that builds the
same Action objects and does one dict update each: the engine's cost is shown
as a ratio over that floor. Negotiation: alternating offers between two
time-based concession negotiators on generated scenes; baseline is the
utility evaluation alone.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from game.core.types import PLAYER, Action, Verb
from game.engine.loop import Engine
from game.play.worlds import load_world
from game.testing import standard_engine


def scripted_actions(world, n: int, seed: int) -> list[Action]:
    """A reproducible mix of plausible player actions for this world."""
    rng = np.random.default_rng(seed)
    spec = world.spec
    dirs = sorted({d for loc in spec.locations.values() for d in loc.exits})
    items, npcs = list(spec.items), list(spec.npcs)
    topics = sorted({f.topic for f in spec.facts.values()}) or ["weather"]
    pool = []
    for _ in range(n):
        r = rng.random()
        if r < 0.35:
            pool.append(Action(PLAYER, Verb.GO, obj=dirs[rng.integers(len(dirs))]))
        elif r < 0.45:
            pool.append(Action(PLAYER, Verb.LOOK))
        elif r < 0.60:
            pool.append(Action(PLAYER, Verb.TAKE, obj=items[rng.integers(len(items))]))
        elif r < 0.70:
            pool.append(Action(PLAYER, Verb.DROP, obj=items[rng.integers(len(items))]))
        elif r < 0.80 and npcs:
            pool.append(
                Action(PLAYER, Verb.ASK, obj=npcs[rng.integers(len(npcs))], target=topics[rng.integers(len(topics))])
            )
        elif r < 0.85 and npcs:
            pool.append(Action(PLAYER, Verb.TALK, obj=npcs[rng.integers(len(npcs))]))
        elif r < 0.90:
            pool.append(Action(PLAYER, Verb.INVENTORY))
        else:
            pool.append(Action(PLAYER, Verb.WAIT))
    return pool


def bench_engine(world, steps: int, seed: int) -> dict[str, float]:
    actions = scripted_actions(world, steps, seed)
    # baseline: build the same actions and do one dict write per step
    t0 = time.perf_counter()
    d: dict[str, str] = {}
    for a in actions:
        b = Action(a.actor, a.verb, obj=a.obj, target=a.target)
        d[b.actor] = b.verb.value
    base = time.perf_counter() - t0

    class Counted:
        """Counts the actions an NPC agent takes (each one is an engine step)."""

        def __init__(self, agent, tally):
            self.agent, self.tally = agent, tally
            self.passive, self.uses_context = agent.passive, agent.uses_context

        def act(self, obs, context=None):
            decision = self.agent.act(obs, context)
            self.tally[0] += decision.action is not None
            return decision

    def run(with_transcript: bool) -> tuple[float, int, int]:
        from game.play.compose import npc_agents
        from game.play.transcript import Transcript

        tally = [0]

        def fresh() -> Engine:
            actors = {k: Counted(v, tally) for k, v in npc_agents(world, seed).items()}
            return standard_engine(
                world, seed=seed, actors=actors, transcript=Transcript() if with_transcript else None
            )

        eng = fresh()
        events = 0
        t = time.perf_counter()
        for a in actions:
            if eng.done:
                eng = fresh()
            events += len(eng.run_round(a))
        return time.perf_counter() - t, len(actions) + tally[0], events

    el, n, events = run(False)
    el_t, _, _ = run(True)
    per_step, base_per_step = el / n, base / len(actions)
    return {
        "steps": n,
        "events": events,
        "steps_per_s": n / el,
        "steps_per_s_transcript": n / el_t,
        "baseline_per_s": 1 / base_per_step,
        "cost_vs_baseline": per_step / base_per_step,
        "transcript_overhead": el_t / el,
    }


def bench_negotiation(n_scenes: int, seed: int) -> dict[str, float]:
    from agents.negotiators import TimeConcession
    from game.negotiation.generate import random_scenes
    from game.negotiation.runner import run_negotiation
    from game.negotiation.utility import utilities_for

    scenes = random_scenes(n_scenes, seed, deadline=20)
    utils = [utilities_for(s) for s in scenes]
    # baseline: evaluate every offer made by walking each outcome space once
    t0 = time.perf_counter()
    for s, u in zip(scenes, utils):
        from game.negotiation.utility import outcome_space

        for o in outcome_space(s.issues)[:40]:
            u["a"](o)
            u["b"](o)
    base = time.perf_counter() - t0
    rounds = agreements = 0
    t0 = time.perf_counter()
    for s, u in zip(scenes, utils):
        negs = {p: TimeConcession(u[p], exponent=e) for p, e in (("a", 0.5), ("b", 2.0))}
        session, _ = run_negotiation(s, negs, utilities=u)
        rounds += session.round
        agreements += session.status == "agreement"
    el = time.perf_counter() - t0
    return {
        "negotiations": n_scenes,
        "rounds": rounds,
        "rounds_per_s": rounds / el,
        "negotiations_per_s": n_scenes / el,
        "agreement_rate": agreements / n_scenes,
        "cost_vs_utility_baseline": el / base,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--world", default=str(Path(__file__).resolve().parents[1] / "worlds" / "harbor"))
    ap.add_argument("--steps", type=int, default=50_000)
    ap.add_argument("--scenes", type=int, default=500)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    world = load_world(args.world)
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}, numpy {np.__version__}")
    print(f"world: {world.spec.id} ({len(world.spec.locations)} locations, {len(world.spec.npcs)} NPCs)")
    e = bench_engine(world, args.steps, args.seed)
    print(
        f"adventure engine (one core, memory off, NPC agents on): {e['steps_per_s']:,.0f} steps/s "
        f"({e['events']:,} events over {e['steps']:,} steps)"
    )
    print(
        f"  with in-memory JSONL transcript: {e['steps_per_s_transcript']:,.0f} steps/s "
        f"(x{e['transcript_overhead']:.2f} time)"
    )
    print(
        f"  baseline (build Action + dict write): {e['baseline_per_s']:,.0f}/s; engine step costs "
        f"x{e['cost_vs_baseline']:.1f} the baseline"
    )
    goal = 20_000
    print(f"  goal >= {goal:,} steps/s: {'met' if e['steps_per_s'] >= goal else 'NOT met'}")
    n = bench_negotiation(args.scenes, args.seed)
    print(
        f"negotiation: {n['rounds_per_s']:,.0f} rounds/s, {n['negotiations_per_s']:,.0f} negotiations/s "
        f"over {n['negotiations']} generated scenes (agreement rate {n['agreement_rate']:.2f}); "
        f"x{n['cost_vs_utility_baseline']:.1f} the cost of bare utility evaluation"
    )


if __name__ == "__main__":
    main()
