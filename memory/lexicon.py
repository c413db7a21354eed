"""What a world's claims can be about, and how they may be worded.

A :class:`Lexicon` maps the many ways a claim can name something to one form
the consistency gate compares:

* entities by their names and aliases ("the ruby", "Red Gem" -> ``gem``); an
  alias two entities share names neither;
* relations by their declared synonyms (``costs`` -> ``price``);
* numbers written with a unit or in words ("20 gold", "twenty gold coins",
  "a dozen and a half" -> ``20``, ``20``, ``18``) for relations that take
  numbers, converted to the relation's unit along the world's ``[units]``
  ("216 pennies" -> ``18`` marks); a number in a unit the relation does not
  take, or a time, stays text (another value);
* times of day for relations of kind "time" ("9 pm", "nine in the evening",
  "21:00" -> ``21:00``; the world's ``[clock]`` names);
* the topic a (subject, relation) pair belongs to, from the world's facts.

``Lexicon.from_spec(spec)`` builds one from a world; the claim extractor
(``memory.extract``) reads free text through the same tables.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from game.core.claims import as_number, canonical
from memory.quantities import (
    CURRENCY,
    MEASURES,
    MONEY,
    TIME_WORDS,
    Units,
    amount,
    arabic,
    clock_table,
    read_quantity,
    read_time,
    roman_number,
    time_value,
    words,
)

KINDS = ("entity", "number", "time", "text")
_FILLERS = ("for", "at", "about", "around", "only", "just", "exactly")


def words_to_number(text: str) -> float | None:
    """The number ``text`` spells in digits or English words ("1,200", "twenty-five", "one hundred
    and five", "a dozen", "a dozen and a half"), else None (``memory.quantities``)."""
    x = as_number(str(text).replace(",", "")) if re.fullmatch(r"\s*-?[\d,]+(?:\.\d+)?\s*", str(text)) else None
    return x if x is not None else amount(text)


@dataclass(frozen=True)
class RelationInfo:
    """What a relation means for claims: its synonyms and the rule judge's facts about it."""

    aliases: tuple[str, ...] = ()  # other words for it, in structured claims and in text ("costs")
    functional: bool = False  # at most one object per subject
    range: tuple[float, float] | None = None
    temporal: Literal["before", "after"] | None = None
    unit: str | None = None  # the unit its numbers are in ("gold"): "20 gold" is 20
    changes: bool = False  # its value changes over time (things move, prices change)
    half_life: float = 30.0  # turns for an unverified value's weight to halve when it changes
    thresholds: tuple[float, float] | None = None
    kind: Literal["entity", "number", "time", "text"] | None = None  # what its values are (see ``values``)

    @property
    def values(self) -> str:
        """What its values are: its ``kind``, else numbers when it has a range or a unit, else entities."""
        return self.kind or ("number" if self.range is not None or self.unit else "entity")


def _key(text: str) -> str:
    return canonical(text)


@dataclass
class Lexicon:
    """Names, relation words, units and topics of one world (see the module's doc)."""

    entities: Mapping[str, Iterable[str]] = field(default_factory=dict)
    relations: Mapping[str, RelationInfo] = field(default_factory=dict)
    topics: Mapping[tuple[str, str], str] = field(default_factory=dict)
    objects: Mapping[tuple[str, str], Iterable[str]] = field(default_factory=dict)  # (subject, relation) ->
    # the values the world knows people claim for it (true or not): what a clause naming no relation may mean
    units: Mapping[str, Any] = field(default_factory=dict)  # the world's [units]: id -> aliases, base, factor
    clock: Mapping[str, str] = field(default_factory=dict)  # the world's [clock]: name -> "HH:MM"
    kinds: Mapping[str, str] = field(default_factory=dict)  # entity -> "item", "place" or "person" (its table)
    texts: Mapping[str, Iterable[str]] = field(default_factory=dict)  # relation -> its description, facts' texts

    def __post_init__(self) -> None:
        self._units = Units(self.units)
        self._clock = clock_table(self.clock)
        self.entities = {k: tuple(v) for k, v in self.entities.items()}
        self.relations = {k: v if isinstance(v, RelationInfo) else RelationInfo(**v) for k, v in self.relations.items()}
        self._names: dict[str, str | None] = {}
        for eid, names in self.entities.items():
            for n in (eid, *names):
                k = _key(n)
                if not k:
                    continue
                if k in self._names and self._names[k] not in (None, eid):
                    self._names[k] = None  # shared by two entities: names neither
                elif k not in self._names:
                    self._names[k] = eid
        self._names.update({_key(eid): eid for eid in self.entities})  # an id always names itself
        self._rels: dict[str, str] = {}
        for rid, info in self.relations.items():
            for n in (rid, *info.aliases):
                self._rels.setdefault(_key(n), rid)
        self._topics = {(_key(s), _key(r)): t for (s, r), t in self.topics.items()}
        self._unit_words = MONEY | CURRENCY | MEASURES | TIME_WORDS | self._units.words()
        for info in self.relations.values():
            self._unit_words |= self._free_unit(info)
        self._objects: dict[tuple[str, str], set[str]] = {}
        for (subj, r), objs in self.objects.items():
            key = (canonical(self.entity(subj) or subj), canonical(self.relation(r) or r))
            self._objects.setdefault(key, set()).update(canonical(self.value(key[1], o)) for o in objs)
        self._rel_topic: dict[str, str] = {}
        for (_s, r), t in sorted(self._topics.items()):
            self._rel_topic.setdefault(r, t)
        self.kinds = {k: v for k, v in self.kinds.items() if v}
        self.texts = {k: tuple(v) for k, v in self.texts.items()}
        self._sorts: dict[str, tuple[set[str], set[str]]] = {}
        for (subj, r), objs in self._objects.items():
            subjects, objects = self._sorts.setdefault(r, (set(), set()))
            subjects.add(self.kind(subj) or "")
            objects.update(self.kind(o) or "" for o in objs)

    # --- looking up ------------------------------------------------------------------
    def entity(self, text: str) -> str | None:
        """The entity ``text`` names (by id, name or an alias of one entity only), else None."""
        return self._names.get(_key(text)) or None

    def relation(self, text: str) -> str | None:
        """The relation ``text`` names (its id or a declared alias), else None."""
        return self._rels.get(_key(text))

    def info(self, relation: str) -> RelationInfo:
        return self.relations.get(self.relation(relation) or relation, RelationInfo())

    def name_table(self) -> dict[str, str]:
        """Every unambiguous name -> entity id (what the extractor scans text for)."""
        return {k: v for k, v in self._names.items() if v}

    def shared_names(self) -> dict[str, list[str]]:
        """Names that two or more entities share, so that they name neither: name -> those entities."""
        out: dict[str, list[str]] = {}
        for eid, names in self.entities.items():
            for n in (eid, *names):
                k = _key(n)
                if k and k in self._names and self._names[k] is None and eid not in out.get(k, []):
                    out.setdefault(k, []).append(eid)
        return out

    def kind(self, entity: str) -> str | None:
        """What ``entity`` is ("item", "place", "person": the world table it came from), else None."""
        eid = self.entity(entity) or entity
        return self.kinds.get(eid)

    def sorts(self, relation: str) -> tuple[frozenset[str], frozenset[str]]:
        """The kinds of the subjects and of the objects the world's facts give ``relation`` ("" for a
        subject or object of no known kind): what a clause naming no relation can mean by it."""
        subjects, objects = self._sorts.get(canonical(self.relation(relation) or relation), ((), ()))
        return frozenset(subjects), frozenset(objects)

    def relation_table(self) -> dict[str, str]:
        """Every relation word or phrase -> relation id."""
        return dict(self._rels)

    def topic(self, subject: str, relation: str) -> str | None:
        """The topic a claim about (subject, relation) belongs to: the world's fact about that pair,
        else any fact with that relation; None if the world says nothing."""
        r = _key(relation)
        return self._topics.get((_key(subject), r)) or self._rel_topic.get(r)

    def objects_of(self, relation: str) -> set[str]:
        """Every value the world knows is claimed for ``relation``, whatever the subject."""
        r = canonical(relation)
        return {o for (_, rel), objs in self._objects.items() if rel == r for o in objs}

    def known_objects(self, subject: str, relation: str) -> set[str]:
        """The values the world knows are claimed for (subject, relation), in comparison form."""
        return self._objects.get((canonical(self.entity(subject) or subject), canonical(relation)), set())

    # --- normalising -----------------------------------------------------------------
    def unit_words(self) -> frozenset[str]:
        """Every word that can name a unit after a number: the world's units, the relations' unit
        words, money words and the units people name that a world may not take ("crowns", "pm")."""
        return frozenset(self._unit_words)

    def clock_names(self) -> dict[tuple[str, ...], int]:
        """The world's named times of day, as ``memory.quantities.read_time`` takes them."""
        return dict(self._clock)

    def number(self, relation: str, text: str) -> float | None:
        """The number ``text`` gives for a relation that takes numbers, in the relation's unit: digits,
        words or a Roman numeral, with its unit (or a money word) after it ("20 gold", "twenty gold
        coins", "a dozen and a half marks", "XXX marks"; "24 pennies" is 2 marks when a penny is
        declared at 1/12 of a mark). None when it is no number, or one in a unit the relation does not
        take ("6 gold crowns" for marks, "9 pm")."""
        x = roman_number(text)
        if x is not None:
            return float(x)
        toks = words(arabic(str(text), self._unit_words))
        while toks and toks[0] in _FILLERS:
            toks.pop(0)
        t = read_time(toks, 0, self._clock)
        if t is not None and t.end == len(toks):
            return None  # a time of day is no amount
        got = read_quantity(toks, 0, self._unit_words)
        if got is None or got[1] != len(toks):
            return None
        return self.in_unit(relation, got[0], got[2])

    def in_unit(self, relation: str, x: float, unit: list[str]) -> float | None:
        """``x`` followed by the words ``unit``, as a number in ``relation``'s unit; None when those words
        name a unit it does not take. Money words go with any unit; a declared unit converts to the
        relation's when both share a base; the relation's own unit word (declared or not) is its unit."""
        info = self.info(relation)
        if not unit:
            return x
        declared = [u for w in unit if (u := self._units.unit(w)) is not None]
        target = self._units.unit(info.unit) if info.unit and self._units else None
        if declared and target is not None:
            return self._units.convert(x, declared[-1], target)
        own = self._free_unit(info)
        if declared or not (all(w in MONEY or w in own for w in unit) or (unit[0] in own and unit[-1] in CURRENCY)):
            return None  # "6 gold crowns" for marks, "8 pm", "3 hours"
        return x  # "20 gold", "20 gold coins", "20 gold crowns" for gold

    @staticmethod
    def _free_unit(info: RelationInfo) -> set[str]:
        if not info.unit:
            return set()
        names = set(words(info.unit))
        return names | {n + "s" for n in names}

    def value(self, relation: str, text: str, subject: str | None = None) -> str:
        """The comparison form of a claim's object for ``relation``: an entity's id, a number (in the
        relation's unit), a time of day ("HH:MM"), or the text (``game.core.claims.canonical``). A
        number in a unit the relation does not take, or a time for a number, stays text: another value.
        A time that leaves morning or evening open ("half past six") is the one of the two the world
        knows is claimed for (``subject``, ``relation``), else the morning's."""
        eid = self.entity(text)
        if eid is not None:
            return eid
        kind = self.info(relation).values
        if kind == "number":
            x = self.number(relation, text)
            if x is not None:
                return canonical(x)
        elif kind == "time":
            t = time_value(arabic(str(text), self._unit_words), self._clock)
            if t is not None:
                return self._time(relation, t, subject)
        return str(text)

    def _time(self, relation: str, t: Any, subject: str | None) -> str:
        if not t.loose:
            return t.text()
        rel = canonical(self.relation(relation) or relation)
        known = self.known_objects(subject, rel) if subject is not None else self.objects_of(rel)
        return t.text(later=True) if t.text(later=True) in known and t.text() not in known else t.text()

    def resolve(self, subject: str, relation: str, obj: str) -> tuple[str, str, str]:
        """(subject, relation, object) in the forms the gate compares."""
        rel = self.relation(relation) or relation
        subj = self.entity(subject) or subject
        return subj, rel, self.value(rel, obj, subj)

    # --- building ----------------------------------------------------------------------
    @classmethod
    def from_spec(cls, spec: Any) -> Lexicon:
        """A world's lexicon: items, NPCs and places by id, name and aliases; the declared relations;
        the topics of its facts. Fact subjects and objects that are no entity name themselves."""
        ents: dict[str, list[str]] = {}
        kinds: dict[str, str] = {}
        for table, kind in ((getattr(spec, "items", {}), "item"), (getattr(spec, "npcs", {}), "person")):
            for eid, e in table.items():
                ents[eid] = [getattr(e, "name", eid), *getattr(e, "aliases", ())]
                kinds[eid] = "place" if kind == "item" and not getattr(e, "portable", True) else kind
        for lid, loc in getattr(spec, "locations", {}).items():
            ents.setdefault(lid, []).append(loc.name)
            kinds.setdefault(lid, "place")
        rels = {
            rid: RelationInfo(
                aliases=tuple(getattr(r, "aliases", ())),
                functional=r.functional,
                range=r.range,
                temporal=r.temporal,
                unit=getattr(r, "unit", None),
                changes=bool(getattr(r, "changes", False)),
                half_life=float(getattr(r, "half_life", 30.0)),
                thresholds=r.thresholds,
                kind=getattr(r, "kind", None),
            )
            for rid, r in spec.relations.items()
        }
        named = {_key(n) for i, ns in ents.items() for n in (i, *ns)}
        for f in spec.facts.values():
            valued = f.relation in rels and rels[f.relation].values in ("number", "time")
            for x in (f.subject,) if valued else (f.subject, f.object):  # a toll or an hour names nothing
                if as_number(x) is None and _key(x) not in named:
                    ents.setdefault(x, [])
                    named.add(_key(x))
        for f in spec.facts.values():
            rels.setdefault(f.relation, RelationInfo())
        topics = {(f.subject, f.relation): f.topic for f in spec.facts.values()}
        objects: dict[tuple[str, str], list[str]] = {}
        for f in spec.facts.values():
            objects.setdefault((f.subject, f.relation), []).append(f.object)
        texts: dict[str, list[str]] = {rid: [getattr(r, "description", "")] for rid, r in spec.relations.items()}
        for f in spec.facts.values():
            texts.setdefault(f.relation, []).append(f.text)
        return cls(
            ents,
            rels,
            topics,
            objects,
            units=getattr(spec, "units", {}) or {},
            clock=getattr(spec, "clock", {}) or {},
            kinds=kinds,
            texts=texts,
        )
