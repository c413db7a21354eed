"""Renders claims as towpath sentences: names in several spellings, quantities and times in
several forms, a template per relation drawn at random (seeded)."""

from __future__ import annotations

import numpy as np

from benchmarks.gate_blind import phrasing as P
from benchmarks.gate_blind.world import RELATIONS, Town

CLOCK_STYLES = ("ampm", "past", "oclock", "digits24", "named", "words")


def sentence(text: str) -> str:
    """Capitalised, with a full stop unless it already ends in one."""
    text = text.strip()
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".?!" else text + "."


class Voice:
    def __init__(self, rng: np.random.Generator, town: Town):
        self.rng = rng
        self.town = town

    def pick(self, options):
        return options[int(self.rng.integers(len(options)))]

    def name(self, eid: str, style: str = "mixed") -> str:
        """``canonical``, ``alias`` (declared), ``variant`` (not declared) or ``mixed`` (mostly declared)."""
        declared = self.town.names[eid]
        if style == "mixed":
            style = self.pick(["canonical"] * 7 + ["alias"] * 2 + ["variant"])
        if style == "variant" and eid in P.VARIANTS:
            return self.pick(P.VARIANTS[eid])
        if style == "alias" and len(declared) > 1:
            return self.pick(declared[1:])
        return declared[0]

    def unit_word(self, unit: str, v: float) -> str:
        words = self.town.units[unit].words
        plurals = [w for w in words[1:] if w not in ("ft",)] or [words[0]]
        return words[0] if abs(v - 1) < 1e-9 else self.pick(plurals)

    def quantity(self, v: float, unit: str, form: str = "digits") -> str:
        """``v`` of ``unit`` written as digits, words, roman, dozen or fraction."""
        word = self.unit_word(unit, v)
        if form == "words":
            return f"half a {self.town.units[unit].words[0]}" if v == 0.5 else f"{P.in_words(v)} {word}"
        if form == "roman":
            return f"{P.roman(int(v))} {word}"
        if form == "dozen":
            return f"{P.DOZENS[int(v)]} {word}"
        if form == "fraction":
            how = self.pick(["sign", "ascii", "words", "decimal"])
            if how == "words":
                return f"{P.in_words(v)} {word}"
            if how == "decimal":
                return f"{P.digits(v)} {word}"
            return f"{P.with_fraction_sign(v, how == 'ascii')} {word}"
        return f"{P.digits(v)} {word}"

    def time(self, hhmm: str, style: str | None = None) -> str:
        return P.clock(hhmm, style or self.pick(CLOCK_STYLES), self.town.clock)

    def object_text(self, relation: str, obj: str, form: str = "digits", names: str = "mixed") -> str:
        role = RELATIONS[relation][1]
        if role == "number":
            return self.quantity(float(obj), self.town.relation_unit[relation], form)
        if role == "time":
            return self.time(obj, None if form == "digits" else form)
        return self.name(obj, names)

    def template(self, relation: str, negative: bool, subject_first: bool = False) -> tuple[str, bool]:
        pool = (P.NEGATIVE if negative else P.POSITIVE)[relation]
        if subject_first:
            pool = [t for t in pool if t[0].startswith("{s} ")]
        return self.pick(pool)

    def clause(
        self, claim, form: str = "digits", names: str = "mixed", subject_text: str | None = None, tpl=None
    ) -> tuple[str, bool]:
        """(clause, declared): the claim as a clause without its stop; ``declared`` when the relation is
        worded with a declared alias."""
        template, declared = tpl or self.template(claim.relation, not claim.truth)
        if claim.subject in P.PLURAL:
            for one, many in P.AGREEMENT:
                template = template.replace(one, many)
        s = subject_text if subject_text is not None else self.name(claim.subject, names)
        o = self.object_text(claim.relation, claim.object, form, names)
        return template.format(s=s, o=o), declared

    def pronoun(self, eid: str) -> str:
        return "she" if eid in P.SHE else "they" if eid in P.PLURAL else "it"

    def frame(self, frames: list[str], clause: str, **extra) -> str:
        f = self.pick(frames)
        return f.format(c=clause, C=clause[0].upper() + clause[1:], **extra)
