"""Players and negotiators that cost no model time, in the LLM's seats on the same held-out seeds.

* ``random``: a uniform pick from ``Observation.commands``, the very list the LLM player's reply is
  narrowed to (so it never makes an unusable move either: "0 unusable" is what the enum gives any
  sampler). Its own generator, seeded by (seed, repeat); ``reps`` games a seed.
* ``autopilot``: the heuristic player (``agents.autopilot``, as ``parley run --autopilot``), one
  game a seed (its only randomness is its tie-breaking stream, a function of the seed).

Every NPC keeps its scripted voice, as in the LLM's memory-off games; a game's summary has the
keys of ``benchmarks.llm.adventure.play_game``'s, its ``mode`` the baseline's name.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchmarks.llm.adventure import NONE, summarise_game, unusable
from benchmarks.llm.common import WORLDS
from game.core.types import PLAYER

PLAYERS = ("random", "autopilot")


class RandomCommand:
    """A text seat that answers with a uniform pick from the commands open now."""

    uses_context = False
    wants_commands = True
    max_repairs = 0

    def __init__(self, seed: int, rep: int = 0):
        self.rng = np.random.default_rng([int(seed), int(rep)])

    def respond(self, observation: Any, context: Any = None, problem: str | None = None) -> str:
        commands = observation.commands
        return str(commands[int(self.rng.integers(len(commands)))]) if commands else "wait"


def play_game(kind: str, world: str, seed: int, turns: int, rep: int = 0) -> dict[str, Any]:
    """One game of baseline ``kind`` (``random`` or ``autopilot``); its summary."""
    from game.play.session import Game

    if kind == "autopilot":
        game = Game(WORLDS / world, seed=seed, player_kind="autopilot")
        seat = game.seat
    elif kind == "random":
        game, seat = Game(WORLDS / world, seed=seed), RandomCommand(seed, rep)
    else:
        raise ValueError(f"unknown baseline player {kind!r}; known: {', '.join(PLAYERS)}")
    rows: list[dict[str, Any]] = []
    rooms = {game.engine.state.where[PLAYER]}
    for _ in range(turns):
        if game.engine.done:
            break
        open_now = {c.lower() for c in game.engine.legal_commands(PLAYER)}
        reply = game.play_turn(seat)
        rooms.add(game.engine.state.where[PLAYER])
        rows.append(
            {"command": reply.command, "unusable": unusable(reply), "off_list": reply.command.lower() not in open_now}
        )
    meta = {"seat": "player", "mode": kind, "arm": NONE, "world": world, "seed": seed, "rep": rep}
    return summarise_game(game, rows, rooms, meta)


def player_games(kinds: list[str], worlds: list[str], seeds: list[int], turns: int, reps: int) -> list[dict]:
    """Every baseline's games on every world and seed (``reps`` a seed for ``random``)."""
    return [
        play_game(kind, world, seed, turns, rep)
        for kind in kinds
        for world in worlds
        for seed in seeds
        for rep in range(reps if kind == "random" else 1)
    ]
