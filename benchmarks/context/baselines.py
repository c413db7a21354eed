"""Baseline context builders for the context benchmark: what a sceptic would build instead of MEMO.

Every baseline gets the same inputs as MEMO (the agent's visible lines, the
question, the situation and the token budget) and returns the lines it shows,
rendered as ``- line`` bullets in time order and counted with
:func:`memory.tokens.count_tokens` on the rendered text.

* ``full history``: the whole history, cut from the oldest end. The
  situation is the last lines seen, which a history keeps anyway; the question
  is used as a chat log can use it: lines that share a content word with it
  are kept before lines that share none (grep, then tail).
* ``recency window``: the last W whole turns that fit (W as large as fits),
  counting only the lines that share a content word with the question (all
  lines when none do).
* ``top-k``: lines by relevance ``max(0.75·cos(situation), cos(question))``,
  best first while they fit.
* ``top-k+collapse``: the same, skipping a line whose cosine to a line
  already chosen is at least 0.9 (of near-duplicates, the most relevant is shown).
* ``top-k+collapse (newest)``: the same walk by relevance, but a line stands
  for its near-duplicates (cosine at least 0.9 to it) and the newest of them is
  shown in its place: what a collapse that trusts the latest statement shows,
  a fair baseline for corrections.
* ``MMR``: maximal marginal relevance, ``0.7·relevance − 0.3·max cos to the
  chosen lines``, over every line (the same candidates as top-k).
* ``BM25``: lines by BM25 for the question (``memory.lexical``), ties by relevance.
* ``hybrid``: ``0.5·relevance/best + 0.5·BM25/best``, meaning and rare words.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from benchmarks.context.logs import content_words

SITUATION_WEIGHT = 0.75  # the weight MEMO's default config gives the situation against the question
COLLAPSE = 0.9
MMR_LAMBDA = 0.7
HYBRID_WEIGHT = 0.5  # the BM25 share of the hybrid baseline's score
ROUND = 16  # lines the newest-collapse baseline looks ahead at a time


def render(lines: list[str]) -> str:
    return "\n".join(f"- {ln}" for ln in lines)


class Costs:
    """Tokens of a rendered ``- line``, counted once per distinct text."""

    def __init__(self):
        from memory.tokens import count_many, count_tokens

        self._many, self.count = count_many, count_tokens
        self._cache: dict[str, int] = {}

    def of(self, texts: list[str]) -> np.ndarray:
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        for t, n in zip(todo, self._many([f"- {t}" for t in todo])):
            self._cache[t] = n
        return np.array([self._cache[t] for t in texts], dtype=np.int64)


@dataclass
class Pool:
    """The agent's visible lines at one decision: texts, turns, unit vectors and token costs."""

    texts: list[str]
    turns: np.ndarray
    vecs: np.ndarray
    costs: np.ndarray


@dataclass
class Shown:
    text: str
    tokens: int
    lines: int


def relevance(pool: Pool, qvec: np.ndarray, svec: np.ndarray) -> np.ndarray:
    return np.maximum(SITUATION_WEIGHT * (pool.vecs @ svec), pool.vecs @ qvec)


def _fit(pool: Pool, chosen: list[int], budget: int, costs: Costs) -> Shown:
    """Render ``chosen`` (priority order) in time order; drop the lowest priority until it fits."""
    chosen = list(chosen)
    while True:
        text = render([pool.texts[k] for k in sorted(chosen)])
        n = costs.count(text)
        if n <= budget or not chosen:
            return Shown(text, n, len(chosen))
        chosen.pop()


def _fill(order, pool: Pool, budget: int, skip: Callable[[int, list[int]], bool] | None = None) -> list[int]:
    chosen, used = [], 0
    cheapest = int(pool.costs.min()) if len(pool.costs) else 1
    for k in order:
        k = int(k)
        c = int(pool.costs[k])
        if used + c > budget or (skip is not None and skip(k, chosen)):
            continue
        chosen.append(k)
        used += c
        if budget - used < cheapest:
            break
    return chosen


