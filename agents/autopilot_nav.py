"""The autopilot's moving about (mixed into ``Autopilot``): the known map, where to go next.

It walks shortest known paths (locked exits count once it holds the key) to the
nearest place where something useful can be done, else toward a place an NPC named
for a needed thing, else to the nearest unexplored place, else to the place it has
not seen for longest.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from game.types import PLAYER, Action, Verb


class NavMixin:
    """Navigation for ``Autopilot`` (needs ``engine``, ``spec``, ``visited``, ``seen_*``, ``hints``)."""

    engine: Any
    spec: Any
    visited: dict[str, int]
    seen_items: dict[str, str]
    seen_npcs: dict[str, str]
    hints: dict[str, list[str]]
    followed: list[list[Any]]
    loc_order: dict[str, int]
    trades: dict[str, dict[str, Any]]
    councils: dict[str, Any]

    def _lost(self, g: dict[str, Any], keys: bool = True) -> list[str]:
        """Needed things whose whereabouts we do not know (and no merchant sells)."""
        st = self.engine.state
        held = self._held()
        sold = {t["scene"].trade.item for t in self.trades.values() if t["scene"].trade}
        out = []
        for thing in dict.fromkeys(g["need"] + list(g["evidence"]) + (g["keys"] if keys else [])):
            if thing in held or thing in self.seen_items or thing in sold or thing in st.opened:
                continue
            out.append(thing)
        return out

    def _live_hints(self, thing: str) -> list[str]:
        """Places named for ``thing`` that are still worth a look (not visited since, or a closed container)."""
        st = self.engine.state
        out = []
        for place in self.hints.get(thing, ()):
            if (place in self.spec.locations and place not in self.visited) or \
                    (place in self.spec.items and place not in st.opened):
                out.append(place)
        return out

    # --- moving ----------------------------------------------------------------------
    def _unexplored(self) -> bool:
        """Whether some reachable location has not been visited (hints can only help then)."""
        dist, _ = self._bfs()
        return any(p not in self.visited for p in dist)

    def _bfs(self) -> tuple[dict[str, int], dict[str, str]]:
        """Distances and first steps from here over the known map (locked exits count if we hold the key)."""
        st, spec = self.engine.state, self.spec
        here = st.where[PLAYER]
        held = self._held()
        dist, first = {here: 0}, {here: ""}
        q = deque([here])
        while q:
            loc = q.popleft()
            if loc not in self.visited:
                continue  # its exits are not known yet
            spec_loc = spec.locations[loc]
            for d, dest in spec_loc.exits.items():
                lock = spec_loc.locked.get(d)
                if lock is not None and f"{loc}:{d}" not in st.unlocked and lock.key not in held:
                    continue
                if dest not in dist:
                    dist[dest] = dist[loc] + 1
                    first[dest] = first[loc] or d
                    q.append(dest)
        return dist, first

    def _targets(self, g: dict[str, Any]) -> list[str]:
        """Places where a local action (see ``_local``) would apply."""
        st, spec = self.engine.state, self.spec
        held = self._held()
        out: list[str] = []
        for item in g["wanted"]:
            if item in self.seen_items and item not in held and spec.items[item].portable:
                out.append(self.seen_items[item])
        for iid, loc in self.seen_items.items():
            item = spec.items[iid]
            if item.container and iid not in st.opened and (
                    item.locked_with is None or iid in st.unlocked or item.locked_with in held):
                out.append(loc)
        for item, npc in g["give"]:
            if item in held and npc in self.seen_npcs and not self._needed_for_has(item):
                out.append(self.seen_npcs[npc])
        for item, members in g["evidence"].items():
            if item in held:
                out += [self.seen_npcs[m] for m in members if m in self.seen_npcs]
        for item, loc in g["drop"]:
            if item in held:
                out.append(loc)
        for sid, outcome in g["council"].items():
            loc = self.councils[sid].location
            if loc and self._council_open(sid) and self._projected(sid, "yes" if outcome == "passed" else "no") \
                    == (outcome == "passed"):
                out.append(loc)
        for lid in self.visited:
            for d, lock in spec.locations[lid].locked.items():
                if f"{lid}:{d}" not in st.unlocked and lock.key in held:
                    out.append(lid)
        for sid in g["trade"]:
            npc = self.trades[sid]["npc"]
            if npc in self.seen_npcs and self._trade_ok(sid):
                out.append(self.seen_npcs[npc])
        out += g["at"]
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
        here = self.engine.state.where[PLAYER]
        cands = sorted({p for p in places if p in dist and p != here}, key=lambda p: (dist[p], self.loc_order[p]))
        if not cands:
            return None
        best = [p for p in cands if dist[p] == dist[cands[0]]]
        pick = best[int(self.rng.integers(len(best)))] if len(best) > 1 else best[0]
        self._picked = pick
        return self._do(Verb.GO, first[pick])

    def _navigate(self, g: dict[str, Any]) -> Action | None:
        dist, first = self._bfs()
        step = self._step_to(self._targets(g), dist, first)
        if step is not None:
            return step
        leads = {thing: [p for p in self._leads(thing) if p in self.spec.locations] for thing in self._lost(g)}
        step = self._step_to([p for places in leads.values() for p in places], dist, first)
        if step is not None:
            self._note_followed(leads, self._picked)
            return step
        frontier = [p for p in dist if p not in self.visited]
        step = self._step_to(frontier, dist, first)
        if step is not None:
            return step
        # everything known is explored: walk to the place we have not seen for longest
        here = self.engine.state.where[PLAYER]
        stale = [p for p in dist if p != here]
        if not stale:
            return None
        oldest = min(self.visited.get(p, -1) for p in stale)
        return self._step_to([p for p in stale if self.visited.get(p, -1) == oldest], dist, first)
