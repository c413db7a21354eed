"""Mutable game state: where everything is, who holds what, what has happened.

The state is plain data (dicts, lists, ints) so that ``to_dict`` is a cheap
deep copy and ``state_hash`` is stable. It knows nothing of rules.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from game.core.text import escape_surrogates, has_surrogates
from game.core.types import PLAYER

NOWHERE = ""  # item location for things that left play (not yet created rewards)
_NONE = object()


class Placement(dict):
    """A dict ``thing -> holder`` (who is where, where each item is) that also indexes its values:
    ``members(holder)`` lists the things held there in the dict's own key order without scanning
    every key, so a turn's cost grows with what is in the rooms it touches, not with the world.
    Keys keep their order when reassigned, as in a plain dict; ranks order keys as the dict does."""

    def __init__(self, data: Any = ()) -> None:
        super().__init__()
        self._rank: dict[Any, int] = {}
        self._next = 0  # the rank the next new key gets (ranks only grow: a key put back goes last)
        self._by: dict[Any, dict[Any, None]] = {}
        self._sorted: dict[Any, list[Any]] = {}
        for k, v in dict(data).items():
            self[k] = v

    def __reduce__(self) -> tuple[Any, ...]:  # copy and pickle as the plain mapping it holds
        return (Placement, (dict(self),))

    def _leave(self, key: Any, holder: Any) -> None:
        try:
            group = self._by.get(holder)
        except TypeError:  # an unhashable holder (a damaged save) is never indexed
            return
        if group is not None:
            group.pop(key, None)
            self._sorted.pop(holder, None)

    def __setitem__(self, key: Any, value: Any) -> None:
        old = dict.get(self, key, _NONE)
        if old is not _NONE:
            if old is value or (type(old) is type(value) and old == value):
                dict.__setitem__(self, key, value)
                return
            self._leave(key, old)
        else:
            self._rank[key] = self._next
            self._next += 1
        dict.__setitem__(self, key, value)
        try:
            self._by.setdefault(value, {})[key] = None
        except TypeError:
            return
        self._sorted.pop(value, None)

    def __delitem__(self, key: Any) -> None:
        self._leave(key, dict.__getitem__(self, key))
        dict.__delitem__(self, key)
        del self._rank[key]  # a key put back goes last, as in a plain dict

    def pop(self, key: Any, *default: Any) -> Any:
        if key in self:
            value = self[key]
            del self[key]
            return value
        return dict.pop(self, key, *default)

    def setdefault(self, key: Any, default: Any = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, *args: Any, **kwargs: Any) -> None:
        for k, v in dict(*args, **kwargs).items():
            self[k] = v

    def __ior__(self, other: Any) -> Placement:  # type: ignore[override,misc]
        self.update(other)
        return self

    def clear(self) -> None:
        dict.clear(self)
        self._rank.clear()
        self._by.clear()
        self._sorted.clear()

    def popitem(self) -> tuple[Any, Any]:
        key = next(reversed(self))
        return key, self.pop(key)

    def rank(self, key: Any) -> int:
        """A number that orders ``key`` among the keys as the dict does (one put back after a delete goes last)."""
        return self._rank[key]

    def members(self, holder: Any) -> list[Any]:
        """The keys whose value is ``holder``, in the dict's key order (a new list)."""
        out = self._sorted.get(holder)
        if out is None:
            try:
                group = self._by.get(holder)
            except TypeError:  # an unhashable holder holds nothing
                group = None
            out = sorted(group, key=self._rank.__getitem__) if group else []
            self._sorted[holder] = out
        return list(out)


