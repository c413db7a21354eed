"""What counts as a value in a memory's text, for every stage that must keep values apart.

A value is a number ("86", "1,200", "3.5") or the value of a ``key=value`` pair ("price=40",
"mood=calm"). Masking never folds two lines that state different values, and compression never
summarises them into one (``memory.masking``, ``memory.compress``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from game.core.claims import canonical
from memory.lexicon import words_to_number
from memory.quantities import CURRENCY, MONEY, ONES, TENS

VALUE = re.compile(r"(?<![\w.])(?:(?P<key>[A-Za-z_][\w-]*)=(?P<kv>[\w-]+(?:\.\d+)?)|(?P<num>\d+(?:[.,]\d+)*))")


@lru_cache(maxsize=65536)
def values(text: str) -> tuple[str, ...]:
    """The values a text states, in order, each as written (``price=40``, ``86``)."""
    return tuple(m.group(0) for m in VALUE.finditer(text))


SLOT = "\x00"
_COUNT = re.compile(r"\(x\d+[^)]*\)")  # a repeat count as memory writes it: "(x3)", "(x3, turns 4-9)"


@lru_cache(maxsize=65536)
def template(text: str) -> str:
    """The text with every value replaced by a slot: lines with one template say the same thing
    about possibly different values."""
    return VALUE.sub(lambda m: f"{m.group('key')}={SLOT}" if m.group("key") else SLOT, text)


def template_key(text: str) -> str:
    """``template`` compared loosely (case, spacing and closing punctuation do not matter), with the
    numbers that name something kept: "Crate 12 holds 40 arrows" and "Crate 17 holds 95 arrows" are
    two crates, not one crate's count changing (``updates``)."""

    def slot(m: re.Match) -> str:
        if m.group("key"):
            return f"{m.group('key')}={SLOT}"
        return SLOT if _is_value(text, m) else m.group(0)

    return " ".join(VALUE.sub(slot, _COUNT.sub(" ", text)).lower().split()).rstrip(" .!?'\"")


# --- one fact or two? ---------------------------------------------------------------------------
_TOKEN = re.compile(r"[a-z0-9']+")
_FUNCTION = frozenset(
    "a an the of to in on at by for from with and or but is are was were be been it its "
    "this that these those there here as so".split()
)


@lru_cache(maxsize=65536)
def _tokens(text: str) -> tuple[str, ...]:
    return tuple(_TOKEN.findall(VALUE.sub(SLOT, _COUNT.sub(" ", text.lower())).replace(SLOT, " # ")))


@lru_cache(maxsize=65536)
def substituted(a: str, b: str) -> bool:
    """The two texts say the same thing about different things: one or two words swapped in place
    ("the left goblet is poisoned" / "the right goblet is poisoned", "the red key" / "the blue key").
    A paraphrase rewords and reorders; a substitution keeps every other word where it was."""
    ta, tb = _tokens(a), _tokens(b)
    if len(ta) != len(tb) or len(ta) < 3:
        return False
    diff = [(x, y) for x, y in zip(ta, tb) if x != y]
    return 0 < len(diff) <= 2 and all(x not in _FUNCTION and y not in _FUNCTION for x, y in diff)


def alike(a: str, b: str) -> bool:
    """Could ``a`` and ``b`` be one fact told twice? Not when they state different values, swap a
    word, or one denies what the other says ("the bridge is safe" / "the bridge is not safe")."""
    return values(a) == values(b) and not substituted(a, b) and denies(a) == denies(b)


# words after which a number is a value that can change ("the code is 4411", "leaves at 6", "for 70
# crowns"); they win over everything below
_LEADS = frozenset(
    "is are was were be now at to for of costs cost about under over only just than from by "
    "pay pays paid asks ask wants want offers offer takes take charges charge sells buys into "
    "until till around near after before worth fetches fetched priced price reads reading "
    "set down up holds hold has have had contains stands shows left remain remains turn turns "
    "round rounds day days names name says say quotes quote bids bid counts count".split()
)
# words after which a number names something ("room 12", "no. 4", "gate 2") even before a unit
_NAMERS = frozenset(
    "room rooms wave waves crate crates cell cells gate gates door doors level levels floor "
    "floors row rows page pages chapter chapters no number nos # pier piers dock docks berth "
    "berths ward wards block blocks sector sectors zone zones lot lots bay bays track tracks "
    "lane lanes platform platforms table tables seat seats stall stalls box boxes case cases "
    "unit units act acts part parts section sections phase phases squad squads team teams "
    "house houses tower towers vault vaults locker lockers slot slots".split()
)
# words after a number that make it an amount after a lower-case word ("names 60 gold")
_UNITS = CURRENCY | MONEY | frozenset({"percent", "%"})
# --- the same claim again? (self-repeats) ---------------------------------------------------------
# the number words memory.lexicon reads ("twenty-two"), found in free text
_NUMBER_WORD = re.compile(
    r"\b(?:(?:" + "|".join(TENS) + r")(?:[- ](?:" + "|".join(list(ONES)[1:10]) + r"))?|(?:" + "|".join(ONES) + r"))\b",
    re.IGNORECASE,
)
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
# words, numbers and "n't" forms, as the claim extractor (memory.extract) reads lower-cased text
WORD_TOKEN = re.compile(r"\d[\d,]*(?:\.\d+)?|[a-z]+n't|[a-z]+|'s")
NEGATIONS = frozenset(
    "not never nowhere neither nor cannot nobody anymore gone deny denies denied dont doesnt didnt isnt "
    "wasnt arent werent wont cant couldnt hasnt havent hadnt shouldnt wouldnt aint".split()
)
_NOT_NEGATION_AFTER_NO = frozenset("less more doubt way matter question".split())


