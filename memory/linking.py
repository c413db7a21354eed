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

_TOKEN = re.compile(r"[A-Za-z][A-Za-z']+")
# capitalised words that are not names when they start a sentence
_NOT_NAMES = frozenset("the a an this that these those it he she they we you i his her their our your my there "
                       "here when where if then but and or so what who which why how yes no not one some "
                       "every each all any".split())


def names(text: str) -> set[str]:
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
    return out


class Links:
    """Word → name co-occurrence counts of one scope's memories."""

    def __init__(self) -> None:
        self.words: Counter[str] = Counter()
        self.pairs: dict[str, Counter[str]] = {}

    def add(self, words: Iterable[str], text: str) -> None:
        found = names(text)
        for w in words:
            if w in found:
                continue
            self.words[w] += 1
            if found:
                pair = self.pairs.setdefault(w, Counter())
                pair.update(found)


def linked(scopes: Iterable[Links], words: Iterable[str], mentioned: set[str], share: float = 0.6,
           least: int = 3, most: int = 2) -> list[str]:
    """Names that stand beside one of ``words`` in at least ``share`` of the memories using it (seen
    ``least`` times or more), strongest first, leaving out names ``mentioned`` already."""
    scopes = list(scopes)
    best: dict[str, float] = {}
    for w in words:
        n = sum(s.words.get(w, 0) for s in scopes)
        if n < least:
            continue
        together: Counter[str] = Counter()
        for s in scopes:
            together.update(s.pairs.get(w, {}))
        for name, k in together.items():
            if name not in mentioned and k / n >= share:
                best[name] = max(best.get(name, 0.0), k / n)
    return sorted(best, key=lambda name: (-best[name], name))[:most]
