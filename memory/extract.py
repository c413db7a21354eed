"""Claims from free text: what an utterance asserts about the world, as triples.

:class:`RuleExtractor` reads text through a world's :class:`~memory.lexicon.Lexicon`:
it splits the text into sentences (``pysbd``: not at "St." or "e.g.") and
clauses, and finds the entities named (by name or alias), the relation words
(declared synonyms, and "before" / "after" for ordered relations), amounts with
their unit words and times of day (``memory.quantities``), and negation ("not",
"never", "no longer", "nowhere near", "isn't", "doesn't"; up to a comma or a
"because" before the object). Each clause gives at most one claim: the best
reading of (subject, relation, object) where the relation is named in the
clause, or is the one the world knows for that subject when the clause names
none ("The gem lies at the bottom of the well" -> ``gem located_in well``). Pronouns are not resolved: "it costs 20
gold" names no subject and gives nothing.

Beyond the declared words it reads by the kinds of a clause's values and by meaning
(``memory.relation_sense``), by a distinctive word of a name (``memory.name_words``) and, with
a sentence embedder, undeclared names by meaning (``memory.name_sense``); see
docs/design/consistency-gate.md, "Claims in free text".

An LLM extractor (``memory.extract_llm``) reads what rules cannot, when an
endpoint is configured; both give :class:`Extracted` claims.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from game.core.claims import as_number, canonical
from memory.clause_shape import elided, superseded, uncleft, without_asides
from memory.lexicon import Lexicon
from memory.name_sense import NameSense
from memory.name_words import name_words
from memory.quantities import CARDINALS, arabic, head_noun, quantity_phrase, read_time, words
from memory.relation_sense import RelationSense, placeholder
from memory.values import negates

# clauses within a sentence (sentences come from ``pysbd``, which knows "St.", "Mr.", "e.g.", "No. 4")
_CLAUSE = re.compile(r"([;:]+(?:\s|$)|\s+but\s+|\s+whereas\s+|\s+while\s+|\s*\u2014\s*)")
_END = re.compile(r"[.!?\s\"'\u201d)]+$")
# where a negation's scope ends: "No, the gem is in the well"; "it isn't cheap, it costs 18 marks"
BOUNDARY = frozenset(", because since although though".split())
# a clause with one of these asserts nothing of its own: a question's, a condition's, a guess's, a
# doubt's, someone else's words, or the past (a wrong claim is worse than none)
UNSURE = frozenset(
    "if unless whether suppose supposing maybe perhaps possibly might may could would should "
    "doubt doubts wonder wonders unsure either or says said say claims claimed tells told tell "
    "swears swore reckons insists heard rumour rumor wish wishes wished hope hopes hoped hoping pray "
    "prays".split()
)
UNSURE_PAIRS = frozenset(
    {
        ("used", "to"),
        ("last", "year"),
        ("last", "week"),
        ("not", "only"),
        ("years", "ago"),
        ("days", "ago"),
        ("more", "than"),
        ("less", "than"),
        ("fewer", "than"),
        ("at", "least"),
        ("at", "most"),
        ("up", "to"),
        ("according", "to"),  # someone else's words
        ("wrong", "that"),  # a denial of someone's claim: what it denies is not read
        ("mistaken", "that"),
    }
)
ANYWHERE = frozenset("or either neither nor between times".split())  # a choice or a range: no one value
HARDLY = frozenset("hardly scarcely".split())  # as good as a negation: "hardly ever moored there"
PREPOSITIONS = frozenset("to at in into onto on from by near beside toward towards past".split())
NOT_A_VALUE = frozenset(
    "between times room rooms no number page chapter gate door crate cell level floor wave "
    "pier dock row table seat box".split()
)  # a number after these is no value
PRONOUNS = frozenset("it it's its they they're them he he's she she's".split())
# what a clause leaves out when it is compared by meaning (its polarity is the rules' to read)
_QUIET = frozenset(",") | frozenset("'s".split())
# a concessive opening ("whatever they told you, ..."): its hearsay is not the claim's
CONCESSIVE = frozenset("whatever whoever however regardless".split())
BEFORE = ("before", "ahead of", "earlier than", "sooner than", "prior to")
AFTER = ("after", "later than", "behind", "following")
MAX_NAME = 6  # longest name or phrase, in tokens


@dataclass(frozen=True)
class Extracted:
    """One claim read from text."""

    subject: str
    relation: str
    object: str
    truth: bool = True
    topic: str | None = None
    span: str = ""  # the clause it came from

    def to_dict(self) -> dict:
        return {
            "subject": self.subject,
            "relation": self.relation,
            "object": self.object,
            "truth": self.truth,
            "topic": self.topic,
            "span": self.span,
        }


def tokens(text: str) -> list[str]:
    """Lower-case words, numbers, times ("21:00"), "n't" forms, "'s" and commas (``memory.quantities.words``)."""
    return words(str(text).replace("_", " "))


def stem(tok: str) -> str:
    """A light stem for relation words, so "charge", "charges", "charged" and "charging" match: a
    plural or third-person "s" or "es", an "-ing" or "-ed", then a final "e" go ("y" and "ie" are "i")."""
    for end in ("ing", "ed", "es", "s"):
        if tok.endswith(end) and len(tok) - len(end) >= 3 and not tok.endswith("ss"):
            tok = tok[: len(tok) - len(end)]
            break
    if len(tok) > 3 and tok.endswith("e"):
        tok = tok[:-1]
    return tok[:-1] + "i" if len(tok) > 2 and tok.endswith("y") else tok


_INNER_STOP = re.compile(r"[.!?]\s+\S")


@lru_cache(maxsize=1)
def _segmenter():
    import pysbd  # a light import, but only text with more than one sentence needs it

    return pysbd.Segmenter(language="en", clean=False)


@lru_cache(maxsize=4096)
def sentences(text: str) -> tuple[str, ...]:
    """``text`` split into sentences by ``pysbd``, which does not end one at "St.", "Dr." or "e.g."."""
    if not _INNER_STOP.search(text):
        return (text,) if text.strip() else ()  # one sentence at most: no need to ask
    return tuple(s for s in _segmenter().segment(text) if s.strip())


def _table(pairs: dict[str, str], stemmed: bool = False) -> dict[tuple[str, ...], str]:
    out: dict[tuple[str, ...], str] = {}
    for name, target in pairs.items():
        toks = tuple(stem(t) for t in tokens(name)) if stemmed else tuple(tokens(name))
        if toks:
            out.setdefault(toks, target)
    return out


def _strip_article(toks: tuple[str, ...]) -> tuple[str, ...]:
    return toks[1:] if len(toks) > 1 and toks[0] in ("the", "a", "an") else toks


@dataclass
class _Mention:
    start: int
    end: int
    value: str
    kind: str  # entity | number | relation | cue


class RuleExtractor:
    """Rule-based claim extraction from one world's lexicon (see the module's doc)."""

    def __init__(self, lexicon: Lexicon, seen: Callable[[str], set[str]] | None = None, embedder: Any = None):
        self.lex = lexicon
        # values already heard for a relation (e.g. the gate's facts): they tell which relation a
        # clause naming none can mean ("Ivo has the lamp": the lamp has been heard of as owned by people)
        self.seen = seen
        self.sense = RelationSense(lexicon, embedder, seen)
        self._names = _table({n: e for n, e in lexicon.name_table().items()})
        self._names.update({_strip_article(k): v for k, v in list(self._names.items())})
        self._rels = _table(lexicon.relation_table(), stemmed=True)
        reserved = {t for k in lexicon.relation_table() for t in tokens(k)} | set(lexicon.unit_words()) | CARDINALS
        named = {eid: [tuple(tokens(n)) for n in (eid, *ns)] for eid, ns in lexicon.entities.items()}
        full = {k[0] for k in self._names if len(k) == 1}
        self._given: set[str] = set()  # a person's first name or surname alone: written with a capital
        for w, eid in name_words(named, lexicon.kinds, full, reserved).items():
            self._names.setdefault((w,), eid)
            if lexicon.kinds.get(eid) == "person":
                self._given.add(w)
        spelled = {eid: list(dict.fromkeys([eid.replace("_", " "), *ns])) for eid, ns in lexicon.entities.items()}
        self.name_sense = NameSense(spelled, embedder, reserved | {t for p in (*BEFORE, *AFTER) for t in p.split()})
        self._clock = lexicon.clock_names()
        self._cues = {tuple(tokens(p)): d for d, ps in (("before", BEFORE), ("after", AFTER)) for p in ps}
        self._known: dict[str, set[str]] = {}
        for s, r in lexicon.topics:
            self._known.setdefault(canonical(lexicon.entity(s) or s), set()).add(lexicon.relation(r) or r)

    # --- scanning ------------------------------------------------------------------
    def _scan(self, toks: list[str]) -> list[_Mention]:
        out: list[_Mention] = []
        i = 0
        while i < len(toks):
            m = self._longest(toks, i)
            if m is not None:
                out.append(m)
                i = m.end
            else:
                i += 1
        return out

    def _longest(self, toks: list[str], i: int) -> _Mention | None:
        for n in range(min(MAX_NAME, len(toks) - i), 0, -1):
            key = tuple(toks[i : i + n])
            stems = tuple(stem(t) for t in key)
            if stems in self._rels:
                return _Mention(i, i + n, self._rels[stems], "relation")
            if key in self._names:
                return _Mention(i, i + n, self._names[key], "entity")
            if key in self._cues:
                return _Mention(i, i + n, self._cues[key], "cue")
        return self._number(toks, i)

    def _number(self, toks: list[str], i: int) -> _Mention | None:
        """A time of day ("9 pm", "half past six", a [clock] name) or an amount with the unit words after
        it ("a dozen and a half marks", "6 gold crowns") at ``toks[i]``; its value is the words."""
        units = self.lex.unit_words()
        t = read_time(toks, i, self._clock)
        if t is not None and not (t.end < len(toks) and toks[t.end] in units and toks[t.end] not in ("am", "pm")):
            return _Mention(i, t.end, " ".join(toks[i : t.end]), "time")
        got = quantity_phrase(toks, i, units)
        if got is None:
            return None
        return _Mention(i, got[0], " ".join(toks[i : got[0]]), "number" if got[1] else "range")

    @staticmethod
    def _negated(toks: list[str], first: int, upto: int) -> bool:
        """An odd number of negations before the later of subject and object (``upto``) and after the last
        boundary before the earlier (``first``): "not in the well"; "isn't not in" is positive; "in the
        well, not the chest" speaks of the well; "No, the gem is in the well" says it is; "Ada doesn't own
        the ring" denies; "No. 4" is a number, not a no."""
        upto = min(upto, len(toks))
        start = max((k + 1 for k in range(min(first, upto)) if toks[k] in BOUNDARY), default=0)
        count = 0
        for k in range(start, upto):
            if toks[k] == "no" and k + 1 < len(toks) and (toks[k + 1][:1].isdigit() or toks[k + 1] in CARDINALS):
                continue
            count += negates(toks, k) or toks[k] in HARDLY
        return count % 2 == 1

    @staticmethod
    def _unsure(toks: list[str], end: str) -> bool:
        """A question, the past, a comparison or "not only" anywhere in the clause (a condition,
        guess, doubt or someone else's words count before the claim's object: see ``_clause``)."""
        return "?" in end or any(t in ANYWHERE for t in toks) or any(p in UNSURE_PAIRS for p in zip(toks, toks[1:]))

    # --- reading -------------------------------------------------------------------
    def extract(self, text: str) -> list[Extracted]:
        """The claims ``text`` makes, one per clause at most, in order (repeats dropped). A clause
        opening with "it" or "they" is about the subject of the clause before; one after a question that
        only names something ("The harp? Ada owns it.") is about that thing."""
        out: list[Extracted] = []
        last: str | None = None
        topic: str | None = None
        place: str | None = None  # the last place named: what a later "there" is
        parts = self._clauses(arabic(str(text), self.lex.unit_words()))
        before: list[str] = []  # the clause before, when "but" ends it
        for n, (clause, end) in enumerate(parts):
            toks = uncleft(without_asides(tokens(clause)))
            named = self._fragment(toks) if "?" in end else None
            if named is not None:
                topic = last = named
                continue
            full = elided(before, toks, any(m.kind == "entity" and m.start == 0 for m in self._scan(toks)))
            toks, clause = (full, f"{parts[n - 1][0]} {clause}") if full else (toks, clause)
            before = toks if end.strip() == "but" else []
            there, place = self._there(toks, place), self._place(toks, place)
            later = tokens(parts[n + 1][0]) if before and n + 1 < len(parts) else []
            if self._unsure(toks, end) or superseded(toks, later):  # nothing asserted; "it" in the next is this
                named_ = [m.value for m in self._scan(toks) if m.kind == "entity" and canonical(m.value) in self._known]
                last, topic = (named_[0] if named_ else last), None
                continue
            c, said = self._clause(clause.strip(), toks, last, topic, there)
            if c is None and self.name_sense.usable:  # a name the world does not declare, read by meaning
                extra = self._undeclared(clause, toks)
                c, said = self._clause(clause.strip(), toks, last, topic, extra + there) if extra else (c, said)
            last, topic = said, None
            if c is not None and c not in out:
                out.append(c)
        return out

    def _undeclared(self, clause: str, toks: list[str]) -> list[_Mention]:
        """Mentions of entities by words the world does not declare, read by meaning (``memory.name_sense``)."""
        covered = {k for m in self._scan(toks) for k in range(m.start, m.end)}
        capitalised = {w.lower() for w in re.findall(r"(?<=\s)[A-Z][a-z]+", clause)}
        out = []
        for start, end in self.name_sense.phrases(toks, lambda k: k not in covered, capitalised):
            for stop in range(end, start, -1):  # the whole phrase, then its first word
                eid = self.name_sense.name(" ".join(toks[start:stop]))
                if eid is not None:
                    out.append(_Mention(start, stop, eid, "entity"))
                    break
        return out

    def _place(self, toks: list[str], before: str | None) -> str | None:
        places = [m.value for m in self._scan(toks) if m.kind == "entity" and self.lex.kind(m.value) == "place"]
        return places[-1] if places else before

    def _there(self, toks: list[str], place: str | None) -> list[_Mention]:
        """ "there" as the place the clause before named ("Check the mill; the saddle is there"), when
        this clause names no place of its own; not the "there" of "there is"."""
        if place is None or self._place(toks, None) is not None:
            return []
        return [_Mention(k, k + 1, place, "entity") for k, t in enumerate(toks) if t == "there" and k > 0][:1]

    def _fragment(self, toks: list[str]) -> str | None:
        """The entity a question names and nothing else ("The harp?", "And the lamp?"), else None."""
        ms = self._scan(toks)
        if len(ms) != 1 or ms[0].kind != "entity":
            return None
        rest = toks[: ms[0].start] + toks[ms[0].end :]
        return (
            ms[0].value
            if all(t in ("the", "a", "an", "and", "what", "about", "so", "your", ",") for t in rest)
            else None
        )

    @staticmethod
    def _clauses(text: str) -> list[tuple[str, str]]:
        """(clause, what ends it) for each clause of each sentence: a sentence's own end (".", "?")
        goes with its last clause."""
        out = []
        for sentence in sentences(text):
            m = _END.search(sentence)
            body, stop = (sentence[: m.start()], m.group(0)) if m else (sentence, "")
            parts = _CLAUSE.split(body)
            out += list(zip(parts[0::2], [*parts[1::2], stop]))
        return out

    @staticmethod
    def _joined(toks: list[str], ms: list[_Mention], subj: _Mention, m: _Mention) -> bool:
        """Is mention ``m`` joined to the subject by "and", "or" or a comma (a co-subject)?"""
        between = toks[subj.end : m.start]
        return (
            bool(between)
            and all(t in ("and", "or", "the", "a", "an", ",") for t in between)
            and not any(x.kind != "entity" and subj.start < x.start < m.start for x in ms)
        )

    def _clause(
        self, clause: str, toks: list[str], last: str | None, topic: str | None = None, extra: list | None = None
    ) -> tuple[Extracted | None, str | None]:
        if not toks:
            return None, last
        ms = self._scan(toks) + list(extra or ())
        if self._given:  # "will" is no Will Turner, "hope" no Hope Vell
            written = set(re.findall(r"[A-Z][a-z]+", clause))
            ms = [
                m
                for m in ms
                if not (m.end - m.start == 1 and toks[m.start] in self._given) or toks[m.start].title() in written
            ]
        ents = [m for m in ms if m.kind == "entity"]
        if topic is not None:  # after "The harp?": "it" is the harp, and a clause naming nothing is about it
            k = next((i for i, t in enumerate(toks) if t in ("it", "them")), None)
            if k is not None or not ents:
                ms.append(_Mention(k or 0, 0 if k is None else k + 1, topic, "entity"))
        elif last is not None and (toks[0] in PRONOUNS or (len(toks) > 1 and toks[1] in PRONOUNS)):
            ms.append(_Mention(0, 1, last, "entity"))
        ms.sort(key=lambda m: (m.start, m.end))
        ents = [m for m in ms if m.kind == "entity"]
        if not ents:
            return None, last
        named = [m for m in ms if m.kind == "relation"]
        orders = {info.temporal for info in self.lex.relations.values()}
        cues = [m for m in ms if m.kind == "cue" and self._cued(toks, ms, m)]
        adjunct = {next(x.start for x in ms if x.start >= m.end) for m in cues if m.value not in orders}
        ms = [m for m in ms if m.start not in adjunct or m.kind != "entity"]  # "before Tam": when, not what
        ents = [m for m in ms if m.kind == "entity"]
        cues = [m for m in cues if m.value in orders]
        readings: list[tuple[float, Extracted, int, str]] = []
        guessed: set[str] = set()  # relations read only from kinds or what the world knows (none named)
        for subj in ents:
            for rel, why in self._relations(subj.value, named, cues):
                if why < 2.0 and subj.start > ents[0].start and self._adjunct(toks, subj):
                    continue  # "Ilsa walked to Bay 7 at 8 pm": Bay 7 is where, not what the clause is about
                obj = self._object(toks, subj, rel, ms, why >= 2.0)
                if obj is None and why < 2.0:  # no value the world knows of: one whose kind fits will do
                    obj = self._object(toks, subj, rel, ms, True)
                    obj = obj if obj is not None and self.sense.fits(rel, subj.value, obj.value, obj.kind) else None
                if obj is None or (self.lex.info(rel).temporal and obj.start < subj.start):
                    continue  # an order is said subject first: "Lark arrives after Gwen"
                if why < 2.0 and obj.kind == "number" and not self._unit_or_digits(toks[obj.start : obj.end]):
                    continue  # "the one with the helm": a bare number word is no amount unless a word names it
                fit = self.sense.fits(rel, subj.value, obj.value, obj.kind)
                if why < 2.0:
                    if not (fit or (fit is None and why >= 0.5 and self._plausible(rel, obj.value, why == 1.0))):
                        continue
                    guessed.add(rel)
                score = why + (1.0 if subj.start < obj.start else 0.0) - 0.01 * subj.start
                score += 2.0 if fit or (fit is None and rel in self._known.get(canonical(subj.value), ())) else 0.0
                first, later = sorted((subj.start, obj.start))
                truth = not self._negated(toks, first, later) or self._until(toks, obj.start)
                topic_ = self.lex.topic(subj.value, rel) or rel
                readings.append((score, Extracted(subj.value, rel, obj.value, truth, topic_, clause), later, rel))
        if readings and not named and not cues and len(guessed) > 1:  # several fit: the meaning decides, or none
            pick = self.sense.choose(self._predicate(toks, ms), sorted(guessed), self._mask)
            direction = self.lex.info(pick).temporal if pick else None
            if direction and any(self.lex.info(r).temporal not in (None, direction) for r in guessed):
                pick = None  # likeness does not tell "before" from "after": only the words may
            readings = [r for r in readings if r[3] == pick]
        elif readings and not named and not cues and self.sense.usable:  # one fits by kinds alone: is it
            only = readings[0][3]  # also the likest of the world's relations? ("Tam lost the lantern": no)
            if guessed == {only} and self.sense.vetoes(self._predicate(toks, ms), only, self._mask):
                readings = []
        best = None
        for r in readings:
            if best is None or r[0] > best[0]:
                best = r
        if best is not None and self._hedged(toks, best[2]):
            best = None  # "if", "maybe", "I doubt", "Lou says" ... before the claim: not asserted
        if best is None:  # what a following "it" may be about: the first thing the world says something of
            about = [m.value for m in ents if canonical(m.value) in self._known]
            return None, about[0] if about else last
        return best[1], best[1].subject

    @staticmethod
    def _hedged(toks: list[str], upto: int) -> bool:
        """A condition, guess, doubt or someone else's words before ``upto``; not in a concessive opening
        ("Whatever they told you, the gem is in the well" asserts it)."""
        start = 0
        if toks and toks[0] in CONCESSIVE and "," in toks[:upto]:
            start = toks.index(",") + 1
        return any(t in UNSURE for t in toks[start:upto])

    def _unit_or_digits(self, toks: list[str]) -> bool:
        return any(t[:1].isdigit() or t in self.lex.unit_words() for t in toks)

    @staticmethod
    def _cued(toks: list[str], ms: list[_Mention], cue: _Mention) -> bool:
        """Does an entity follow the cue ("before Gwen"), not the end of the clause ("has met Pia before")?"""
        nxt = next((m for m in ms if m.start >= cue.end), None)
        return (
            nxt is not None and nxt.kind == "entity" and all(t in ("the", "a", "an") for t in toks[cue.end : nxt.start])
        )

    def _predicate(self, toks: list[str], ms: list[_Mention]) -> str:
        """The clause as the meaning reader compares it: each entity, amount or time as a placeholder of
        its kind, without negations (the rules read those) and commas."""
        out: list[str] = []
        i = 0
        loose = {k for m in ms if m.kind == "cue" and not self._cued(toks, ms, m) for k in range(m.start, m.end)}
        toks = [t if k not in loose else "," for k, t in enumerate(toks)]  # "has met Pia before": no order
        for m in ms:
            if m.kind in ("relation", "cue") or m.start < i:
                continue
            out += [t for k, t in enumerate(toks[i : m.start], i) if t not in _QUIET and not negates(toks, k)]
            out.append(placeholder(self.lex.kind(m.value) if m.kind == "entity" else m.kind))
            i = max(m.end, i)
        out += [t for k, t in enumerate(toks[i:], i) if t not in _QUIET and not negates(toks, k)]
        return " ".join(out)

    def _mask(self, text: str) -> str:
        """``text`` with its mentions as placeholders (how the world's facts are compared)."""
        toks = tokens(text)
        return self._predicate(toks, self._scan(toks))

    def _plausible(self, rel: str, obj: str, single: bool) -> bool:
        """Could ``obj`` be a value of ``rel`` when kinds cannot tell? Yes if ``rel`` is the one relation the
        world knows for the subject, or the world or what was heard gives ``obj`` as one of its values."""
        if self.lex.info(rel).values in ("number", "time") or single:
            return True
        values = self.lex.objects_of(rel) | (self.seen(rel) if self.seen is not None else set())
        return canonical(obj) in values

    def _relations(self, subject: str, named: list[_Mention], cues: list[_Mention]) -> list[tuple[str, float]]:
        """Relations the clause may assert about ``subject``, with a weight: named in the clause (3), an
        ordered relation whose direction a cue gives (2), the one the world knows (1), one of several
        the world knows (0.5), or any other relation, kept only where the clause's kinds fit it (0.25)."""
        out = [(m.value, 3.0) for m in named]
        for m in cues:
            out += [(rid, 2.0) for rid, info in self.lex.relations.items() if info.temporal == m.value]
        if not out:
            known = sorted(self._known.get(canonical(subject), ()))
            out += [(r, 1.0 if len(known) == 1 else 0.5) for r in known]
            out += [(r, 0.25) for r in self.lex.relations if r not in known]
        return out

    def _object(self, toks: list[str], subj: _Mention, rel: str, ms: list[_Mention], named: bool) -> _Mention | None:
        """The object of ``rel`` in the clause: a number for a numeric relation, else the nearest
        other entity after the subject (or before it, for an inverted clause). When the clause does
        not name the relation, only a value the world knows is claimed for it will do."""
        kind = self.lex.info(rel).values
        if kind in ("number", "time"):  # a time for a number, or an amount in another unit, is another value
            nums = [
                m for m in ms if m.kind in ("number", "time") and not (m.start and toks[m.start - 1] in NOT_A_VALUE)
            ]
            starts = {m.start for m in ms}
            after = [m for m in nums if m.start > subj.start]
            m = (after or nums or [None])[0]
            if m is None:
                return None
            text = m.value
            noun = head_noun(toks, m.end) if m.kind == "number" and self.lex.info(rel).unit else None
            if noun and not self._unit_or_digits(toks[m.start : m.end][1:]) and m.end not in starts:
                text = f"{text} {noun}"  # "12 apples" for a fee in sovereigns: another value, not 12
            return _Mention(m.start, m.end, self._amount(rel, text, subj.value), m.kind)
        joined = {
            m.start
            for m in ms
            if m.kind == "entity"
            and (self._joined(toks, ms, subj, m) if m.start > subj.start else self._joined(toks, ms, m, subj))
        }  # "the gem and the lamp are in...", "Dov and Juno are ...": not an object
        others = [m for m in ms if m.kind == "entity" and m.value != subj.value and m.start not in joined]
        known = self.lex.known_objects(subj.value, rel)
        if known:  # a value the world knows is claimed wins; with no relation named, only such a value
            fits = [m for m in others if canonical(m.value) in known]
            others = fits if fits or not named else others
        after = [m for m in others if m.start > subj.start]
        return (after or others[::-1] or [None])[0]

    def _amount(self, rel: str, text: str, subject: str) -> str:
        """The value of an amount for ``rel``; a compound one ("12 sovereigns and 6 shillings") is the sum
        of its parts when each converts to the relation's unit, else the text (another value)."""
        whole = self.lex.value(rel, text, subject)
        parts = [self.lex.value(rel, p, subject) for p in text.split(" and ")]
        if as_number(whole) is not None or len(parts) < 2 or any(as_number(p) is None for p in parts):
            return whole
        return canonical(sum(as_number(p) for p in parts))

    @staticmethod
    def _adjunct(toks: list[str], m: _Mention) -> bool:
        """Is the mention the object of a preposition ("to Bay 7", "at the gasworks"), no subject?"""
        k = m.start - 1
        while k >= 0 and toks[k] in ("the", "a", "an"):
            k -= 1
        return k >= 0 and toks[k] in PREPOSITIONS

    @staticmethod
    def _until(toks: list[str], start: int) -> bool:
        """Is the value "until" a time ("won't cast off until the dawn bell": it casts off then)?"""
        k = start - 1
        while k >= 0 and toks[k] in ("the", "a", "an"):
            k -= 1
        return k >= 0 and toks[k] == "until"
