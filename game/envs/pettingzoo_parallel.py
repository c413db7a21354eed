"""PettingZoo parallel API: one ``step`` is one round in which every live agent acts.

Parley's engine is turn-based, and this env does not pretend otherwise. Each round every live
agent *submits* an action, chosen from the observation it was given at the end of the previous
round; the engine then *resolves* them one after another in its fixed order (the player, then
each NPC in world order) and closes the round (``Engine.end_round``: scenes progress, the turn
advances). So the submissions are simultaneous and the resolution is sequential:

- an action that was legal when it was chosen can be made illegal by an agent resolved before
  it (the player takes the lamp an NPC also reached for); the engine then answers it with an
  ``invalid`` event and the invalid-move penalty, as for any illegal action. The player, resolved
  first, never meets this; its masked actions are always accepted;
- a council vote is cast in the round it is submitted and counted when the round closes, so
  votes are simultaneous in effect;
- if the game ends part-way through a round (the player completes the last quest), the agents
  after it do not act; every agent is then terminated (a win) or truncated (the turn limit).

Rewards are summed over the round, per agent. Agent names, spaces and ``flat`` are those of
``game.envs.pettingzoo_env`` (``player_0``, ``npc_0``...; ``parley_ids`` maps them to Parley ids). An
agent left out of ``actions`` waits. ``aec_to_parallel`` would be wrong here (it would show each
NPC the effects of the actions resolved before it in the round), so the AEC env stays
``is_parallelizable=False`` and this env is written on ``ParleyAEC`` directly.

    from game.envs.pettingzoo_env import parallel_env
    env = parallel_env("worlds/council")
    obs, infos = env.reset(seed=0)
    while env.agents:
        actions = {a: env.action_space(a).sample(obs[a]["action_mask"]) for a in env.agents}
        obs, rewards, terms, truncs, infos = env.step(actions)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

try:
    import gymnasium  # noqa: F401  (needed by the spaces; checked here for a clear error)
    from pettingzoo import ParallelEnv
except ImportError as e:  # exercised without the optional deps (tests/test_aec.py)
    from game.core.extras import ExtraMissing

    raise ExtraMissing(
        "game.envs.pettingzoo_parallel (the PettingZoo parallel environment)",
        "pettingzoo",
        ("pettingzoo", "gymnasium"),
        hint="game.envs.aec.ParleyAEC offers the same game without them",
    ) from e

import numpy as np

from game.envs.aec import ParleyAEC
from game.envs.gym_spaces import info_for, resolve_world
from game.envs.pettingzoo_env import DEFAULT_WORLD, Seats
from game.world.loader import World


class ParleyParallelEnv(Seats, ParallelEnv):
    """A Parley world as a PettingZoo ``ParallelEnv`` (see the module doc)."""

    metadata = {"name": "parley_parallel_v0", "render_modes": ["ansi"]}

    def __init__(
        self,
        world: World | str | Path = DEFAULT_WORLD,
        max_turns: int | None = None,
        npc_agents: bool = False,
        render_mode: str | None = None,
        flat: bool = False,
        agent_names: str = "seats",
    ):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self._seat(ParleyAEC(resolve_world(world), max_turns=max_turns, npc_agents=npc_agents), agent_names, flat)
        self.agents: list[str] = list(self.possible_agents)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new episode (see ``ParleyAEC.reset`` for seeding); every agent's observation and info."""
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        return (
            {a: self.observe(a) for a in self.agents},
            {a: info_for(self.aec, self.parley_ids[a]) for a in self.agents},
        )

    def _actions(self, actions: dict[str, Any]) -> dict[str, Any]:
        unknown = sorted(set(actions) - set(self.agents), key=str)
        if unknown:
            raise ValueError(f"actions for agents that are not live: {unknown}; live: {self.agents}")
        n = self.aec.num_actions()
        for a, act in actions.items():  # every action checked before any is played: a round is whole
            if act is not None and not (
                isinstance(act, (int, np.integer)) and not isinstance(act, bool) and 0 <= int(act) < n
            ):
                raise ValueError(f"action {act!r} for {a!r} is not an index of the {n} actions (or None)")
        return {self.parley_ids[a]: act for a, act in actions.items()}

    def step(self, actions: dict[str, Any]):
        """Resolve one round: every live agent's action, in the engine's order (missing: wait)."""
        if not self.agents:
            raise RuntimeError("no live agent; call reset()")
        aec, chosen = self.aec, self._actions(actions)
        live = list(aec.agents)
        rewards = dict.fromkeys(live, 0.0)
        for pid in live:
            if aec.engine.state.done:
                break  # the game ended part-way through the round
            if aec.agent_selection != pid:
                raise RuntimeError(f"the round is out of step: {aec.agent_selection!r} is due, not {pid!r}")
            act = chosen.get(pid)
            aec.step(0 if act is None else act)
            for a, r in aec.rewards.items():
                rewards[a] += r
        done = aec.engine.state.done
        named = self.seats
        out = (
            {named[a]: self.observe(named[a]) for a in live},
            {named[a]: float(r) for a, r in rewards.items()},
            {named[a]: bool(done and aec.terminations[a]) for a in live},
            {named[a]: bool(done and aec.truncations[a]) for a in live},
            {named[a]: info_for(aec, a) for a in live},
        )
        if done:
            self.agents = []
        return out