@lru_cache(maxsize=200_000)
def _words(text: str) -> frozenset[str]:
    return frozenset(content_words(text))


def _matches(pool: Pool, question: str) -> np.ndarray:
    words = _words(question)
    return np.array([not words.isdisjoint(_words(t)) for t in pool.texts], dtype=bool)


def full_history(pool: Pool, question: str, situation: str, qvec, svec, budget: int, costs: Costs) -> Shown:
    newest = np.arange(len(pool.texts))[::-1]
    m = _matches(pool, question)[newest]
    order = np.concatenate([newest[m], newest[~m]])
    chosen, used = [], 0
    for k in order:  # a history is cut, not picked: stop at the first line that does not fit
        c = int(pool.costs[k])
        if used + c > budget:
            break
        chosen.append(int(k))
        used += c
    return _fit(pool, chosen, budget, costs)


def recency_window(pool: Pool, question: str, situation: str, qvec, svec, budget: int, costs: Costs) -> Shown:
    m = _matches(pool, question)
    idx = np.flatnonzero(m) if m.any() else np.arange(len(pool.texts))
    chosen, used = [], 0
    turns = pool.turns[idx]
    for t in np.unique(turns)[::-1]:
        rows = idx[turns == t]
        c = int(pool.costs[rows].sum())
        if used + c > budget:
            break
        chosen.extend(int(k) for k in rows[::-1])
        used += c
    return _fit(pool, chosen, budget, costs)


def top_k(pool: Pool, question: str, situation: str, qvec, svec, budget: int, costs: Costs) -> Shown:
    order = np.argsort(-relevance(pool, qvec, svec), kind="stable")
    return _fit(pool, _fill(order, pool, budget), budget, costs)


def top_k_collapse(pool: Pool, question: str, situation: str, qvec, svec, budget: int, costs: Costs) -> Shown:
    order = np.argsort(-relevance(pool, qvec, svec), kind="stable")

    def near(k: int, chosen: list[int]) -> bool:
        return bool(chosen) and float((pool.vecs[chosen] @ pool.vecs[k]).max()) >= COLLAPSE

    return _fit(pool, _fill(order, pool, budget, near), budget, costs)


def _distinct(pool: Pool) -> tuple[np.ndarray, np.ndarray]:
    """Each distinct text's first line and last line (logs repeat many lines word for word)."""
    _, first, inverse = np.unique(np.array(pool.texts, dtype=object), return_index=True, return_inverse=True)
    last = np.zeros(len(first), dtype=np.int64)
    np.maximum.at(last, inverse.ravel(), np.arange(len(pool.texts)))
    return first, last


def top_k_collapse_newest(pool: Pool, question: str, situation: str, qvec, svec, budget: int, costs: Costs) -> Shown:
    """Walk lines by relevance; the first line of a group of near-duplicates stands for it and the newest
    line at cosine >= COLLAPSE to it is shown (a group whose newest line does not fit is passed over).
    Lines near a line already standing or shown are skipped. Works on distinct texts, ``ROUND`` at a
    time, so the cosines come from a few matrix products."""
    if not pool.texts:
        return _fit(pool, [], budget, costs)
    first, last = _distinct(pool)
    uvecs = pool.vecs[first]
    order = np.argsort(-(np.maximum(SITUATION_WEIGHT * (uvecs @ svec), uvecs @ qvec)), kind="stable")
    pos = np.empty(len(order), dtype=np.int64)
    pos[order] = np.arange(len(order))
    covered = np.zeros(len(order), dtype=bool)  # near a text that stood for a group or was shown
    chosen, used, at = [], 0, 0
    cheapest = int(pool.costs.min())
    while at < len(order) and budget - used >= cheapest:
        cand = order[at:][~covered[order[at:]]][:ROUND]
        if not len(cand):
            break
        at = int(pos[cand[-1]]) + 1
        near = uvecs @ uvecs[cand].T >= COLLAPSE  # distinct texts x candidates
        newest = np.where(near, last[:, None], -1).argmax(axis=0)  # the distinct text said last
        near |= uvecs @ uvecs[newest].T >= COLLAPSE
        for i, u in enumerate(cand):
            if covered[u]:
                continue
            covered |= near[:, i]
            line = int(last[newest[i]])
            c = int(pool.costs[line])
            if (
                line in chosen
                or used + c > budget
                or (chosen and float((pool.vecs[chosen] @ pool.vecs[line]).max()) >= COLLAPSE)
            ):
                continue
            chosen.append(line)
            used += c
    return _fit(pool, chosen, budget, costs)


