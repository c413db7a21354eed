"""Simple TextArena agents for the negotiation games, as baselines and opponents.

* ``RandomValid(seed)`` -- a random move the game allows now (accept or refuse a standing offer,
  or a random offer it can afford), drawn from a seeded numpy Generator;
* ``AlwaysAccept(seed)`` -- accepts any standing offer, else makes a random valid offer.

Both read only their own observation text (``agents.textarena_games``).
"""

from __future__ import annotations

import numpy as np

from agents.textarena_games import NONE, game_of


class RandomValid:
    """A uniformly random valid move; ``accept_prob``: how often it takes a standing offer."""

    accept_prob = 0.5

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)

    def __call__(self, observation: str) -> str:
        game = game_of(observation)
        table = game.read(observation, 0.0)
        table.floor = -float("inf")  # it takes and offers anything the rules allow
        unpayable = table.info.get("infeasible", ())
        offers = [lab for lab in table.labels if lab != NONE and lab not in unpayable]
        if table.can_accept and table.standing[1] != NONE and table.standing[1] not in unpayable:
            if self.rng.random() < self.accept_prob:
                return game.token(table, "accept", None)
            if self.rng.random() < 0.5:
                return game.token(table, "reject", None)
        label = offers[int(self.rng.integers(len(offers)))]
        return game.token(table, "offer", label)


class AlwaysAccept(RandomValid):
    """Takes every standing offer it can; otherwise a random valid offer."""

    accept_prob = 1.0


def play(env_id: str, agents: dict[int, object], seed: int, max_steps: int = 500) -> tuple[dict, dict[int, int]]:
    """Play one TextArena game (``textarena.make(env_id)``) to the end; returns the rewards and
    how many invalid moves each player made (a move the game refused, retried or not)."""
    import textarena as ta
    env = ta.make(env_id)
    env.reset(num_players=len(agents), seed=seed)
    invalid = {pid: 0 for pid in agents}
    done, steps = False, 0
    while not done and steps < max_steps:
        pid, obs = env.get_observation()
        before = env.state.error_count
        done, _ = env.step(agents[pid](obs))
        info = env.state.game_info.get(pid, {})
        if env.state.error_count > before or info.get("invalid_move"):
            invalid[pid] += 1
        steps += 1
    rewards, _ = env.close()
    return rewards or {}, invalid
