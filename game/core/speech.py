"""Words a speaker says about themselves, in their own voice.

A world's fact is written once, in the third person ("Mara Voss sells storm lanterns at the
chandlery. She asks too much, but she'll haggle."), and any NPC who knows it may tell it. When the
one telling it is the person it names, ``in_own_voice`` turns the telling into the first person
("I sell storm lanterns at the chandlery. I ask too much, but I'll haggle."): the speaker's names
become I / me / my / mine, the pronouns that go back to the speaker follow, and the verb after a
new "I" loses its third-person ending. Only the spoken line changes; the fact (what the journal
and the consistency gate read) keeps its words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_SELF, _SELFS = "\x00SELF\x00", "\x00SELFS\x00"
_TOKEN = re.compile(r"\x00SELFS?\x00|[A-Za-z]+(?:'[A-Za-z]+)?|[^A-Za-z\x00]+")
# words after which a name starts a clause (so it is the subject: "where Hobb used to keep")
_CLAUSE = frozenset(
    "and but or that where when because while if so as since though who whom than then till until".split()
)
_PREPS = frozenset("in on at from of by near with beside behind under over up down off out away back to".split())
_ADVERBS = frozenset("never always still only also often rarely sometimes just really even already seldom".split())
_IRREGULAR = {
    "is": "am",
    "has": "have",
    "does": "do",
    "goes": "go",
    "isn't": "am not",
    "doesn't": "don't",
    "hasn't": "haven't",
}
_MALE = {"he": "I", "him": "me", "his": "my", "himself": "myself"}
_FEMALE = {"she": "I", "her": "me", "hers": "mine", "herself": "myself"}
_CONTRACTIONS = {"'ll": "I'll", "'d": "I'd", "'s": "I'm"}


def first_person_verb(word: str) -> str:
    """The form a third-person present verb takes after "I" ("sells" -> "sell", "has" -> "have");
    any other word is left as it is ("left", "would")."""
    low = word.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if len(low) > 4 and low.endswith("ies"):
        return word[:-3] + "y"
    if low.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
        return word[:-2]
    if len(low) > 2 and low.endswith("s") and not low.endswith(("ss", "us", "is", "'s")):
        return word[:-1]
    return word


def _is_word(tok: str) -> bool:
    return tok[:1].isalpha()


def in_own_voice(text: str, names: Iterable[str], others: Iterable[str] = ()) -> str:
    """``text`` as said by the person called ``names`` (their full name first, then the short
    names they go by); ``others``: names of other people, after which a he/she is no longer taken
    to mean the speaker. A text that does not name the speaker is returned as it is."""
    forms = sorted({n for n in names if n and n.strip()}, key=len, reverse=True)
    if not forms:
        return text
    pattern = re.compile(r"(?<![\w'])(?:" + "|".join(re.escape(n) for n in forms) + r")(?P<s>'s)?(?![\w])")
    marked = pattern.sub(lambda m: _SELFS if m.group("s") else _SELF, text)
    if marked == text:
        return text
    toks = _TOKEN.findall(marked)
    strangers = {w for n in others for w in re.findall(r"[A-Z][a-z]+", n)} - {
        w for n in forms for w in re.findall(r"[A-Z][a-z]+", n)
    }
    out: list[str] = []
    pronouns: dict[str, str] | None = None  # the speaker's pronouns, once one is seen after a name
    named = False  # the speaker was named, and no one else since: he/she may be the speaker
    conjugate = False  # the next verb follows a new "I"
    aside = False  # "I, in the Cloth Hall, make": inside a phrase between the subject and its verb

    def start() -> bool:  # at the start of a sentence
        before = "".join(out).rstrip()
        return not before or before[-1] in '.!?:;"“'

    def next_word(i: int) -> str | None:
        j = i + 1
        while j < len(toks) and toks[j].isspace():
            j += 1
        return toks[j] if j < len(toks) and (_is_word(toks[j]) or toks[j] in (_SELF, _SELFS)) else None

    def prev_word() -> str:
        for t in reversed(out):
            if _is_word(t):
                return t.lower()
            if not t.isspace():
                return ""
        return ""

    def cap(word: str, at_start: bool) -> str:
        return word[:1].upper() + word[1:] if at_start else word

    def subject(i: int) -> str:
        nonlocal conjugate, aside
        following = next_word(i)
        if following is not None and following.lower() in _PREPS:
            aside = True
            return "I,"
        conjugate = True
        return "I"

    for i, tok in enumerate(toks):
        if tok == _SELF:
            named = True
            is_subject = start() or prev_word() in _CLAUSE
            out.append(subject(i) if is_subject else "me")
            continue
        if tok == _SELFS:
            named = True
            following = next_word(i)
            out.append(cap("my" if following is not None else "mine", start()))
            continue
        if not _is_word(tok):
            out.append(tok)
            continue
        low = tok.lower()
        if aside and low not in _PREPS and low not in ("the", "a", "an") and not tok[:1].isupper():
            out[-1] = out[-1].rstrip() if out and out[-1].isspace() else out[-1]
            out.append(", ")
            aside, conjugate = False, True
        if tok in strangers:
            named = False
        base, _, tail = low.partition("'")
        if pronouns is None and named and base in (*_MALE, *_FEMALE):  # the speaker was named before it
            pronouns = _MALE if base in _MALE else _FEMALE
        if pronouns is not None and named and base in pronouns:
            at_start = start()
            if tail and base in ("he", "she"):
                word = _CONTRACTIONS.get("'" + tail, "I'" + tail)
            elif base in ("he", "she"):
                word = subject(i)
            elif base == "her":
                following = next_word(i)
                word = "my" if following is not None and following.lower() not in _PREPS | _CLAUSE else "me"
            elif base == "his":
                word = "my" if next_word(i) is not None else "mine"
            else:
                word = pronouns[base]
            out.append(cap(word, at_start))
            continue
        if conjugate:
            if low in _ADVERBS or low.endswith("ly"):
                out.append(tok)
                continue
            conjugate = False
            out.append(first_person_verb(tok))
            continue
        out.append(tok)
    return "".join(out)
