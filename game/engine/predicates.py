"""The engine's rules of reach, payment and conversation, each written once.

The rules (``game.engine.rules``, ``game.engine.dialogue``, ``game.engine.scenes``), what the parser may match
(``Engine.scope``), what an actor observes (``Engine.observe``) and the AEC action masks
(``game.envs.aec``) all ask these functions, so a mask never offers what the rules refuse for the
same reason, and the parser never resolves a noun the rules would call out of reach.

Every function takes the world spec and the game state (an ``Engine`` carries both as
``eng.spec`` and ``eng.state``) and ids; none changes anything. This module imports neither
``agents`` nor ``memory`` (the import-linter contracts in pyproject.toml).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# where an item in reach is, as the parser's ``Noun.where`` names it
CARRIED, IN_ROOM, IN_CONTAINER = "inventory", "room", "container"


# --- seeing and reaching ---------------------------------------------------------


def item_place(spec: Any, state: Any, actor: str, iid: str) -> str | None:
    """Where ``actor`` finds item ``iid``: carried, lying in the room, inside an open container
    that is carried or in the room, or None when it is out of reach."""
    here = state.where[actor]
    holder = state.item_at.get(iid)
    if holder == actor:
        return CARRIED
    if holder == here:
        return IN_ROOM
    if holder in spec.items and holder in state.opened and state.item_at.get(holder) in (actor, here):
        return IN_CONTAINER
    return None


def reachable(spec: Any, state: Any, actor: str, iid: str) -> bool:
    """Whether ``actor`` can take, examine, open or unlock item ``iid`` where it is."""
    return item_place(spec, state, actor, iid) is not None


def items_in_reach(spec: Any, state: Any, actor: str) -> list[tuple[str, str]]:
    """``(item, place)`` for every item ``actor`` can reach, in the state's item order."""
    here = state.where[actor]
    near = state.items_in(actor) + state.items_in(here)
    inside = [i for c in near if c in spec.items and c in state.opened for i in state.items_in(c)]
    out = []
    for iid in sorted(dict.fromkeys(near + inside), key=state.item_at.rank):
        place = item_place(spec, state, actor, iid)
        if place is not None:
            out.append((iid, place))
    return out


def others_here(state: Any, actor: str) -> list[str]:
    """Everyone else in ``actor``'s location (the player and NPCs), in turn order."""
    here = state.where[actor]
    return [e for e in state.entities_at(here) if e != actor]


def npcs_here(spec: Any, state: Any, actor: str) -> list[str]:
    """The NPCs other than ``actor`` in ``actor``'s location, in world order."""
    return [e for e in others_here(state, actor) if e in spec.npcs]


def npc_present(spec: Any, state: Any, actor: str, npc: str | None) -> bool:
    """Whether ``npc`` is an NPC in ``actor``'s location (one who can be examined, talked to,
    asked or traded with there). An NPC is present to itself."""
    return npc in spec.npcs and state.where.get(npc) == state.where[actor]


def in_sight(state: Any, actor: str) -> tuple[str, ...]:
    """What ``actor`` sees at a glance: the items lying in the room, then everyone else there
    (the room description lists the same)."""
    here = state.where[actor]
    return tuple(state.items_in(here)) + tuple(others_here(state, actor))


def exit_locked(spec: Any, state: Any, loc: str, direction: str, actor: str | None = None) -> bool:
    """Whether the exit ``direction`` from ``loc`` has a lock that is still locked (for ``actor``:
    a lock that opens to whoever carries its key, or carries it lit, is open to an actor who does)."""
    lock = spec.locations[loc].locked.get(direction)
    if lock is None or f"{loc}:{direction}" in state.unlocked:
        return False
    if actor is None or lock.opens == "unlock" or state.item_at.get(lock.key) != actor:
        return True
    return lock.opens == "light" and lock.key not in state.lit


def open_exits(spec: Any, state: Any, actor: str) -> list[str]:
    """The directions ``actor`` can walk from where it stands (exits not locked)."""
    here = state.where[actor]
    return [d for d in spec.locations[here].exits if not exit_locked(spec, state, here, d, actor)]


def portable(spec: Any, iid: str) -> bool:
    """Whether item ``iid`` can ever be carried (a mooring post, a strongbox cannot; scenery never is)."""
    item = spec.items.get(iid)
    return item is not None and item.portable


def takeable(spec: Any, state: Any, actor: str, iid: str) -> bool:
    """Whether ``actor`` could take item ``iid`` now: portable, within reach and not already carried
    (what ``take`` accepts; front ends offer *take* on exactly these)."""
    place = item_place(spec, state, actor, iid) if iid in spec.items else None
    return place is not None and place != CARRIED and portable(spec, iid)


def container_locked(spec: Any, state: Any, iid: str) -> bool:
    """Whether item ``iid`` has a lock that is still locked."""
    return spec.items[iid].locked_with is not None and iid not in state.unlocked


def can_open(spec: Any, state: Any, actor: str, iid: str) -> bool:
    """Whether ``actor`` can open item ``iid``: a closed, unlocked container within reach."""
    item = spec.items[iid]
    return (
        item.container
        and iid not in state.opened
        and not container_locked(spec, state, iid)
        and reachable(spec, state, actor, iid)
    )


# --- paying ---------------------------------------------------------------------


def buyer_of(scene: Any) -> str | None:
    """The party of a trade scene who pays (the one that is not the seller), or None."""
    trade = getattr(scene, "trade", None)
    if trade is None:
        return None
    return next((p.id for p in scene.parties if p.id != trade.seller), None)


def price_of(scene: Any, terms: Mapping[str, str] | None) -> int | None:
    """The price in gold that ``terms`` of a trade scene name, or None if they name none."""
    trade = getattr(scene, "trade", None)
    if trade is None or terms is None:
        return None
    try:
        return int(terms[trade.price_issue])
    except (KeyError, TypeError, ValueError):
        return None


def unaffordable_price(spec: Any, state: Any, sid: str, actor: str, terms: Mapping[str, str] | None) -> int | None:
    """The price ``actor`` cannot pay if it offered or accepted ``terms`` in scene ``sid``, or
    None when it may. Only the buyer is held to its gold; the seller may ask anything."""
    scene = spec.scenes[sid]
    if actor != buyer_of(scene):
        return None
    price = price_of(scene, terms)
    if price is None or state.gold.get(actor, 0) >= price:
        return None
    return price


def affordable(spec: Any, state: Any, sid: str, actor: str, terms: Mapping[str, str] | None) -> bool:
    """Whether ``actor`` may offer or accept ``terms`` in scene ``sid`` as far as gold goes."""
    return unaffordable_price(spec, state, sid, actor, terms) is None


# --- asking ---------------------------------------------------------------------


def world_topics(spec: Any) -> list[str]:
    """Every topic anyone can be asked about (the topics of the world's facts, in order)."""
    return list(dict.fromkeys(f.topic for f in spec.facts.values()))


def npc_topics(spec: Any, npc: str) -> list[str]:
    """The topics ``npc`` knows something about (its talk hint lists them), in order."""
    return list(dict.fromkeys(spec.facts[fid].topic for fid in spec.npcs[npc].knowledge))


def askable(spec: Any, state: Any, actor: str, npc: str | None) -> list[str]:
    """The topics ``actor`` can ask ``npc`` about now: every world topic when the NPC is
    present (it answers what it does not know with a shrug), none otherwise."""
    return world_topics(spec) if npc_present(spec, state, actor, npc) else []
