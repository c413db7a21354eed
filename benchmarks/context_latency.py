"""Latency part of the context benchmark (benchmarks/context_bench.py): how long MEMO takes to build a
context from a large store, beside the plain top-k baseline on the same store.

Two kinds of store, each at every size asked for:

* ``template-heavy``: the lines of held-out logs, in order (a few thousand
  wordings with different numbers, so near-duplicates collapse into groups).
  Vectors: MiniLM vectors of each text with its digits masked, so a 100k
  store is embedded in seconds (the value-masked vector stands for the text's).
* ``distinct``: memories that do not collapse: different people, things,
  places, numbers and sentence shapes (:func:`distinct_texts`). Every text is
  embedded whole, in one batch, with MiniLM up to ``minilm_max`` memories and
  with ``get_embedder("hash")`` (word and word-pair hashing) above it, because
  MiniLM embeds only some 70-100 texts a second on a small machine; the row
  names its embedder. The share of the agent's lines with a near-duplicate
  (cosine >= 0.9 to another line) is reported for both kinds.

``Memo.context`` cannot take precomputed vectors, so ``memo.optimizer.build``
is timed with the question and situation vectors precomputed (query embedding
excluded), touch=True, B=400; the top-k baseline (relevance over all the
agent's vectors, sort, fill) is timed on the same store as the reference.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from benchmarks.context.baselines import COLLAPSE, Costs, Pool, top_k
from benchmarks.context.logs import AGENT, MINE, OTHERS, SHARED, VISIBLE, make_log
from benchmarks.lib.cli import seed_list, write_json

HEADLINE = 400
WARM = 5


class MaskedDigits:
    """An embedder that gives each text the vector of the text with its digits masked."""

    def __init__(self, base):
        self.base, self.name, self.dim = base, f"{base.name}-masked-digits", base.dim
        self._digits = re.compile(r"\d+")

    def __call__(self, texts):
        return self.base([self._digits.sub("#", t) for t in texts])


class Precomputed:
    """An embedder that answers from vectors computed in one batch beforehand (others go to ``base``)."""

    def __init__(self, base, texts: list[str]):
        self.base, self.name, self.dim = base, base.name, base.dim
        texts = list(dict.fromkeys(texts))
        self._vecs = dict(zip(texts, base(texts)))

    def __call__(self, texts):
        todo = [t for t in texts if t not in self._vecs]
        if todo:
            self._vecs.update(zip(todo, self.base(todo)))
        return np.stack([self._vecs[t] for t in texts])


_FIRST = (
    "Al",
    "Be",
    "Cor",
    "Da",
    "El",
    "Fen",
    "Gar",
    "Hal",
    "Is",
    "Jor",
    "Kel",
    "Lu",
    "Mor",
    "Ned",
    "Os",
    "Pim",
    "Quil",
    "Ros",
    "Sal",
    "Tob",
    "Ul",
    "Vin",
    "Wil",
    "Yor",
    "Zan",
)
_LAST = ("ric", "wen", "da", "mund", "bert", "ina", "rik", "ola", "ston", "ette", "wick", "gard", "is", "o", "ulf")
_THINGS = (
    "lantern",
    "ledger",
    "anvil",
    "violin",
    "telescope",
    "saddle",
    "kettle",
    "rope ladder",
    "chess set",
    "bee hive",
    "grain sack",
    "oak chest",
    "copper pot",
    "fishing net",
    "map case",
    "wool cloak",
    "whetstone",
    "clock spring",
    "seed drill",
    "bell rope",
    "quill box",
    "loom",
    "harp",
    "hand cart",
    "wine cask",
    "salt barrel",
    "sword belt",
    "tar bucket",
    "snow shovel",
    "spindle",
)
_PLACES = (
    "the mill",
    "the north tower",
    "the chapel crypt",
    "the river ford",
    "the orchard",
    "the tannery yard",
    "the lighthouse",
    "the salt flats",
    "the quarry",
    "the old barracks",
    "the glassworks",
    "the sheep fold",
    "the toll bridge",
    "the apiary",
    "the kiln shed",
    "the boathouse",
    "the granary",
    "the observatory",
    "the rope walk",
    "the hunting lodge",
)
_ADJ = (
    "red",
    "cracked",
    "brass",
    "heavy",
    "borrowed",
    "spare",
    "tiny",
    "green",
    "old",
    "new",
    "painted",
    "rusty",
    "silver",
    "broken",
    "wooden",
    "striped",
)
_TOWNS = (
    "Dunmere",
    "Ashby",
    "Kettleford",
    "Marrow",
    "Penhallow",
    "Rookwood",
    "Stillwater",
    "Thornaby",
    "Upcott",
    "Wrexley",
    "Brackwell",
    "Caddon",
    "Elmsworth",
    "Greyhaven",
    "Larkspur",
    "Oxbury",
    "Pellor",
    "Sunder",
    "Varn",
    "Yelland",
)
_SHAPES = (
    "{a} keeps the {x} in {p}.",
    "{a} lent {b} the {x} for {n} days.",
    "Did {a} really sell the {x} to {b}?",
    "The {x} was carried to {p} by {a}.",
    "{a} and {b} argued about the {x} near {p}.",
    "According to {a}, {n} people saw {b} at {p}.",
    "{a} owes {b} {n} coins for mending the {x}.",
    "{b} asked {a} to guard {p} until the {x} arrives.",
    "Nobody has used the {x} since {a} left {p}.",
    "{a} painted the {x} blue before visiting {p}.",
    "Rumour says {b} hid a {x} under {p}.",
    "{a} counted {n} crates of {x} parts at {p}.",
    "When {b} reached {p}, {a} had already fixed the {x}.",
    "{a}'s cousin {b} wants the {x} back by the {n}th.",
)


def _names() -> list[str]:
    return [f + last for f in _FIRST for last in _LAST]


def distinct_texts(n: int, rng: np.random.Generator) -> list[str]:
    """``n`` different memories: sentence shapes, people, things, places and numbers drawn at random."""
    names = _names()
    out: dict[str, None] = {}
    while len(out) < n:
        a, b = rng.choice(len(names), size=2, replace=False)
        thing = f"{_ADJ[int(rng.integers(len(_ADJ)))]} {_THINGS[int(rng.integers(len(_THINGS)))]}"
        place = f"{_PLACES[int(rng.integers(len(_PLACES)))]} at {_TOWNS[int(rng.integers(len(_TOWNS)))]}"
        text = _SHAPES[int(rng.integers(len(_SHAPES)))].format(
            a=names[a], b=names[b], x=thing, p=place, n=int(rng.integers(2, 10_000))
        )
        out[text] = None
    return list(out)


@dataclass
class Store:
    kind: str
    vectors: str  # the embedder's name
    memo: object
    lines: list[str]  # the agent's visible lines, oldest first
    vecs: np.ndarray  # their vectors, as the store has them
    asks: list[tuple[str, str]]  # (question, situation) to draw queries from
    now: int


def template_store(size: int, seeds: list[int], family: str, emb) -> Store:
    """Lines of ``family`` logs (5,000 turns each, every setting in turn) until the store holds ``size``."""
    from benchmarks.context_bench import SETTINGS, split
    from memory.memo import Memo

    masked = MaskedDigits(emb)
    memo, offset, asks, lines, logs = Memo(embedder=masked), 0, [], [], 0
    while len(memo) < size:
        base, density = split(SETTINGS[logs % len(SETTINGS)])
        log = make_log(base, family, seeds[logs % len(seeds)] if seeds else logs, 5000, density)
        logs += 1
        for ln in log.lines:
            if len(memo) >= size:
                break
            memo.add(ln.text, turn=ln.turn + offset, speaker=ln.speaker, scope=ln.scope, kind=ln.kind)
            if ln.scope in VISIBLE:
                lines.append(ln.text)
        asks += [(d.question, d.situation) for d in log.decisions]
        offset += log.length
    return Store("template-heavy", masked.name, memo, lines, masked(lines), asks, offset + 1)


def distinct_store(size: int, emb, rng: np.random.Generator) -> Store:
    """``size`` distinct memories, 1-3 a turn, shared and private, embedded in one batch."""
    from memory.memo import Memo

    texts = distinct_texts(size, rng)
    pre = Precomputed(emb, texts)
    memo, lines, turn = Memo(embedder=pre), [], 0
    kinds = ("observation", "utterance", "fact", "claim")
    for k, text in enumerate(texts):
        if len(memo) >= size:  # private memories are also consolidated into long-term ones
            break
        turn += int(rng.random() < 0.5)
        r = rng.random()
        scope = SHARED if r < 0.5 else MINE if r < 0.9 else OTHERS[k % len(OTHERS)]
        memo.add(text, turn=turn, speaker="crowd" if scope == SHARED else None, scope=scope, kind=kinds[k % 4])
        if scope in VISIBLE:
            lines.append(text)
    asks, names = [], _names()
    for _ in range(200):
        who = names[int(rng.integers(len(names)))]
        situation = "\n".join(lines[int(i)] for i in rng.integers(max(0, len(lines) - 50), len(lines), size=3))
        asks.append((f"What do you know about {who}?", situation))
    return Store("distinct", pre.name, memo, lines, pre(lines), asks, turn + 1)


def near_duplicate_share(vecs: np.ndarray, rng: np.random.Generator, sample: int = 500) -> float:
    """Share of a sample of lines with another line at cosine >= the collapse threshold."""
    if len(vecs) < 2:
        return 0.0
    pick = rng.choice(len(vecs), size=min(sample, len(vecs)), replace=False)
    dup = 0
    for chunk in np.array_split(pick, max(1, len(pick) // 50)):
        sims = vecs[chunk] @ vecs.T
        sims[np.arange(len(chunk)), chunk] = -1.0
        dup += int((sims.max(axis=1) >= COLLAPSE).sum())
    return dup / len(pick)


def time_store(store: Store, queries: int, emb, rng: np.random.Generator, costs: Costs) -> dict:
    """p50/p95 of ``memo.optimizer.build`` (query, focus and linked-focus vectors precomputed) and of the top-k baseline on ``store``."""
    picks = [store.asks[int(i)] for i in rng.choice(len(store.asks), size=queries, replace=True)]
    order = picks[:WARM] + picks
    qv, sv = emb([q for q, _ in order]), emb([s for _, s in order])
    links = [store.memo.optimizer.linked_focus(AGENT, q) for q, _ in order]  # the focus's third query
    lv = emb([text or q for text, (q, _) in zip(links, order)])
    pool = Pool(store.lines, np.arange(len(store.lines)), store.vecs, costs.of(store.lines))
    memo_ms, topk_ms = [], []
    for k, (question, situation) in enumerate(order):
        t0 = time.perf_counter()
        store.memo.optimizer.build(
            AGENT,
            store.now,
            situation,
            focus=question,
            query_vector=sv[k],
            focus_vector=qv[k],
            link_vector=lv[k] if links[k] else None,
            touch=True,
            budget=HEADLINE,
        )
        t1 = time.perf_counter()
        top_k(pool, question, situation, qv[k], sv[k], HEADLINE, costs)
        t2 = time.perf_counter()
        if k >= WARM:
            memo_ms.append((t1 - t0) * 1e3)
            topk_ms.append((t2 - t1) * 1e3)
    return {
        "store": store.kind,
        "vectors": store.vectors,
        "memories": len(store.memo),
        "visible": len(store.lines),
        "near_dup": near_duplicate_share(store.vecs, rng),
        "queries": queries,
        "memo_p50": float(np.percentile(memo_ms, 50)),
        "memo_p95": float(np.percentile(memo_ms, 95)),
        "topk_p50": float(np.percentile(topk_ms, 50)),
        "topk_p95": float(np.percentile(topk_ms, 95)),
    }


def latency(
    sizes: list[int], queries: int, seeds: list[int], family: str, emb, minilm_max: int = 10_000, distinct: bool = True
) -> list[dict]:
    """One row per store kind and size: the template-heavy store of ``family`` logs, then the distinct one
    (MiniLM up to ``minilm_max`` memories, the hash embedder above)."""
    from memory.embedder import get_embedder

    costs, out = Costs(), []
    for size in sizes:
        rng = np.random.default_rng([seeds[0] if seeds else 0, size])
        out.append(time_store(template_store(size, seeds, family, emb), queries, emb, rng, costs))
        if distinct:
            demb = emb if size <= minilm_max else get_embedder("hash")
            out.append(time_store(distinct_store(size, demb, rng), queries, demb, rng, costs))
    return out


def _size(spec: str) -> tuple[int, str]:
    """``10000:minilm`` -> (10000, "minilm"); the embedder defaults to minilm."""
    size, _, name = spec.partition(":")
    try:
        n = int(size.replace("_", "").replace("k", "000"))
    except ValueError:
        raise ValueError(f"--sizes: {spec!r} is not SIZE[:EMBEDDER] (e.g. 10000:minilm or 100k:hash)") from None
    if n <= 0 or (name or "minilm") not in ("minilm", "hash"):
        raise ValueError(f"--sizes: {spec!r}: the size must be positive and the embedder minilm or hash")
    return n, name or "minilm"


def main(argv: list[str] | None = None) -> int:
    """Time MEMO's build on both kinds of store at each size, beside the bare top-k search."""
    import argparse

    from rich.console import Console
    from rich.table import Table

    from memory.embedder import get_embedder

    ap = argparse.ArgumentParser(
        description="MEMO build latency on a template-heavy and a distinct store per size "
        "(query vectors given), beside the bare top-k search of the same store."
    )
    ap.add_argument(
        "--sizes",
        nargs="+",
        default=["10000:minilm", "100000:hash"],
        help="SIZE[:EMBEDDER] per run; both store kinds are built with that embedder "
        "(hash for 100k: MiniLM embeds some 100 texts a second here). Default: 10000:minilm 100000:hash",
    )
    ap.add_argument("--queries", type=int, default=200, help="builds timed per store (after %d warm-up)" % WARM)
    ap.add_argument(
        "--seeds", type=seed_list, default="100-107", help="held-out family C seeds for the template-heavy store"
    )
    ap.add_argument("--out", type=Path, default=None, help="write the rows as JSON here")
    args = ap.parse_args(argv)
    if args.queries < 1:
        ap.error("--queries must be at least 1")
    seeds = args.seeds
    if not seeds:
        ap.error("--seeds: give at least one seed")
    try:
        sizes = [_size(x) for x in args.sizes]
    except ValueError as e:
        ap.error(str(e))
    console, rows = Console(), []
    console.print(f"machine: load average {__import__('os').getloadavg()[0]:.2f} at start")
    for size, name in sizes:
        emb = get_embedder(name)
        rng = np.random.default_rng([seeds[0], size])
        for kind in ("template", "distinct"):
            t0 = time.time()
            store = template_store(size, seeds, "C", emb) if kind == "template" else distinct_store(size, emb, rng)
            row = time_store(store, args.queries, emb, rng, Costs())
            rows.append(row)
            console.print(
                f"[{time.time() - t0:6.0f} s] {row['store']} {size:,} ({row['vectors']}): MEMO p95 "
                f"{row['memo_p95']:.1f} ms, top-k p95 {row['topk_p95']:.1f} ms"
            )
    table = Table(title="MEMO build latency (query vectors given)")
    for col in ("store", "vectors", "memories", "MEMO p50 / p95", "top-k p50 / p95", "ratio p95"):
        table.add_column(col)
    for r in rows:
        table.add_row(
            r["store"],
            r["vectors"],
            f"{r['memories']:,}",
            f"{r['memo_p50']:.1f} / {r['memo_p95']:.1f} ms",
            f"{r['topk_p50']:.1f} / {r['topk_p95']:.1f} ms",
            f"{r['memo_p95'] / r['topk_p95']:.1f}x",
        )
    console.print(table)
    if args.out:
        write_json(args.out, rows, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