def negates(toks: list[str], k: int) -> bool:
    """Is ``toks[k]`` a negation ("not", "isn't", "never", "no" but not "no less" or "no doubt")?"""
    t = toks[k]
    if t in NEGATIONS or t.endswith("n't"):
        return True
    return t == "no" and (k + 1 >= len(toks) or toks[k + 1] not in _NOT_NEGATION_AFTER_NO)


@lru_cache(maxsize=65536)
def plain_values(text: str) -> tuple[str, ...]:
    """``values`` read as numbers and keys, not as written: "twenty-two" is 22, "1,200" is 1200,
    "3.50" is 3.5, "Price=40" is price=40 (numbers in ``game.core.claims.canonical`` form)."""
    out = []
    for m in VALUE.finditer(_NUMBER_WORD.sub(lambda w: canonical(words_to_number(w.group(0))), text)):
        if m.group("key"):
            out.append(f"{m.group('key').lower()}={m.group('kv').lower()}")
        else:
            raw = m.group("num")
            out.append(canonical(raw.replace(",", "") if _THOUSANDS.fullmatch(raw) else raw.replace(",", ".")))
    return tuple(out)


@lru_cache(maxsize=65536)
def denies(text: str) -> bool:
    """Does ``text`` say no (an odd number of negations, counted as the claim extractor counts
    them)? Two texts that differ here say opposite things, however alike they read."""
    toks = WORD_TOKEN.findall(text.lower())
    return sum(negates(toks, k) for k in range(len(toks))) % 2 == 1


def same_claim(a: str, b: str) -> bool:
    """Could ``b`` be ``a`` said again, in other words? Not when they state other values (read as
    numbers: "twenty-two" and "22" are one value) or one denies what the other says ("I will sell" /
    "I will not sell"). A reworded claim, even with a word swapped for a synonym, is the same."""
    return plain_values(a) == plain_values(b) and denies(a) == denies(b)


_WORD = re.compile(r"[A-Za-z][A-Za-z']*[:]?|[:=#]")
_NEXT = re.compile(r"\s*([A-Za-z%]+)")


def _is_value(text: str, m: re.Match) -> bool:
    """Is this number a value that can change, or does it name something? A value follows a word
    that leads one ("is", "at", "for", "names", ":"), opens the text or a quote ("'118 gold for
    the sextant,' says Wenna"), or is an amount ("60 gold") not after a naming word. Any other
    number names something ("Crate 12", "barrel 7", "Wave 3", "May 3"): when unsure, a label,
    because a value taken for a label only costs a line, while a label taken for a value would let
    "barrel 9 is poisoned" replace "barrel 7 is poisoned"."""
    if m.group("key"):
        return True
    before = _WORD.findall(text[: m.start()])
    if not before:
        return True
    word = before[-1]
    if word.endswith(":") or word in ("=",) or word.lower() in _LEADS:
        return True
    if word.lower() in _NAMERS:
        return False
    nxt = _NEXT.match(text, m.end())
    return bool(nxt and nxt.group(1).lower() in _UNITS and not word[0].isupper())


def updates(old: str, new: str) -> bool:
    """Does ``new`` restate ``old`` (same template) with its changing value changed? Only the last value
    may differ, and it must be a value, not a label: "The gate code is 4411" → "… is 9902" is an update;
    "Wave 3 arrives" → "Wave 4 arrives" and "Crate 12 holds 40" → "Crate 17 holds 95" are other things."""
    mo, mn = list(VALUE.finditer(old)), list(VALUE.finditer(new))
    if not mo or len(mo) != len(mn):
        return False
    if any(a.group(0) != b.group(0) for a, b in zip(mo[:-1], mn[:-1])) or mo[-1].group(0) == mn[-1].group(0):
        return False
    return _is_value(old, mo[-1]) and _is_value(new, mn[-1])


@lru_cache(maxsize=65536)
def labels(text: str) -> tuple[str, ...]:
    """The numbers that name something ("Crate 12", "Wave 3"), not values that can change."""
    return tuple(m.group(0) for m in VALUE.finditer(text) if not _is_value(text, m))
