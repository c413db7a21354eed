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

import numpy as np

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
    ``search(query, k, keep)`` finds the best ``k`` among those ``keep`` admits.

    Scoring is vectorised: every document has a slot (its length in one array) and every term, once
    read, its postings as arrays of slots and counts (extended as documents arrive, dropped when one
    leaves). Scores add up term by term in the query's order, as a sum per document would, so they are
    the same floats."""

    def __init__(self, k1: float = 1.2, b: float = 0.75):
        self.k1, self.b = k1, b
        self._tf: dict[str, dict[str, int]] = {}  # doc -> term -> count
        self._len: dict[str, int] = {}
        self._post: dict[str, dict[str, int]] = {}  # term -> doc -> count
        self._total = 0
        self._slot: dict[str, int] = {}  # indexed doc -> its slot (a re-added doc gets a new one)
        self._docs: list[str] = []  # slot -> doc
        self._dl = np.zeros(0, dtype=np.float64)  # slot -> length
        self._arrays: dict[str, list] = {}  # term -> [slots, counts, size] (capacity grows by doubling)
        self._buf = np.zeros(0, dtype=np.float64)  # slot -> a term's count, zero between reads

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
        slot = self._slot[doc] = len(self._docs)
        self._docs.append(doc)
        if slot >= len(self._dl):
            cap = max(256, 2 * len(self._dl))
            self._dl = np.concatenate([self._dl, np.zeros(cap - len(self._dl))])
            self._buf = np.zeros(cap, dtype=np.float64)
        self._dl[slot] = n
        for t, c in counts.items():
            self._post.setdefault(t, {})[doc] = c
            arr = self._arrays.get(t)
            if arr is not None:
                slots, tfs, size = arr
                if size == len(slots):
                    arr[0] = slots = np.concatenate([slots, np.empty(size, dtype=np.intp)])
                    arr[1] = tfs = np.concatenate([tfs, np.empty(size, dtype=np.float64)])
                slots[size], tfs[size] = slot, c
                arr[2] = size + 1

    def remove(self, doc: str) -> None:
        counts = self._tf.pop(doc, None)
        if counts is None:
            return
        self._total -= self._len.pop(doc)
        del self._slot[doc]
        for t in counts:
            self._arrays.pop(t, None)
            post = self._post.get(t)
            if post is not None:
                post.pop(doc, None)
                if not post:
                    del self._post[t]

    def _postings(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """The slots holding ``term`` and its count in each."""
        arr = self._arrays.get(term)
        if arr is None:
            post = self._post[term]
            slot = self._slot
            slots = np.fromiter((slot[d] for d in post), dtype=np.intp, count=len(post))
            tfs = np.fromiter(post.values(), dtype=np.float64, count=len(post))
            arr = self._arrays[term] = [slots, tfs, len(post)]
        size = arr[2]
        return arr[0][:size], arr[1][:size]

    def _weights(self, query: str) -> dict[str, float]:
        """idf of each distinct query term present in the index (BM25's non-negative form)."""
        n = len(self._len)
        out = {}
        for t in dict.fromkeys(terms(query)):
            df = len(self._post.get(t, ()))
            if df:
                out[t] = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
        return out

    def _scored(self, weights: dict[str, float], slots: np.ndarray) -> np.ndarray:
        """BM25 of the documents in ``slots``: ``idf · tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen))``
        summed over the query's terms in order."""
        k1, b = self.k1, self.b
        avg = self._total / max(1, len(self._len))
        norm = k1 * (1.0 - b + b * self._dl[slots] / avg)
        out = np.zeros(len(slots), dtype=np.float64)
        buf = self._buf
        for t, w in weights.items():
            ts, tf = self._postings(t)
            buf[ts] = tf
            tf = buf[slots]
            buf[ts] = 0.0
            out += w * tf * (k1 + 1.0) / (tf + norm)  # 0 where the document lacks the term
        return out

    def scores(self, query: str, docs: Iterable[str]) -> np.ndarray:
        """BM25 score of each of ``docs`` for ``query`` (0 for a document not indexed)."""
        slot = self._slot
        slots = np.fromiter((slot.get(d, -1) for d in docs), dtype=np.intp)
        weights = self._weights(query)
        out = np.zeros(len(slots), dtype=np.float64)
        if not weights or not len(slots):
            return out
        known = slots >= 0
        if known.all():
            return self._scored(weights, slots)
        out[known] = self._scored(weights, slots[known])
        return out

    def search(self, query: str, k: int, keep=lambda doc: True, most_postings: int = 20_000) -> list[tuple[str, float]]:
        """The ``k`` best documents for ``query`` that ``keep`` admits, best first (ties by id). Terms
        whose postings run over ``most_postings`` are skipped (a word in every memory ranks nothing)."""
        weights = self._weights(query)
        if not weights or k <= 0:
            return []
        found = [self._postings(t)[0] for t in weights if len(self._post[t]) <= most_postings]
        if not found:
            return []
        slots = np.unique(np.concatenate(found)) if len(found) > 1 else found[0]
        sc = self._scored(weights, slots)
        order = np.argsort(-sc, kind="stable")
        ranked, docs = sc[order].tolist(), self._docs
        ordered = slots[order].tolist()
        out: list[tuple[str, float]] = []
        i, n = 0, len(ranked)
        while i < n and len(out) < k:  # in score order, ties by id, until k are kept
            j = i + 1
            while j < n and ranked[j] == ranked[i]:
                j += 1
            for d in sorted(docs[s] for s in ordered[i:j]):
                if keep(d):
                    out.append((d, ranked[i]))
                    if len(out) == k:
                        break
            i = j
        return out
