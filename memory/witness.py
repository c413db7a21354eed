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

What the agent took part in settles claims too, for relations the world marks so (``observed``):

* ``"trade"``: a trade it closed shows the seller sells the thing (``lantern sold_by mara``);
* ``"gift"``: a gift it gave that was welcomed shows the receiver wants the thing;
* ``"key"``: a lock it opened shows the key opens it (the locked thing, or the exit's direction).

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
TAKEN_PART = ("trade", "gift", "key")  # the ``observed`` kinds an event the agent took part in settles
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
    which ids are things (and which of them containers), and the names to write evidence in;
    ``settled``: the relations each kind of event the agent takes part in settles (``TAKEN_PART``),
    and ``trades``: each trade scene's thing, seller and buyer."""

    def __init__(
        self,
        where: Iterable[str],
        things: Mapping[str, bool],
        names: Mapping[str, str] | None = None,
        settled: Mapping[str, Iterable[str]] | None = None,
        trades: Mapping[str, tuple[str, str, str]] | None = None,
    ) -> None:
        self.where = tuple(where)
        self.things = dict(things)  # item id -> is a container
        self.names = dict(names or {})
        self.settled = {k: tuple(v) for k, v in (settled or {}).items()}
        self.trades = dict(trades or {})

    @classmethod
    def from_spec(cls, spec: Any) -> Sight:
        relations = getattr(spec, "relations", {})

        def marked(kind: str) -> list[str]:
            return [rid for rid, r in relations.items() if getattr(r, "observed", None) == kind]

        where, settled = marked(LOCATION), {k: marked(k) for k in TAKEN_PART if marked(k)}
        parts = [getattr(spec, p, None) or {} for p in ("locations", "items", "npcs")]  # a bare spec has few
        names = {k: v.name for part in parts for k, v in part.items() if v is not None}
        trades = {}
        for sid, scene in getattr(spec, "scenes", {}).items():
            t = getattr(scene, "trade", None)
            buyer = None if t is None else next((p.id for p in scene.parties if p.id != t.seller), None)
            if buyer is not None:
                trades[sid] = (t.item, t.seller, buyer)
        things = {k: bool(v.container) for k, v in (getattr(spec, "items", None) or {}).items()}
        return cls(where, things, names, settled, trades)

    def took_part(self, ev: Event, agent: str) -> list[Evidence]:
        """What an event ``agent`` took part in settles (see the module docstring): a trade it
        closed, a gift it gave that was welcomed, a lock it opened."""
        data, kind = ev.data or {}, str(ev.kind)
        found: list[tuple[str, str, str]] = []  # (observed kind, subject, object)
        if kind == EventKind.AGREEMENT and data.get("scene") in self.trades:
            item, seller, buyer = self.trades[data["scene"]]
            if agent in (seller, buyer):
                found.append(("trade", item, seller))
        elif kind == EventKind.GIVE and ev.actor == agent and data.get("points") and data.get("to"):
            found.append(("gift", data["to"], data["item"]))
        elif kind == EventKind.UNLOCK and ev.actor == agent and data.get("key"):
            found.append(("key", data["key"], data.get("item") or data.get("exit") or ""))
        return [
            Evidence(s, r, o, True, ev.turn, self.describe(s, r, o, True))
            for k, s, o in found
            if o
            for r in self.settled.get(k, ())
        ]

    def describe(self, subject: str, relation: str, obj: str, truth: bool = True) -> str:
        """What the agent saw, in words: "The Widow's Pearl is in the strongbox.", "The storm
        lantern: sold by Mara Voss." (never a line someone said about it)."""
        what = self.name(subject)
        what = what[:1].upper() + what[1:]
        if relation in self.where:
            return f"{what} is {'' if truth else 'not '}in {self.name(obj)}."
        return f"{what}: {'' if truth else 'not '}{relation.replace('_', ' ')} {self.name(obj)}."

    def name(self, ident: str) -> str:
        name = self.names.get(ident, ident.replace("_", " "))
        return name if ident not in self.things or name[:1].isupper() else f"the {name}"

    def _at(self, thing: str, place: str, truth: bool, turn: int, carrier: bool = False) -> list[Evidence]:
        if carrier:
            text = f"You carry {self.name(thing)}."
        else:
            text = self.describe(thing, self.where[0], place, truth)
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
        if ev is not None and obs is not None:
            found += self.sight.took_part(ev, obs.actor)
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
