"""A brute-force player that reads only its ``Observation``: the baseline the autopilot must beat.

``BrutePlayer(seed)`` has no plan. Each turn it does the first of: in a negotiation, accept
a standing offer it can pay for, else offer one price step more than last time (from the
lowest it can pay), and walk away from a trade whose item no quest needs; in a council, vote
yes once the stances it is shown make a majority; give a quest's item to the person the quest
names, leave one where a quest wants it; take every item in reach (once each); examine every
item once; open every closed container (again after unlocking it); try every held item once on
every shut lock here (locked exits and locked containers); talk to everyone once; open the
talks with anyone who said they trade, once each, while a quest item is missing; else walk
to the nearest exit it has not taken (breadth-first over the exits it walked), else a random
exit. Ids are used only as handles. ``get_state``/``set_state`` round-trip it as JSON data.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from game.core import seeds
from game.core.types import PLAYER, Action, Decision, Observation, Verb

TRADE_HINT = "open to trade"


class BrutePlayer:
    """Tries everything once (see the module docstring)."""

    uses_context = False
    passive = False

    def __init__(self, seed: int = 0):
        self.entity = PLAYER
        self.rng = seeds.rng(int(seed), "brute")
        self.tried: list[list[Any]] = []  # [verb, obj, target] done once
        self.edges: dict[str, dict[str, str]] = {}  # place -> direction -> where it led
        self.exits: dict[str, list[str]] = {}
        self.traders: list[str] = []  # NPCs who said they trade
        self.closed: list[str] = []  # containers seen closed
        self.locked: list[str] = []  # containers seen locked
        self.unlocked: list[str] = []  # containers it unlocked (to open again)
        self.opened: list[str] = []  # "place:exit:dir" it unlocked
        self.fixed: list[str] = []  # items that would not be taken
        self.pending: dict[str, Any] | None = None

    def observe(self, event: Any) -> None:
        return None

    def get_state(self) -> dict[str, Any]:
        keys = ("tried", "edges", "exits", "traders", "closed", "locked", "unlocked", "opened", "fixed", "pending")
        return {k: getattr(self, k) for k in keys} | {"rng": self.rng.bit_generator.state}

    def set_state(self, state: dict[str, Any]) -> None:
        for k, v in state.items():
            if k == "rng":
                self.rng.bit_generator.state = v
            else:
                setattr(self, k, v)

    # --- perceiving -------------------------------------------------------------------------
    def _perceive(self, obs: Observation) -> None:
        self.exits[obs.location] = list(obs.exits)
        for ev in obs.recent:
            d, kind, mine = ev.data or {}, str(ev.kind), ev.actor == PLAYER
            if mine and kind == "move" and d.get("from") and d.get("to"):
                self.edges.setdefault(str(d["from"]), {})[str(d["dir"])] = str(d["to"])
            elif kind == "talk" and TRADE_HINT in str(d.get("view", "")) and d.get("npc") not in self.traders:
                self.traders.append(str(d.get("npc")))
            elif mine and kind == "examine" and "It is closed" in ev.text:
                self.closed.append(str(d.get("obj") or d.get("item")))
                if "locked" in ev.text:
                    self.locked.append(str(d.get("obj") or d.get("item")))
            elif mine and kind == "unlock":
                if d.get("item"):
                    self.unlocked.append(str(d["item"]))
                else:
                    self.opened.append(f"{obs.location}:exit:{d.get('exit')}")
            elif mine and kind == "invalid" and self.pending and self.pending.get("verb") == "take":
                self.fixed.append(str(self.pending.get("obj")))

    def act(self, observation: Observation, context: Any = None) -> Decision:
        self._perceive(observation)
        action = self._choose(observation)
        self.pending = action.to_dict()
        return Decision(action)

    def _do(
        self,
        verb: Verb,
        obj: str | None = None,
        target: str | None = None,
        text: str | None = None,
        terms: dict[str, str] | None = None,
    ) -> Action:
        return Action(
            PLAYER, verb, obj=obj, target=target, text=text, terms=tuple(sorted(terms.items())) if terms else None
        )

    def _once(
        self, verb: Verb, obj: str | None = None, target: str | None = None, tag: str | None = None
    ) -> Action | None:
        key = [verb.value, obj, target] + ([tag] if tag else [])
        if key in self.tried:
            return None
        self.tried.append(key)
        return self._do(verb, obj, target)

    # --- choosing ---------------------------------------------------------------------------
    def _needed(self, obs: Observation) -> set[str]:
        return {
            o.item
            for q in obs.quests
            for o in q.objectives
            if o.item and not o.done and o.kind in ("has", "gave", "item_at")
        }

    def _negotiate(self, obs: Observation, sc: dict[str, Any]) -> Action:
        trade, hist = sc.get("trade") or {}, sc.get("history") or []
        if trade.get("item") not in self._needed(obs) or trade.get("item") in obs.inventory:
            return self._do(Verb.WALK_AWAY)
        if hist and hist[-1].get("party") == PLAYER:
            return self._do(Verb.WAIT)
        pi, standing = trade.get("price_issue"), sc.get("standing_offer")
        prices = sorted((v for v in sc.get("issues", {}).get(pi, ()) if str(v).isdigit()), key=int)
        if standing and str(standing.get(pi, "x")).isdigit() and int(standing[pi]) <= obs.gold:
            return self._do(Verb.ACCEPT)
        ok = [p for p in prices if int(p) <= obs.gold]
        if not ok:
            return self._do(Verb.WALK_AWAY)
        n = sum(1 for h in hist if h.get("party") == PLAYER)
        terms = {k: str(v[0]) for k, v in sc.get("issues", {}).items()}
        terms[pi] = str(ok[min(n, len(ok) - 1)])
        return self._do(Verb.OFFER, terms=terms)

    def _choose(self, obs: Observation) -> Action:
        sc = obs.scene
        if sc and sc.get("type") == "negotiation":
            return self._negotiate(obs, sc)
        nouns = obs.scope.nouns if obs.scope is not None else ()
        items = [n.id for n in nouns if n.kind == "item" and n.where != "inventory"]
        npcs = [n.id for n in nouns if n.kind == "npc"]
        held, here = list(obs.inventory), obs.location
        if sc and sc.get("type") == "council" and sc.get("status", "debating") == "debating":
            mem = sc.get("members", ())
            yes = sum(1 for m in mem if m.get("id") == PLAYER or m.get("stance") == "for")
            if mem and yes / len(mem) > float(sc.get("majority", 0.5)):
                return self._do(Verb.VOTE, text="yes")
        for q in obs.quests:
            for o in q.objectives:
                if o.kind == "gave" and not o.done and o.item in held and o.npc in npcs:
                    return self._do(Verb.GIVE, o.item, o.npc)
                if o.kind == "item_at" and not o.done and o.item in held and o.location == here:
                    return self._do(Verb.DROP, o.item)
        done_here = {o.item for q in obs.quests for o in q.objectives if o.kind == "item_at" and o.done}
        for i in items:
            if i not in self.fixed and i not in done_here and (a := self._once(Verb.TAKE, i)):
                return a
        for i in items:
            if a := self._once(Verb.EXAMINE, i):
                return a
        for i in items + held:
            if i in self.closed and (i not in self.locked or i in self.unlocked):
                if a := self._once(Verb.OPEN, i, tag="again" if i in self.unlocked else None):
                    return a
        shut = [n.id for n in nouns if n.kind == "exit" and f"{here}:{n.id}" not in self.opened]
        shut += [i for i in items + held if i in self.locked and i not in self.unlocked]
        for lock in shut:
            for h in held:
                if h != lock and (a := self._once(Verb.UNLOCK, lock, h)):
                    return a
        for p in npcs:
            if a := self._once(Verb.TALK, p):
                return a
        if self._needed(obs) - set(held):
            for p in npcs:
                if p in self.traders and (a := self._once(Verb.TRADE, p)):
                    return a
        return self._explore(obs)

    def _explore(self, obs: Observation) -> Action:
        """Breadth-first to the nearest exit not taken yet over the walked map, else a random exit."""
        start = obs.location
        prev: dict[str, tuple[str, str] | None] = {start: None}
        q = deque([start])
        while q:
            u = q.popleft()
            todo = [d for d in self.exits.get(u, ()) if d not in self.edges.get(u, {})]
            if todo:
                if u == start:
                    return self._do(Verb.GO, todo[int(self.rng.integers(len(todo)))])
                while (p := prev[u]) is not None and p[0] != start:
                    u = p[0]
                return self._do(Verb.GO, prev[u][1])
            for d, v in self.edges.get(u, {}).items():
                if v not in prev:
                    prev[v] = (u, d)
                    q.append(v)
        ex = obs.exits
        return self._do(Verb.GO, ex[int(self.rng.integers(len(ex)))]) if ex else self._do(Verb.WAIT)
