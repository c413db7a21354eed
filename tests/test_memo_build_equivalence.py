"""MEMO's fast build paths give the same contexts as the plain ones they replace.

The build runs its small matrix products on one BLAS thread (``memory.blas``), scores BM25 with
numpy arrays per term (``memory.lexical``) and picks the packing order from a heap
(``ContextOptimizer._repeat_order``). Each test builds the same store twice, once as MEMO runs
and once with the plain versions kept here (BLAS threads as numpy sets them, BM25 summed document
by document, the packing order re-read in full after every pick), and compares every context's
text, ids and explain rows. Stores: context benchmark logs (near-duplicate floods, corrections,
debates, rumours, a ledger) with builds between the additions, and distinct memories.
"""

from __future__ import annotations

import contextlib
import json

import numpy as np
import pytest

import memory.bank as bank_module
import memory.optimizer as optimizer_module
from benchmarks.context.logs import AGENT, make_log
from benchmarks.context_latency import distinct_texts
from memory.lexical import LexicalIndex
from memory.memo import Memo


class PlainLexicalIndex(LexicalIndex):
    """BM25 scored one document at a time, as a sum over the query's terms."""

    def _score(self, doc: str, weights: dict[str, float], avg: float) -> float:
        tf, dl = self._tf.get(doc), self._len.get(doc, 0)
        if not tf:
            return 0.0
        norm = self.k1 * (1.0 - self.b + self.b * dl / avg)
        return sum(w * tf[t] * (self.k1 + 1.0) / (tf[t] + norm) for t, w in weights.items() if t in tf)

    def scores(self, query, docs):
        weights = self._weights(query)
        avg = self._total / max(1, len(self._len))
        return [self._score(d, weights, avg) if weights else 0.0 for d in docs]

    def search(self, query, k, keep=lambda doc: True, most_postings=20_000):
        weights = self._weights(query)
        if not weights or k <= 0:
            return []
        avg = self._total / max(1, len(self._len))
        seen: set[str] = set()
        for t in weights:
            if len(self._post[t]) <= most_postings:
                seen.update(self._post[t])
        scored = [(d, self._score(d, weights, avg)) for d in seen if keep(d)]
        scored.sort(key=lambda ds: (-ds[1], ds[0]))
        return scored[:k]


def plain_repeat_order(items, score, sims, weight):
    """The packing order found by reading every line's score again after each pick."""
    seqs = np.array([it.rec.seq for it in items])
    left = np.ones(len(items), dtype=bool)
    worst = np.zeros(len(items))
    out = []
    for _ in range(len(items)):
        eff = np.where(left, score - weight * worst, -np.inf)
        best = float(eff.max())
        k = int(np.flatnonzero(eff == best)[np.argmin(seqs[eff == best])])
        if worst[k] > 0:
            items[k].members[0].adjustments.append(f"-{weight * worst[k]:.3f} repeats a line ahead of it")
        out.append(items[k])
        left[k] = False
        worst = np.maximum(worst, sims[k])
    return out


def _pair(monkeypatch) -> tuple[Memo, Memo]:
    """Two empty stores: MEMO as it runs, and one with the plain BM25 and packing order."""
    fast = Memo(embedder="hash")
    with monkeypatch.context() as m:
        m.setattr(bank_module, "LexicalIndex", PlainLexicalIndex)
        plain = Memo(embedder="hash")
    assert isinstance(plain.bank.lexicon, PlainLexicalIndex) and not isinstance(fast.bank.lexicon, PlainLexicalIndex)
    plain.optimizer._repeat_order = plain_repeat_order
    return fast, plain


