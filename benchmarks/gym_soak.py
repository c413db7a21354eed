"""Gymnasium soak: a uniformly random *masked* policy plays 1,000 full-length episodes (250 per
world: harbor, bazaar, council and the mini fixture, each to its own turn limit) through
``game.envs.gym_env``, checking every step (the mask matches the info's, no masked-in action is refused,
every observation lies in the space). Prints steps, wins, and steps per second against the bare
engine's rounds per second in the same run (the env's overhead as a ratio).

    python -m benchmarks.gym_soak                 # 1,000 episodes (about 100 s on an idle core)
    python -m benchmarks.gym_soak --episodes 40   # 10 per world
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORLDS = {
    "harbor": "worlds/harbor",
    "bazaar": "worlds/bazaar",
    "council": "worlds/council",
    "mini": "tests/fixtures/mini",
}


def engine_rounds_per_second(world: str, rounds: int = 300) -> float:
    """The baseline: the same world's engine alone, the player waiting, rounds per second."""
    from game.core.types import Action, Verb
    from game.play.session import Game

    game = Game(ROOT / world, seed=0)
    t = time.perf_counter()
    n = 0
    while n < rounds and not game.engine.done:
        game.engine.run_round(Action("player", Verb.WAIT))
        n += 1
    return n / (time.perf_counter() - t)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=1000, help="in all, split over the four worlds")
    ap.add_argument("--seed", type=int, default=2)
    args = ap.parse_args(argv)
    from rich.console import Console
    from rich.table import Table

    from game.envs.gym_env import ParleyGymEnv, random_masked_episodes

    table = Table(title=f"{args.episodes} random masked episodes, full length")
    for col in ("world", "episodes", "steps", "wins", "steps/s", "engine rounds/s", "env / engine"):
        table.add_column(col, justify="left" if col == "world" else "right")
    per = max(1, args.episodes // len(WORLDS))
    for name, world in WORLDS.items():
        env = ParleyGymEnv(str(ROOT / world))
        t = time.perf_counter()
        steps, wins = random_masked_episodes(env, per, seed=args.seed)
        rate = steps / (time.perf_counter() - t)
        base = engine_rounds_per_second(world)
        table.add_row(name, str(per), str(steps), str(wins), f"{rate:.0f}", f"{base:.0f}", f"{rate / base:.2f}")
    Console().print(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
