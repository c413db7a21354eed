"""The engine as an Agent-Environment-Cycle (AEC) environment, without PettingZoo.

``ParleyAEC`` follows the shape of ``pettingzoo.AECEnv`` (``agents``,
``agent_selection``, ``reset``/``step``/``observe``/``last``, the per-agent
``rewards``/``terminations``/``truncations``/``infos`` dicts and the dead-agent
stepping convention) but imports only numpy and ``game.*``, so learning code can
use it with no optional dependency. ``game.pettingzoo_env`` wraps it as a real
``AECEnv`` with gymnasium spaces.

Agents take turns in the engine's order: the player, then each NPC in world
order; after the last agent of a round the engine's ``end_round`` runs. With
``npc_agents=True`` only the player is an AEC agent and the NPCs are driven by
the agents their world spec names (``game.session.npc_agents``), as in a normal
game.

Actions are indices into a fixed, per-world *action catalogue* (see
``build_templates``). ``action_mask(agent)`` marks the entries that are plausible
now; a masked-out action may still be stepped, and the engine answers it with a
penalised ``invalid`` event, never an exception.

Observations are float32 vectors of a fixed length per world (see
``ParleyAEC.observation_layout``). ``observe_text`` returns the engine's rich
``Observation`` for language-model agents.
"""

from __future__ import annotations

import copy
import dataclasses
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from game.engine import Engine
from game.rules import reachable
from game.types import DIRECTIONS, PLAYER, Action, Observation, Verb
from game.world.loader import World, load_world

MAX_OFFER_OUTCOMES = 200   # negotiation scenes with more complete outcomes get no OFFER actions
GOLD_SCALE = 100.0


# --- the action catalogue ------------------------------------------------------

@dataclasses.dataclass(frozen=True, slots=True)
class ActionTemplate:
    """One catalogue entry, not yet bound to an actor."""

    verb: Verb
    obj: str | None = None
    target: str | None = None
    text: str | None = None
    terms: tuple[tuple[str, str], ...] | None = None
    scene: str | None = None     # OFFER: the negotiation scene the terms belong to

    def bind(self, actor: str) -> Action:
        return Action(actor=actor, verb=self.verb, obj=self.obj, target=self.target,
                      text=self.text, terms=self.terms)

    def label(self) -> str:
        v = self.verb.value.replace("_", " ")
        if self.verb is Verb.GIVE:
            return f"give {self.obj} to {self.target}"
        if self.verb is Verb.ASK:
            return f"ask {self.obj} about {self.target}"
        if self.verb is Verb.UNLOCK:
            return f"unlock {self.obj} with {self.target}"
        if self.verb is Verb.VOTE:
            return f"vote {self.text}"
        if self.verb is Verb.OFFER:
            return "offer " + " ".join(f"{k}={val}" for k, val in self.terms or ())
        return f"{v} {self.obj}" if self.obj else v


def _topics(spec: Any) -> list[str]:
    return list(dict.fromkeys(f.topic for f in spec.facts.values()))


def tradeable_scenes(spec: Any) -> list[str]:
    """Negotiation scenes the player can open with ``trade``, in NPC order, once each."""
    from game.world.spec import NegotiationScene
    out: dict[str, None] = {}
    for npc in spec.npcs.values():
        sid = npc.trade
        sc = spec.scenes.get(sid) if sid else None
        if isinstance(sc, NegotiationScene) and PLAYER in (p.id for p in sc.parties):
            out.setdefault(sid, None)
    return list(out)


def scene_outcomes(scene: Any) -> list[tuple[tuple[str, str], ...]]:
    """Every complete offer of a negotiation scene, as sorted ``(issue, value)`` tuples."""
    issues = list(scene.issues)
    out = []
    for values in itertools.product(*(scene.issues[i] for i in issues)):
        out.append(tuple(sorted(zip(issues, values))))
    return out


def _n_outcomes(scene: Any) -> int:
    n = 1
    for vals in scene.issues.values():
        n *= len(vals)
    return n


