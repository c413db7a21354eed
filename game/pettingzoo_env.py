"""PettingZoo adapter: ``ParleyAEC`` as a ``pettingzoo.AECEnv`` with gymnasium spaces.

PettingZoo and gymnasium are optional dependencies (``pip install pettingzoo``
or the project's ``dev`` extra). Observations are dicts ``{"observation":
float32 vector, "action_mask": int8 vector}``; actions are ``Discrete`` indices
into the world's action catalogue (``env.unwrapped.aec.action_label(i)`` names
them).

    from game.pettingzoo_env import env
    e = env("worlds/harbor")
    e.reset(seed=1)
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        e.step(None if term or trunc else e.action_space(agent).sample(obs["action_mask"]))
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

try:
    import gymnasium
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils.wrappers import OrderEnforcingWrapper
except ImportError as e:  # pragma: no cover - exercised only without the optional deps
    raise ImportError(
        "game.pettingzoo_env needs the optional dependencies pettingzoo and gymnasium: "
        "pip install pettingzoo gymnasium  (or: pip install -e '.[dev]'). "
        "game.aec.ParleyAEC offers the same environment without them."
    ) from e

import numpy as np

from game.aec import ParleyAEC
from game.world.loader import World

DEFAULT_WORLD = "worlds/harbor"


class ParleyPettingZooEnv(AECEnv):
    """A Parley world as a PettingZoo AEC environment (see ``game.aec.ParleyAEC``)."""

    metadata = {"name": "parley_v0", "is_parallelizable": False, "render_modes": ["ansi"]}

    def __init__(self, world: World | str | Path = DEFAULT_WORLD, max_turns: int | None = None,
                 npc_agents: bool = False, render_mode: str | None = None):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        if not isinstance(world, World) and not Path(world).exists():
            in_repo = Path(__file__).resolve().parents[1] / world
            world = in_repo if in_repo.exists() else world  # "worlds/harbor" from any directory
        self.aec = ParleyAEC(world, max_turns=max_turns, npc_agents=npc_agents)
        self.possible_agents = list(self.aec.possible_agents)
        n = self.aec.observation_size
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(0.0, 1.0, (n,), dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.aec.num_actions(a),), dtype=np.int8),
            }) for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(self.aec.num_actions(a)) for a in self.possible_agents}
        self.state_space = spaces.Box(0.0, 1.0, (self.aec.state_size,), dtype=np.float32)

    # --- the AEC bookkeeping lives in the inner environment -------------------------
    @property
    def agents(self) -> list[str]:
        return self.aec.agents

    @property
    def agent_selection(self) -> str:
        return self.aec.agent_selection

    @property
    def rewards(self) -> dict[str, float]:
        return self.aec.rewards

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self.aec._cumulative_rewards

    @property
    def terminations(self) -> dict[str, bool]:
        return self.aec.terminations

    @property
    def truncations(self) -> dict[str, bool]:
        return self.aec.truncations

    @property
    def infos(self) -> dict[str, dict[str, Any]]:
        return self.aec.infos

    # --- API -------------------------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.aec.reset(seed=seed, options=options)

    def step(self, action: Any) -> None:
        self.aec.step(action)

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return {"observation": self.aec.observe(agent), "action_mask": self.aec.action_mask(agent)}

    def state(self) -> np.ndarray:
        return self.aec.state()

    def render(self) -> str | None:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; use render_mode='ansi'.")
            return None
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


def raw_env(world: World | str | Path = DEFAULT_WORLD, **kw: Any) -> ParleyPettingZooEnv:
    """The unwrapped environment."""
    return ParleyPettingZooEnv(world, **kw)


def env(world: World | str | Path = DEFAULT_WORLD, **kw: Any) -> AECEnv:
    """The environment behind PettingZoo's order-enforcing wrapper (reset before step)."""
    return OrderEnforcingWrapper(raw_env(world, **kw))
