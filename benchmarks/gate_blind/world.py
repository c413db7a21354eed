"""The Sallowford world as the held-out stream sees it: who and what is in it, and its units.

``load_spec`` loads ``world/world.toml`` through the game's loader. ``Town`` reads the same file
directly: the generator's view of the world (entities by role, names, units).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

WORLD_DIR = Path(__file__).resolve().parent / "world"

# the relations of the stream: subject role, object role, topic
RELATIONS = {
    "moored_at": ("boat", "mooring", "moorings"),
    "skippered_by": ("boat", "person", "crews"),
    "stored_in": ("store", "storeroom", "stores"),
    "toll": ("lock", "number", "tolls"),
    "sill_depth": ("lock", "number", "water"),
    "opens_at": ("lock", "time", "hours"),
}
TOPICS = tuple(dict.fromkeys(t for _, _, t in RELATIONS.values()))
MOORINGS = (
    "saint_aldrics_wharf",
    "coal_staithe",
    "tanners_cut",
    "chandlers_quay",
    "upper_pound",
    "lower_pound",
    "millrace_basin",
    "pellows_landing",
)
STOREROOMS = ("toll_house", "saint_aldrics_vestry", "boathouse", "weir_house", "ropewalk", "chandlery")
LOCKS = ("heron_lock", "lock_no_4", "gallows_lock", "kingsford_lock", "mill_lock")
BOATS = ("marigold", "patient_griselda", "tern", "old_cob", "brass_kettle", "sally_bright")
STORES = ("lock_ledger", "winch_handles", "tar_barrels", "sailcloth", "keepers_bell", "stop_planks")


def raw_world() -> dict:
    with (WORLD_DIR / "world.toml").open("rb") as f:
        return tomllib.load(f)


def load_spec():
    """The world through ``game.play.worlds.load_world`` (units, clock and a relation's ``kind`` included)."""
    from game.play.worlds import load_world

    return load_world(WORLD_DIR).spec


@dataclass(frozen=True)
class Unit:
    name: str
    words: tuple[str, ...]  # singular first, then the plurals the world declares
    base: str  # the unit it converts to (itself for a base unit)
    factor: float  # 1 of this unit = factor x base


@dataclass
class Town:
    names: dict[str, tuple[str, ...]]  # entity id -> name, then declared aliases
    units: dict[str, Unit]
    relation_unit: dict[str, str]  # numeric relation -> its unit
    clock: dict[str, str]  # word -> HH:MM

    @classmethod
    def load(cls) -> Town:
        data = raw_world()
        names = {}
        for section in ("locations", "items", "npcs"):
            for eid, entry in data.get(section, {}).items():
                names[eid] = (entry["name"], *entry.get("aliases", []))
        units = {}
        for uid, u in data.get("units", {}).items():
            units[uid] = Unit(uid, (uid, *u.get("aliases", [])), u.get("base", uid), float(u.get("factor", 1.0)))
        rel_unit = {r: v["unit"] for r, v in data.get("relations", {}).items() if v.get("unit")}
        return cls(names, units, rel_unit, dict(data.get("clock", {})))

    @property
    def people(self) -> tuple[str, ...]:
        return tuple(n for n in raw_world()["npcs"])

    def objects(self, relation: str) -> tuple[str, ...]:
        role = RELATIONS[relation][1]
        return {"mooring": MOORINGS, "storeroom": STOREROOMS, "person": self.people}.get(role, ())

    def subjects(self, relation: str) -> tuple[str, ...]:
        return {"boat": BOATS, "store": STORES, "lock": LOCKS}[RELATIONS[relation][0]]

    def other_units(self, relation: str) -> list[Unit]:
        """Units of the same kind as the relation's own, but not it (pence and crowns for a toll in marks)."""
        own = self.relation_unit[relation]
        return [u for u in self.units.values() if u.base == own and u.name != own]
