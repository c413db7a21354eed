"""Action resolution for the adventure: movement, items, containers, locks, giving.

Each handler takes the engine and an ``Action`` and emits events through
``eng.emit``. A move the rules do not allow raises ``Refusal``; the engine turns
it into a penalised ``invalid`` event, never a crash. Dialogue lives in
``game.engine.dialogue`` and scenes (trade, council) in ``game.engine.scenes``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from game.core.types import PLAYER, Action, Verb
from game.engine import predicates
from game.engine.nouns import ALL

if TYPE_CHECKING:
    from game.engine.loop import Engine


class Refusal(Exception):
    """The rules refuse an action; the message is shown to the actor."""


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise Refusal(message)


def _item(eng: Engine, iid: str | None, what: str = "that") -> str:
    _need(iid is not None, f"{what.capitalize()} what?")
    _need(iid in eng.spec.items, "You see no such thing here.")
    return iid  # type: ignore[return-value]


def reachable(eng: Engine, actor: str, iid: str) -> bool:
    """An item is reachable if carried, in the room, or in an open container carried or in the
    room (``game.engine.predicates.reachable``)."""
    return predicates.reachable(eng.spec, eng.state, actor, iid)


_OPPOSITE = {"north": "south", "east": "west", "northeast": "southwest", "northwest": "southeast"}
_OPPOSITE.update({b: a for a, b in _OPPOSITE.items()})


def toward(d: str) -> str:
    """Where a way lies, as prose: "to the east", "above", "below"."""
    return {"up": "above", "down": "below"}.get(d, f"to the {d}")


def arrival(name: str, back: str | None) -> str:
    """How an arrival reads in the room arrived at; ``back``: the way from there to where the
    mover came from (None: no way back, or none known)."""
    if back in _OPPOSITE:
        return f"{name} arrives from the {back}."
    if back == "down":
        return f"{name} comes up from below."
    if back == "up":
        return f"{name} comes down from above."
    return f"{name} arrives."


# what opens a locked way, by its lock's ``opens``, said without naming the key
OPENED_BY = {
    "unlock": "It is locked: unlock the {name} with its key.",
    "carry": "It lets by only whoever carries the right thing.",
    "light": "There is no going {d} without a light.",
}


def way_open(eng: Engine, here: str, d: str) -> str:
    """What is said of a locked exit ``d`` that stands open to the actor now."""
    lock = eng.spec.locations[here].locked[d]
    if lock.opens == "light":
        return f"Your {eng.name(lock.key)} lights the way {d}: go {d}."
    return f"The {lock.name} is open: go {d}."


def barred(eng: Engine, actor: str, here: str, d: str) -> str:
    """Why the lock on exit ``d`` stops ``actor``, and what would open it when the actor holds the key."""
    lock = eng.spec.locations[here].locked[d]
    if eng.state.item_at.get(lock.key) != actor:
        return lock.message
    key = eng.name(lock.key)
    if lock.opens == "light":
        return f"{lock.message} Your {key} is not lit: try 'light {key}'."
    return f"{lock.message} You carry the {key}: try 'unlock {lock.name} with {key}'."


def do_go(eng: Engine, a: Action) -> None:
    st, here = eng.state, eng.state.where[a.actor]
    loc = eng.spec.locations[here]
    d = a.obj or ""
    _need(d in loc.exits, f"You can't go {d or 'that way'} from here. Exits: {', '.join(loc.exits) or 'none'}.")
    if predicates.exit_locked(eng.spec, st, here, d, a.actor):
        raise Refusal(barred(eng, a.actor, here, d))
    dest = loc.exits[d]  # type: ignore[index]
    if a.actor == PLAYER and st.active_scene is not None:
        eng.scenes.leave_table(a.actor)
    st.where[a.actor] = dest
    # the room left sees the mover go; the room arrived at sees it come, from where it came
    eng.emit(
        "move",
        a.actor,
        f"{eng.name(a.actor)} goes {d}.",
        location=here,
        view=eng.describe(a.actor, dest),
        data={"from": here, "to": dest, "dir": d},
    )
    if any(e != a.actor for e in st.entities_at(dest)):
        back = next((k for k, v in eng.spec.locations[dest].exits.items() if v == here), None)
        eng.emit(
            "move",
            a.actor,
            arrival(eng.name(a.actor), back),
            location=dest,
            witnesses_only=True,
            data={"dir": d, "arrival": True},
        )
    if a.actor == PLAYER:
        eng.scenes.on_arrive(dest)


def do_look(eng: Engine, a: Action) -> None:
    here = eng.state.where[a.actor]
    eng.emit("look", a.actor, eng.describe(a.actor, here), private=True)


def _examine_fixture(eng: Engine, a: Action, target: str) -> bool:
    """Examine a locked exit, scenery or oneself (False: ``target`` is none of these)."""
    here = eng.state.where[a.actor]
    loc = eng.spec.locations[here]
    if target == a.actor:
        carried = eng.state.items_in(a.actor)
        gold = eng.state.gold.get(a.actor, 0)
        things = eng.list_names(carried) if carried else "nothing"
        text = f"You are {eng.name(a.actor)}. You carry {things}, and {gold} gold."
    elif target.startswith("exit:") and target[5:] in loc.locked:
        d = target[5:]
        lock = loc.locked[d]
        shut = predicates.exit_locked(eng.spec, eng.state, here, d, a.actor)
        text = barred(eng, a.actor, here, d) if shut else f"The {lock.name} stands open {toward(d)}."
    elif target.startswith("scenery:") and target[8:] in loc.scenery:
        text = loc.scenery[target[8:]].description
    else:
        return False
    eng.emit("examine", a.actor, text, private=True, data={"obj": target})
    return True


def do_examine(eng: Engine, a: Action) -> None:
    target = a.obj
    if target is not None and _examine_fixture(eng, a, target):
        return
    if target in eng.spec.npcs:
        _need(predicates.npc_present(eng.spec, eng.state, a.actor, target), f"{eng.name(target)} is not here.")
        npc = eng.spec.npcs[target]
        eng.emit("examine", a.actor, npc.persona or f"You see {npc.name}.", private=True, data={"obj": target})
        return
    iid = _item(eng, target, "examine")
    _need(reachable(eng, a.actor, iid), f"You see no {eng.name(iid)} here.")
    item = eng.spec.items[iid]
    text = item.description or f"It is {eng.name(iid)}."
    if item.container:
        inside = eng.state.items_in(iid)
        if iid in eng.state.opened:
            text += f" Inside: {eng.list_names(inside)}." if inside else " It is empty."
        else:
            text += " It is closed." + (" It is locked." if _locked_container(eng, iid) else "")
    eng.emit("examine", a.actor, text, private=True, data={"obj": iid})
    if item.shows:  # what its description settles, the examiner alone has seen
        eng.verify(item.shows, a.actor, f"examining the {eng.name(iid)}", private=True)


def do_take(eng: Engine, a: Action) -> None:
    if a.obj == ALL:  # one turn, a line for each thing taken
        here = [i for i, _ in predicates.items_in_reach(eng.spec, eng.state, a.actor)]
        every = [i for i in here if predicates.takeable(eng.spec, eng.state, a.actor, i)]
        _need(bool(every), "There is nothing here you can take.")
        for iid in every:
            do_take(eng, Action(a.actor, Verb.TAKE, obj=iid))
        return
    iid = _item(eng, a.obj, "take")
    st = eng.state
    _need(st.item_at.get(iid) != a.actor, f"You already have the {eng.name(iid)}.")
    _need(reachable(eng, a.actor, iid), f"You see no {eng.name(iid)} here.")
    _need(eng.spec.items[iid].portable, f"The {eng.name(iid)} won't budge.")
    st.item_at[iid] = a.actor
    eng.emit(
        "take",
        a.actor,
        f"{eng.name(a.actor)} takes the {eng.name(iid)}.",
        view=f"Taken: the {eng.name(iid)}.",
        data={"item": iid},
    )


def do_drop(eng: Engine, a: Action) -> None:
    if a.obj == ALL:
        carried = eng.state.items_in(a.actor)
        _need(bool(carried), "You carry nothing to drop.")
        for iid in carried:
            do_drop(eng, Action(a.actor, Verb.DROP, obj=iid))
        return
    iid = _item(eng, a.obj, "drop")
    st = eng.state
    _need(st.item_at.get(iid) == a.actor, f"You don't have the {eng.name(iid)}.")
    st.item_at[iid] = st.where[a.actor]
    eng.emit(
        "drop",
        a.actor,
        f"{eng.name(a.actor)} drops the {eng.name(iid)}.",
        view=f"Dropped: the {eng.name(iid)}.",
        data={"item": iid},
    )


THANKS = "Just what I needed. Thank you."  # a gift an NPC wants, when its world gives no words of its own


def do_give(eng: Engine, a: Action) -> None:
    iid = _item(eng, a.obj, "give")
    st, to = eng.state, a.target
    _need(st.item_at.get(iid) == a.actor, f"You don't have the {eng.name(iid)}.")
    _need(to is not None and to in st.where and to != a.actor, "Give it to whom?")
    _need(st.where[to] == st.where[a.actor], f"{eng.name(to)} is not here.")  # type: ignore[index]
    st.item_at[iid] = to  # type: ignore[assignment]
    st.gave.add(f"{iid}>{to}")
    points = eng.spec.npcs[to].wants.get(iid, 0) if to in eng.spec.npcs else 0
    thanks = ""
    if points:
        said = eng.spec.npcs[to].thanks.get(iid) or THANKS  # type: ignore[index]
        thanks = f' {eng.name(to)} says: "{said}"'
    eng.emit(
        "give",
        a.actor,
        f"{eng.name(a.actor)} gives the {eng.name(iid)} to {eng.name(to)}.",
        listener=to,
        view=f"You give the {eng.name(iid)} to {eng.name(to)}.{thanks}",
        data={"item": iid, "to": to, "points": points},
    )
    if points and a.actor == PLAYER:
        eng.add_score(points, f"{eng.name(to)} is grateful")
    eng.scenes.on_give(a.actor, iid, to)  # type: ignore[arg-type]


def _locked_container(eng: Engine, iid: str) -> bool:
    return predicates.container_locked(eng.spec, eng.state, iid)


def do_open(eng: Engine, a: Action) -> None:
    target = a.obj
    if target and target.startswith("exit:"):
        here, d = eng.state.where[a.actor], target[5:]
        lock = eng.spec.locations[here].locked.get(d)
        _need(lock is not None, "You see no such thing here.")
        if not predicates.exit_locked(eng.spec, eng.state, here, d, a.actor):
            raise Refusal(way_open(eng, here, d))
        if eng.state.item_at.get(lock.key) == a.actor:  # type: ignore[union-attr]
            raise Refusal(barred(eng, a.actor, here, d))
        how = OPENED_BY[lock.opens].format(name=lock.name, d=d)  # type: ignore[union-attr]
        raise Refusal(how if lock.opens == "light" else f"The {lock.name} won't open. {how}")  # type: ignore[union-attr]
    iid = _item(eng, target, "open")
    st = eng.state
    item = eng.spec.items[iid]
    _need(reachable(eng, a.actor, iid), f"You see no {eng.name(iid)} here.")
    _need(item.container, f"The {eng.name(iid)} doesn't open.")
    _need(iid not in st.opened, f"The {eng.name(iid)} is already open.")
    _need(not _locked_container(eng, iid), f"The {eng.name(iid)} is locked.")
    st.opened.add(iid)
    here = st.where[a.actor]
    inside = st.items_in(iid)
    for c in inside:
        st.item_at[c] = here
    seen = f" Inside: {eng.list_names(inside)}." if inside else " It is empty."
    eng.emit(
        "open",
        a.actor,
        f"{eng.name(a.actor)} opens the {eng.name(iid)}.{seen}",
        view=f"You open the {eng.name(iid)}.{seen}",
        data={"item": iid, "contents": inside},
    )
    if item.reveals:
        eng.verify(item.reveals, a.actor, f"opening the {eng.name(iid)}")


def do_unlock(eng: Engine, a: Action) -> None:
    st = eng.state
    key = _item(eng, a.target, "unlock it with")
    _need(st.item_at.get(key) == a.actor, f"You don't have the {eng.name(key)}.")
    target = a.obj or ""
    here = st.where[a.actor]
    if target.startswith("exit:"):
        d = target[5:]
        lock = eng.spec.locations[here].locked.get(d)  # type: ignore[call-overload]
        _need(lock is not None, f"Nothing is locked {toward(d)}.")
        _need(predicates.exit_locked(eng.spec, st, here, d, a.actor), way_open(eng, here, d))
        if lock.key != key:  # type: ignore[union-attr]
            wrong = {
                "unlock": f"The {eng.name(key)} doesn't fit the {lock.name}.",  # type: ignore[union-attr]
                "carry": f"The {eng.name(key)} is not what the {lock.name} needs.",  # type: ignore[union-attr]
                "light": f"The {eng.name(key)} gives no light to go {d} by.",
            }
            how = "" if lock.opens == "unlock" else " " + OPENED_BY[lock.opens].format(d=d)  # type: ignore[union-attr]
            raise Refusal(wrong[lock.opens] + how)  # type: ignore[union-attr]
        st.unlocked.add(f"{here}:{d}")
        name, lock_name = eng.name(key), lock.name  # type: ignore[union-attr]
        said = (
            f"{eng.name(a.actor)} unlocks the {lock_name} {toward(d)}.",
            f"You unlock the {lock_name} with the {name}.",
        )
        if lock.opens == "light":  # type: ignore[union-attr]  # a light opens this way: lighting the key does
            st.lit.add(key)
            said = (
                f"{eng.name(a.actor)} lights the {name} by the {lock_name}.",
                f"You light the {name}. By its glow you can make out the way {d}.",
            )
        eng.emit("unlock", a.actor, said[0], view=said[1], data={"exit": d, "key": key})
        return
    iid = _item(eng, target, "unlock")
    _need(reachable(eng, a.actor, iid), f"You see no {eng.name(iid)} here.")
    item = eng.spec.items[iid]
    _need(item.locked_with is not None, f"The {eng.name(iid)} has no lock.")
    _need(iid not in st.unlocked, f"The {eng.name(iid)} is already unlocked.")
    _need(item.locked_with == key, f"The {eng.name(key)} doesn't fit the {eng.name(iid)}.")
    st.unlocked.add(iid)
    eng.emit(
        "unlock",
        a.actor,
        f"{eng.name(a.actor)} unlocks the {eng.name(iid)}.",
        view=f"You unlock the {eng.name(iid)} with the {eng.name(key)}.",
        data={"item": iid, "key": key},
    )


def do_light(eng: Engine, a: Action) -> None:
    iid = _item(eng, a.obj, "light")
    _need(reachable(eng, a.actor, iid), f"You see no {eng.name(iid)} here.")
    _need(eng.spec.items[iid].light, f"The {eng.name(iid)} is not something you can light.")
    _need(iid not in eng.state.lit, f"The {eng.name(iid)} is already lit.")
    eng.state.lit.add(iid)
    said, seen = f"{eng.name(a.actor)} lights the {eng.name(iid)}.", f"You light the {eng.name(iid)}. It burns bright."
    eng.emit("light", a.actor, said, view=seen, data={"item": iid})


def do_inventory(eng: Engine, a: Action) -> None:
    carried = eng.state.items_in(a.actor)
    gold = eng.state.gold.get(a.actor, 0)
    text = f"You carry {eng.list_names(carried)}" if carried else "You carry nothing"
    eng.emit("inventory", a.actor, f"{text}, and {gold} gold.", private=True, data={"items": carried, "gold": gold})


def do_say(eng: Engine, a: Action) -> None:
    text = (a.text or "").strip()
    _need(bool(text), "Say what?")
    eng.emit("say", a.actor, f'{eng.name(a.actor)} says: "{text}"', view=f'You say: "{text}"', data={"message": text})
    eng.scenes.on_say(a.actor, text)


def do_wait(eng: Engine, a: Action) -> None:
    if a.actor == PLAYER:
        eng.emit("wait", a.actor, "Time passes.", private=True)


HANDLERS = {
    Verb.GO: do_go,
    Verb.LOOK: do_look,
    Verb.EXAMINE: do_examine,
    Verb.TAKE: do_take,
    Verb.DROP: do_drop,
    Verb.GIVE: do_give,
    Verb.OPEN: do_open,
    Verb.UNLOCK: do_unlock,
    Verb.LIGHT: do_light,
    Verb.INVENTORY: do_inventory,
    Verb.SAY: do_say,
    Verb.WAIT: do_wait,
}
