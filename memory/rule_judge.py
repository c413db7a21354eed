"""What the consistency gate weighs and keeps, and its rule judge.

A claim on its way in is a :class:`ClaimCandidate`; an entry of world-fact memory is
a :class:`Fact`; both compare through their normalised triples (:func:`norm`).
:class:`RuleJudge` votes on a candidate against one related fact: a functional
relation with another object, a number outside the relation's range, or a
reversed temporal order is a contradiction.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict

from game.core.claims import as_number, canonical, same_value, settles


def norm(s: str) -> str:
    """Case, underscores, hyphens and spacing do not matter; numbers compare as numbers
    ("12" = "12.0", and "-5" stays negative): :func:`game.core.claims.canonical`."""
    return canonical(s)


_WORD = re.compile(r"[A-Za-z][a-z]+|-?\d+(?:\.\d+)?")
STOPWORDS = frozenset(
    """a an the this that these those there here it its he she his her they them their we our
you your i my me and but or if so then than of in on at to for from by with into onto over under about as
is are was were be been has have had do does did not no yes saw see says said what who where when why how""".split()
)


def keywords(text: str) -> list[str]:
    """Names (capitalised words that are not common words) and numbers: the tokens a keyword
    match uses, sorted (a stable order whatever the hash seed)."""
    out = set()
    for tok in _WORD.findall(str(text)):
        if tok[0].isdigit() or tok[0] == "-":
            out.add(f"{float(tok):g}")
        elif tok[0].isupper() and tok.lower() not in STOPWORDS:
            out.add(tok.lower())
    return sorted(out)


class RelationRule(BaseModel):
    """What the rule judge knows about one relation."""

    model_config = ConfigDict(extra="forbid")
    functional: bool = False  # at most one object per subject
    range: tuple[float, float] | None = None  # numeric objects must lie inside
    temporal: Literal["before", "after"] | None = None  # subject happens before/after object
    thresholds: tuple[float, float] | None = None  # (t_low, t_high) for this relation
    changes: bool = False  # its value changes over time: old values lose weight
    half_life: float = 30.0  # turns for an old value's weight to halve (if it changes)


class Triple:
    """Normalised views of a (subject, relation, object) assertion."""

    subject: str
    relation: str
    object: str

    @property
    def key(self) -> tuple[str, str]:
        return norm(self.subject), norm(self.relation)

    @property
    def triple(self) -> tuple[str, str, str]:
        return norm(self.subject), norm(self.relation), norm(self.object)


@dataclass
class ClaimCandidate(Triple):
    """A would-be world fact and where it came from."""

    subject: str
    relation: str
    object: str
    topic: str
    source: str  # NPC id, "player", "summary", or "observation"
    turn: int = 0
    text: str = ""
    kind: str = "claim"  # claim | statement | summary | observation
    truth: bool = True  # False: a negation ("the gem is not in the well")

    def sentence(self) -> str:
        if self.text:
            return self.text
        return f"{self.subject} {'' if self.truth else 'not '}{self.relation.replace('_', ' ')} {self.object}"


@dataclass
class Fact(Triple):
    """An entry of world-fact memory (admitted, quarantined, or gone with the reason kept)."""

    id: str
    subject: str
    relation: str
    object: str
    topic: str
    source: str
    turn: int
    text: str
    status: str = "admitted"  # admitted | verified | quarantined | rejected | superseded | purged
    truth: bool = True  # False only for verified negatives ("X is not in Y")
    sources: list[str] = field(default_factory=list)  # who else asserted it
    jury: float | None = None  # the LLM jury's score when it was held (re-checks reuse it)
    awaiting_jury: bool = False  # held because the jury failed: only evidence or a new verdict frees it


class RuleJudge:
    """Structured checks: functional relations, numeric ranges, temporal order."""

    name = "rule"

    def __init__(self, relations: Mapping[str, RelationRule]):
        self.relations = {norm(k): v for k, v in relations.items()}

    def rule(self, relation: str) -> RelationRule:
        return self.relations.get(norm(relation), RelationRule())

    def check_alone(self, c: ClaimCandidate) -> str | None:
        """A problem with the candidate on its own (a number out of range), or None."""
        r = self.rule(c.relation)
        if r.range is not None:
            x = as_number(c.object)
            if x is None:
                return f"{c.relation} takes a number in [{r.range[0]:g}, {r.range[1]:g}], got {c.object!r}"
            if not r.range[0] <= x <= r.range[1]:
                return f"{c.object} is outside the range [{r.range[0]:g}, {r.range[1]:g}] of {c.relation}"
        return None

    def vote(self, c: ClaimCandidate, f: Fact) -> tuple[float, str] | None:
        """1 (supports), 0 (contradicts) or None (no structured bearing) for one related fact.
        A negation ("not in the well") contradicts the positive fact and supports a negative one;
        "not in the well" against "in the chest" (functional) is consistent, no vote."""
        s, rel, o = c.triple
        fs, frel, fo = f.triple
        if (s, rel) == (fs, frel):
            if same_value(o, fo):
                if c.truth == f.truth:
                    return 1.0, "the same fact"
                return 0.0, ("verified to be false" if not f.truth else f"denies {f.subject} {f.relation} {f.object}")
            if not c.truth:
                return None
            holds = settles(fo, f.truth, o, self.rule(rel).functional)
            if holds is False:
                return 0.0, f"{rel} is functional: {f.subject} already {f.relation} {f.object}"
            x, y = as_number(o), as_number(fo)
            if f.truth and x is not None and y is not None and self.rule(rel).range is not None:
                return 0.0, f"a different value for {f.subject} {f.relation} ({f.object})"
            return None
        if not (c.truth and f.truth):
            return None
        r = self.rule(rel)
        if r.temporal and frel == rel and (s, o) == (fo, fs):
            return 0.0, f"temporal order: {f.subject} {f.relation} {f.object}"
        if (
            r.temporal
            and (s, o) == (fs, fo)
            and frel != rel
            and self.rule(frel).temporal
            and self.rule(frel).temporal != r.temporal
        ):
            return 0.0, f"temporal order: {f.subject} {f.relation} {f.object}"
        return None

    def order(self, f: Triple) -> tuple[str, str] | None:
        """(earlier, later) for a positive fact of an ordered relation, else None."""
        r = self.rule(f.relation)
        if not r.temporal or not getattr(f, "truth", True):
            return None
        s, _, o = f.triple
        return (s, o) if r.temporal == "before" else (o, s)
