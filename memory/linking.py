"""Who or what a question is about when it does not say: names linked to the question's words.

"What is the lowest the seller would go for the sextant?" never names the seller, and the
line that answers it ("Wenna admits that even 70 gold would leave a profit") never names the
sextant. What links them is everything else the agent has heard: "sextant" and "Wenna" stand
together in almost every line that mentions the sextant. So each scope counts, for every
content word, the names that appear beside it; a question's word that nearly always comes with
one name links that name, and MEMO adds a query for the question with the name spelled out
(``memory.optimizer``). Counts are per scope, so an agent links only through memories it can read.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

_TOKEN = re.compile(r"[A-Za-z][A-Za-z']+")
# capitalised words that are not names when they start a sentence
_NOT_NAMES = frozenset(
    "the a an this that these those it he she they we you i his her their our your my there "
    "here when where if then but and or so what who which why how yes no not one some "
    "every each all any".split()
)


@lru_cache(maxsize=65536)
def names(text: str) -> frozenset[str]:
    """Capitalised words that can be names (lower-cased, a possessive 's dropped), leaving out common
    sentence openers ("The", "When")."""
    out = set()
    for m in _TOKEN.finditer(text):
        word = m.group(0)
        if not word[0].isupper():
            continue
        low = word.lower()
        if low in _NOT_NAMES:
            continue
        out.add(low[:-2] if low.endswith("'s") else low)
    return frozenset(out)


# words of a question that say nothing about what it is about
_ASKING = frozenset(
    "how what when where which who whom whose why much many does did do can could would should "
    "will shall may might must get got make made give gave take took tell told say said know "
    "think want need like".split()
)
MAX_WORDS, MAX_NAMES = 40, 8  # a longer memory (a list, a letter) counts its words but pairs none


class Links:
    """Word → name co-occurrence counts of one scope's memories."""

    def __init__(self) -> None:
        self.memories = 0
        self.words: Counter[str] = Counter()
        self.names: Counter[str] = Counter()
        self.pairs: dict[str, Counter[str]] = {}

    def add(self, words: Iterable[str], text: str) -> None:
        found = names(text)
        words = [w for w in words if w not in found]
        self.memories += 1
        self.names.update(found)
        self.words.update(words)
        if found and len(words) <= MAX_WORDS and len(found) <= MAX_NAMES:
            for w in words:
                self.pairs.setdefault(w, Counter()).update(found)


def linked(
    scopes: Iterable[Links],
    words: Iterable[str],
    mentioned: frozenset[str] | set[str],
    share: float = 0.6,
    least: int = 3,
    most: int = 2,
    lift: float = 2.0,
) -> list[str]:
    """The names a question's ``words`` are about when it names nobody: a name that stands beside a
    word in at least ``share`` of the memories using it (seen ``least`` times or more), at least
    ``lift`` times as often as it stands in memories at all (a name in every line, "Market" in
    "Overheard at the Market:", tells nothing), and only where the word points to at most ``most``
    names (a guest list names everyone beside every word). None if the question names someone
    the memories know (``mentioned``): it says whom it is about."""
    scopes = list(scopes)
    if any(s.names.get(m) for s in scopes for m in mentioned):
        return []
    total = sum(s.memories for s in scopes) or 1
    best: dict[str, float] = {}
    for w in words:
        n = sum(s.words.get(w, 0) for s in scopes)
        if n < least or w in _ASKING:
            continue
        together: Counter[str] = Counter()
        for s in scopes:
            together.update(s.pairs.get(w, {}))
        strong = {
            name: k / n
            for name, k in together.items()
            if k / n >= share and k / n >= lift * sum(s.names.get(name, 0) for s in scopes) / total
        }
        if 0 < len(strong) <= most:
            for name, p in strong.items():
                best[name] = max(best.get(name, 0.0), p)
    return sorted(best, key=lambda name: (-best[name], name))[:most]
