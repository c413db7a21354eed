"""The lexical half of MEMO's retrieval: an incremental BM25 index over memory texts.

Dense vectors find paraphrases but blur rare words: a question naming "Ivo" or
"hazelnuts" is only loosely closer to the one line that says them than to a
hundred lines of ship's chatter. BM25 (Robertson and Zaragoza's Okapi weighting:
``idf · tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen))``) scores exactly those
shared rare words. MEMO mixes the two (``MemoConfig.lexical_weight``).

Memories arrive one at a time and leave retrieval when superseded, so the index
is incremental (postings per stem, document lengths, running totals); libraries
such as bm25s build a static sparse matrix, rebuilt at every addition here.
Words are lowercased, stop words dropped and stemmed with the Snowball English
stemmer (PyStemmer), when installed; without it words are used as they are.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
STOP = frozenset(
    """a an and are as at be been being but by can could did do does doing for from had has have having he her
here hers him his how i if in into is it its just me my no nor not of on or our ours out over own she so some
such than that the their them then there these they this those to too up very was we were what when where which
while who whom why will with would you your yours yourself also about after again all am any because before
both each few more most other same should only s t don now""".split()
)


def _stemmer():
    try:
        import Stemmer  # PyStemmer: Snowball stemmers in C
    except ImportError:  # pragma: no cover - the memory extra installs it
        return None
    return Stemmer.Stemmer("english")


_STEM = _stemmer()
_CACHE: dict[str, str] = {}


def terms(text: str) -> list[str]:
    """The index terms of ``text``: lowercased words without stop words, stemmed ("crumbs" → "crumb")."""
    words = [w.split("'", 1)[0] for w in _WORD.findall(text.lower())]
    words = [w for w in words if w and w not in STOP]
    if _STEM is None:
        return words
    out = []
    for w in words:
        s = _CACHE.get(w)
        if s is None:
            if len(_CACHE) > 200_000:
                _CACHE.clear()
            s = _CACHE[w] = _STEM.stemWord(w)
        out.append(s)
    return out


class LexicalIndex:
    """BM25 over documents added and removed by id. ``scores(query, ids)`` weighs given documents;
    ``search(query, k, keep)`` finds the best ``k`` among those ``keep`` admits."""

    def __init__(self, k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self._tf: dict[str, dict[str, int]] = {}  # doc -> term -> count
        self._len: dict[str, int] = {}
        self._post: dict[str, dict[str, int]] = {}  # term -> doc -> count
        self._total = 0

    def __len__(self) -> int:
        return len(self._len)

    def __contains__(self, doc: str) -> bool:
        return doc in self._len

    def add(self, doc: str, text: str) -> None:
        if doc in self._len:
            self.remove(doc)
        counts: dict[str, int] = {}
        for t in terms(text):
            counts[t] = counts.get(t, 0) + 1
        self._tf[doc] = counts
        self._len[doc] = n = sum(counts.values())
        self._total += n
        for t, c in counts.items():
            self._post.setdefault(t, {})[doc] = c

    def remove(self, doc: str) -> None:
        counts = self._tf.pop(doc, None)
        if counts is None:
            return
        self._total -= self._len.pop(doc)
        for t in counts:
            post = self._post.get(t)
            if post is not None:
                post.pop(doc, None)
                if not post:
                    del self._post[t]

    def _weights(self, query: str) -> dict[str, float]:
        """idf of each distinct query term present in the index (BM25's non-negative form)."""
        n = len(self._len)
        out = {}
        for t in dict.fromkeys(terms(query)):
            df = len(self._post.get(t, ()))
            if df:
                out[t] = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        return out

    def _score(self, doc: str, weights: dict[str, float], avg: float) -> float:
        tf, dl = self._tf.get(doc), self._len.get(doc, 0)
        if not tf:
            return 0.0
        norm = self.k1 * (1.0 - self.b + self.b * dl / avg)
        return sum(w * tf[t] * (self.k1 + 1.0) / (tf[t] + norm) for t, w in weights.items() if t in tf)

    def scores(self, query: str, docs: Iterable[str]) -> list[float]:
        """BM25 score of each of ``docs`` for ``query`` (0 for a document not indexed)."""
        weights = self._weights(query)
        avg = self._total / max(1, len(self._len))
        return [self._score(d, weights, avg) if weights else 0.0 for d in docs]

    def search(self, query: str, k: int, keep=lambda doc: True, most_postings: int = 20_000) -> list[tuple[str, float]]:
        """The ``k`` best documents for ``query`` that ``keep`` admits, best first. Terms whose postings
        run over ``most_postings`` are skipped (a word in every memory ranks nothing)."""
        weights = self._weights(query)
        if not weights or k <= 0:
            return []
        avg = self._total / max(1, len(self._len))
        seen: set[str] = set()
        for t in weights:
            post = self._post[t]
            if len(post) <= most_postings:
                seen.update(post)
        scored = [(d, self._score(d, weights, avg)) for d in seen if keep(d)]
        scored.sort(key=lambda ds: (-ds[1], ds[0]))
        return scored[:k]
