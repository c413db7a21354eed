"""The autopilot's moving about (mixed into ``Autopilot``): the map it learnt, where to go next.

The map is what it walked: the exits of every place it stood in and, for those it took,
where they led (an exit it has not taken leads somewhere unknown). It walks shortest known
paths (a shut lock counts once it holds something worth trying on it) to the nearest place
where something useful can be done, else toward a place an NPC named for a needed thing,
else through the nearest exit it has not taken; with none of those, ``_exhaust`` (see
``agents.autopilot_locks``), else to the place it has not seen for longest.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from game.core.types import Action, Verb


class NavMixin:
    """Navigation for ``Autopilot`` (needs the memory of ``agents.autopilot_memory``)."""

    here: str
    rng: Any
    visited: dict[str, int]
    places: list[str]
    exits: dict[str, list[str]]
    edges: dict[str, dict[str, str]]
    seen_items: dict[str, str]
    seen_npcs: dict[str, str]
    hints: dict[str, list[str]]
    sellers: dict[str, str]
    followed: list[list[Any]]
    trades: dict[str, dict[str, Any]]
    merchants: dict[str, str]
    locks: dict[str, dict[str, Any]]
    talked: dict[str, dict[str, Any]]
    councils: dict[str, dict[str, Any]]
    no_trade: list[str]
    fixed: list[str]
    _picked: str | None
    _obs: Any

    def _lost(self, g: dict[str, Any]) -> list[str]:
        """Needed things whose whereabouts it does not know (and no deal will bring)."""
        sold = {t.get("item") for t in self.trades.values()} | set(self.sellers) | g["bought"]
        out = []
        for thing in dict.fromkeys(g["need"] + g["open"]):
            if thing in g["held"] or thing in self.seen_items or thing in sold or self.locks.get(thing, {}).get("open"):
                continue
            out.append(thing)
        return out

    def _live_hints(self, thing: str) -> list[str]:
        """Places named for ``thing`` still worth a look: a known place not visited since, a closed
        container, or a name it cannot place yet while some exit is unexplored."""
        out = []
        for place in self.hints.get(thing, ()):
            if place in self.visited:
                continue
            if place in self.locks and self.locks[place].get("container"):
                if not self.locks[place].get("open"):
                    out.append(place)
            elif place in self.places or self._unexplored():
                out.append(place)
        return out

    # --- the map ---------------------------------------------------------------------
    def _frontier(self, dist: dict[str, int], g: dict[str, Any]) -> dict[str, list[str]]:
        """Reachable places with exits not taken yet (that can be used), and those exits."""
        out: dict[str, list[str]] = {}
        for loc in dist:
            todo = [
                d for d in self.exits.get(loc, ()) if d not in self.edges.get(loc, {}) and self._passable(loc, d, g)
            ]
            if todo:
                out[loc] = todo
        return out

    def _unexplored(self) -> bool:
        """Whether some exit it can use has not been taken (hints can only help then)."""
        g = {"held": set(self._obs.inventory) if self._obs is not None else set()}
        dist, _ = self._bfs(g)
        return bool(self._frontier(dist, g))

    def _bfs(self, g: dict[str, Any]) -> tuple[dict[str, int], dict[str, str]]:
        """Distances and first steps from here over the known map."""
        dist, first = {self.here: 0}, {self.here: ""}
        q = deque([self.here])
        while q:
            loc = q.popleft()
            for d, dest in self.edges.get(loc, {}).items():
                if dest in dist or not self._passable(loc, d, g):
                    continue
                dist[dest] = dist[loc] + 1
                first[dest] = first[loc] or d
                q.append(dest)
        return dist, first

    def _order(self, place: str) -> int:
        return self.places.index(place) if place in self.places else len(self.places)

    # --- where to go -------------------------------------------------------------------
    def _targets(self, g: dict[str, Any]) -> list[str]:
        """Places where a local action (see ``Autopilot._local``) would apply."""
        held, out = g["held"], []
        for item in set(g["wanted"]) | self._wished(g):
            if item in self.seen_items and item not in held and item not in self.fixed:
                out.append(self.seen_items[item])
        for item, npc in g["give"]:
            if item in held and npc in self.seen_npcs and not self._needed_for_has(item):
                out.append(self.seen_npcs[npc])
        out += [loc for item, loc in g["drop"] if item in held]
        for sid, outcome in g["council"].items():
            c = self.councils.get(sid)
            if (
                c
                and self._council_open(sid)
                and self._projected(sid, "yes" if outcome == "passed" else "no") == (outcome == "passed")
            ):
                out.append(c["loc"])
        out += self._lock_targets(g)
        out += self._trade_targets(g)
        out += self._hint_targets(g)
        out += [
            self.seen_npcs[n]
            for n, i in self.wants
            if i in held
            and n in self.seen_npcs
            and i not in g["keep"]
            and i not in g["wanted"]
            and f"{i}>{n}" not in self.gave
        ]
        return out + g["at"]

    def _trade_targets(self, g: dict[str, Any]) -> list[str]:
        out = []
        for npc, sid in self.merchants.items():
            if sid in g["trade"] and npc in self.seen_npcs and self._trade_ok(sid, g["gold"]):
                out.append(self.seen_npcs[npc])
        unknown = bool(self._unknown_trades(g))
        if unknown or self._lost(g):
            for npc, loc in self.seen_npcs.items():
                if npc in self.merchants or npc in self.no_trade:
                    continue
                if (unknown and npc not in self.talked) or self.talked.get(npc, {}).get("trade"):
                    out.append(loc)
        for thing in g["need"]:
            seller = self.sellers.get(thing)
            if thing not in g["held"] and seller in self.seen_npcs and seller not in self.no_trade:
                out.append(self.seen_npcs[seller])
        return out

    def _note_followed(self, leads: dict[str, list[str]], place: str | None) -> None:
        """Count a step toward ``place`` as following the leads that named it."""
        for thing, places in leads.items():
            if place in places:
                for rec in self.followed:
                    if rec[0] == thing and rec[1] == place:
                        rec[2] += 1
                        break
                else:
                    self.followed.append([thing, place, 1])

    def _step_to(self, places: list[str], dist: dict[str, int], first: dict[str, str]) -> Action | None:
        cands = sorted({p for p in places if p in dist and p != self.here}, key=lambda p: (dist[p], self._order(p)))
        if not cands:
            return None
        best = [p for p in cands if dist[p] == dist[cands[0]]]
        pick = best[int(self.rng.integers(len(best)))] if len(best) > 1 else best[0]
        self._picked = pick
        return Action("player", Verb.GO, obj=first[pick])

    def _container_place(self, place: str) -> str:
        """Where to look for a place name: a container's location, else the name itself."""
        return self.seen_items.get(place, place)

    def _navigate(self, g: dict[str, Any]) -> Action | None:
        dist, first = self._bfs(g)
        step = self._step_to(self._targets(g), dist, first)
        if step is not None:
            return step
        leads = {thing: [self._container_place(p) for p in self._leads(thing)] for thing in self._lost(g)}
        step = self._step_to([p for places in leads.values() for p in places], dist, first)
        if step is not None:
            self._note_followed(leads, self._picked)
            return step
        frontier = self._frontier(dist, g)
        if self.here in frontier:
            return Action("player", Verb.GO, obj=frontier[self.here][0])
        return self._step_to(list(frontier), dist, first)

    def _wander(self, g: dict[str, Any]) -> Action | None:
        """To the place it has not seen for longest."""
        dist, first = self._bfs(g)
        stale = [p for p in dist if p != self.here]
        if not stale:
            return None
        oldest = min(self.visited.get(p, -1) for p in stale)
        return self._step_to([p for p in stale if self.visited.get(p, -1) == oldest], dist, first)
