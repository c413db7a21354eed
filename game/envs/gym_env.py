"""Gymnasium: a Parley world as a single-agent environment.

The player's seat learns; the NPCs act as the agents their world file names, inside ``step``
(``ParleyAEC(npc_agents=True)``), so one ``step`` is one round of the game. Importing this
module registers one id per shipped world and a generic one::

    import gymnasium, game.envs.gym_env
    env = gymnasium.make("Parley/Harbor-v1")                  # worlds/harbor (its id: harbor-v1)
    env = gymnasium.make("Parley/World-v0", world="tests/fixtures/mini", flat=True, max_turns=50)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.unwrapped.action_masks().nonzero()[0][0])

(``gymnasium.make("game.envs.gym_env:Parley/Harbor-v1")`` imports this module itself.)

Actions are ``Discrete`` indices into the world's action catalogue (``env.unwrapped.action_label(i)``
names them). ``action_masks()`` returns the legal-action mask as booleans (the MaskablePPO
convention); the same mask is ``info["action_mask"]`` (int8). A masked-out action is not refused:
the engine answers it with an ``invalid`` event, the invalid-move penalty as reward and
``info["invalid"] = True``.

Observations: a dict ``{"observation", "action_mask"}`` or, with ``flat=True``, one float32 vector
(see ``game.envs.gym_spaces``). They hold only the player's own view. ``terminated``: every quest done;
``truncated``: the turn limit (the world's ``max_turns``, or ``max_turns=``) came first.
``reset(seed=s)`` makes the episode a function of ``s`` and the actions; later unseeded resets
derive their seeds from ``s``. As Gymnasium expects, a first reset without a seed draws one from
fresh entropy (Gymnasium's own ``np_random``), so the copies in an unseeded vector env play
different games; ``env.unwrapped.aec.seed`` tells which. ``render_mode="ansi"`` renders the
player's room as text.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

try:
    import gymnasium
    from gymnasium import spaces
except ImportError as e:  # pragma: no cover - exercised only without the optional dependency
    from game.core.extras import ExtraMissing

    raise ExtraMissing(
        "game.envs.gym_env (the Gymnasium environment)",
        "gym",
        ("gymnasium",),
        hint="game.envs.aec.ParleyAEC offers the same game without it",
    ) from e

import numpy as np

from game.core import seeds
from game.core.types import PLAYER
from game.envs.aec import ParleyAEC
from game.envs.gym_spaces import info_for, observation, observation_layout, observation_space, resolve_world
from game.world.loader import World

NAMESPACE = "Parley"
DEFAULT_WORLD = "worlds/harbor"
ENTRY_POINT = "game.envs.gym_env:ParleyGymEnv"


class ParleyGymEnv(gymnasium.Env):
    """One Parley world, the player learning (see the module doc).

    ``world``: a loaded ``World``, a folder or a world id (``"harbor"``); ``flat``: a single Box
    observation; ``max_turns``: the turn limit (default: the world's); ``llm``: an
    ``agents.llm.LLMClient`` for NPCs whose agents are language models (without one they play
    scripted).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        world: World | str | Path = DEFAULT_WORLD,
        flat: bool = False,
        max_turns: int | None = None,
        render_mode: str | None = None,
        llm: Any = None,
    ):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self.flat = bool(flat)
        self.aec = ParleyAEC(resolve_world(world), max_turns=max_turns, npc_agents=True, llm=llm)
        self.observation_space = observation_space(self.aec, self.flat)
        self.action_space = spaces.Discrete(self.aec.num_actions())
        self.observation_layout: dict[str, slice] = observation_layout(self.aec, self.flat)
        self._over = False
        self._seeded = False  # has a reset chosen the base seed yet (given, or drawn from entropy)?

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """A new episode (``options={"max_turns": N}`` shortens or lengthens this one)."""
        super().reset(seed=seed)
        if seed is None and not self._seeded:  # Gymnasium seeded np_random from entropy: draw the game's
            seed = int(self.np_random.integers(1 << 31))
        self._seeded = True
        self.aec.reset(seed=seed, options=options)
        self._over = False
        info = info_for(self.aec, PLAYER)
        return observation(self.aec, PLAYER, self.flat, info["action_mask"]), info

    def step(self, action: Any):
        if self._over:
            raise RuntimeError("the episode is over; call reset()")
        state = self.aec.engine.state
        invalid_before = state.invalid.get(PLAYER, 0)
        self.aec.step(action)
        reward = float(self.aec.rewards.get(PLAYER, 0.0))
        terminated, truncated = bool(self.aec.terminations[PLAYER]), bool(self.aec.truncations[PLAYER])
        self._over = terminated or truncated
        info = info_for(self.aec, PLAYER)
        info["invalid"] = state.invalid.get(PLAYER, 0) > invalid_before
        return observation(self.aec, PLAYER, self.flat, info["action_mask"]), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The legal-action mask, as booleans over the action catalogue (for MaskablePPO)."""
        mask = self.aec.infos.get(PLAYER, {}).get("action_mask")  # computed once per step by ParleyAEC
        return (self.aec.action_mask(PLAYER) if mask is None else mask).astype(bool)

    def action_label(self, index: int) -> str:
        """A short name of action ``index`` (e.g. ``"go north"``, ``"give lamp to keeper"``)."""
        return self.aec.action_label(int(index))

    def render(self) -> str | None:
        """With ``render_mode="ansi"``: the player's room, as the game describes it."""
        return self.aec.render() if self.render_mode == "ansi" else None

    def close(self) -> None:
        self.aec.close()


