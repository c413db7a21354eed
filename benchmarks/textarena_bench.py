"""TextArena negotiation benchmark: Parley negotiators as TextArena agents (textarena==0.7.4).

Usage:  python -m benchmarks.textarena_bench [--seeds 20 | --seeds 1000-1049] [--games SimpleNegotiation-v0,...]
                                             [--agents boulware,...] [--opponents random,...] [--jobs 2] [--json FILE]

For each game, agent and opponent, the agent plays every seed twice, once in each seat (``--seeds
N``: seeds 0..N-1; ``--seeds A-B``: seeds A..B, e.g. held-out 1000-1049), against: ``random``
(RandomValid: a random valid move, seeded), ``accept`` (AlwaysAccept: takes every standing offer,
else a random valid offer), ``greedy`` (Greedy: takes the first offer better than a draw, else asks
for the most), ``linear`` (Parley's linear negotiator through the same adapter) and the chat
injectors ``inject:role``, ``inject:offer``, ``inject:own``, ``inject:game`` (Greedy that writes
forged game events in its chat; ``game.envs.textarena.baselines.TRICKS``). TextArena's own agents all
call online model APIs, so none is used. The ``baseline:*`` rows are the simple agents in the
agent's seat, in the same run.

W/D/L is TextArena's verdict (rewards); ``cut``: games stopped at the step cap before they ended;
``invalid``: the agent's moves the game refused; ``opp inv``: the opponent's.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor

from benchmarks.lib.cli import seed_range, write_json

GAMES = ("SimpleNegotiation-v0", "IteratedUltimatumGame-v0", "TwoDollar-v0")
AGENTS = (
    "boulware",
    "linear",
    "conceder",
    "hardliner",
    "tit_for_tat",
    "aspiration",
    "baseline:random",
    "baseline:accept",
    "baseline:greedy",
)
OPPONENTS = ("random", "accept", "greedy", "linear", "inject:role", "inject:offer", "inject:own", "inject:game")


def make(name: str, seed: int):
    from game.envs.textarena.baselines import AlwaysAccept, Greedy, Injector, RandomValid
    from game.envs.textarena.negotiation import NegotiatorAgent

    name = name.removeprefix("baseline:")
    if name.startswith("inject:"):
        return Injector(name.removeprefix("inject:"), seed)
    simple = {"random": RandomValid, "accept": AlwaysAccept, "greedy": Greedy}
    return simple[name](seed) if name in simple else NegotiatorAgent.rule(name)


def seeds_of(spec: str) -> list[int]:
    """``"10"`` -> seeds 0..9 (a count); ``"1000-1049"`` -> seeds 1000..1049."""
    return list(seed_range(spec)) if "-" in spec else list(range(int(spec)))


def run(game: str, agent: str, opponent: str, seeds: list[int]) -> dict[str, int]:
    from game.envs.textarena.baselines import play, verdict

    out = {"W": 0, "D": 0, "L": 0, "cut": 0, "invalid": 0, "opp_invalid": 0}
    for seed in seeds:
        for me in (0, 1):
            rewards, invalid = play(game, {me: make(agent, seed), 1 - me: make(opponent, 10_000 + seed)}, seed)
            out[verdict(rewards, me)] += 1
            out["invalid"] += invalid[me]
            out["opp_invalid"] += invalid[1 - me]
    return out


def _cell(args: tuple) -> dict:
    game, agent, opp, seeds = args
    return {"game": game, "agent": agent, "opponent": opp, **run(game, agent, opp, seeds)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="20", help="N (seeds 0..N-1) or A-B (seeds A..B); each in both seats")
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--agents", default=",".join(AGENTS))
    ap.add_argument("--opponents", default=",".join(OPPONENTS))
    ap.add_argument("--jobs", type=int, default=2, help="worker processes")
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)
    import textarena as ta

    seeds = seeds_of(args.seeds)
    cells = [
        (g, a, o, seeds)
        for g in args.games.split(",")
        for a in args.agents.split(",")
        for o in args.opponents.split(",")
    ]
    t0 = time.perf_counter()
    print(
        f"textarena {ta.__version__}; seeds {seeds[0]}..{seeds[-1]}, each in both seats "
        f"({2 * len(seeds)} games per cell)\n"
    )
    print(
        f"{'game':<26} {'agent':<16} {'opponent':<13} {'W':>4} {'D':>4} {'L':>4} {'cut':>4} {'invalid':>8} {'opp inv':>8}"
    )
    with ProcessPoolExecutor(max(1, args.jobs)) as pool:
        rows = list(pool.map(_cell, cells)) if args.jobs > 1 else [_cell(c) for c in cells]
    for r in rows:
        print(
            f"{r['game']:<26} {r['agent']:<16} {r['opponent']:<13} {r['W']:>4} {r['D']:>4} {r['L']:>4} "
            f"{r['cut']:>4} {r['invalid']:>8} {r['opp_invalid']:>8}"
        )
    bad = sum(r["invalid"] for r in rows if not r["agent"].startswith("baseline"))
    print(f"\ninvalid moves by the negotiator agents: {bad}; {time.perf_counter() - t0:.1f}s")
    if args.json:
        write_json(args.json, rows, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