def _same_contexts(monkeypatch, fast: Memo, plain: Memo, turn: int, **kw) -> None:
    a = fast.context(AGENT, turn, **kw)
    with monkeypatch.context() as m:
        m.setattr(optimizer_module, "one_blas_thread", contextlib.nullcontext)
        b = plain.context(AGENT, turn, **kw)
    assert a.text() == b.text()
    assert a.ids == b.ids and a.tokens == b.tokens
    rows_a, rows_b = fast.explain(AGENT, turn), plain.explain(AGENT, turn)
    assert json.dumps(rows_a, sort_keys=True) == json.dumps(rows_b, sort_keys=True)


@pytest.mark.parametrize(
    "setting,density", [("flood", 2), ("correction", 1), ("council", 1), ("rumours", 1), ("ledger", 1)]
)
def test_log_contexts_are_the_plain_ones(monkeypatch, setting, density):
    log = make_log(setting, "C", 100, 300, density)
    fast, plain = _pair(monkeypatch)
    asks = sorted(log.decisions, key=lambda d: d.turn)
    lines = iter(log.lines)
    pending = next(lines, None)
    for k, d in enumerate(asks):
        while pending is not None and pending.turn < d.turn:  # the store as it stands when the question comes
            for memo in (fast, plain):
                memo.add(
                    pending.text, turn=pending.turn, speaker=pending.speaker, scope=pending.scope, kind=pending.kind
                )
            pending = next(lines, None)
        budget = (150, 400)[k % 2]
        _same_contexts(monkeypatch, fast, plain, d.turn, focus=d.question, query=d.situation, budget=budget)
    end = log.length + 1
    _same_contexts(monkeypatch, fast, plain, end, query=asks[-1].situation, budget=400)  # no focus
    _same_contexts(monkeypatch, fast, plain, end, focus=asks[0].question, budget=400, history=True)


def test_distinct_contexts_are_the_plain_ones(monkeypatch):
    rng = np.random.default_rng(7)
    texts = distinct_texts(1500, rng)
    fast, plain = _pair(monkeypatch)
    scopes = ("shared", f"private:{AGENT}", "private:keeper")
    kinds = ("observation", "utterance", "fact", "claim")
    for k, text in enumerate(texts):
        for memo in (fast, plain):
            memo.add(text, turn=k // 3, scope=scopes[k % 3], kind=kinds[k % 4], speaker=None if k % 3 else "crowd")
    now = len(texts) // 3 + 1
    people = sorted({w for t in texts[:200] for w in t.split() if w[:1].isupper() and w.isalpha()})[:12]
    for k, who in enumerate(people):
        situation = " ".join(texts[-3 - k : len(texts) - k])
        _same_contexts(monkeypatch, fast, plain, now + k, focus=f"What do you know about {who}?", query=situation)


def test_bm25_scores_and_search_are_the_plain_ones_to_the_bit():
    rng = np.random.default_rng(3)
    texts = distinct_texts(1200, rng) + ["The the the.", "Alric Alric lent the lantern", "nothing here"]
    fast, plain = LexicalIndex(), PlainLexicalIndex()
    queries = ["What do you know about Alric?", "crates of lantern parts at the mill", "the", "Rookwood lent", "coins"]
    for k, text in enumerate(texts):
        for index in (fast, plain):
            index.add(f"m{k}", text)
            if k % 97 == 5:  # a document written again, and one taken out
                index.add(f"m{k - 3}", texts[k // 2])
                index.remove(f"m{k - 7}")
        if k % 400 == 399:  # queries between the additions: arrays read, then extended
            for q in queries:
                assert fast.search(q, 50) == plain.search(q, 50)
    docs = [f"m{k}" for k in rng.permutation(len(texts))[:700]] + ["unknown"]
    for q in queries:
        assert np.array_equal(fast.scores(q, docs), np.asarray(plain.scores(q, docs), dtype=np.float64))
        for k in (1, 7, 192, 5000):
            for most in (20_000, 40):
                keep = lambda d: int(d[1:]) % 3 != 0  # noqa: E731
                assert fast.search(q, k, keep, most) == plain.search(q, k, keep, most), (q, k, most)