def canonical_json(obj: Any) -> str:
    """JSON with sorted keys and no spaces: the form hashed and written to transcripts.

    The result is always encodable as UTF-8, whatever the strings hold. Text from outside
    may carry lone surrogates (undecodable bytes, ``errors="surrogateescape"``); those are
    written as JSON escapes (``\\udcff``), which ``json.loads`` turns back into the same
    string, so a saved state loads equal and hashes equal. A high surrogate followed by a low
    one is joined into the character they encode first, since that is what ``json.loads``
    makes of the escapes. Text without surrogates is unchanged (hashes stay stable)."""
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    if not has_surrogates(text):
        return text

    def join(s: str) -> str:
        return s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")

    def norm(o: Any) -> Any:  # join pairs before sorting keys, as a reload would see them
        if isinstance(o, str):
            return join(o)
        if isinstance(o, dict):
            return {norm(k) if isinstance(k, str) else k: norm(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [norm(v) for v in o]
        return o

    text = json.dumps(norm(obj), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return escape_surrogates(text)


@dataclass
class GameState:
    turn: int = 0
    where: dict[str, str] = field(default_factory=dict)  # entity -> location
    item_at: dict[str, str] = field(default_factory=dict)  # item -> location | entity | container | NOWHERE
    gold: dict[str, int] = field(default_factory=dict)  # entity -> gold
    unlocked: set[str] = field(default_factory=set)  # "loc:dir" exits and container ids
    opened: set[str] = field(default_factory=set)  # containers opened
    lit: set[str] = field(default_factory=set)  # light sources lit
    gave: set[str] = field(default_factory=set)  # "item>npc"
    verified: dict[str, bool] = field(default_factory=dict)  # fact id -> truth observed
    scenes: dict[str, dict[str, Any]] = field(default_factory=dict)  # scene id -> scene state
    active_scene: str | None = None  # player's open negotiation
    quests_done: list[str] = field(default_factory=list)
    score: int = 0
    invalid: dict[str, int] = field(default_factory=dict)  # entity -> invalid moves
    done: bool = False
    won: bool = False

    def __setattr__(self, name: str, value: Any) -> None:
        if name in ("where", "item_at") and not isinstance(value, Placement):
            value = Placement(value)  # indexed by holder, whatever mapping is assigned
        object.__setattr__(self, name, value)

    @classmethod
    def from_spec(cls, spec: Any) -> GameState:
        s = cls()
        s.where[PLAYER] = spec.player_start
        s.gold[PLAYER] = spec.player.gold
        for iid in spec.items:
            s.item_at[iid] = NOWHERE
        for it in spec.player.inventory:
            s.item_at[it] = PLAYER
        for lid, loc in spec.locations.items():
            for it in loc.items:
                s.item_at[it] = lid
        for iid, item in spec.items.items():
            for c in item.contents:
                s.item_at[c] = iid
        for nid, npc in spec.npcs.items():
            s.where[nid] = npc.location
            s.gold[nid] = npc.gold
            for it in npc.inventory:
                s.item_at[it] = nid
        return s

    # --- queries -----------------------------------------------------------------
    def items_in(self, holder: str) -> list[str]:
        """Items directly in a location, carried by an entity, or inside a container (in item order)."""
        return self.item_at.members(holder)

    def entities_at(self, location: str) -> list[str]:
        """The entities in ``location``, in the state's entity order."""
        return self.where.members(location)

    # --- persistence -------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        lit = {"lit": sorted(self.lit)} if self.lit else {}  # left out when empty: older saves keep their hash
        return {
            **lit,
            "turn": self.turn,
            "where": dict(self.where),
            "item_at": dict(self.item_at),
            "gold": dict(self.gold),
            "unlocked": sorted(self.unlocked),
            "opened": sorted(self.opened),
            "gave": sorted(self.gave),
            "verified": dict(self.verified),
            "scenes": copy.deepcopy(self.scenes),
            "active_scene": self.active_scene,
            "quests_done": list(self.quests_done),
            "score": self.score,
            "invalid": dict(self.invalid),
            "done": self.done,
            "won": self.won,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameState:
        return cls(
            turn=d["turn"],
            where=dict(d["where"]),
            item_at=dict(d["item_at"]),
            gold=dict(d["gold"]),
            unlocked=set(d["unlocked"]),
            opened=set(d["opened"]),
            lit=set(d.get("lit", ())),
            gave=set(d["gave"]),
            verified=dict(d["verified"]),
            scenes=copy.deepcopy(d["scenes"]),
            active_scene=d["active_scene"],
            quests_done=list(d["quests_done"]),
            score=d["score"],
            invalid=dict(d["invalid"]),
            done=d["done"],
            won=d["won"],
        )


def state_hash(obj: Any) -> str:
    """sha256 of ``canonical_json(obj)`` (16 hex digits); never fails on odd strings."""
    return hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()[:16]


def state_problems(st: GameState, spec: Any) -> list[str]:
    """What in a restored state cannot belong to the world ``spec`` (a hand-made save whose hash
    was recomputed): unknown places, items, scenes, quests or facts, and values of the wrong type."""
    entities = {PLAYER, *spec.npcs}
    holders = {*spec.locations, *spec.items, *entities, NOWHERE}
    out = []

    def bad(what: str, value: Any) -> None:
        out.append(f"{what} {value!r}")

    for k, t in (("turn", int), ("score", int)):
        if not isinstance(getattr(st, k), t) or isinstance(getattr(st, k), bool):
            bad(f"state.{k} is not a whole number:", getattr(st, k))
    for e, loc in st.where.items():
        if e not in entities or loc not in spec.locations:
            bad(f"state.where.{e} is not a known place:", loc)
    if PLAYER not in st.where:
        bad("state.where has no", PLAYER)
    for i, h in st.item_at.items():
        if i not in spec.items or h not in holders:
            bad(f"state.item_at.{i} is not a known holder:", h)
    for e, g in st.gold.items():
        if e not in entities or not isinstance(g, int) or isinstance(g, bool):
            bad(f"state.gold.{e} is not a whole number:", g)
    for sid, sc in st.scenes.items():
        if sid not in spec.scenes or not isinstance(sc, dict):
            bad("state.scenes has an unknown or damaged scene", sid)
    if st.active_scene is not None and st.active_scene not in spec.scenes:
        bad("state.active_scene is not a scene of this world:", st.active_scene)
    for name in ("unlocked", "opened", "gave", "lit"):
        if not all(isinstance(x, str) for x in getattr(st, name)):
            bad(f"state.{name} holds something that is not text:", sorted(map(repr, getattr(st, name)))[:3])
    for e, n in st.invalid.items():
        if not isinstance(n, int) or isinstance(n, bool):
            bad(f"state.invalid.{e} is not a whole number:", n)
    for q in st.quests_done:
        if q not in spec.quests:
            bad("state.quests_done has an unknown quest", q)
    for i in st.lit:
        if i not in spec.items:
            bad("state.lit has an unknown item", i)
    for f in st.verified:
        if f not in spec.facts:
            bad("state.verified has an unknown fact", f)
    return out
