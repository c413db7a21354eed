"""TextArena negotiation benchmark: Parley negotiators as TextArena agents (textarena==0.7.4).

Usage:  python benchmarks/textarena_bench.py [--seeds 50] [--games SimpleNegotiation-v0,...]
                                             [--agents boulware,conceder,...] [--json FILE]

For each game, agent and opponent, the agent plays ``--seeds`` games (seeds 0..n-1, fixed), in
seat 0 on even seeds and seat 1 on odd ones, against: ``random`` (RandomValid: a random valid
move, seeded), ``accept`` (AlwaysAccept: takes every standing offer, else a random valid offer)
and ``linear`` (Parley's linear time-based negotiator through the same adapter). TextArena's own
agents all call online model APIs, so none is used. The rows ``baseline:random`` and
``baseline:accept`` are the same simple agents in the agent's seat, in the same run.

W/D/L is TextArena's verdict (rewards); ``invalid`` counts the agent's moves the game refused.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

GAMES = ("SimpleNegotiation-v0", "IteratedUltimatumGame-v0", "TwoDollar-v0")
AGENTS = ("boulware", "linear", "conceder", "hardliner", "tit_for_tat", "aspiration", "baseline:random",
          "baseline:accept")
OPPONENTS = ("random", "accept", "linear")


def make(name: str, seed: int):
    from agents.textarena_baselines import AlwaysAccept, RandomValid
    from agents.textarena_negotiation import NegotiatorAgent
    name = name.removeprefix("baseline:")
    if name == "random":
        return RandomValid(seed)
    if name == "accept":
        return AlwaysAccept(seed)
    return NegotiatorAgent.rule(name)


def run(game: str, agent: str, opponent: str, seeds: int) -> dict[str, int]:
    from agents.textarena_baselines import play
    out = {"W": 0, "D": 0, "L": 0, "invalid": 0, "opp_invalid": 0}
    for seed in range(seeds):
        me = seed % 2
        rewards, invalid = play(game, {me: make(agent, seed), 1 - me: make(opponent, 10_000 + seed)}, seed)
        mine, theirs = rewards.get(me, 0), rewards.get(1 - me, 0)
        out["W" if mine > theirs else "L" if mine < theirs else "D"] += 1
        out["invalid"] += invalid[me]
        out["opp_invalid"] += invalid[1 - me]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=50)
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--agents", default=",".join(AGENTS))
    ap.add_argument("--opponents", default=",".join(OPPONENTS))
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    import textarena as ta
    rows = []
    t0 = time.perf_counter()
    print(f"textarena {ta.__version__}; {args.seeds} seeds per cell (seat 0 on even seeds, 1 on odd)\n")
    print(f"{'game':<26} {'agent':<16} {'opponent':<8} {'W':>4} {'D':>4} {'L':>4} {'invalid':>8} {'opp inv':>8}")
    for game in args.games.split(","):
        for agent in args.agents.split(","):
            for opp in args.opponents.split(","):
                r = run(game, agent, opp, args.seeds)
                rows.append({"game": game, "agent": agent, "opponent": opp, **r})
                print(f"{game:<26} {agent:<16} {opp:<8} {r['W']:>4} {r['D']:>4} {r['L']:>4} "
                      f"{r['invalid']:>8} {r['opp_invalid']:>8}", flush=True)
    bad = sum(r["invalid"] for r in rows if not r["agent"].startswith("baseline"))
    print(f"\ninvalid moves by the negotiator agents: {bad}; {time.perf_counter() - t0:.1f}s")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