def build_templates(spec: Any) -> list[ActionTemplate]:
    """The world's action catalogue, in a fixed order that depends only on the spec.

    WAIT, LOOK, INVENTORY; GO for every direction used by any exit (in
    ``DIRECTIONS`` order); TAKE, DROP, EXAMINE, OPEN for each item; EXAMINE,
    TALK, TRADE for each NPC; GIVE each item to each NPC; ASK each NPC about each
    fact topic; UNLOCK each locked container with its key and each locked exit
    (``exit:<dir>``) with its key; ACCEPT, REJECT, WALK_AWAY; VOTE yes/no; and
    OFFER each complete outcome of each tradeable negotiation scene (scenes with
    more than ``MAX_OFFER_OUTCOMES`` outcomes are skipped).
    """
    t: list[ActionTemplate] = [ActionTemplate(Verb.WAIT), ActionTemplate(Verb.LOOK),
                               ActionTemplate(Verb.INVENTORY)]
    used = {d for loc in spec.locations.values() for d in loc.exits}
    t += [ActionTemplate(Verb.GO, obj=d) for d in DIRECTIONS if d in used]
    items, npcs = list(spec.items), list(spec.npcs)
    for verb in (Verb.TAKE, Verb.DROP, Verb.EXAMINE, Verb.OPEN):
        t += [ActionTemplate(verb, obj=i) for i in items]
    for verb in (Verb.EXAMINE, Verb.TALK, Verb.TRADE):
        t += [ActionTemplate(verb, obj=n) for n in npcs]
    t += [ActionTemplate(Verb.GIVE, obj=i, target=n) for i in items for n in npcs]
    topics = _topics(spec)
    t += [ActionTemplate(Verb.ASK, obj=n, target=topic) for n in npcs for topic in topics]
    for iid, item in spec.items.items():
        if item.container and item.locked_with is not None:
            t.append(ActionTemplate(Verb.UNLOCK, obj=iid, target=item.locked_with))
    seen: set[tuple[str, str]] = set()
    for loc in spec.locations.values():
        for d, lock in loc.locked.items():
            if (d, lock.key) not in seen:
                seen.add((d, lock.key))
                t.append(ActionTemplate(Verb.UNLOCK, obj=f"exit:{d}", target=lock.key))
    t += [ActionTemplate(Verb.ACCEPT), ActionTemplate(Verb.REJECT), ActionTemplate(Verb.WALK_AWAY)]
    t += [ActionTemplate(Verb.VOTE, text="yes"), ActionTemplate(Verb.VOTE, text="no")]
    for sid in tradeable_scenes(spec):
        scene = spec.scenes[sid]
        if _n_outcomes(scene) > MAX_OFFER_OUTCOMES:
            continue
        t += [ActionTemplate(Verb.OFFER, terms=terms, scene=sid) for terms in scene_outcomes(scene)]
    return t


# --- the environment -----------------------------------------------------------

