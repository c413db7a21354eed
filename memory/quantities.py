"""Amounts with their units, and times of day, as people say them.

The readers work on the lower-case tokens of :func:`memory.extract.tokens` (a
``"21:00"`` stays one token, ``"o'clock"`` is ``"oclock"``) and return what they
read with the index after it, so a caller can tell where a quantity ends:

* :func:`read_amount`: digits with separators ("1,200", "3.5"), number words
  (read by ``text2num``: "twenty-five", "one hundred and five"), dozens and
  scores ("a dozen and a half" 18, "half a dozen" 6, "three score and ten" 70),
  halves and quarters ("two and a half", "half a mark");
* :func:`read_time`: "21:00", "9 pm", "nine in the evening", "half past six",
  "quarter to seven", "six o'clock", "noon", "midnight" and the world's named times
  (``[clock]``: dusk = "19:00"), as minutes after midnight;
* :func:`arabic`: Roman numerals that stand as a number ("XXX marks" -> "30
  marks"; read with ``roman``), never the pronoun "I" or a name's numeral;
* :class:`Units`: a world's units (``[units]``) and how one converts to another.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import roman
from text_to_num import text2num

from game.core.claims import as_number, canonical

# English number words text2num reads, in the order values' patterns need them
ONES = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen".split()
    )
}
TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if i > 1}
SCALES = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
# a scale after digits multiplies them: "12 thousand", "1.2 million", "12k" (read as "12", "k")
DIGIT_SCALES = {**SCALES, "billion": 1_000_000_000, "k": 1000}
CARDINALS = frozenset(ONES) | frozenset(TENS) | frozenset(SCALES)
MULTIPLES = {"dozen": 12, "score": 20}
FRACTIONS = {"half": 0.5, "quarter": 0.25}
GROUPS = {"couple": 2, "pair": 2}
# every word that can be part of an amount (what a scanner may look at)
AMOUNT_WORDS = CARDINALS | frozenset(MULTIPLES) | frozenset(FRACTIONS) | frozenset(GROUPS) | {"and", "a", "an", "of"}
# money words any money relation takes, whatever its unit ("20 gold coins", "20 crowns apiece")
MONEY = frozenset("coin coins piece pieces gp each apiece".split())
# units people name that a world may not take: a number in one of them is not a number in the relation's unit
CURRENCY = frozenset(
    "gold silver copper coppers silvers crown crowns mark marks credit credits dollar dollars euro euros "
    "pound pounds ducat ducats florin florins shilling shillings penny pennies pence dinar dinars dirham "
    "dirhams drachma drachmas denarii denarius sovereign sovereigns guilder guilders thaler thalers "
    "talent talents shekel shekels rupee rupees yen yuan bits noble nobles groat groats farthing "
    "farthings".split()
)
MEASURES = frozenset(
    "percent % hour hours minute minutes day days week weeks month months year years mile miles "
    "league leagues foot feet yard yards pace paces inch inches pound pounds stone stones".split()
)
TIME_WORDS = frozenset("am pm oclock noon midnight midday".split())
_DIGITS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_CLOCK = re.compile(r"([01]?\d|2[0-3]):([0-5]\d)")
_DOTTED = re.compile(r"([01]?\d|2[0-3])\.([0-5]\d)")  # "9.30 pm": a time only with its period


@lru_cache(maxsize=8192)
def _cardinal(words: tuple[str, ...]) -> float | None:
    """The number a run of number words spells ("twenty five", "one hundred and five"), by ``text2num``;
    "a hundred" is one hundred. None if the words are no number ("nineteen ninety" is not 109)."""
    if not words:
        return None
    if words[0] in ("a", "an") and len(words) > 1 and words[1] in SCALES:
        words = ("one", *words[1:])
    if words[0] in ("a", "an", "and") or words[-1] == "and":
        return None
    try:
        return float(text2num(" ".join(words), "en"))
    except ValueError:
        return None


def _digits(tok: str) -> float | None:
    if not _DIGITS.fullmatch(tok):
        return None
    if "," in tok and "." not in tok and not re.fullmatch(r"\d{1,3}(?:,\d{3})+", tok):
        return None
    return as_number(tok.replace(",", ""))


def _base(toks: list[str], i: int) -> tuple[float, int] | None:
    """A plain number at ``toks[i]``: digits, the longest run of number words text2num reads,
    "a"/"an" (one, before a multiple or a scale), "a couple", "a pair"."""
    n = len(toks)
    if i >= n:
        return None
    x = _digits(toks[i])
    if x is not None:
        if i + 1 < n and toks[i + 1] in DIGIT_SCALES:
            return x * DIGIT_SCALES[toks[i + 1]], i + 2
        return x, i + 1
    if toks[i] in ("a", "an") and i + 1 < n and toks[i + 1] in GROUPS:
        end = i + 3 if i + 2 < n and toks[i + 2] == "of" else i + 2
        return float(GROUPS[toks[i + 1]]), end
    j = i
    while j < n and (
        toks[j] in CARDINALS
        or toks[j] == "and"
        or (j == i and toks[j] in ("a", "an"))
        or (toks[j] == "," and j > i and toks[j - 1] in SCALES and j + 1 < n and toks[j + 1] in CARDINALS)
    ):  # "one thousand, two hundred" as written out
        j += 1
    for end in range(j, i, -1):
        x = _cardinal(tuple(t for t in toks[i:end] if t != ","))
        if x is not None:
            return x, end
    if toks[i] in ("a", "an") and i + 1 < n and toks[i + 1] in MULTIPLES:
        return 1.0, i + 1
    return None


def read_amount(toks: list[str], i: int = 0) -> tuple[float, int] | None:
    """The amount that starts at ``toks[i]`` and the index after it, else None (see the module's doc)."""
    n = len(toks)
    if i < n and toks[i] in FRACTIONS:  # "half a dozen", "half a mark", "a quarter of a mark"
        j = i + 1 + (i + 1 < n and toks[i + 1] == "of")
        if j < n and toks[j] in ("a", "an"):
            part = FRACTIONS[toks[i]]
            if j + 1 < n and toks[j + 1] in MULTIPLES:
                return part * MULTIPLES[toks[j + 1]], j + 2
            return part, j + 1
        return None
    if i + 1 < n and toks[i] in ("a", "an") and toks[i + 1] in FRACTIONS:
        j = i + 2 + (i + 2 < n and toks[i + 2] == "of")
        if j < n and toks[j] in ("a", "an"):  # "a half of a mark"
            return FRACTIONS[toks[i + 1]], j + 1
        return None
    got = _base(toks, i)
    if got is None:
        return None
    x, j = got
    unit = 1.0
    if j < n and toks[j] in MULTIPLES:  # "two dozen", "a score", "three score and ten"
        unit = float(MULTIPLES[toks[j]])
        x, j = x * unit, j + 1
        more = _base(toks, j + 1) if j < n and toks[j] == "and" and j + 1 < n and toks[j + 1] in CARDINALS else None
        if more is not None and more[0] < unit:
            x, j = x + more[0], more[1]
    if j + 2 < n and toks[j] == "and" and toks[j + 1] in ("a", "an") and toks[j + 2] in FRACTIONS:
        x, j = x + FRACTIONS[toks[j + 2]] * unit, j + 3  # "a dozen and a half", "two and a half"
    return x, j


def read_quantity(toks: list[str], i: int, units: frozenset[str] | set[str]) -> tuple[float, int, list[str]] | None:
    """An amount at ``toks[i]`` with the unit words after it: (the amount, the index after it all, the unit
    words). "a" or "an" before a unit is one ("a mark"), and a half after the unit counts ("a mark and a
    half" is 1.5 marks); "of" may stand between ("a score of marks")."""
    n = len(toks)
    got = read_amount(toks, i)
    if got is None:
        if not (i + 1 < n and toks[i] in ("a", "an") and toks[i + 1] in units):
            return None
        got = (1.0, i + 1)
    x, j = got
    j += j + 1 < n and toks[j] == "of" and toks[j + 1] in units
    k = j
    while k < n and toks[k] in units:
        k += 1
    if k > j and k + 2 < n and toks[k] == "and" and toks[k + 1] in ("a", "an") and toks[k + 2] in FRACTIONS:
        x, k = x + FRACTIONS[toks[k + 2]], k + 3
    return x, k, toks[j:k]


# before a number: a bound or a comparison ("over 12", "at least 12", "more than 12"), no one value
BOUNDS = frozenset("over under above below beyond exceeding least most than between upwards upward".split())
# words that end the noun phrase after a number (its unit or head noun comes before them)
PHRASE_BREAK = frozenset(
    "at in on for to from by with into onto per as and but or nor so because if when while is are was were "
    "be been has have had do does did will would can could shall should may might must not no now then "
    "a an this that these those it they he she we you i".split()
)


def quantity_phrase(
    toks: list[str], i: int, units: frozenset[str] | set[str], reach: int = 4
) -> tuple[int, bool] | None:
    """The whole quantity phrase at ``toks[i]``: (the index after it, is it one value). Past the amount
    and its unit words it takes the noun phrase on to a unit a few plain words on ("12 Dutch thalers",
    "12 of your finest thalers", "12 pieces of silver") and a second amount in units joined by "and"
    ("12 sovereigns and 6 shillings"), so that what the unit is is read from all of it. A bound before it
    ("over 12", "at least 12") or a range after it ("12 to 15 marks") is no one value."""
    got = read_quantity(toks, i, units)
    if got is None:
        return None
    _, k, unit = got
    n = len(toks)
    single = not (i and toks[i - 1] in BOUNDS)
    if k + 1 < n and toks[k] in ("to", "or"):
        more = read_quantity(toks, k + 1, units)
        if more is not None:
            return more[1], False
    if not unit or toks[k : k + 1] == ["of"]:
        for j in range(k, min(n, k + reach)):
            if toks[j] in units:
                k = j + 1
                while k < n and toks[k] in units:
                    k += 1
                break
            if toks[j] in PHRASE_BREAK or not toks[j].isalpha():
                break
    if unit and k + 1 < n and toks[k] == "and":
        more = read_quantity(toks, k + 1, units)
        if more is not None and more[2]:
            return more[1], single
    return k, single


# words after a bare number that are no head noun of it ("12 now", "12 exactly")
NOT_HEAD = frozenset(
    "now today tonight tomorrow yesterday exactly flat only again too still then though yet even already "
    "anyway here there sharp apiece each all total altogether".split()
)


def head_noun(toks: list[str], k: int) -> str | None:
    """The head noun a bare number at ``toks[:k]`` counts ("12 apples", "18 souls"), else None: the
    word after it, when it is a plain word that ends no noun phrase and is no adverb."""
    if k >= len(toks):
        return None
    t = toks[k]
    if not t.isalpha() or t in PHRASE_BREAK or t in NOT_HEAD or t in CARDINALS or t.endswith("ly"):
        return None
    return t


def amount(text: str) -> float | None:
    """The amount ``text`` is, all of it, else None ("a dozen and a half" 18, "1,200", "twenty-five")."""
    toks = words(text)
    got = read_amount(toks, 0)
    return got[0] if got is not None and got[1] == len(toks) else None


def words(text: str) -> list[str]:
    """``text`` as the readers' tokens (lower case; "21:00", "pm" and "oclock" kept whole)."""
    t = str(text).lower().replace("\u2019", "'")
    t = re.sub(r"\b([ap])\.\s?m\b\.?", r"\1m", t)
    t = re.sub(r"\bo'?\s?clock\b", "oclock", t)
    t = re.sub(r"(?<=[a-z])-(?=[a-z])", " ", t)
    return re.findall(r"\d{1,2}:\d{2}|\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|[a-z]+n't|[a-z]+|'s|%|,", t)


# --- Roman numerals ----------------------------------------------------------------------------
_ROMAN = re.compile(r"\b[MDCLXVI]+\b")


@lru_cache(maxsize=4096)
def _roman(tok: str) -> int | None:
    try:
        return int(roman.fromRoman(tok))
    except roman.RomanError:
        return None


def arabic(text: str, units: Iterable[str] = ()) -> str:
    """``text`` with each Roman numeral that stands as a number written in digits: one followed by a
    unit or money word ("XXX marks", "IV gold crowns"). Others stay: "I" the pronoun, "Henry VIII"."""
    unit_words = set(units) | MONEY | CURRENCY

    def sub(m: re.Match) -> str:
        after = re.match(r"\s+([A-Za-z]+)", text[m.end() :])
        x = _roman(m.group(0))
        if x is None or after is None or after.group(1).lower() not in unit_words:
            return m.group(0)
        return str(x)

    return _ROMAN.sub(sub, text)


def roman_number(text: str) -> int | None:
    """The number ``text`` is when it is a Roman numeral only, in capitals ("XXX"; not "I" alone)."""
    t = str(text).strip()
    return _roman(t) if len(t) > 1 and _ROMAN.fullmatch(t) else None


# --- times of day ----------------------------------------------------------------------------------
PERIODS = {
    ("am",): "am",
    ("pm",): "pm",
    ("in", "the", "morning"): "am",
    ("in", "the", "afternoon"): "pm",
    ("in", "the", "evening"): "pm",
    ("at", "night"): "pm",
    ("tonight",): "pm",
}
_NAMED = {"noon": 720, "midday": 720, "midnight": 0}


@dataclass(frozen=True)
class TimeOfDay:
    """A time read from words: minutes after midnight; ``loose`` when the words leave morning or
    evening open ("half past six", "at 9"), so the time may also be twelve hours later."""

    minutes: int
    end: int
    loose: bool = False

    def text(self, later: bool = False) -> str:
        m = (self.minutes + (720 if later else 0)) % 1440
        return f"{m // 60:02d}:{m % 60:02d}"


def _hour(toks: list[str], i: int) -> tuple[int, int] | None:
    """An hour of the clock (1-12 or 0-23 in digits) at ``toks[i]``."""
    if i >= len(toks):
        return None
    if toks[i].isdigit() and len(toks[i]) <= 2:  # a longer run of digits is no hour (nor an int() to make)
        h = int(toks[i])
        return (h, i + 1) if 0 <= h <= 23 else None
    if toks[i] in ONES and 1 <= ONES[toks[i]] <= 12:
        return ONES[toks[i]], i + 1
    return None


def _period(toks: list[str], i: int) -> tuple[str, int] | None:
    for words_, p in PERIODS.items():
        if tuple(toks[i : i + len(words_)]) == words_:
            return p, i + len(words_)
    return None


def _with_period(h: int, m: int, toks: list[str], j: int, loose: bool) -> TimeOfDay:
    p = _period(toks, j)
    if p is None or h > 12:
        return TimeOfDay((h % 24) * 60 + m, j, loose and 1 <= h <= 12)
    at_night = toks[j : j + 2] == ["at", "night"]
    h = 0 if (h == 12 and (p[0] == "am" or at_night)) else (h % 12 + (12 if p[0] == "pm" else 0))
    return TimeOfDay(h * 60 + m, p[1])


def _minutes(toks: list[str], i: int) -> tuple[int, int] | None:
    """Minutes before "past" / "to": "half", "quarter", "a quarter", "ten", "twenty-five", "20 minutes"."""
    if i < len(toks) and toks[i] in ("a",):
        i += 1
    if i < len(toks) and toks[i] in ("half", "quarter"):
        return (30 if toks[i] == "half" else 15), i + 1
    got = _base(toks, i)
    if got is None or not got[0].is_integer() or not 1 <= got[0] <= 59:
        return None
    j = got[1] + (got[1] < len(toks) and toks[got[1]] in ("minute", "minutes"))
    return int(got[0]), j


def read_time(toks: list[str], i: int = 0, clock: Mapping[tuple[str, ...], int] | None = None) -> TimeOfDay | None:
    """The time of day that starts at ``toks[i]``, else None. A bare number is no time here (a time
    relation reads it as an hour: :func:`time_value`). ``clock``: named times (tokens -> minutes)."""
    n = len(toks)
    if i >= n:
        return None
    for name, minutes in sorted((clock or {}).items(), key=lambda kv: -len(kv[0])):
        if name and tuple(toks[i : i + len(name)]) == name:
            return TimeOfDay(minutes, i + len(name))
    if toks[i] in _NAMED:
        return TimeOfDay(_NAMED[toks[i]], i + 1)
    m = _CLOCK.fullmatch(toks[i]) or (_DOTTED.fullmatch(toks[i]) if _period(toks, i + 1) else None)
    if m:
        h, mm = int(m.group(1)), int(m.group(2))
        return _with_period(h, mm, toks, i + 1, loose=len(m.group(1)) == 1 and h > 0)
    mins = _minutes(toks, i)
    if mins is not None and mins[1] < n and toks[mins[1]] in ("past", "to", "after", "before"):
        hour = _hour(toks, mins[1] + 1)
        if hour is not None and hour[0] <= 12:
            h, j = hour
            if toks[mins[1]] in ("past", "after"):
                start = h * 60 + mins[0]
            else:
                start = (h - 1) % 12 * 60 + (60 - mins[0]) if h else 23 * 60 + 60 - mins[0]
            t = _with_period(start // 60, start % 60, toks, j, loose=True)
            return TimeOfDay(t.minutes, t.end + (t.end < n and toks[t.end] == "oclock"), t.loose)
    hour = _hour(toks, i)
    if hour is None:
        return None
    h, j = hour
    mm = 0
    if j < n and (toks[j] in TENS or ONES.get(toks[j], 0) >= 10):  # "six thirty pm", "seven fifteen"
        after = _base(toks, j)
        if after is not None and 10 <= after[0] <= 59 and _period(toks, after[1]) is not None:
            mm, j = int(after[0]), after[1]
    if j < n and toks[j] == "oclock":
        return _with_period(h, mm, toks, j + 1, loose=True)
    if _period(toks, j) is not None:
        return _with_period(h, mm, toks, j, loose=False)
    return None


def clock_table(named: Mapping[str, str]) -> dict[tuple[str, ...], int]:
    """A world's ``[clock]`` (name -> "HH:MM") as the readers use it (tokens -> minutes)."""
    out = {}
    for name, hhmm in named.items():
        h, m = (int(x) for x in str(hhmm).split(":"))
        out[tuple(words(name))] = h * 60 + m
    return out


def time_value(text: str, clock: Mapping[tuple[str, ...], int] | None = None) -> TimeOfDay | None:
    """The time of day ``text`` is, all of it (after "at", "by", "around"), or a bare hour ("9",
    "nine": loose), else None."""
    toks = words(text)
    while toks and toks[0] in ("at", "by", "around", "about", "from", "until", "till", "only", "just", "exactly"):
        toks.pop(0)
    t = read_time(toks, 0, clock)
    if t is not None and t.end == len(toks):
        return t
    got = _base(toks, 0)  # a plain number, not "half a dozen"
    if got is not None and got[1] == len(toks) and got[0].is_integer() and 0 <= got[0] <= 23:
        h = int(got[0])
        return TimeOfDay(h * 60, len(toks), 1 <= h <= 12)
    return None


# --- units -----------------------------------------------------------------------------------------
@dataclass
class Units:
    """A world's units: the words that name each, and each one's worth in its root unit (the end of its
    chain of bases). Built from ``[units]`` (``UnitSpec`` or plain dicts with aliases, base, factor)."""

    table: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._names: dict[str, str] = {}
        for uid, u in self.table.items():
            for n in (uid, *_get(u, "aliases", ())):
                self._names.setdefault(canonical(n), uid)
        self._root: dict[str, tuple[str, float]] = {}
        for uid in self.table:
            seen, x, cur = {uid}, 1.0, uid
            while (base := _get(self.table[cur], "base", None)) in self.table and base not in seen:
                x *= float(_get(self.table[cur], "factor", 1.0))
                seen.add(base)
                cur = base
            self._root[uid] = (cur, x)

    def __bool__(self) -> bool:
        return bool(self.table)

    def unit(self, word: str) -> str | None:
        """The declared unit ``word`` names (an id or an alias), else None."""
        return self._names.get(canonical(word))

    def words(self) -> set[str]:
        return {w for n in self._names for w in n.split()}

    def convert(self, x: float, unit: str, to: str) -> float | None:
        """``x`` of ``unit`` in ``to`` (both declared ids), or None if neither converts to the other."""
        (ra, fa), (rb, fb) = self._root[unit], self._root[to]
        if ra != rb:
            return None
        return float(f"{x * fa / fb:.6g}")  # factors are written to a few digits: 24 pennies is 2 marks


def _get(u: Any, key: str, default: Any) -> Any:
    return u.get(key, default) if isinstance(u, Mapping) else getattr(u, key, default)
