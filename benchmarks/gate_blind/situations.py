"""The situations the held-out stream is drawn from, one method per class.

The class of a write is the situation it was drawn for, judged against an *ideal* memory (every
true value said or observed so far), never against what a gate decided:

- new-true / new-false: the first word on a (subject, relation);
- false-claim: a wrong value where the ideal memory holds the right one;
- true-update: the world changed since the ideal memory's value; the new value;
- stale: the ideal memory's value after the world moved on;
- correction: the right value after a wrong one was said;
- restatement: the ideal memory's value again, in other words;
- negation: a denial, true or false ("isn't", "doesn't", "hasn't", "nowhere near", "no longer");
- hedge, pronoun, name-variant, abbreviation: a true or false claim, worded so;
- number-words, roman, dozen, fraction: a number written so;
- unit-convert: a value in another unit of the same kind (72 pence for 6 marks), true or false;
- unit-trap: the true number in another unit (6 crowns where the toll is 6 marks): false;
- time-words: an opening time in words ("half past six", "noon", "dusk");
- time-trap: an opening time whose hour is the lock's true toll or depth;
- number-trap: a stray number (weeks, boats, years) next to the value, the stray one the true value;
- no-claim: a question, a conditional, hearsay, a wish (no claim, no label);
- collusion: several low-credibility sources and strangers repeating one falsehood.

A true claim comes from a source drawn in proportion to its hidden honesty on the topic, a false
one in proportion to its dishonesty; traps and sentences without a claim from anyone.
"""

from __future__ import annotations

import numpy as np

from benchmarks.gate_blind import phrasing as P
from benchmarks.gate_blind.stream import NUMBERS, Claim, Observation, Stream, Write, same_value
from benchmarks.gate_blind.voice import Voice, sentence
from benchmarks.gate_blind.world import RELATIONS

CLASS_WEIGHTS = {
    "new-true": 4,
    "new-false": 3,
    "false-claim": 3,
    "true-update": 7,
    "stale": 4,
    "correction": 3,
    "restatement": 4,
    "negation": 6,
    "hedge": 3,
    "pronoun": 3,
    "name-variant": 4,
    "abbreviation": 3,
    "number-words": 3,
    "roman": 2,
    "dozen": 2,
    "fraction": 2,
    "unit-convert": 3,
    "unit-trap": 3,
    "time-words": 4,
    "time-trap": 2.5,
    "number-trap": 3,
    "no-claim": 6,
    "collusion": 0.7,
}
CLASSES = tuple(CLASS_WEIGHTS)
TRAPS = ("unit-trap", "time-trap", "number-trap")
OBSERVE_RATE = 0.1
ABBREVIATED_IDS = ("lock_no_4", "saint_aldrics_wharf", "pellows_landing", "saint_aldrics_vestry")
ABBREVIATED_IDS += ("ambrose_thorne", "hesper_quayle")
FORM_OK = {
    "roman": lambda v: float(v).is_integer() and 0 < float(v) < 40,
    "dozen": lambda v: float(v) in P.DOZENS,
    "fraction": lambda v: not float(v).is_integer(),
    "number-words": lambda v: True,
}


