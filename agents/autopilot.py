"""A goal-directed heuristic player for headless runs (``parley run WORLD --autopilot``).

``Autopilot(rng, sigma=None)`` holds no engine, game, world or spec. Its ``act(observation,
context)`` returns a ``Decision`` for the player, and it reads only what a careful human
player could:

* the player's ``Observation``: the room (``location``, ``exits``, the parser ``scope``:
  the items, people and locked exits it may name here, with their names and aliases),
  ``inventory`` and ``gold``, the ``quests`` log (titles and objectives: which item to
  have, give to whom, leave where, which container to open, which scene to settle how),
  the open ``scene`` (a negotiation's public terms, its moves so far and the player's
  *own* preferences; or a council's members and their stances), and ``recent``: the
  events it perceived, i.e. its own moves and their refusals, what NPCs said (claims,
  without which world fact they restate), trade moves, persuasions, votes;
* its own memory of those (``agents.autopilot_memory``): the map it walked (exits it
  took and where they led), the locks it met (their names, what their refusals and an
  examination said, which of its items did not fit), where it last saw each item and
  NPC, whom it talked to (their topics, whether they trade), the talks it had with each
  merchant, the councils it sat in, the claims it heard;
* Σ-Mem trust scores through the object it is given (``score``, ``route``, ``vote``;
  never written), for whom to ask and which conflicting lead to follow.

Ids (of items, NPCs, places, scenes) are opaque handles: it uses them to tell things apart
and to match a quest objective to the thing it names (both are shown to the player by the
same displayed name), never as words. Words come only from displayed names and aliases,
room and event text, refusals, examine texts and the quest log's text.

It never sees an NPC's ``wants`` or honesty, a councillor's ``persuaded_by``, a lock's
key, where an exit it has not taken leads, a fact's truth or another party's utility,
reservation or negotiator. So it learns them the way a player does: a key is tried on a
lock when its displayed name shares a word with the lock (its name, its refusal, its
description) or is a key (a refused ``unlock`` is a penalised move; it never tries the
same pair twice and reads a locked exit's refusal once when nothing it holds matches);
once nothing is left to do or explore it takes every portable thing it saw and tries each
held item once on each shut lock, best-scoring first (``agents.autopilot_locks``); an
NPC's wishes come from the quest log (``give X to Y``) and what NPCs say (``Y wants X``);
a council vote is called once the stances it saw make the motion pass, and while it would
not pass, items whose names the quest's description uses are carried to the councillors
not yet for it (``agents.autopilot_hints``); a trade scene is found by talking to people
(``open to trade``) and opening the talks, also when a needed thing is found nowhere (the
open scene shows what is for sale; a trade it does not need is walked away from at once);
a merchant is modelled only from the offers it sees (``agents.autopilot_haggle``,
``agents.autopilot_merchant``).

Each turn it picks the first of:

1. in an open negotiation: its move (``agents.autopilot_haggle``), or walk away from one
   it does not need;
2. something useful here (``_local``): give a quest item to the NPC the quest names, leave
   an item where a quest wants it, call the council vote once it passes, unlock with a
   likely key, open a closed container, take an item a quest needs or a key-like item,
   give a spare item to someone said to want it, examine an item not examined yet, open
   a needed trade (or a merchant's unknown one while a needed thing is lost), talk to
   someone new, ask where a needed thing is (M-Route); before all these, give a hinted
   item to a councillor not yet for a motion the quest log wants passed;
3. a step along the shortest known path to where (2) will apply; else toward a place an
   NPC named for a needed thing (M-Vote on conflicting claims); else through the nearest
   exit it has not taken (``agents.autopilot_nav``);
4. take what lies about and try untried (lock, item) pairs, walking to the nearest
   (``_exhaust``); else to the place it has not seen for longest;
5. wait.

Ties are broken with its own ``numpy.random.Generator``: a run is a function of the
observations, its memory, the trust it reads and that generator. ``get_state``/``set_state``
round-trip its memory and generator as JSON-able data (``STATE_VERSION``; older states,
which mirrored the world file, are refused).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from agents.autopilot_haggle import MAX_TRADE_TRIES, HaggleMixin
from agents.autopilot_hints import HintMixin
from agents.autopilot_locks import LockMixin
from agents.autopilot_memory import STATE_VERSION, MemoryMixin
from agents.autopilot_nav import NavMixin
from agents.autopilot_trust import TrustMixin
from agents.base import BaseAgent
from game.core.phrasing import phrase
from game.core.seeds import rng as tree_rng
from game.core.types import PLAYER, Action, Decision, Observation, Verb

__all__ = ["STATE_VERSION", "TURN_COST", "Autopilot", "command_text", "make_autopilot", "seeded_rng"]
TURN_COST = 0.05  # utility a negotiation gives up per extra turn spent haggling


def seeded_rng(seed: int) -> np.random.Generator:
    """The autopilot's own random stream for a game seed (independent of the engine's)."""
    return tree_rng(int(seed), "autopilot")


def make_autopilot(seed: int, trust: Any | None = None) -> Autopilot:
    """An ``Autopilot`` with its own random stream for ``seed``. ``trust``: a Σ-Mem-like object
    (``score``, ``route``, ``vote``; e.g. ``game.facts.sigma``) to read, or None to play without."""
    return Autopilot(seeded_rng(seed), sigma=trust)


def command_text(names: Observation | Mapping[str, str] | Any, action: Action | None) -> str:
    """A readable command line for an action (for echoing headless runs). ``names``: the
    observation the action answered (its display names and lock names), or an id -> name map."""
    if action is None:
        return "(pass)"
    locks: dict[str, str] = {}
    if isinstance(names, Observation):
        lookup: Callable[[str | None], str] = names.name
        for n in names.scope.nouns if names.scope is not None else ():
            if n.kind == "exit":
                locks[n.id.split(":", 1)[1]] = n.name
    elif isinstance(names, Mapping):
        table = dict(names)

        def lookup(ident: str | None) -> str:
            return table.get(ident or "", ident or "something")
    else:  # anything with a name(id) method
        lookup = names.name
    return phrase(action, lookup, lambda d: locks.get(d, d))


class Autopilot(HaggleMixin, HintMixin, LockMixin, NavMixin, TrustMixin, MemoryMixin, BaseAgent):
    """Plays the player's side of a game to win it (see the module docstring)."""

    uses_context = True  # it is handed the player's memory context (and does not need it)
    passive = False

    def __init__(
        self,
        rng: np.random.Generator | None = None,
        sigma: Any | None = None,
        *,
        ask: bool = True,
        turn_cost: float = TURN_COST,
    ):
        super().__init__(PLAYER)
        self.rng = rng if rng is not None else seeded_rng(0)
        self.sigma = sigma  # Σ-Mem to read (never written), or None: play without trust
        self.ask = bool(ask)
        self.turn_cost = float(turn_cost)
        self._picked: str | None = None  # the place the last _step_to headed for (transient)
        self._obs: Observation | None = None  # the observation being answered (transient)
        self._reset_memory()

    # --- acting ----------------------------------------------------------------------
    def act(self, observation: Observation, context: Any = None) -> Decision:
        self._perceive(observation)
        self._obs = observation
        try:
            action = self._choose(observation)
        finally:
            self._obs = None
        self.pending = action.to_dict()
        self.actions += 1
        self.last_turn = observation.turn
        return Decision(action)

    def _do(
        self,
        verb: Verb,
        obj: str | None = None,
        target: str | None = None,
        text: str | None = None,
        terms: Mapping[str, str] | None = None,
    ) -> Action:
        t = tuple(sorted(terms.items())) if terms is not None else None
        return Action(PLAYER, verb, obj=obj, target=target, text=text, terms=t)

    def _choose(self, obs: Observation) -> Action:
        g = self._goals(obs)
        scene = obs.scene
        if scene and scene.get("type") == "negotiation":
            return self._negotiate(str(scene["id"]), scene, g)
        return self._local(obs, g) or self._navigate(g) or self._exhaust(g) or self._wander(g) or self._do(Verb.WAIT)

    # --- goals -------------------------------------------------------------------------
    def _goals(self, obs: Observation) -> dict[str, Any]:
        """What still has to happen, read from the quest log (and the locks still shut)."""
        g: dict[str, Any] = {
            "need": [],
            "keep": set(),
            "give": [],
            "drop": [],
            "at": [],
            "placed": set(),
            "open": [],
            "scenes": {},
            "bought": set(),
            "held": set(obs.inventory),
            "gold": int(obs.gold),
            "max_turns": int(obs.max_turns),
        }
        for q in obs.quests:
            if q.done:
                continue
            scenes = [o.scene for o in q.objectives if o.kind == "scene"]
            for o in q.objectives:
                self._objective(g, q, o, scenes)
        # "Strike a deal over ..." is a trade, "See ... pass" a council
        g["trade"] = {sid: out for sid, out in g["scenes"].items() if out in ("agreement", "no_agreement")}
        g["council"] = {sid: out for sid, out in g["scenes"].items() if out in ("passed", "failed")}
        for sid, t in self.trades.items():  # a trade that sells something needed
            if sid not in g["trade"] and t.get("item") in g["need"] and t.get("item") not in g["held"]:
                g["trade"][sid] = "agreement"
        g["wanted"] = set(g["need"]) | self._key_like(g)
        g["keep"] |= self._key_like(g)
        return g

    def _objective(self, g: dict[str, Any], q: Any, o: Any, scenes: list[str]) -> None:
        k = o.kind
        if k == "has":
            g["keep"].add(o.item)
            if not o.done:
                g["need"].append(o.item)
                if scenes:
                    g["bought"].add(o.item)  # a quest that also wants a deal: the deal brings it
        elif k == "gave" and not o.done:
            g["give"].append((o.item, o.npc))
            g["need"].append(o.item)
            g["keep"].add(o.item)
        elif k == "item_at":
            if o.done:
                g["placed"].add(o.item)
            else:
                g["drop"].append((o.item, o.location))
                g["need"].append(o.item)
                g["keep"].add(o.item)
        elif k == "opened" and not o.done:
            g["open"].append(o.item)
        elif k == "at" and not o.done:
            if all(x.done for x in q.objectives if x is not o):
                g["at"].append(o.location)
        elif k == "scene" and not o.done and o.scene:
            verb = o.text.split(" ", 1)[0].lower()
            g["scenes"][o.scene] = {"strike": "agreement", "let": "no_agreement", "see": None}.get(verb)
            if verb == "see":
                g["scenes"][o.scene] = "failed" if o.text.rstrip(".").endswith("fail") else "passed"

    def _needed_for_has(self, item: str) -> bool:
        """True if an unfinished quest still needs the player to hold ``item`` (so: don't give it yet)."""
        obs = self._obs
        return obs is not None and any(
            o.kind == "has" and o.item == item and not q.done for q in obs.quests for o in q.objectives
        )

    # --- councils ------------------------------------------------------------------------
    def _projected(self, sid: str, my_vote: str) -> bool:
        """Whether the motion would pass if the vote were called now (the stances last seen)."""
        c = self.councils[sid]
        members = c["members"]
        yes = sum(1 for m, s in members.items() if (m == PLAYER and my_vote == "yes") or (m != PLAYER and s == "for"))
        return yes / max(len(members), 1) > c["majority"]

    def _council_open(self, sid: str) -> bool:
        return self.councils.get(sid, {}).get("status", "debating") == "debating"

    # --- choosing ----------------------------------------------------------------------
    def _npcs_here(self) -> list[str]:
        return [n for n, loc in self.seen_npcs.items() if loc == self.here]

    def _items_here(self) -> list[str]:
        return [i for i, loc in self.seen_items.items() if loc == self.here]

    def _local(self, obs: Observation, g: dict[str, Any]) -> Action | None:
        held, npcs_here = g["held"], self._npcs_here()
        for item, npc in g["give"]:  # 1. quest gifts
            if item in held and npc in npcs_here and not self._needed_for_has(item):
                return self._do(Verb.GIVE, item, npc)
        for item, loc in g["drop"]:  # 2. put an item where a quest wants it
            if item in held and loc == self.here:
                return self._do(Verb.DROP, item)
        scene = obs.scene
        if scene and scene.get("type") == "council" and str(scene["id"]) in g["council"]:
            sid = str(scene["id"])  # 3. call the vote once it goes the way the quest wants
            outcome = g["council"][sid]
            if outcome == "passed" and self._projected(sid, "yes"):
                return self._do(Verb.VOTE, text="yes")
            if outcome == "failed" and not self._projected(sid, "no"):
                return self._do(Verb.VOTE, text="no")
        return (
            self._persuade_here(g)
            or self._take_here(g)
            or self._unlock_here(g)
            or self._open_here(g)
            or self._favour(g)
            or self._examine_here(g)
            or self._read_lock_here()
            or self._trade_here(g)
            or self._talk_here(g)
            or self._question(g, npcs_here)
        )

    def _take_here(self, g: dict[str, Any]) -> Action | None:
        """Take what a quest needs or what looks like a key."""
        for iid in self._items_here():
            if iid in g["held"] or iid in self.fixed or iid in g["placed"]:
                continue
            if iid in g["wanted"] or iid in self._wished(g) or iid in self._hinted_items(g):
                return self._do(Verb.TAKE, iid)
        return None

    def _wished(self, g: dict[str, Any]) -> set[str]:
        """Items someone was said to want and has not been given yet."""
        return {i for n, i in self.wants if f"{i}>{n}" not in self.gave}

    def _favour(self, g: dict[str, Any]) -> Action | None:
        """Give a spare item to someone here who was said to want it."""
        for n, iid in self.wants:
            if (
                iid in g["held"]
                and n in self._npcs_here()
                and f"{iid}>{n}" not in self.gave
                and iid not in g["keep"]
                and iid not in g["wanted"]
            ):
                return self._do(Verb.GIVE, iid, n)
        return None

    def _examine_here(self, g: dict[str, Any]) -> Action | None:
        """Look closely at each item lying here once (that is how a closed container shows)."""
        for iid in self._items_here():
            if iid not in self.examined and iid not in g["held"] and iid not in self.locks:
                return self._do(Verb.EXAMINE, iid)
        return None

    def _unknown_trades(self, g: dict[str, Any]) -> list[str]:
        """Needed trade scenes whose merchant it has not found yet."""
        known = set(self.merchants.values())
        return [sid for sid in g["trade"] if sid not in known]

    def _trade_ok(self, sid: str, gold: int) -> bool:
        if self.neg.get(sid, {}).get("tries", 0) >= MAX_TRADE_TRIES:
            return False
        if any(s["status"] == "agreement" for s in self.neg.get(sid, {}).get("log", ())):
            return False
        low = self._affordable_min(sid)
        return low is None or gold >= low

    def _trade_here(self, g: dict[str, Any]) -> Action | None:
        for npc in self._npcs_here():
            sid = self.merchants.get(npc)
            if npc in self.no_trade:
                continue
            if sid is not None and sid in g["trade"] and self._trade_ok(sid, g["gold"]):
                info = self.neg.setdefault(sid, {"tries": 0, "log": []})
                info["tries"] = int(info.get("tries", 0)) + 1
                return self._do(Verb.TRADE, npc)
            if sid is None and self._ask_trade(g) and self.talked.get(npc, {}).get("trade"):
                return self._do(Verb.TRADE, npc)  # what is for sale? (walked away from if not needed)
        return None

    def _ask_trade(self, g: dict[str, Any]) -> bool:
        """Whether to open the talks with a merchant whose wares it has not seen: a needed trade's
        merchant is unknown, or a needed thing is not found anywhere (it may be for sale)."""
        return bool(self._unknown_trades(g) or self._lost(g))

    def _talk_here(self, g: dict[str, Any]) -> Action | None:
        """Greet someone new when it may learn something: a needed thing is lost, or a needed
        trade's merchant is unknown."""
        if not (self._unknown_trades(g) or (self.ask and self._lost(g))):
            return None
        for npc in self._npcs_here():
            if npc not in self.talked:
                return self._do(Verb.TALK, npc)
        return None
