"""The context builders compared on LoCoMo: simple retrieval baselines and MEMO.

Every method sees the same lines (one per turn, ``benchmarks.locomo.data.Turn.line``) and the
same question, ranks the turns and fills the token budget greedily in rank order: a line that
does not fit is skipped and the next one tried. A line costs ``memory.tokens.count_tokens(line)``
for every method; the budget is the sum over the lines shown.

* ``recency``: newest turns first.
* ``BM25``: bm25s over lowercased words, English stopwords removed, Snowball stems.
* ``dense``: MiniLM cosine between the question and each line (top-k until the budget is full).
* ``MMR``: maximal marginal relevance over the dense cosines,
  ``lambda·cos(q, line) − (1 − lambda)·max cos(line, chosen)``; lambda tuned.
* ``hybrid``: BM25 and dense fused, either min–max normalised scores mixed ``w·bm25 + (1 − w)·dense``
  or reciprocal rank fusion ``w/(60 + rank_bm25) + (1 − w)/(60 + rank_dense)``; fusion and w tuned.

Ties are broken towards the newer turn. MEMO is :func:`memo_arm`: the project's ``memory.memo.Memo``
fed every turn as an utterance of its speaker, one context per question and budget (see there).
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

RRF_K = 60
READER = "reader"  # the agent MEMO builds contexts for: none of the speakers, so nothing is "its own"
BASELINES = ("recency", "BM25", "dense", "MMR", "hybrid", "hybrid+neighbours")
MEMO = "MEMO"
METHODS = (*BASELINES, MEMO)
MMR_GRID = (0.5, 0.6, 0.7, 0.8, 0.9)
HYBRID_GRID = tuple((f, w) for f in ("mix", "rrf") for w in (0.2, 0.35, 0.5, 0.65, 0.8))
NEIGHBOUR_GRID = (0.25, 0.5, 1.0)  # share of the best adjacent turn's hybrid score


# --------------------------------------------------------------------------- embeddings


class CachedEmbedder:
    """The project's MiniLM embedder with its vectors kept on disk, keyed by the sha1 of the text.

    A rerun embeds nothing it embedded before. MEMO gets this object as its embedder, so it sees
    exactly the vectors the baselines use. ``save`` writes new vectors (atomically)."""

    name = "minilm"

    def __init__(self, cache_dir: Path | None = None, base: Any = None):
        from memory.embedder import get_embedder

        self.base = base if base is not None else get_embedder("minilm")
        self.dim = int(self.base.dim)
        self.path = Path(cache_dir) / f"{self.base.name}-{self.dim}.npz" if cache_dir else None
        self._vecs: dict[bytes, np.ndarray] = {}
        self._new = 0
        if self.path is not None and self.path.is_file():
            with np.load(self.path) as z:
                keys, vecs = z["keys"], z["vecs"]
            if vecs.ndim == 2 and vecs.shape[1] == self.dim:
                self._vecs = {bytes(k): v for k, v in zip(keys, vecs.astype(np.float32))}

    @staticmethod
    def key(text: str) -> bytes:
        return hashlib.sha1(text.encode("utf-8")).digest()

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        items = [texts] if isinstance(texts, str) else list(texts)
        keys = [self.key(t) for t in items]
        todo = list(dict.fromkeys(t for t, k in zip(items, keys) if k not in self._vecs))
        if todo:
            for t, v in zip(todo, self.base(todo)):
                self._vecs[self.key(t)] = np.asarray(v, dtype=np.float32)
            self._new += len(todo)
        out = np.empty((len(items), self.dim), dtype=np.float32)
        for i, k in enumerate(keys):
            out[i] = self._vecs[k]
        return out

    def save(self) -> int:
        """Write the cache if anything was embedded since it was read; returns how many new vectors."""
        new, self._new = self._new, 0
        if self.path is None or not new:
            return new
        self.path.parent.mkdir(parents=True, exist_ok=True)
        keys = np.array(list(self._vecs), dtype="S20")
        vecs = np.stack(list(self._vecs.values())).astype(np.float32)
        tmp = self.path.with_name(self.path.name + ".tmp.npz")
        np.savez(tmp, keys=keys, vecs=vecs)
        os.replace(tmp, self.path)
        return new


# --------------------------------------------------------------------------- one conversation


@dataclass
class Corpus:
    """One conversation's lines as every baseline sees them: texts, unit vectors, token costs and a
    BM25 index."""

    lines: list[str]
    vecs: np.ndarray
    costs: list[int]
    bm25: Any = None
    sims: np.ndarray | None = None  # line-to-line cosines, for MMR (made on first use)
    _stemmer: Any = field(default=None, repr=False)

    @classmethod
    def build(cls, lines: list[str], embedder: Callable[[list[str]], np.ndarray]) -> Corpus:
        import bm25s
        import Stemmer

        from memory.tokens import count_many

        stemmer = Stemmer.Stemmer("english")
        index = bm25s.BM25()
        index.index(
            bm25s.tokenize(lines, lower=True, stopwords="en", stemmer=stemmer, show_progress=False), show_progress=False
        )
        return cls(lines, embedder(lines), count_many(lines), index, _stemmer=stemmer)

    def bm25_scores(self, question: str) -> np.ndarray:
        import bm25s

        toks = bm25s.tokenize(
            [question], lower=True, stopwords="en", stemmer=self._stemmer, return_ids=False, show_progress=False
        )[0]
        if not toks:
            return np.zeros(len(self.lines))
        return np.asarray(self.bm25.get_scores(toks), dtype=np.float64)

    def line_sims(self) -> np.ndarray:
        if self.sims is None:
            self.sims = self.vecs @ self.vecs.T
        return self.sims


@dataclass
class Query:
    """One question with what the rankers need of it, computed once."""

    text: str
    vec: np.ndarray
    cos: np.ndarray  # cosine to every line
    bm25: np.ndarray  # BM25 score of every line


def query(corpus: Corpus, text: str, vec: np.ndarray) -> Query:
    return Query(text, vec, corpus.vecs @ vec, corpus.bm25_scores(text))


def by_score(scores: np.ndarray) -> np.ndarray:
    """Indexes best first; ties go to the newer line."""
    n = len(scores)
    return np.lexsort((-np.arange(n), -np.asarray(scores, dtype=np.float64)))


def fill(order: Sequence[int], costs: list[int], budget: int) -> list[int]:
    """Walk ``order`` and take every line that still fits ``budget`` (skipping the ones that do not)."""
    chosen, used = [], 0
    cheapest = min(costs) if costs else 1
    for k in order:
        c = costs[k]
        if used + c <= budget:
            chosen.append(int(k))
            used += c
            if budget - used < cheapest:
                break
    return chosen


def _minmax(x: np.ndarray) -> np.ndarray:
    lo, hi = float(x.min()), float(x.max())
    return np.zeros_like(x, dtype=np.float64) if hi - lo < 1e-12 else (x - lo) / (hi - lo)


def rank_recency(corpus: Corpus, q: Query) -> np.ndarray:
    return np.arange(len(corpus.lines))[::-1]


def rank_bm25(corpus: Corpus, q: Query) -> np.ndarray:
    return by_score(q.bm25)


def rank_dense(corpus: Corpus, q: Query) -> np.ndarray:
    return by_score(q.cos)


def rank_mmr(corpus: Corpus, q: Query, lam: float) -> np.ndarray:
    """Greedy MMR order of every line."""
    n = len(corpus.lines)
    sims = corpus.line_sims()
    rel = lam * q.cos + np.arange(n) * 1e-12  # ties go to the newer line
    penalty = np.zeros(n)  # max cosine to a chosen line
    free = np.ones(n, dtype=bool)
    order = []
    for step in range(n):
        score = rel - (1 - lam) * penalty if step else rel.copy()
        score[~free] = -np.inf
        k = int(np.argmax(score))
        order.append(k)
        free[k] = False
        np.maximum(penalty, sims[k], out=penalty)
    return np.asarray(order)


def rank_hybrid(corpus: Corpus, q: Query, fusion: str, w: float) -> np.ndarray:
    if fusion == "mix":
        return by_score(w * _minmax(q.bm25) + (1 - w) * _minmax(q.cos))
    if fusion == "rrf":
        n = len(corpus.lines)
        rb, rd = np.empty(n), np.empty(n)
        rb[by_score(q.bm25)] = np.arange(1, n + 1)
        rd[by_score(q.cos)] = np.arange(1, n + 1)
        return by_score(w / (RRF_K + rb) + (1 - w) / (RRF_K + rd))
    raise ValueError(f"unknown fusion {fusion!r}")


def rank_neighbours(corpus: Corpus, q: Query, fusion: str, w: float, c: float) -> np.ndarray:
    """The hybrid's min-max mixed score plus ``c`` times the best score of the turn just before or after
    (turns of a conversation answer each other)."""
    if fusion != "mix":
        raise ValueError("the neighbour baseline smooths the mixed hybrid score")
    s = w * _minmax(q.bm25) + (1 - w) * _minmax(q.cos)
    near = np.zeros_like(s)
    near[1:] = s[:-1]
    near[:-1] = np.maximum(near[:-1], s[1:])
    return by_score(s + c * near)


def baseline_orders(
    corpus: Corpus, q: Query, params: dict[str, Any], only: Sequence[str] = BASELINES
) -> dict[str, np.ndarray]:
    """The rankings of the baselines in ``only`` for one question, with ``params`` (``mmr_lambda``;
    ``hybrid``: (fusion, w))."""
    rankers = {
        "recency": lambda: rank_recency(corpus, q),
        "BM25": lambda: rank_bm25(corpus, q),
        "dense": lambda: rank_dense(corpus, q),
        "MMR": lambda: rank_mmr(corpus, q, params["mmr_lambda"]),
        "hybrid": lambda: rank_hybrid(corpus, q, *params["hybrid"]),
        "hybrid+neighbours": lambda: rank_neighbours(corpus, q, "mix", 0.5, params["neighbours"]),
    }
    return {m: rankers[m]() for m in only}


# --------------------------------------------------------------------------- MEMO


def memo_config(overrides: dict[str, Any] | None = None):
    """The default ``MemoConfig`` with ``overrides`` (dotted keys reach nested models:
    ``mask.redundancy_drop``); a bad key or value raises pydantic's ValidationError or a KeyError."""
    from memory.config import MemoConfig

    data = MemoConfig().model_dump()
    for key, value in (overrides or {}).items():
        *path, last = key.split(".")
        node = data
        for part in path:
            if not isinstance(node.get(part), dict):
                raise KeyError(f"no MEMO setting {key!r}")
            node = node[part]
        if last not in node:
            raise KeyError(f"no MEMO setting {key!r}")
        node[last] = value
    return MemoConfig.model_validate(data)