class Situations:
    def __init__(self, rng: np.random.Generator, stream: Stream):
        self.rng = rng
        self.stream = stream
        self.truth = stream.truth
        self.voice = Voice(rng, stream.town)
        self.memory: dict[tuple[str, str], str] = {}  # ideal memory: last true value said or observed
        self.said_false: dict[tuple[str, str], str] = {}
        self.mentioned: set[tuple[str, str]] = set()
        self.turn = 1
        self.drifters = 0
        self.budget = 0  # writes the stream is to hold

    # --- the loop ------------------------------------------------------------------

    def run(self, n_writes: int) -> None:
        names, weights = list(CLASS_WEIGHTS), np.array(list(CLASS_WEIGHTS.values()), float)
        self.budget = n_writes
        while len(self.stream.writes) < n_writes:
            self.turn = len(self.stream.writes) // 2 + 1
            if self.rng.random() < OBSERVE_RATE:
                self.observe()
            for _ in range(20):
                cls = names[int(self.rng.choice(len(names), p=weights / weights.sum()))]
                if getattr(self, "_" + cls.replace("-", "_"))() is not False:
                    break

    def observe(self) -> None:
        changed = [p for p in self.truth.pairs if p in self.memory and not self.agrees(p, self.memory[p])]
        pool = changed if changed and self.rng.random() < 0.5 else self.truth.pairs
        s, r = pool[int(self.rng.integers(len(pool)))]
        v = self.now((s, r))
        self.stream.add(Observation(self.turn, Claim(s, r, v), RELATIONS[r][2]))
        self.memory[(s, r)] = v
        self.mentioned.add((s, r))

    # --- helpers -------------------------------------------------------------------

    def pick(self, options):
        return options[int(self.rng.integers(len(options)))]

    def now(self, pair) -> str:
        return self.truth.value(pair[0], pair[1], self.turn)

    def agrees(self, pair, v) -> bool:
        return same_value(pair[1], self.now(pair), v)

    def wrong(self, pair, ok=lambda v: True) -> str | None:
        pool = [v for v in self.truth.domains[pair[1]] if not self.agrees(pair, v) and ok(v)]
        return self.pick(pool) if pool else None

    def pairs(self, relations=None, where=lambda p: True) -> list[tuple[str, str]]:
        return [p for p in self.truth.pairs if (relations is None or p[1] in relations) and where(p)]

    def source(self, topic: str, honest: bool | None) -> str:
        ids = list(self.stream.sources)
        if honest is None:
            return self.pick(ids)
        h = np.array([self.stream.sources[i].honesty[topic] for i in ids])
        w = h if honest else 1 - h
        return ids[int(self.rng.choice(len(ids), p=w / w.sum()))]

    def emit(self, cls, text, claims, source=None, trap=None, declared=None, base="", topic=None) -> Write:
        topic = topic or RELATIONS[claims[0].relation][2]
        labels = tuple(self.truth.holds(c, self.turn) for c in claims)
        if source is None:
            source = self.source(topic, all(labels) if claims and cls not in TRAPS else None)
        w = Write(
            idx=len(self.stream.writes),
            turn=self.turn,
            cls=cls,
            text=text,
            source=source,
            cred=self.stream.credibility(source, topic),
            topic=topic,
            claims=tuple(claims),
            labels=labels,
            trap=trap,
            declared=declared,
            base=base,
        )
        self.stream.add(w)
        for c, ok in zip(claims, labels, strict=True):
            self.mentioned.add((c.subject, c.relation))
            if c.truth and ok:
                self.memory[(c.subject, c.relation)] = c.object
                self.said_false.pop((c.subject, c.relation), None)
            elif c.truth:
                self.said_false[(c.subject, c.relation)] = c.object
        return w

    def plain(self, cls, pair, value, frames=None, form="digits", names="mixed", base=""):
        claim = Claim(pair[0], pair[1], value)
        clause, declared = self.voice.clause(claim, form=form, names=names)
        text = self.voice.frame(frames, clause) if frames else clause
        return self.emit(cls, sentence(text), [claim], declared=declared, base=base)

    def true_or_false(self, pair, p_true=0.6, ok=lambda v: True) -> tuple[str, str] | None:
        if ok(self.now(pair)) and self.rng.random() < p_true:
            return self.now(pair), "true"
        v = self.wrong(pair, ok)
        return (v, "false") if v is not None else None

    # --- the situations ----------------------------------------------------------------

    def _new_true(self):
        fresh = self.pairs(where=lambda p: p not in self.mentioned)
        if not fresh:
            return False
        p = self.pick(fresh)
        self.plain("new-true", p, self.now(p))

    def _new_false(self):
        fresh = self.pairs(where=lambda p: p not in self.mentioned)
        if not fresh:
            return False
        p = self.pick(fresh)
        self.plain("new-false", p, self.wrong(p))

    def _false_claim(self):
        known = self.pairs(where=lambda p: p in self.memory and self.agrees(p, self.memory[p]))
        if not known:
            return False
        p = self.pick(known)
        self.plain("false-claim", p, self.wrong(p))

    def _changed(self):
        return self.pairs(where=lambda p: p in self.memory and not self.agrees(p, self.memory[p]))

    def _true_update(self):
        changed = self._changed()
        if not changed:
            return False
        p = self.pick(changed)
        self.plain("true-update", p, self.now(p), frames=P.UPDATES)

    def _stale(self):
        changed = self._changed()
        if not changed:
            return False
        p = self.pick(changed)
        self.plain("stale", p, self.memory[p])

    def _correction(self):
        wrongs = self.pairs(where=lambda p: p in self.said_false and not self.agrees(p, self.said_false[p]))
        if not wrongs:
            return False
        p = self.pick(wrongs)
        self.plain("correction", p, self.now(p), frames=P.CORRECTIONS)

    def _restatement(self):
        known = self.pairs(where=lambda p: p in self.memory and self.agrees(p, self.memory[p]))
        if not known:
            return False
        p = self.pick(known)
        self.plain("restatement", p, self.now(p), frames=P.RESTATE)

    def _negation(self):
        p = self.pick(self.pairs(where=lambda p: p in self.mentioned) or self.truth.pairs)
        deny_truth = self.rng.random() < 0.45
        stale = [v for v in (self.said_false.get(p), self.memory.get(p)) if v is not None and not self.agrees(p, v)]
        value = self.now(p) if deny_truth else (stale[0] if stale else self.wrong(p))
        claim = Claim(p[0], p[1], value, truth=False)
        clause, declared = self.voice.clause(claim)
        self.emit("negation", sentence(clause), [claim], declared=declared, base="false" if deny_truth else "true")

    def _hedge(self):
        p = self.pick(self.truth.pairs)
        value, base = self.true_or_false(p)
        self.plain("hedge", p, value, frames=P.HEDGES, base=base)

    def _pronoun(self):
        p = self.pick(self.pairs(relations=[r for r in RELATIONS if r != "skippered_by"]))
        value, base = self.true_or_false(p)
        role = RELATIONS[p[1]][0]
        claim = Claim(p[0], p[1], value)
        tpl = self.voice.template(p[1], False, subject_first=True)
        clause, declared = self.voice.clause(claim, subject_text=self.voice.pronoun(p[0]), tpl=tpl)
        lead = self.pick(P.LEAD_INS[role]).format(S=self.voice.name(p[0]))
        self.emit("pronoun", f"{sentence(lead)} {sentence(clause)}", [claim], declared=declared, base=base)

    def _name_variant(self):
        p = self.pick(self.pairs(relations=["moored_at", "skippered_by", "stored_in"]))
        value, base = self.true_or_false(p)
        self.plain("name-variant", p, value, names="variant", base=base)

    def _abbreviation(self):
        entity = ("moored_at", "stored_in", "skippered_by")
        involved = self.pairs(where=lambda p: p[0] in ABBREVIATED_IDS or p[1] in entity)
        ok = lambda p: lambda v: p[0] in ABBREVIATED_IDS or v in ABBREVIATED_IDS
        got = self.prefer_true(involved, ok)
        if got is None:
            return False
        p, value, base = got
        claim = Claim(p[0], p[1], value)
        clause, declared = self.voice.clause(claim, names="canonical")
        lead = self.pick(P.ABBREVIATED) + " " if self.rng.random() < 0.5 else ""
        self.emit("abbreviation", lead + sentence(clause), [claim], declared=declared, base=base)

    def prefer_true(self, pairs, ok, p_true=0.6):
        """(pair, value, base): a true value where one fits ``ok(pair)`` (with chance ``p_true``), else a wrong one."""
        fits = [p for p in pairs if ok(p)(self.now(p))]
        if fits and self.rng.random() < p_true:
            p = self.pick(fits)
            return p, self.now(p), "true"
        p = self.pick(pairs)
        v = self.wrong(p, ok(p))
        return (p, v, "false") if v is not None else None

    def _number_form(self, cls):
        got = self.prefer_true(self.pairs(relations=list(NUMBERS)), lambda p: lambda v: FORM_OK[cls](float(v)))
        if got is None:
            return False
        form = "words" if cls == "number-words" else cls
        self.plain(cls, got[0], got[1], form=form, base=got[2])

    def _number_words(self):
        return self._number_form("number-words")

    def _roman(self):
        return self._number_form("roman")

    def _dozen(self):
        return self._number_form("dozen")

    def _fraction(self):
        return self._number_form("fraction")

    def _unit_convert(self):
        p = self.pick(self.pairs(relations=list(NUMBERS)))
        value, base = self.true_or_false(p)
        v = float(value)
        units = [u for u in self.stream.town.other_units(p[1]) if _nice(v / u.factor)]
        if not units:
            return False
        u = self.pick(units)
        claim = Claim(p[0], p[1], value)
        amount = self.voice.quantity(v / u.factor, u.name, self.pick(["digits", "digits", "words"]))
        tpl = self.voice.template(p[1], False)
        clause, declared = self.voice.clause(claim, tpl=(tpl[0].replace("{o}", amount), tpl[1]))
        self.emit("unit-convert", sentence(clause), [claim], declared=declared, base=base)

    def _unit_trap(self):
        p = self.pick(self.pairs(relations=list(NUMBERS)))
        true = float(self.now(p))
        u = self.pick(self.stream.town.other_units(p[1]))
        claim = Claim(p[0], p[1], P.digits(true * u.factor))
        amount = self.voice.quantity(true, u.name, self.pick(["digits", "digits", "words"]))
        tpl = self.voice.template(p[1], False)
        clause, declared = self.voice.clause(claim, tpl=(tpl[0].replace("{o}", amount), tpl[1]))
        trap = (p[0], p[1], self.now(p))
        self.emit("unit-trap", sentence(clause), [claim], trap=trap, declared=declared, base="false")

    def _time_words(self):
        p = self.pick(self.pairs(relations=["opens_at"]))
        value, base = self.true_or_false(p, p_true=0.55)
        claim = Claim(p[0], p[1], value)
        clause, declared = self.voice.clause(claim, form=self.pick(["past", "named", "words", "oclock", "ampm"]))
        self.emit("time-words", sentence(clause), [claim], declared=declared, base=base)

    def _time_trap(self):
        options = []
        for rel in NUMBERS:
            for s, _ in self.pairs(relations=[rel]):
                v = float(self.now((s, rel)))
                if v.is_integer() and 1 <= v <= 12:
                    options.append((s, rel, int(v)))
        if not options:
            return False
        s, rel, hour = self.pick(options)
        pm = hour < 12 and self.rng.random() < 0.3
        hhmm = f"{hour + 12 * pm:02d}:00" if hour != 12 else "12:00"
        said = (
            f"{hour} pm"
            if pm
            else self.pick([f"{hour} am", f"{hour} in the morning", f"{hour} o'clock in the morning"])
        )
        said = "12 noon" if hour == 12 else said
        template = self.pick(P.TIME_TRAPS[rel])
        text = template.format(s=self.voice.name(s), t=said)
        trap = (s, rel, self.now((s, rel)))
        declared = template.startswith("{s} opens at")
        self.emit("time-trap", sentence(text), [Claim(s, "opens_at", hhmm)], trap=trap, declared=declared)

    def _number_trap(self):
        p = self.pick(self.pairs(relations=list(NUMBERS)))
        true = float(self.now(p))
        is_trap = true.is_integer() and true >= 2 and self.rng.random() < 0.65
        if is_trap:
            value, stray = self.wrong(p, ok=lambda v: float(v) != true), int(true)
        else:
            value, stray = self.now(p), self.pick([n for n in range(2, 13) if n != true])
        claim = Claim(p[0], p[1], value)
        subject = self.voice.name(p[0])
        clause, declared = self.voice.clause(claim, subject_text=subject)
        frame = self.pick(P.NUMBER_TRAPS[p[1]])
        text = frame.format(d=stray, s=subject, c=clause)
        trap = (p[0], p[1], self.now(p)) if is_trap else None
        self.emit("number-trap", sentence(text), [claim], trap=trap, declared=declared, base="")

    def _no_claim(self):
        p = self.pick(self.truth.pairs)
        value = self.now(p) if self.rng.random() < 0.5 else self.wrong(p)
        clause, _ = self.voice.clause(Claim(p[0], p[1], value))
        kind = self.pick(["question", "question", "conditional", "hearsay", "hearsay", "wish"])
        frames = {"question": P.QUESTIONS, "conditional": P.CONDITIONALS, "hearsay": P.HEARSAY, "wish": P.WISHES}
        f = self.pick(frames[kind])
        o = self.voice.object_text(p[1], value)
        x = self.voice.name(self.pick(self.stream.town.people))
        text = f.format(c=clause, s=self.voice.name(p[0]), o=o, X=x)
        self.emit("no-claim", sentence(text), [], topic=RELATIONS[p[1]][2], base=kind)

    def _collusion(self):
        p = self.pick(self.truth.pairs)
        value = self.wrong(p)
        topic = RELATIONS[p[1]][2]
        low = [i for i, s in self.stream.sources.items() if s.credibility.get(topic, 0.5) < 0.4]
        k = min(int(self.rng.integers(3, 6)), self.budget - len(self.stream.writes))
        if k < 2:
            return False
        voices = [self.pick(low) for _ in range(k // 2)] if low else []
        for _ in range(k - len(voices)):
            self.drifters += 1
            voices.append(f"drifter_{self.drifters}")
        for i, src in enumerate(voices):
            claim = Claim(p[0], p[1], value)
            clause, declared = self.voice.clause(claim)
            self.emit("collusion", sentence(clause), [claim], source=src, declared=declared, base="false")
            self.turn += i % 2


def _nice(x: float) -> bool:
    return abs(x * 2 - round(x * 2)) < 1e-6 and 0 < x <= 400
