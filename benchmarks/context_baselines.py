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
  already chosen is at least 0.9.
* ``MMR``: maximal marginal relevance, ``0.7·relevance − 0.3·max cos to the
  chosen lines``, over the 200 most relevant lines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from context_logs import content_words

SITUATION_WEIGHT = 0.75   # the weight MEMO's default config gives the situation against the question
COLLAPSE = 0.9
MMR_LAMBDA = 0.7
MMR_POOL = 200


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


def mmr(pool: Pool, question: str, situation: str, qvec, svec, budget: int, costs: Costs) -> Shown:
    rel = relevance(pool, qvec, svec)
    cand = np.argsort(-rel, kind="stable")[:MMR_POOL]
    best_sim = np.zeros(len(cand))   # max cosine to the chosen lines (0 before any is chosen)
    open_ = np.ones(len(cand), dtype=bool)
    chosen, used = [], 0
    cheapest = int(pool.costs[cand].min()) if len(cand) else 1
    while open_.any() and budget - used >= cheapest:
        gain = MMR_LAMBDA * rel[cand] - (1 - MMR_LAMBDA) * best_sim
        j = int(np.argmax(np.where(open_, gain, -np.inf)))
        open_[j] = False
        k = int(cand[j])
        if used + int(pool.costs[k]) > budget:
            continue
        chosen.append(k)
        used += int(pool.costs[k])
        best_sim = np.maximum(best_sim, pool.vecs[cand] @ pool.vecs[k])
    return _fit(pool, chosen, budget, costs)


BASELINES: dict[str, Callable[..., Shown]] = {
    "full history": full_history,
    "recency window": recency_window,
    "top-k": top_k,
    "top-k+collapse": top_k_collapse,
    "MMR": mmr,
}
