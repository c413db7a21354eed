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
_TOKEN = re.compile(r"\x00SELFS?\x00|[A-Za-z]+(?:'[A-Za-z]+)?|[^A-Za-z\x00]+|\x00")
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


def _cap(word: str, at_start: bool) -> str:
    return word[:1].upper() + word[1:] if at_start else word


class _Telling:
    """One pass over a text whose speaker's names are marked ``_SELF`` / ``_SELFS``."""

    def __init__(self, toks: list[str], strangers: set[str]):
        self.toks, self.strangers = toks, strangers
        self.out: list[str] = []
        self.pronouns: dict[str, str] | None = None  # the speaker's, once one is seen after a name
        self.named = False  # the speaker was named, and no one else since: he/she may be the speaker
        self.conjugate = False  # the next verb follows a new "I"
        self.aside = False  # "I, in the Cloth Hall, make": a phrase between the subject and its verb

    def start(self) -> bool:
        """At the start of a sentence."""
        before = "".join(self.out).rstrip()
        return not before or before[-1] in '.!?:;"“'

    def next_word(self, i: int) -> str | None:
        toks, j = self.toks, i + 1
        while j < len(toks) and toks[j].isspace():
            j += 1
        return toks[j] if j < len(toks) and (_is_word(toks[j]) or toks[j] in (_SELF, _SELFS)) else None

    def prev_word(self) -> str:
        for t in reversed(self.out):
            if _is_word(t):
                return t.lower()
            if not t.isspace():
                return ""
        return ""

    def subject(self, i: int) -> str:
        following = self.next_word(i)
        if following is not None and following.lower() in _PREPS:
            self.aside = True
            return "I,"
        self.conjugate = True
        return "I"

    def pronoun(self, i: int, base: str, tail: str) -> str:
        at_start = self.start()
        if tail and base in ("he", "she"):
            word = _CONTRACTIONS.get("'" + tail, "I'" + tail)
        elif base in ("he", "she"):
            word = self.subject(i)
        elif base in ("her", "his"):  # my stall, mine; let me off, meet me on price
            following = self.next_word(i)
            owned = following is not None and following.lower() not in _PREPS | _CLAUSE
            word = "my" if owned else "me" if base == "her" else "mine"
        else:
            word = (self.pronouns or {})[base]
        return _cap(word, at_start)

    def word(self, i: int, tok: str) -> str:
        low = tok.lower()
        if self.aside and low not in _PREPS and low not in ("the", "a", "an") and not tok[:1].isupper():
            if self.out and self.out[-1].isspace():
                self.out.pop()
            self.out.append(", ")
            self.aside, self.conjugate = False, True
        if tok in self.strangers:
            self.named = False
        base, _, tail = low.partition("'")
        if self.pronouns is None and self.named and base in (*_MALE, *_FEMALE):
            self.pronouns = _MALE if base in _MALE else _FEMALE
        if self.pronouns is not None and self.named and base in self.pronouns:
            return self.pronoun(i, base, tail)
        if self.conjugate and not (low in _ADVERBS or low.endswith("ly")):
            self.conjugate = False
            return first_person_verb(tok)
        return tok

    def run(self) -> str:
        for i, tok in enumerate(self.toks):
            if tok == _SELF:
                self.named = True
                is_subject = self.start() or self.prev_word() in _CLAUSE
                self.out.append(self.subject(i) if is_subject else "me")
            elif tok == _SELFS:
                self.named = True
                self.out.append(_cap("my" if self.next_word(i) is not None else "mine", self.start()))
            else:
                self.out.append(self.word(i, tok) if _is_word(tok) else tok)
        return "".join(self.out)


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
    own = {w for n in forms for w in re.findall(r"[A-Z][a-z]+", n)}
    strangers = {w for n in others for w in re.findall(r"[A-Z][a-z]+", n)} - own
    return _Telling(_TOKEN.findall(marked), strangers).run()