def mmr(pool: Pool, question: str, situation: str, qvec, svec, budget: int, costs: Costs) -> Shown:
    """Greedy MMR over every line. Exact, but lazy: the gain is at most MMR_LAMBDA·relevance, so the
    cosines to the chosen lines are kept only for a frontier of the most relevant lines, doubled
    whenever a line beyond it could still win."""
    rel = relevance(pool, qvec, svec)
    order = np.argsort(-rel, kind="stable")
    rel_o, cost_o = rel[order], pool.costs[order]
    fits = cost_o <= budget
    chosen, used, m = [], 0, min(len(order), 256)
    front = pool.vecs[order[:m]]
    best = np.zeros(m)  # max cosine to the chosen lines (0 before any is chosen), frontier only
    while fits.any():
        gain = np.where(fits[:m], MMR_LAMBDA * rel_o[:m] - (1 - MMR_LAMBDA) * best, -np.inf)
        j = int(np.argmax(gain))
        if m < len(order) and gain[j] < MMR_LAMBDA * rel_o[m]:  # a line beyond the frontier might do better
            grow = order[m : min(len(order), 2 * m)]
            extra = pool.vecs[grow] @ pool.vecs[chosen].T if chosen else np.zeros((len(grow), 1))
            best = np.concatenate([best, np.maximum(extra.max(axis=1), 0.0)])
            front, m = np.concatenate([front, pool.vecs[grow]]), m + len(grow)
            continue
        chosen.append(int(order[j]))
        used += int(cost_o[j])
        fits[j] = False
        fits &= cost_o <= budget - used  # a line that does not fit now never will
        best = np.maximum(best, front @ pool.vecs[order[j]])
    return _fit(pool, chosen, budget, costs)


def lexical(pool: Pool, question: str) -> np.ndarray:
    """BM25 score of every line for the question (``memory.lexical``, the index MEMO also keeps)."""
    from memory.lexical import LexicalIndex

    index = LexicalIndex()
    for k, text in enumerate(pool.texts):
        index.add(str(k), text)
    return np.asarray(index.scores(question, [str(k) for k in range(len(pool.texts))]), dtype=np.float64)


def bm25(pool: Pool, question: str, situation: str, qvec, svec, budget: int, costs: Costs) -> Shown:
    """Lines by BM25 for the question, ties by meaning (``relevance``)."""
    order = np.lexsort((-relevance(pool, qvec, svec), -lexical(pool, question)))
    return _fit(pool, _fill(order, pool, budget), budget, costs)


def hybrid(pool: Pool, question: str, situation: str, qvec, svec, budget: int, costs: Costs) -> Shown:
    """Lines by ``(1 − HYBRID_WEIGHT)·relevance/best + HYBRID_WEIGHT·BM25/best``: meaning and rare words."""
    rel, lex = relevance(pool, qvec, svec), lexical(pool, question)
    mix = (1 - HYBRID_WEIGHT) * rel / max(float(rel.max()), 1e-9) + HYBRID_WEIGHT * lex / max(float(lex.max()), 1e-9)
    return _fit(pool, _fill(np.argsort(-mix, kind="stable"), pool, budget), budget, costs)


BASELINES: dict[str, Callable[..., Shown]] = {
    "full history": full_history,
    "recency window": recency_window,
    "top-k": top_k,
    "top-k+collapse": top_k_collapse,
    "top-k+collapse (newest)": top_k_collapse_newest,
    "MMR": mmr,
    "BM25": bm25,
    "hybrid": hybrid,
}