def parse_overrides(items: Sequence[str]) -> dict[str, Any]:
    """``["w_recency=0.1", "kinds=null"]`` -> ``{"w_recency": 0.1, "kinds": None}`` (values read as
    JSON when they are JSON, as text otherwise)."""
    out = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"expected key=value, got {item!r}")
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        out[key.strip()] = value
    return out


@dataclass
class MemoShown:
    turns: list[int]  # turn indexes whose records are in ctx.ids
    tokens: int  # tokens of the rendered context (memory.tokens.count_tokens of ctx.text())
    verbatim: int  # how many of ``turns`` appear word for word in the rendered text


@dataclass
class MemoRun:
    shown: dict[tuple[int, int], MemoShown]  # (question number, budget) -> what MEMO showed
    superseded: list[int]  # turns whose records MEMO marked superseded (out of its retrieval) by the end
    seconds: float


def memo_arm(
    turns: Sequence[tuple[str, str]],
    questions: Sequence[str],
    budgets: Sequence[int],
    *,
    embedder: Any = "minilm",
    overrides: dict[str, Any] | None = None,
    progress: Callable[[], None] | None = None,
) -> MemoRun:
    """MEMO through its public API (``memory.memo.Memo``), for one conversation.

    ``turns`` are (line, speaker) in conversation order: each is added as an ``utterance`` of its
    speaker in shared memory at turn = its position, the line text exactly as the baselines see it.
    Then, at the end of the conversation (turn = number of turns), one context per question and
    budget for an agent who is neither speaker, with ``focus`` = the question, no situation query,
    ``touch=False`` (one question's context does not change the next one's). A turn counts as shown
    when its record is in ``ctx.ids`` (records shown directly or as members of a merged or series
    line). ``overrides`` change the default ``MemoConfig`` (:func:`memo_config`); ``progress`` is called
    after each question."""
    import time

    from memory.memo import Memo

    t0 = time.perf_counter()
    memo = Memo(embedder=embedder, config=memo_config(overrides))
    turn_of: dict[str, int] = {}
    for i, (line, speaker) in enumerate(turns):
        turn_of[memo.add(line, turn=i, speaker=speaker, kind="utterance").id] = i
    now = len(turns)
    shown: dict[tuple[int, int], MemoShown] = {}
    for qi, question in enumerate(questions):
        for budget in budgets:
            ctx = memo.context(READER, now, budget=budget, focus=question, touch=False)
            idx = sorted({turn_of[r] for r in ctx.ids if r in turn_of})
            text = ctx.text()
            shown[(qi, budget)] = MemoShown(idx, ctx.tokens, sum(turns[i][0] in text for i in idx))
        if progress is not None:
            progress()
    superseded = sorted(turn_of[r.id] for r in memo.bank.records.values() if r.status == "superseded")
    return MemoRun(shown, superseded, time.perf_counter() - t0)
