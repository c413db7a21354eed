"""The AEC environment's float32 vectors: each agent's observation and the global state.

Both have a fixed length per world. ``Encoding.layout`` names the slices of an observation;
what an agent carries, what it can reach and who is with it come from ``game.engine.predicates``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from game.engine import predicates

GOLD_SCALE = 100.0


class Encoding:
    """The observation and state vectors of one world (``entities``: the player, then the NPCs)."""

    def __init__(self, spec: Any, entities: tuple[str, ...]):
        self.spec = spec
        self.entities = entities
        self.locs = list(spec.locations)
        self.items = list(spec.items)
        self.quests = list(spec.quests)
        self.loc_ix = {k: i for i, k in enumerate(self.locs)}
        self.item_ix = {k: i for i, k in enumerate(self.items)}
        self.ent_ix = {k: i for i, k in enumerate(entities)}
        L, I, E, Q = len(self.locs), len(self.items), len(entities), len(self.quests)
        sizes = [
            ("location", L),
            ("carried", I),
            ("visible_items", I),
            ("present", E),
            ("self", E),
            ("turn", 1),
            ("gold", 1),
            ("negotiation", 1),
            ("council", 1),
            ("quests", Q),
        ]
        self.layout: dict[str, slice] = {}
        pos = 0
        for name, n in sizes:
            self.layout[name] = slice(pos, pos + n)
            pos += n
        self.observation_size = pos
        holders = [*self.locs, *entities, *self.items, ""]
        self.holder_ix = {h: i for i, h in enumerate(holders)}
        self.state_size = (
            E * L + I * len(holders) + E + 1 + 2 * I + Q + 2 + sum(len(loc.locked) for loc in spec.locations.values())
        )
        self.locked_exits = [f"{lid}:{d}" for lid, loc in spec.locations.items() for d in loc.locked]

    def observe(self, eng: Any, agent: str, max_turns: int) -> np.ndarray:
        """The agent's observation: where it is, what it carries and can reach (not carried),
        who is with it, itself, the turn, its gold, whether it negotiates or attends a council,
        and the quests done."""
        st, spec, lay = eng.state, self.spec, self.layout
        obs = np.zeros(self.observation_size, dtype=np.float32)
        obs[lay["location"].start + self.loc_ix[st.where[agent]]] = 1.0
        c0, v0 = lay["carried"].start, lay["visible_items"].start
        for iid, place in predicates.items_in_reach(spec, st, agent):
            obs[(c0 if place == predicates.CARRIED else v0) + self.item_ix[iid]] = 1.0
        p0 = lay["present"].start
        for e in predicates.others_here(st, agent):
            if e in self.ent_ix:
                obs[p0 + self.ent_ix[e]] = 1.0
        obs[lay["self"].start + self.ent_ix[agent]] = 1.0
        obs[lay["turn"].start] = min(1.0, st.turn / max_turns)
        obs[lay["gold"].start] = min(1.0, max(0.0, st.gold.get(agent, 0) / GOLD_SCALE))
        sid = st.active_scene
        if sid is not None and agent in (p.id for p in spec.scenes[sid].parties):
            obs[lay["negotiation"].start] = 1.0
        if eng.scenes.council_here(agent) is not None:
            obs[lay["council"].start] = 1.0
        q0 = lay["quests"].start
        done = set(st.quests_done)
        for i, qid in enumerate(self.quests):
            if qid in done:
                obs[q0 + i] = 1.0
        return obs

    def state(self, eng: Any, max_turns: int) -> np.ndarray:
        """A global state vector in [0, 1]: where everyone and every item is, gold, the turn,
        containers opened and unlocked, quests done, open talks, the win, exits unlocked."""
        st = eng.state
        L, I = len(self.locs), len(self.items)
        nh = len(self.holder_ix)
        out = np.zeros(self.state_size, dtype=np.float32)
        pos = 0
        for e in self.entities:
            loc = st.where.get(e)
            if loc in self.loc_ix:
                out[pos + self.loc_ix[loc]] = 1.0
            pos += L
        for iid in self.items:
            h = st.item_at.get(iid, "")
            out[pos + self.holder_ix.get(h, nh - 1)] = 1.0
            pos += nh
        for e in self.entities:
            out[pos] = min(1.0, max(0.0, st.gold.get(e, 0) / GOLD_SCALE))
            pos += 1
        out[pos] = min(1.0, st.turn / max_turns)
        pos += 1
        for iid in self.items:
            out[pos] = float(iid in st.opened)
            out[pos + I] = float(iid in st.unlocked)
            pos += 1
        pos += I
        done = set(st.quests_done)
        for qid in self.quests:
            out[pos] = float(qid in done)
            pos += 1
        out[pos] = float(st.active_scene is not None)
        out[pos + 1] = float(st.won)
        pos += 2
        for key in self.locked_exits:
            out[pos] = float(key in st.unlocked)
            pos += 1
        return out
