"""What an agent sees for itself, as evidence about the world's facts.

An agent's own observation settles claims for that agent: the room it stands in and the things in
plain sight there (``Observation.location``, ``visible``) and what it carries (``inventory``). (What
an examined thing's description ``shows``, and what an opened container ``reveals``, arrive as
``verify`` events.) Only relations the world declares ``observed = "location"`` are read this way
(where a thing is):

* a thing lying in the room the agent stands in is located there; a thing it carries is located
  with it (true, and for a functional relation every other place is then false);
* a thing missing from that room is not located there, but only when nothing in sight could hide
  it: no container in sight or carried, and no one else present (pockets are not in sight).

Things move, and a sighting says where a thing is *now*: once an agent has seen a thing move (taken,
dropped, given, tipped out of an opened container) later sightings of it are no evidence about it
for that agent. What came out of a container is not read as located in the container either: a
world may say a thing in a box is in the room the box stands in, and the box's ``reveals`` say
what the world means. People walk about by themselves, so only things (the world's items) count.

Everything here reads the agent's observation and the events it perceived, never the world's
state or its facts' truth: an item lying in a room the agent is not in is no evidence for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

from game.core.claims import canonical
from game.core.types import Event, EventKind, Observation

LOCATION = "location"
MOVES = (EventKind.TAKE, EventKind.DROP, EventKind.GIVE)


@dataclass(frozen=True)
class Evidence:
    """One thing an agent saw for itself: ``subject relation object`` holds (``truth``) or not."""

    subject: str
    relation: str
    object: str
    truth: bool
    turn: int
    text: str = ""

    @property
    def triple(self) -> tuple[str, str, str]:
        return self.subject, self.relation, self.object


class Sight:
    """How a world's observations read as evidence: the relations that mean where a thing is,
    which ids are things (and which of them containers), and the names to write evidence in."""

    def __init__(
        self, where: Iterable[str], things: Mapping[str, bool], names: Mapping[str, str] | None = None
    ) -> None:
        self.where = tuple(where)
        self.things = dict(things)  # item id -> is a container
        self.names = dict(names or {})

    @classmethod
    def from_spec(cls, spec: Any) -> Sight:
        where = [rid for rid, r in getattr(spec, "relations", {}).items() if getattr(r, "observed", None) == LOCATION]
        if not where:  # nothing the world lets an observation settle
            return cls((), {})
        names = {k: v.name for part in (spec.locations, spec.items, spec.npcs) for k, v in part.items()}
        return cls(where, {k: bool(v.container) for k, v in spec.items.items()}, names)

    def name(self, ident: str) -> str:
        name = self.names.get(ident, ident.replace("_", " "))
        return name if ident not in self.things or name[:1].isupper() else f"the {name}"

    def _at(self, thing: str, place: str, truth: bool, turn: int, carrier: bool = False) -> list[Evidence]:
        what = self.name(thing)
        what = what[:1].upper() + what[1:]
        if carrier:
            text = f"You carry {self.name(thing)}."
        else:
            text = f"{what} is {'' if truth else 'not '}in {self.name(place)}."
        return [Evidence(thing, r, place, truth, turn, text) for r in self.where]

    def seen(self, obs: Observation) -> list[Evidence]:
        """What ``obs`` shows of where things are (see the module docstring), in a fixed order."""
        if not self.where:
            return []
        here, turn = obs.location, obs.turn
        lying = [i for i in obs.visible if i in self.things]
        carried = [i for i in obs.inventory if i in self.things]
        out = [e for i in lying for e in self._at(i, here, True, turn)]
        out += [e for i in carried for e in self._at(i, obs.actor, True, turn, carrier=True)]
        people = [e for e in obs.visible if e not in self.things]
        hidden = people or any(self.things[i] for i in (*lying, *carried))
        if not hidden:
            present = set(lying) | set(carried)
            out += [e for i in self.things if i not in present for e in self._at(i, here, False, turn)]
        return out


def moved_by(ev: Event) -> list[str]:
    """The things an event shows moving (taken, dropped, given, tipped out of a container)."""
    if ev.kind in MOVES:
        return [ev.data["item"]] if ev.data.get("item") else []
    if ev.kind == EventKind.OPEN:
        return list(ev.data.get("contents") or ())
    return []


class Witness:
    """One agent's first-hand evidence: what it has seen, and the things it has seen move."""

    def __init__(self, sight: Sight) -> None:
        self.sight = sight
        self.moved: set[str] = set()
        self.known: dict[tuple[str, str, str], Evidence] = {}  # the latest evidence on each triple

    def read(self, ev: Event | None = None, obs: Observation | None = None) -> list[Evidence]:
        """The new evidence in the agent's observation ``obs`` after an event ``ev`` it perceived
        (what it already knew is left out); a thing the event shows moving is no evidence after."""
        if ev is not None:
            self.moved.update(moved_by(ev))
        found = [e for e in self.sight.seen(obs) if e.subject not in self.moved] if obs is not None else []
        out = []
        for e in found:
            old = self.known.get(e.triple)
            if old is None or old.truth != e.truth:
                self.known[e.triple] = e
                out.append(e)
        return out

    def about(self, subject: str, relation: str) -> list[Evidence]:
        """What the agent saw of ``subject``'s ``relation`` (names compared as
        ``game.core.claims.canonical`` does), in the order it learned it."""
        key = canonical(subject), canonical(relation)
        return [e for e in self.known.values() if (canonical(e.subject), canonical(e.relation)) == key]

    def get_state(self) -> dict[str, Any]:
        return {"moved": sorted(self.moved), "known": [asdict(e) for e in self.known.values()]}

    def set_state(self, state: Mapping[str, Any]) -> None:
        self.moved = set(state.get("moved", ()))
        self.known = {}
        for d in state.get("known", ()):
            e = Evidence(**d)
            self.known[e.triple] = e