def _derive_seed(base: int, episode: int) -> int:
    """A seed for the ``episode``-th unseeded reset after a reset with seed ``base``."""
    return int(np.random.SeedSequence([int(base) & 0xFFFFFFFF, int(episode)]).generate_state(1)[0])


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

    def __init__(self, world: World | str | Path, max_turns: int | None = None,
                 npc_agents: bool = False, llm: Any = None, llm_npcs: Any = "all"):
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
        self._index_catalogue()
        # observation layout
        self._locs = list(self.spec.locations)
        self._items = list(self.spec.items)
        self._quests = list(self.spec.quests)
        self._loc_ix = {k: i for i, k in enumerate(self._locs)}
        self._item_ix = {k: i for i, k in enumerate(self._items)}
        self._ent_ix = {k: i for i, k in enumerate(self.entities)}
        L, I, E, Q = len(self._locs), len(self._items), len(self.entities), len(self._quests)
        sizes = [("location", L), ("carried", I), ("visible_items", I), ("present", E),
                 ("self", E), ("turn", 1), ("gold", 1), ("negotiation", 1), ("council", 1),
                 ("quests", Q)]
        self.observation_layout: dict[str, slice] = {}
        pos = 0
        for name, n in sizes:
            self.observation_layout[name] = slice(pos, pos + n)
            pos += n
        self.observation_size = pos
        holders = [*self._locs, *self.entities, *self._items, ""]
        self._holder_ix = {h: i for i, h in enumerate(holders)}
        self.state_size = (E * L + I * len(holders) + E + 1 + 2 * I + Q + 2
                           + sum(len(loc.locked) for loc in self.spec.locations.values()))
        self._locked_exits = [f"{lid}:{d}" for lid, loc in self.spec.locations.items() for d in loc.locked]
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
        self._npc_actors: dict[str, Any] = {}
        if self.npc_agents:
            from game.session import npc_agents
            self._npc_actors = npc_agents(world, self.seed, self.llm, self.llm_npcs if self.llm else ())
        # the engine knows the NPC agents too, so they speak, haggle and debate in their own voices
        from game.wiring import engine_defaults
        self.engine = Engine(world, seed=self.seed, actors=self._npc_actors, **engine_defaults())
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

    def _affordable(self, sid: str, terms: dict[str, str] | None) -> bool:
        trade = self.spec.scenes[sid].trade
        if trade is None or terms is None:
            return True
        buyer = next(p.id for p in self.spec.scenes[sid].parties if p.id != trade.seller)
        try:
            price = int(terms[trade.price_issue])
        except (KeyError, ValueError):
            return True
        return self.engine.state.gold.get(buyer, 0) >= price

    def _index_catalogue(self) -> None:
        """Group catalogue indices by what decides their mask bit (for a fast ``action_mask``)."""
        ix: dict[Any, Any] = {"always": [], "go": {}, "take": {}, "drop": {}, "examine_item": {},
                              "open": {}, "examine_npc": {}, "talk": {}, "trade": {}, "give": {},
                              "ask": {}, "unlock_item": [], "unlock_exit": {}, "accept": [],
                              "reject": [], "walk_away": [], "vote": [], "offer": {}}
        item_verbs = {Verb.TAKE: "take", Verb.DROP: "drop", Verb.EXAMINE: "examine_item", Verb.OPEN: "open"}
        npc_verbs = {Verb.EXAMINE: "examine_npc", Verb.TALK: "talk", Verb.TRADE: "trade"}
        simple = {Verb.ACCEPT: "accept", Verb.REJECT: "reject", Verb.WALK_AWAY: "walk_away", Verb.VOTE: "vote"}
        for i, t in enumerate(self.templates):
            v = t.verb
            if v in (Verb.WAIT, Verb.LOOK, Verb.INVENTORY):
                ix["always"].append(i)
            elif v is Verb.GO:
                ix["go"][t.obj] = i
            elif v in item_verbs and t.obj in self.spec.items:
                ix[item_verbs[v]][t.obj] = i
            elif v in npc_verbs and t.obj in self.spec.npcs:
                ix[npc_verbs[v]][t.obj] = i
            elif v is Verb.GIVE:
                ix["give"][(t.obj, t.target)] = i
            elif v is Verb.ASK:
                ix["ask"].setdefault(t.obj, []).append(i)
            elif v is Verb.UNLOCK and t.obj.startswith("exit:"):
                ix["unlock_exit"][(t.obj[5:], t.target)] = i
            elif v is Verb.UNLOCK:
                ix["unlock_item"].append((i, t.obj, t.target))
            elif v in simple:
                ix[simple[v]].append(i)
            elif v is Verb.OFFER:
                ix["offer"].setdefault(t.scene, []).append((i, dict(t.terms or ())))
        self._ix = ix

    def action_mask(self, agent: str) -> np.ndarray:
        """int8 vector over the catalogue: 1 where the action is plausible now. WAIT is always 1.

        GO: an exit here that is not locked; TAKE: a reachable portable item not
        carried; DROP: carried; EXAMINE: a reachable item or an NPC here; OPEN: a
        reachable closed container that is not locked; TALK/ASK/GIVE: an NPC here
        (GIVE: an item carried); TRADE: the player, a merchant here, no open talks
        and no deal struck yet; UNLOCK: the key carried and the lock here and
        still locked; OFFER/ACCEPT/REJECT/WALK_AWAY: the player's legal moves in
        the open negotiation (offers and acceptances the buyer can pay for);
        VOTE: a council sitting here that the agent may vote in.
        """
        eng, st, spec, ix = self.engine, self.engine.state, self.spec, self._ix
        on: list[int] = list(ix["always"])
        here = st.where[agent]
        loc = spec.locations[here]
        for d in loc.exits:
            if d not in loc.locked or f"{here}:{d}" in st.unlocked:
                on.append(ix["go"][d])
        carried = [i for i, h in st.item_at.items() if h == agent]
        carried_set = set(carried)
        reach = [i for i in self._items if reachable(eng, agent, i)]
        npcs_here = [n for n in spec.npcs if n != agent and st.where.get(n) == here]
        for iid in carried:
            on.append(ix["drop"][iid])
        for iid in reach:
            item = spec.items[iid]
            on.append(ix["examine_item"][iid])
            if iid not in carried_set and item.portable:
                on.append(ix["take"][iid])
            if (item.container and iid not in st.opened
                    and (item.locked_with is None or iid in st.unlocked)):
                on.append(ix["open"][iid])
        is_player = agent == PLAYER
        for n in npcs_here:
            on.append(ix["examine_npc"][n])
            on.append(ix["talk"][n])
            on.extend(ix["ask"].get(n, ()))
            for iid in carried:
                on.append(ix["give"][(iid, n)])
            if is_player and spec.npcs[n].trade is not None and eng.scenes.trade_refusal(agent, n) is None:
                on.append(ix["trade"][n])
        for i, box, key in ix["unlock_item"]:
            if key in carried_set and box in reach and box not in st.unlocked:
                on.append(i)
        for d, lock in loc.locked.items():
            i = ix["unlock_exit"].get((d, lock.key))
            if i is not None and lock.key in carried_set and f"{here}:{d}" not in st.unlocked:
                on.append(i)
        sid = st.active_scene if is_player else None
        if sid is not None:
            session = eng.scenes.session(sid)
            legal = session.legal_moves(PLAYER)
            if "accept" in legal and self._affordable(sid, session.standing_offer):
                on.extend(ix["accept"])
            if "reject" in legal:
                on.extend(ix["reject"])
            if "walk_away" in legal:
                on.extend(ix["walk_away"])
            if "offer" in legal:
                on.extend(i for i, terms in ix["offer"].get(sid, ()) if self._affordable(sid, terms))
        council = eng.scenes.council_here(agent)
        if council is not None and (is_player or agent in (p.id for p in spec.scenes[council].participants)):
            on.extend(ix["vote"])
        mask = np.zeros(len(self.templates), dtype=np.int8)
        mask[on] = 1
        return mask

    # --- observing -------------------------------------------------------------------
    def observe(self, agent: str) -> np.ndarray:
        """The agent's float32 observation vector (layout in ``observation_layout``)."""
        st, spec = self.engine.state, self.spec
        lay = self.observation_layout
        obs = np.zeros(self.observation_size, dtype=np.float32)
        here = st.where[agent]
        obs[lay["location"].start + self._loc_ix[here]] = 1.0
        c0, v0 = lay["carried"].start, lay["visible_items"].start
        for iid, holder in st.item_at.items():
            if holder == agent:
                obs[c0 + self._item_ix[iid]] = 1.0
            elif holder == here or (holder in spec.items and holder in st.opened
                                    and st.item_at.get(holder) in (agent, here)):
                obs[v0 + self._item_ix[iid]] = 1.0
        p0 = lay["present"].start
        for e in self.entities:
            if e != agent and st.where.get(e) == here:
                obs[p0 + self._ent_ix[e]] = 1.0
        obs[lay["self"].start + self._ent_ix[agent]] = 1.0
        obs[lay["turn"].start] = min(1.0, st.turn / self.max_turns)
        obs[lay["gold"].start] = min(1.0, max(0.0, st.gold.get(agent, 0) / GOLD_SCALE))
        sid = st.active_scene
        if sid is not None and agent in (p.id for p in spec.scenes[sid].parties):
            obs[lay["negotiation"].start] = 1.0
        if self.engine.scenes.council_here(agent) is not None:
            obs[lay["council"].start] = 1.0
        q0 = lay["quests"].start
        done = set(st.quests_done)
        for i, qid in enumerate(self._quests):
            if qid in done:
                obs[q0 + i] = 1.0
        return obs

    def observe_text(self, agent: str) -> Observation:
        """The engine's rich observation (room prose, recent events, scene) for LLM agents."""
        return self.engine.observe(agent)

    def state(self) -> np.ndarray:
        """A global float32 state vector in [0, 1] (for centralised critics)."""
        st = self.engine.state
        L, I = len(self._locs), len(self._items)
        nh = len(self._holder_ix)
        out = np.zeros(self.state_size, dtype=np.float32)
        pos = 0
        for e in self.entities:
            loc = st.where.get(e)
            if loc in self._loc_ix:
                out[pos + self._loc_ix[loc]] = 1.0
            pos += L
        for iid in self._items:
            h = st.item_at.get(iid, "")
            out[pos + self._holder_ix.get(h, nh - 1)] = 1.0
            pos += nh
        for e in self.entities:
            out[pos] = min(1.0, max(0.0, st.gold.get(e, 0) / GOLD_SCALE))
            pos += 1
        out[pos] = min(1.0, st.turn / self.max_turns)
        pos += 1
        for iid in self._items:
            out[pos] = float(iid in st.opened)
            out[pos + I] = float(iid in st.unlocked)
            pos += 1
        pos += I
        done = set(st.quests_done)
        for qid in self._quests:
            out[pos] = float(qid in done)
            pos += 1
        out[pos] = float(st.active_scene is not None)
        out[pos + 1] = float(st.won)
        pos += 2
        for key in self._locked_exits:
            out[pos] = float(key in st.unlocked)
            pos += 1
        return out

    def last(self, observe: bool = True) -> tuple[np.ndarray | None, float, bool, bool, dict[str, Any]]:
        agent = self.agent_selection
        obs = self.observe(agent) if observe else None
        return (obs, self._cumulative_rewards[agent], self.terminations[agent],
                self.truncations[agent], self.infos[agent])

    def agent_iter(self, max_iter: int = 2 ** 63):
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
                "seed": self.seed, "max_turns": self.max_turns, "base_seed": self._base_seed,
                "episode": self._episode, "agents": list(self.agents),
                "agent_selection": self.agent_selection, "turn_ix": self._turn_ix,
                "skip": self._skip_agent_selection, "rewards": dict(self.rewards),
                "cumulative_rewards": dict(self._cumulative_rewards),
                "terminations": dict(self.terminations), "truncations": dict(self.truncations),
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
