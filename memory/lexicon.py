"""What a world's claims can be about, and how they may be worded.

A :class:`Lexicon` maps the many ways a claim can name something to one form
the consistency gate compares:

* entities by their names and aliases ("the ruby", "Red Gem" -> ``gem``); an
  alias two entities share names neither;
* relations by their declared synonyms (``costs`` -> ``price``);
* numbers written with a unit or in words ("20 gold", "twenty gold coins",
  "a dozen" -> ``20``, ``20``, ``12``) for relations that take numbers;
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

ONES = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen".split()
    )
}
TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if i > 1}
SCALES = {"hundred": 100, "thousand": 1000}
EXTRA = {
    "a dozen": 12,
    "dozen": 12,
    "half a dozen": 6,
    "a score": 20,
    "a hundred": 100,
    "a thousand": 1000,
    "a couple": 2,
    "a pair": 2,
}
NUMBER_WORDS = frozenset(ONES) | frozenset(TENS) | frozenset(SCALES) | {"dozen", "score", "and", "a"}
# money words a number may carry whatever unit the relation names ("20 gold coins", "20 crowns")
MONEY = frozenset("coin coins piece pieces gp each apiece".split())
_TOKEN = re.compile(r"\d[\d,]*(?:\.\d+)?|[a-z]+")


def words_to_number(text: str) -> float | None:
    """The number ``text`` spells in digits or English words ("1,200", "twenty-five", "one hundred
    and five", "a dozen"), else None."""
    t = " ".join(text.lower().replace("-", " ").split())
    if t in EXTRA:
        return float(EXTRA[t])
    x = as_number(t.replace(",", "")) if re.fullmatch(r"-?[\d,]+(?:\.\d+)?", t) else None
    if x is not None:
        return x
    total, cur, seen = 0, 0, False
    for w in t.split():
        if w in ONES:
            cur += ONES[w]
        elif w in TENS:
            cur += TENS[w]
        elif w in SCALES:
            cur = max(cur, 1) * SCALES[w]
            if SCALES[w] >= 1000:
                total, cur = total + cur, 0
        elif w == "and" and seen:
            continue
        elif w == "a" and not seen:
            cur = 1
            continue
        else:
            return None
        seen = True
    return float(total + cur) if seen else None


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

    def __post_init__(self) -> None:
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
        self._objects: dict[tuple[str, str], set[str]] = {}
        for (subj, r), objs in self.objects.items():
            key = (canonical(self.entity(subj) or subj), canonical(self.relation(r) or r))
            self._objects.setdefault(key, set()).update(canonical(self.value(key[1], o)) for o in objs)
        self._rel_topic: dict[str, str] = {}
        for (_s, r), t in sorted(self._topics.items()):
            self._rel_topic.setdefault(r, t)

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
    def number(self, relation: str, text: str) -> float | None:
        """The number ``text`` gives for a relation that takes numbers: digits or words, with the
        relation's unit (or a money word) after it: "20 gold", "twenty gold coins", "a dozen"."""
        info = self.info(relation)
        units = {u for u in (info.unit or "").lower().split()} | MONEY
        if info.unit:
            units |= {info.unit.lower(), info.unit.lower() + "s"}
        words = _TOKEN.findall(str(text).lower())
        while words and words[-1] in units:
            words.pop()
        while words and words[0] in ("for", "at", "about", "around", "only", "just", "exactly"):
            words.pop(0)
        return words_to_number(" ".join(words)) if words else None

    def value(self, relation: str, text: str) -> str:
        """The comparison form of a claim's object for ``relation``: an entity's id, a number, or
        the text (``game.core.claims.canonical``)."""
        eid = self.entity(text)
        if eid is not None:
            return eid
        info = self.info(relation)
        if info.range is not None or info.unit:
            x = self.number(relation, text)
            if x is not None:
                return canonical(x)
        return str(text)

    def resolve(self, subject: str, relation: str, obj: str) -> tuple[str, str, str]:
        """(subject, relation, object) in the forms the gate compares."""
        rel = self.relation(relation) or relation
        return self.entity(subject) or subject, rel, self.value(rel, obj)

    # --- building ----------------------------------------------------------------------
    @classmethod
    def from_spec(cls, spec: Any) -> Lexicon:
        """A world's lexicon: items, NPCs and places by id, name and aliases; the declared relations;
        the topics of its facts. Fact subjects and objects that are no entity name themselves."""
        ents: dict[str, list[str]] = {}
        for table in (getattr(spec, "items", {}), getattr(spec, "npcs", {})):
            for eid, e in table.items():
                ents[eid] = [getattr(e, "name", eid), *getattr(e, "aliases", ())]
        for lid, loc in getattr(spec, "locations", {}).items():
            ents.setdefault(lid, []).append(loc.name)
        named = {_key(n) for i, ns in ents.items() for n in (i, *ns)}
        for f in spec.facts.values():
            for x in (f.subject, f.object):
                if as_number(x) is None and _key(x) not in named:
                    ents.setdefault(x, [])
                    named.add(_key(x))
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
            )
            for rid, r in spec.relations.items()
        }
        for f in spec.facts.values():
            rels.setdefault(f.relation, RelationInfo())
        topics = {(f.subject, f.relation): f.topic for f in spec.facts.values()}
        objects: dict[tuple[str, str], list[str]] = {}
        for f in spec.facts.values():
            objects.setdefault((f.subject, f.relation), []).append(f.object)
        return cls(ents, rels, topics, objects)
