"""The engine as an Agent-Environment-Cycle (AEC) environment, without PettingZoo.

``ParleyAEC`` follows the shape of ``pettingzoo.AECEnv`` (``agents``,
``agent_selection``, ``reset``/``step``/``observe``/``last``, the per-agent
``rewards``/``terminations``/``truncations``/``infos`` dicts and the dead-agent
stepping convention) but imports only numpy and ``game.*``, so learning code can
use it with no optional dependency. ``game.envs.pettingzoo_env`` wraps it as a real
``AECEnv`` with gymnasium spaces.

Agents take turns in the engine's order: the player, then each NPC in world
order; after the last agent of a round the engine's ``end_round`` runs. With
``npc_agents=True`` only the player is an AEC agent and the NPCs are driven by
the agents their world spec names (``game.play.compose.npc_agents``), as in a normal
game.

Actions are indices into a fixed, per-world *action catalogue* (see
``game.engine.catalogue.build_templates``, the engine's, which also lists the commands a player may
type: ``Engine.legal_commands``). ``action_mask(agent)`` marks
the entries that are plausible now (by the rules of ``game.engine.predicates``); a masked-out
action may still be stepped, and the engine answers it with a penalised ``invalid``
event, never an exception.

Observations are float32 vectors of a fixed length per world (see
``ParleyAEC.observation_layout`` and ``game.envs.aec_encoding``). ``observe_text`` returns the engine's rich
``Observation`` for language-model agents.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from game.core import seeds
from game.core.types import PLAYER, Action, Observation
from game.engine.catalogue import ActionTemplate, CatalogueIndex, build_templates
from game.engine.loop import Engine
from game.envs.aec_encoding import GOLD_SCALE, Encoding
from game.play.worlds import load_world
from game.world.loader import World

__all__ = ["GOLD_SCALE", "ParleyAEC", "masked_actions"]


# --- the environment -----------------------------------------------------------


def _derive_seed(base: int, episode: int) -> int:
    """A seed for the ``episode``-th unseeded reset after a reset with seed ``base``."""
    return seeds.derive(int(base), "aec", "episode", int(episode))


class ParleyAEC:
    """A Parley world as an AEC environment (PettingZoo-shaped, PettingZoo-free).

    ``world`` is a loaded ``World`` or anything ``load_world`` accepts.
    ``max_turns`` overrides the world's turn limit (the engine then ends the game
    at that turn; ``reset(options={"max_turns": N})`` overrides it for one
    episode). With ``npc_agents`` the NPCs are played by their world-configured
    agents (``llm``: an ``agents.llm.LLMClient`` that drives the NPCs in
    ``llm_npcs``) and only the player is an AEC agent.

    Seeding: ``reset(seed=s)`` starts an engine with seed ``s``; an unseeded
    reset uses 0 the first time after construction (or the last explicit seed)
    and then seeds derived from it, so every episode is a function of the seeds
    passed to ``reset``.
    """

    metadata = {"name": "parley_v0", "is_parallelizable": False, "render_modes": ["ansi"]}

    def __init__(
        self,
        world: World | str | Path,
        max_turns: int | None = None,
        npc_agents: bool = False,
        llm: Any = None,
        llm_npcs: Any = "all",
    ):
        self.llm, self.llm_npcs = llm, llm_npcs  # an agents.llm.LLMClient driving NPC agents, if any
        self.world: World = world if isinstance(world, World) else load_world(world)
        self.spec = self.world.spec
        if max_turns is not None and int(max_turns) < 1:
            raise ValueError(f"max_turns must be at least 1, got {max_turns!r}")
        self.default_max_turns = int(max_turns) if max_turns is not None else int(self.spec.max_turns)
        self.npc_agents = bool(npc_agents)
        self.entities: tuple[str, ...] = (PLAYER, *self.spec.npcs)
        self.possible_agents: list[str] = [PLAYER] if self.npc_agents else list(self.entities)
        self.templates: list[ActionTemplate] = build_templates(self.spec)
        self._catalogues = {a: [t.bind(a) for t in self.templates] for a in self.entities}
        self._labels = [t.label() for t in self.templates]
        self._index = CatalogueIndex(self.spec, self.templates)
        self._encoding = Encoding(self.spec, self.entities)
        self.observation_layout: dict[str, slice] = self._encoding.layout
        self.observation_size = self._encoding.observation_size
        self.state_size = self._encoding.state_size
        # episode bookkeeping
        self._base_seed = 0
        self._episode = -1
        self._start(0, self.default_max_turns)

    # --- episode setup -------------------------------------------------------------
    def _world_for(self, max_turns: int) -> World:
        if max_turns == self.spec.max_turns:
            return self.world
        spec = self.spec.model_copy(update={"max_turns": int(max_turns)})
        return dataclasses.replace(self.world, spec=spec)

    def _start(self, seed: int, max_turns: int) -> None:
        self.seed = int(seed)
        self.max_turns = int(max_turns)
        world = self._world_for(self.max_turns)
        # the game is composed like any other (game.play.compose); with npc_agents its NPCs are their
        # world-configured agents, so they act, speak, haggle and debate in their own voices
        from game.play.config import GameConfig
        from game.play.session import Game

        npcs = self.llm_npcs if self.llm_npcs == "all" else sorted(self.llm_npcs)
        config = GameConfig(world=str(world.folder), seed=self.seed, facts=False, llm_npcs=npcs)
        self.game = Game(world, config=config, llm=self.llm, agents=None if self.npc_agents else {})
        self.engine: Engine = self.game.engine
        self._npc_actors: dict[str, Any] = self.game.agents
        self.agents: list[str] = list(self.possible_agents)
        self.rewards: dict[str, float] = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards: dict[str, float] = dict.fromkeys(self.agents, 0.0)
        self.terminations: dict[str, bool] = dict.fromkeys(self.agents, False)
        self.truncations: dict[str, bool] = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._turn_ix = 0
        self.agent_selection: str = self.possible_agents[0]
        self._skip_agent_selection: str | None = None
        self._refresh_infos()

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new episode with a fresh engine (see the class doc for seeding)."""
        if seed is not None:
            self._base_seed, self._episode = int(seed), 0
            engine_seed = self._base_seed
        else:
            self._episode += 1
            engine_seed = self._base_seed if self._episode == 0 else _derive_seed(self._base_seed, self._episode)
        max_turns = self.default_max_turns
        if options and options.get("max_turns") is not None:
            max_turns = int(options["max_turns"])
            if max_turns < 1:
                raise ValueError(f"max_turns must be at least 1, got {max_turns!r}")
        self._start(engine_seed, max_turns)

    # --- catalogue and masks --------------------------------------------------------
    @property
    def num_agents(self) -> int:
        return len(self.agents)

    @property
    def max_num_agents(self) -> int:
        return len(self.possible_agents)

    def catalogue(self, agent: str) -> list[Action]:
        """The agent's action catalogue: index ``i`` is the action ``step(i)`` takes."""
        return list(self._catalogues[agent])

    def num_actions(self, agent: str | None = None) -> int:
        return len(self.templates)

    def action_label(self, index: int) -> str:
        """A short human-readable name of catalogue entry ``index`` (e.g. ``give lamp to keeper``)."""
        return self._labels[index]

    def action_index(self, action: Action) -> int:
        """The catalogue index of an action (its actor is ignored); ValueError if absent."""
        terms = tuple(sorted(action.terms)) if action.terms is not None else None
        want = (action.verb, action.obj, action.target, action.text, terms)
        for i, t in enumerate(self.templates):
            if (t.verb, t.obj, t.target, t.text, t.terms) == want:
                return i
        raise ValueError(f"action not in the catalogue: {action.to_dict()}")

    def action_mask(self, agent: str) -> np.ndarray:
        """int8 vector over the catalogue: 1 where the action is plausible now. WAIT is always 1.
        The rules behind each bit are listed in ``game.engine.catalogue.CatalogueIndex.mask``."""
        return self._index.mask(self.engine, agent)

    # --- observing -------------------------------------------------------------------
    def observe(self, agent: str) -> np.ndarray:
        """The agent's float32 observation vector (layout in ``observation_layout``)."""
        return self._encoding.observe(self.engine, agent, self.max_turns)

    def observe_text(self, agent: str) -> Observation:
        """The engine's rich observation (room prose, recent events, scene) for LLM agents."""
        return self.engine.observe(agent)

    def state(self) -> np.ndarray:
        """A global float32 state vector in [0, 1] (for centralised critics)."""
        return self._encoding.state(self.engine, self.max_turns)

    def last(self, observe: bool = True) -> tuple[np.ndarray | None, float, bool, bool, dict[str, Any]]:
        agent = self.agent_selection
        obs = self.observe(agent) if observe else None
        return (
            obs,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def agent_iter(self, max_iter: int = 2**63):
        """Yield ``agent_selection`` until no agents remain (step it inside the loop)."""
        while self.agents and max_iter > 0:
            max_iter -= 1
            yield self.agent_selection

    def render(self) -> str:
        """The player's current room description."""
        return self.engine.describe(PLAYER, self.engine.state.where[PLAYER])

    def close(self) -> None:
        """Nothing to release: the engine holds no files or processes."""

    # --- stepping --------------------------------------------------------------------
    def _resolve(self, agent: str, action: Any) -> Action:
        if action is None:
            return self._catalogues[agent][0]  # a live agent passing None waits
        if isinstance(action, Action):
            return dataclasses.replace(action, actor=agent)
        try:
            ix = int(action)
        except (TypeError, ValueError):
            raise ValueError(f"action must be a catalogue index, got {action!r}") from None
        if not 0 <= ix < len(self.templates) or ix != action:
            raise ValueError(f"action index {action!r} out of range 0..{len(self.templates) - 1}")
        return self._catalogues[agent][ix]

    def step(self, action: int | Action | None) -> None:
        """Act for ``agent_selection``; dead agents must step with ``None`` (they are then removed)."""
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            self._was_dead_step(action)
            return
        if agent not in self.agents:
            raise RuntimeError("no live agent to step; call reset()")
        act = self._resolve(agent, action)
        self._cumulative_rewards[agent] = 0.0
        for a in self.rewards:
            self.rewards[a] = 0.0
        eng = self.engine
        eng.apply(act)
        self._collect_rewards()
        if self.npc_agents:
            eng.npc_phase(self._npc_actors, after=self._collect_rewards)
        last_of_round = self._turn_ix == len(self.possible_agents) - 1
        if last_of_round and not eng.state.done:
            eng.end_round()
        if eng.state.done:
            won = bool(eng.state.won)
            for a in self.agents:
                self.terminations[a] = won
                self.truncations[a] = not won
        self._accumulate_rewards()
        outage = getattr(self.llm, "outage", None)
        if outage is not None:  # the LLM NPCs finished this step scripted; say so, once
            self.llm.outage = None
            self.infos.setdefault(PLAYER, {})["llm_outage"] = outage.message
        if eng.state.done:
            self._turn_ix = 0
            self.agent_selection = self.agents[0]
        else:
            self._turn_ix = 0 if last_of_round else self._turn_ix + 1
            self.agent_selection = self.possible_agents[self._turn_ix]
        self._refresh_infos()

    def _collect_rewards(self) -> None:
        for a in self.agents:
            self.rewards[a] += float(self.engine.rewards.get(a, 0.0))

    def _accumulate_rewards(self) -> None:
        for a, r in self.rewards.items():
            self._cumulative_rewards[a] += r

    def _was_dead_step(self, action: Any) -> None:
        if action is not None:
            raise ValueError("when an agent is dead, the only valid action is None")
        agent = self.agent_selection
        for d in (self.terminations, self.truncations, self.rewards, self._cumulative_rewards, self.infos):
            del d[agent]
        self.agents.remove(agent)
        dead = [a for a in self.agents if self.terminations[a] or self.truncations[a]]
        if dead:
            if self._skip_agent_selection is None:
                self._skip_agent_selection = self.agent_selection
            self.agent_selection = dead[0]
        else:
            if self._skip_agent_selection is not None:
                self.agent_selection = self._skip_agent_selection
            self._skip_agent_selection = None
        for a in self.rewards:
            self.rewards[a] = 0.0

    def _refresh_infos(self) -> None:
        st = self.engine.state
        for a in self.agents:
            info = self.infos.setdefault(a, {})
            info["action_mask"] = self.action_mask(a)
            info["turn"] = st.turn
            if a == PLAYER:
                info["score"] = st.score
            if st.done:
                info["won"] = bool(st.won)

    # --- persistence -----------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        """Engine state plus the AEC bookkeeping; ``set_state`` restores it exactly."""
        return {
            "engine": self.engine.get_state(),
            "aec": {
                "seed": self.seed,
                "max_turns": self.max_turns,
                "base_seed": self._base_seed,
                "episode": self._episode,
                "agents": list(self.agents),
                "agent_selection": self.agent_selection,
                "turn_ix": self._turn_ix,
                "skip": self._skip_agent_selection,
                "rewards": dict(self.rewards),
                "cumulative_rewards": dict(self._cumulative_rewards),
                "terminations": dict(self.terminations),
                "truncations": dict(self.truncations),
            },
            "npc_agents": {k: a.get_state() for k, a in self._npc_actors.items()},
        }

    def set_state(self, data: dict[str, Any]) -> None:
        """Restore a ``get_state`` snapshot (the snapshot is copied, never aliased)."""
        data = copy.deepcopy(data)
        aec = data["aec"]
        self._start(aec["seed"], aec["max_turns"])
        self.engine.set_state(data["engine"])
        for k, st in data.get("npc_agents", {}).items():
            if k in self._npc_actors:
                self._npc_actors[k].set_state(st)
        self._base_seed, self._episode = aec["base_seed"], aec["episode"]
        self.agents = list(aec["agents"])
        self.agent_selection = aec["agent_selection"]
        self._turn_ix = aec["turn_ix"]
        self._skip_agent_selection = aec["skip"]
        self.rewards = {a: float(aec["rewards"][a]) for a in self.agents}
        self._cumulative_rewards = {a: float(aec["cumulative_rewards"][a]) for a in self.agents}
        self.terminations = {a: bool(aec["terminations"][a]) for a in self.agents}
        self.truncations = {a: bool(aec["truncations"][a]) for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._refresh_infos()

    def state_hash(self) -> str:
        return self.engine.state_hash()


def masked_actions(mask: Sequence[int] | np.ndarray) -> list[int]:
    """Indices where a mask is set (handy for random or scripted policies)."""
    return [int(i) for i in np.flatnonzero(np.asarray(mask))]
