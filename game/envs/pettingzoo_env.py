"""PettingZoo adapter: ``ParleyAEC`` as a ``pettingzoo.AECEnv`` with gymnasium spaces.

PettingZoo and gymnasium are optional dependencies (the ``pettingzoo`` extra, or the project's
``dev`` extra). Actions are ``Discrete`` indices into the world's action catalogue
(``env.unwrapped.aec.action_label(i)`` names them).

Agents are named ``player_0``, ``npc_0``, ``npc_1``... (the NPCs in world order), as PettingZoo
recommends; ``env.unwrapped.parley_ids`` maps each name to its Parley id (``npc_0`` ->
``"keeper"``) and ``env.unwrapped.seats`` back. ``agent_names="parley"`` keeps the Parley ids
as agent names (the names before 0.2).

Observations are dicts ``{"observation": float32 vector, "action_mask": int8 vector}``, or with
``flat=True`` one float32 vector (the observation, then the mask as 0.0/1.0) with the mask also
in ``infos[agent]["action_mask"]``: PettingZoo's ``api_test`` warns on every dict observation,
and ``flat`` is the form it accepts without a warning.

    from game.envs.pettingzoo_env import env
    e = env("worlds/harbor")
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        e.step(None if term or trunc else e.action_space(agent).sample(obs["action_mask"]))

``parallel_env(world)`` is the same game as a ``pettingzoo.ParallelEnv`` (one step per round;
see ``game.envs.pettingzoo_parallel``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

try:
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper
except ImportError as e:  # exercised without the optional deps (tests/test_pettingzoo_envs.py)
    from game.core.extras import ExtraMissing

    raise ExtraMissing(
        "game.envs.pettingzoo_env (the PettingZoo environments)",
        "pettingzoo",
        ("pettingzoo", "gymnasium"),
        hint="game.envs.aec.ParleyAEC offers the same game without them",
    ) from e

import numpy as np

from game.envs.aec import ParleyAEC
from game.envs.gym_spaces import info_for, observation, observation_layout, observation_space, resolve_world, seat_names
from game.world.loader import World

DEFAULT_WORLD = "worlds/harbor"


class Seats:
    """Agent names over Parley ids, and the spaces (shared by the AEC and the parallel env)."""

    aec: ParleyAEC
    render_mode: str | None

    def _seat(self, aec: ParleyAEC, agent_names: str, flat: bool) -> None:
        self.aec, self.flat = aec, bool(flat)
        self.seats: dict[str, str] = seat_names(list(aec.possible_agents), agent_names)  # Parley id -> name
        self.parley_ids: dict[str, str] = {v: k for k, v in self.seats.items()}  # name -> Parley id
        self.possible_agents = [self.seats[a] for a in aec.possible_agents]
        self.observation_spaces = {a: observation_space(aec, self.flat) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(aec.num_actions()) for a in self.possible_agents}
        self.state_space = spaces.Box(0.0, 1.0, (aec.state_size,), dtype=np.float32)
        self.observation_layout: dict[str, slice] = observation_layout(aec, self.flat)

    def parley_id(self, agent: str) -> str:
        """The Parley id (``"player"``, an NPC id) of agent name ``agent``."""
        return self.parley_ids[agent]

    def _named(self, d: dict[str, Any]) -> dict[str, Any]:
        return {self.seats[a]: v for a, v in d.items()}

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> Any:
        return observation(self.aec, self.parley_ids[agent], self.flat)

    def state(self) -> np.ndarray:
        return self.aec.state()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi'.")
            return None
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


class ParleyPettingZooEnv(Seats, AECEnv):
    """A Parley world as a PettingZoo AEC environment (see ``game.envs.aec.ParleyAEC``)."""

    metadata = {"name": "parley_v0", "is_parallelizable": False, "render_modes": ["ansi"]}

    def __init__(
        self,
        world: World | str | Path = DEFAULT_WORLD,
        max_turns: int | None = None,
        npc_agents: bool = False,
        render_mode: str | None = None,
        flat: bool = False,
        agent_names: str = "seats",
    ):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self._seat(ParleyAEC(resolve_world(world), max_turns=max_turns, npc_agents=npc_agents), agent_names, flat)

    # --- the AEC bookkeeping lives in the inner environment, keyed by Parley id ----------
    @property
    def agents(self) -> list[str]:
        return [self.seats[a] for a in self.aec.agents]

    @property
    def agent_selection(self) -> str:
        return self.seats[self.aec.agent_selection]

    @property
    def rewards(self) -> dict[str, float]:
        return self._named(self.aec.rewards)

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self._named(self.aec._cumulative_rewards)

    @property
    def terminations(self) -> dict[str, bool]:
        return self._named(self.aec.terminations)

    @property
    def truncations(self) -> dict[str, bool]:
        return self._named(self.aec.truncations)

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        return {self.seats[a]: info_for(self.aec, a) for a in self.aec.infos}

    # --- API -------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.aec.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        self.aec.step(action)


def raw_env(world: World | str | Path = DEFAULT_WORLD, **kw: Any) -> ParleyPettingZooEnv:
    """The unwrapped environment."""
    return ParleyPettingZooEnv(world, **kw)


def env(world: World | str | Path = DEFAULT_WORLD, **kw: Any) -> AECEnv:
    """The environment behind PettingZoo's order-enforcing wrapper (reset before step)."""
    return OrderEnforcingWrapper(raw_env(world, **kw))


def parallel_env(world: World | str | Path = DEFAULT_WORLD, **kw: Any):
    """The same game as a ``pettingzoo.ParallelEnv``: ``game.envs.pettingzoo_parallel.ParleyParallelEnv``."""
    from game.envs.pettingzoo_parallel import ParleyParallelEnv

    return ParleyParallelEnv(world, **kw)
