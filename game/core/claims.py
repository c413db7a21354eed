"""Comparing what a claim says with what is known.

One normal form for the values in claims and facts (:func:`canonical`), so
"15", "15.0" and " 15.00 " are the same value everywhere, and one answer to
"does this verified fact settle that claim?" (:func:`settles`, :func:`verdict`).
The world-fact memory, the consistency gate and the lessons drawn after a game
all ask through these functions.

Plain functions over strings and values: this module imports nothing from the
game's other modules, nor from ``agents`` or ``memory``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

_SPACES = re.compile(r"\s+")
_ARTICLE = re.compile(r"^(?:the|a|an) (?=\S)")
_EXACT_INT = 2**53  # integral floats below this print as plain integers


def as_number(value: object) -> float | None:
    """The finite number ``value`` spells ("15", " -2.5 ", "1e3", 7), else None
    (text, "nan", "inf", booleans' spellings "True"/"False" are not numbers)."""
    try:
        x = float(str(value).strip())
    except ValueError:
        return None
    return x if math.isfinite(x) else None


def canonical(value: object) -> str:
    """The comparison form of a claim value.

    Numbers compare as numbers: "15", "15.0" and "15.00" all become "15", "-5"
    stays negative, and two different numbers never share a form. Other text
    ignores case, underscores, hyphens, runs of whitespace and a leading article
    ("Iron_Key" is "iron key"; "the sea cave" is "sea cave"; a lone "a" stays "a").
    """
    x = as_number(value)
    if x is not None:
        if x.is_integer() and abs(x) < _EXACT_INT:
            return str(int(x))
        return repr(x)
    text = _SPACES.sub(" ", str(value).lower().replace("_", " ").replace("-", " ")).strip()
    return _ARTICLE.sub("", text)


def same_value(a: object, b: object) -> bool:
    """True when ``a`` and ``b`` name the same value (see :func:`canonical`)."""
    return canonical(a) == canonical(b)


def settles(fact_object: object, fact_true: bool, claim_object: object, functional: bool = False) -> bool | None:
    """Whether one verified fact settles a claim about the same subject and relation.

    True: the claim holds (the fact states the claim's value and was verified true).
    False: the claim is false (the fact states the claim's value and was verified
    false; or the relation is functional, allowing one value per subject, and the
    fact was verified true with another value). None: the fact has no bearing.
    """
    if same_value(fact_object, claim_object):
        return bool(fact_true)
    if fact_true and functional:
        return False
    return None


def verdict(facts: Iterable[tuple[object, bool]], claim_object: object, functional: bool = False) -> bool | None:
    """What several verified facts ``(object, verified_true)`` about the claim's subject and
    relation say of it: a fact stating the claim's value decides (the first such); otherwise
    the claim is false if any fact refutes it (see :func:`settles`); None when none bears on it."""
    facts = list(facts)
    for obj, true in facts:
        if same_value(obj, claim_object):
            return bool(true)
    if any(settles(obj, true, claim_object, functional) is False for obj, true in facts):
        return False
    return None
