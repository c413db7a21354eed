"""What the Gymnasium and PettingZoo adapters share: spaces, observations, seat names, world paths.

Two observation forms, both built only from ``ParleyAEC.observe`` (the agent's own view, see
``game.envs.aec_encoding``) and ``ParleyAEC.action_mask`` (what the rules make plausible for it now):

- ``flat=False``: ``{"observation": float32 Box, "action_mask": int8 Box}``, the PettingZoo
  action-mask convention;
- ``flat=True``: one float32 ``Box`` vector, the observation followed by the mask as 0.0/1.0,
  for off-the-shelf learners that take a single array (``observation_layout(aec, True)``
  names its slices). The mask is also in ``info["action_mask"]``.

Needs gymnasium (the ``gym`` extra); ``game.envs.aec`` itself does not.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces

from game.core.types import PLAYER
from game.envs.aec import ParleyAEC
from game.world.loader import World

ROOT = Path(__file__).resolve().parents[2]
# what an info dict may hold: nothing about any other agent, nothing the world file keeps hidden
INFO_KEYS = frozenset({"action_mask", "turn", "score", "won", "invalid", "llm_outage"})


def resolve_world(world: World | str | Path) -> World | str | Path:
    """``world`` as given, or (a relative path that does not exist here) the repository's copy,
    so ``"worlds/harbor"`` works from any directory. Bare ids (``"harbor"``) go to ``load_world``."""
    if isinstance(world, World) or Path(world).exists():
        return world
    in_repo = ROOT / world
    return in_repo if in_repo.exists() else world


def seat_names(parley_ids: list[str], style: str = "seats") -> dict[str, str]:
    """Parley id -> agent name. ``"seats"``: ``player_0`` then ``npc_0``, ``npc_1``... in world
    order (PettingZoo's ``<descriptor>_<number>`` convention); ``"parley"``: the Parley ids."""
    if style == "parley":
        return {a: a for a in parley_ids}
    if style != "seats":
        raise ValueError(f"agent_names must be 'seats' or 'parley', got {style!r}")
    out, n = {}, 0
    for a in parley_ids:
        if a == PLAYER:
            out[a] = "player_0"
        else:
            out[a], n = f"npc_{n}", n + 1
    return out


def observation_space(aec: ParleyAEC, flat: bool) -> spaces.Space:
    n, k = aec.observation_size, aec.num_actions()
    if flat:
        return spaces.Box(0.0, 1.0, (n + k,), dtype=np.float32)
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, 1.0, (n,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (k,), dtype=np.int8),
        }
    )


def observation_layout(aec: ParleyAEC, flat: bool) -> dict[str, slice]:
    """The slices of the observation vector (with ``flat``, the mask's slice too)."""
    out = dict(aec.observation_layout)
    if flat:
        n = aec.observation_size
        out["action_mask"] = slice(n, n + aec.num_actions())
    return out


def observation(aec: ParleyAEC, agent: str, flat: bool, mask: np.ndarray | None = None) -> Any:
    """The agent's observation (``agent``: a Parley id; ``mask``: its action mask, if known)."""
    obs = aec.observe(agent)
    mask = aec.action_mask(agent) if mask is None else mask
    if flat:
        return np.concatenate([obs, mask.astype(np.float32)])
    return {"observation": obs, "action_mask": mask}


def info_for(aec: ParleyAEC, agent: str) -> dict[str, Any]:
    """A copy of the agent's info: its mask, the turn, (the player) its score, the win once over."""
    return {k: v for k, v in aec.infos.get(agent, {}).items() if k in INFO_KEYS}