# --- registration ----------------------------------------------------------------------


def gym_id(world_id: str) -> str:
    """``harbor-v1`` -> ``Parley/Harbor-v1`` (an id without a version gets ``-v0``)."""
    name, sep, version = world_id.rpartition("-v")
    if not (sep and name and version.isdigit()):
        name, version = world_id, "0"
    return f"{NAMESPACE}/{name.replace('_', ' ').title().replace(' ', '')}-v{version}"


def shipped_worlds() -> dict[str, Path]:
    """Gym id -> folder, for every shipped world (``game.world.shipped``: the repository's
    ``worlds/`` or an installed wheel's; their ids are read, the worlds are not loaded)."""
    from game.world.shipped import shipped_worlds as by_world_id

    return {gym_id(wid): folder for wid, folder in by_world_id().items()}


def register_envs() -> list[str]:
    """Register ``Parley/World-v0`` and one id per shipped world (idempotent); the ids registered."""
    ids = []
    wanted = {f"{NAMESPACE}/World-v0": {}}
    wanted |= {gid: {"world": str(folder)} for gid, folder in shipped_worlds().items()}
    for gid, kwargs in wanted.items():
        if gid not in gymnasium.registry:
            gymnasium.register(id=gid, entry_point=ENTRY_POINT, kwargs=kwargs)
        ids.append(gid)
    return ids


REGISTERED = register_envs()


def random_masked_episodes(env: Any, episodes: int, seed: int) -> tuple[int, int]:
    """Play ``episodes`` with actions drawn uniformly from ``action_masks()`` by a seeded
    Generator, checking every step: the mask is the info's mask and not empty, no masked-in
    action is refused, every observation is in the space. Returns (steps, wins); a failed check
    raises ``RuntimeError`` naming the step."""
    rng = seeds.rng(seed, "gym", "random-play")
    steps = wins = 0
    for ep in range(episodes):
        obs, info = env.reset(seed=int(rng.integers(1 << 31)))
        done = False
        while not done:
            mask = env.action_masks()
            if not (mask.dtype == bool and mask.any() and np.array_equal(mask, info["action_mask"].astype(bool))):
                raise RuntimeError(f"episode {ep}, step {steps}: the mask is empty or differs from info's")
            action = int(rng.choice(np.flatnonzero(mask)))
            obs, reward, terminated, truncated, info = env.step(action)
            if info["invalid"]:
                raise RuntimeError(f"episode {ep}: masked-in {env.unwrapped.action_label(action)!r} was refused")
            if not (env.observation_space.contains(obs) and np.isfinite(reward)):
                raise RuntimeError(f"episode {ep}, step {steps}: observation outside the space or reward not finite")
            done, steps = terminated or truncated, steps + 1
        wins += bool(info.get("won"))
    return steps, wins
