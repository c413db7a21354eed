"""Vector store and embedder benchmark: FlatStore vs ChromaStore, and MiniLM throughput.

Usage:  python -m benchmarks.store_bench [--quick] [--queries 200] [--seed 0] [--skip-embedder]

For n in 1k, 10k and 100k random unit 384-d vectors with scope/kind/turn
metadata (seeded), each store is filled in batches of 1,000 (add throughput in
vectors/s) and then asked 200 random queries filtered to one of 8 scopes
(p50/p95 latency in ms; recall@10 of chroma against the exact flat answer).
At 10k, chroma collections are built with ef_search 10/50/100/200 to measure
recall@10 (unfiltered and filtered). chromadb 1.5.9 only applies ef_search
when an index is loaded, so each setting gets its own collection.

Random 384-d vectors are the hard case for HNSW (no cluster structure), so
recall here is a lower bound for real sentence embeddings; one more row
measures recall on 2,000 real MiniLM sentence embeddings.

The MiniLM embedder is timed on 2,000 generated sentences (batch 64, cache
off) and on single sentences. The last line recommends the default store
from the measured latencies. ``--quick`` skips chroma at 100k (the build is
the slow part); without it chroma at 100k is also skipped when the 10k build
rate projects more than 5 minutes. Both cases are stated in the output.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from memory.store import ChromaStore, FlatStore, Where

DIM = 384
SCOPES = tuple(["world", "player"] + [f"npc:{n}" for n in ("mara", "ilse", "orla", "tom", "bram", "edda")])
KINDS = ("fact", "event", "claim")
BUDGET_MS = {1_000: 10.0, 10_000: 10.0, 100_000: 30.0}  # flat p95 targets
CHROMA_100K_MAX_SECONDS = 300.0
T0 = time.perf_counter()


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - T0:6.1f}s] {msg}", flush=True)


def unit(rng: np.random.Generator, n: int) -> np.ndarray:
    x = rng.standard_normal((n, DIM)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def dataset(n: int, seed: int):
    rng = np.random.default_rng(seed)
    vecs = unit(rng, n)
    scope = rng.integers(len(SCOPES), size=n)
    kind = rng.integers(len(KINDS), size=n)
    turn = rng.integers(0, 1000, size=n)
    metas = [{"scope": SCOPES[s], "kind": KINDS[k], "turn": int(t)} for s, k, t in zip(scope, kind, turn)]
    return [f"m{i:06d}" for i in range(n)], vecs, metas


def queries(n_queries: int, seed: int):
    rng = np.random.default_rng(seed + 1)
    qs = unit(rng, n_queries)
    wheres = [Where(scopes=(SCOPES[int(s)],)) for s in rng.integers(len(SCOPES), size=n_queries)]
    return qs, wheres


def fill(store, ids, vecs, metas, batch: int = 1000) -> float:
    t = time.perf_counter()
    for lo in range(0, len(ids), batch):
        store.add(ids[lo : lo + batch], vecs[lo : lo + batch], metas[lo : lo + batch])
    return len(ids) / (time.perf_counter() - t)


def timed_queries(store, qs, wheres, k: int = 10):
    lat, results = [], []
    for q, w in zip(qs, wheres):
        t = time.perf_counter()
        r = store.query(q, k, w)
        lat.append(time.perf_counter() - t)
        results.append([i for i, _ in r])
    lat_ms = np.array(lat) * 1e3
    return float(np.percentile(lat_ms, 50)), float(np.percentile(lat_ms, 95)), results


def recall(got: list[list[str]], truth: list[list[str]]) -> float:
    hits = sum(len(set(g) & set(t)) for g, t in zip(got, truth))
    total = sum(len(t) for t in truth)
    return hits / total if total else 1.0


def sentences(n: int, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    who = [
        "The harbor master",
        "Mara the merchant",
        "An old sailor",
        "The council clerk",
        "Ilse",
        "A stranger",
        "The lighthouse keeper",
        "Captain Orla",
        "Young Tom",
        "The fishmonger",
    ]
    verb = ["says that", "swears that", "whispers that", "doubts that", "heard that", "believes that"]
    what = [
        "the amulet",
        "the brass key",
        "a silver pearl",
        "the ledger",
        "the iron gate",
        "the map",
        "the crate of spices",
        "the missing ship",
        "the council seal",
        "a sealed letter",
    ]
    where = [
        "is hidden in the crypt",
        "was sold at the bazaar",
        "lies under the old pier",
        "went north at dawn",
        "is locked in the chapel",
        "was stolen last night",
        "costs twenty silver",
        "sank near the reef",
        "is guarded by the watch",
        "was never real",
    ]
    when = ["", " before the storm", " on market day", " after the vote", " at low tide", " three turns ago"]
    out, seen = [], set()
    while len(out) < n:
        s = (
            f"{who[rng.integers(len(who))]} {verb[rng.integers(len(verb))]} {what[rng.integers(len(what))]} "
            f"{where[rng.integers(len(where))]}{when[rng.integers(len(when))]}"
        )
        if s in seen:
            s = f"{s} (note {len(out)})"
        seen.add(s)
        out.append(s + ".")
    return out


def bench_embedder(seed: int):
    from memory.embedder import MiniLMEmbedder, _load_model

    t = time.perf_counter()
    _load_model()
    load_s = time.perf_counter() - t
    texts = sentences(2000, seed)
    e = MiniLMEmbedder(batch_size=64, cache_size=0)
    e(texts[:64])  # warm-up
    t = time.perf_counter()
    vecs = e(texts)
    rate = len(texts) / (time.perf_counter() - t)
    singles = sentences(60, seed + 7)
    lat = []
    for s in singles:
        t = time.perf_counter()
        e([s])
        lat.append((time.perf_counter() - t) * 1e3)
    return load_s, rate, float(np.percentile(lat[10:], 50)), float(np.percentile(lat[10:], 95)), vecs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip chroma at 100k")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--skip-embedder", action="store_true")
    args = ap.parse_args(argv)

    import chromadb

    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(
        f"machine: {os.cpu_count()} cores ({affinity} usable), load average {os.getloadavg()[0]:.2f} at start;"
        f" numpy {np.__version__}, chromadb {chromadb.__version__}",
        flush=True,
    )

    rows = []  # (store, n, add/s, p50, p95, recall or None, note)
    notes = []
    qs, wheres = queries(args.queries, args.seed)
    ef_rows = []
    chroma_rate_10k = None
    for n in (1_000, 10_000, 100_000):
        ids, vecs, metas = dataset(n, args.seed)
        log(f"n={n:,}: flat add")
        flat = FlatStore()
        rate = fill(flat, ids, vecs, metas)
        p50, p95, truth = timed_queries(flat, qs, wheres)
        rows.append(("flat", n, rate, p50, p95, 1.0))
        log(f"n={n:,}: flat p50 {p50:.2f} ms, p95 {p95:.2f} ms")

        if n == 100_000:
            if args.quick:
                notes.append("chroma at 100k skipped (--quick)")
                log(notes[-1])
                continue
            # HNSW inserts slow down with size: measured 2.5x lower rate at 100k than at 10k
            projected = n / chroma_rate_10k * 2.5 if chroma_rate_10k else 0.0
            if projected > CHROMA_100K_MAX_SECONDS:
                notes.append(f"chroma at 100k skipped: build projected at {projected:.0f}s from the 10k rate")
                log(notes[-1])
                continue
            log(f"n={n:,}: chroma add (projected ~{projected:.0f}s)")
        else:
            log(f"n={n:,}: chroma add")
        chroma = ChromaStore(ef_search=100)
        rate = fill(chroma, ids, vecs, metas, batch=1000)
        if n == 10_000:
            chroma_rate_10k = rate
        p50, p95, got = timed_queries(chroma, qs, wheres)
        rows.append(("chroma", n, rate, p50, p95, recall(got, truth)))
        log(f"n={n:,}: chroma p50 {p50:.2f} ms, p95 {p95:.2f} ms, filtered recall@10 {rows[-1][5]:.3f}")
        chroma.close()

        if n == 10_000:
            _, _, truth_all = timed_queries(flat, qs, [None] * len(qs))
            for ef in (10, 50, 100, 200):
                log(f"n=10,000: chroma ef_search={ef}")
                c = ChromaStore(ef_search=ef)
                fill(c, ids, vecs, metas)
                a50, a95, got_all = timed_queries(c, qs, [None] * len(qs))
                _, _, got_f = timed_queries(c, qs, wheres)
                ef_rows.append((ef, recall(got_all, truth_all), recall(got_f, truth), a50, a95))
                c.close()
        del flat

    emb = None
    if not args.skip_embedder:
        log("MiniLM embedder: load + 2,000 sentences")
        try:
            load_s, rate, s50, s95, evecs = bench_embedder(args.seed)
            emb = (load_s, rate, s50, s95)
            # recall on real embeddings: 2,000 sentences, the first 200 as queries against the rest
            ids = [f"s{i:05d}" for i in range(len(evecs))]
            meta = [{"scope": SCOPES[i % len(SCOPES)]} for i in range(len(evecs))]
            f, c = FlatStore(), ChromaStore(ef_search=100)
            fill(f, ids, evecs, meta)
            fill(c, ids, evecs, meta)
            qv = evecs[:200] + 0.05 * unit(np.random.default_rng(args.seed + 3), 200)
            _, _, t_ = timed_queries(f, qv, [None] * 200)
            _, _, g_ = timed_queries(c, qv, [None] * 200)
            emb = emb + (recall(g_, t_),)
            c.close()
        except Exception as exc:  # EmbedderUnavailable
            notes.append(f"embedder not measured: {exc}")

    print()
    print(
        f"{'store':<8}{'n':>9}{'add vec/s':>12}{'p50 ms':>9}{'p95 ms':>9}{'recall@10':>11}"
        f"  ({args.queries} queries, scope filter)"
    )
    for store, n, rate, p50, p95, rec in rows:
        print(f"{store:<8}{n:>9,}{rate:>12,.0f}{p50:>9.2f}{p95:>9.2f}{rec:>11.3f}")
    for note in notes:
        print(f"  note: {note}")
    print()
    print("chroma recall@10 vs flat at 10k (random 384-d vectors; each ef_search its own build)")
    print(f"{'ef_search':>9}{'recall':>9}{'filtered':>10}{'p50 ms':>9}{'p95 ms':>9}")
    for ef, r_all, r_f, a50, a95 in ef_rows:
        print(f"{ef:>9}{r_all:>9.3f}{r_f:>10.3f}{a50:>9.2f}{a95:>9.2f}")
    if emb:
        print()
        print(
            f"MiniLM (all-MiniLM-L6-v2, cpu): load {emb[0]:.1f} s; batched {emb[1]:,.0f} sentences/s "
            f"(2,000 sentences, batch 64); single sentence p50 {emb[2]:.1f} ms, p95 {emb[3]:.1f} ms"
        )
        if len(emb) > 4:
            print(f"chroma (ef_search 100) recall@10 on 2,000 MiniLM sentence embeddings: {emb[4]:.3f}")

    # recommendation
    flat = {n: p95 for s, n, _, _, p95, _ in rows if s == "flat"}
    chroma = {n: (p95, rec) for s, n, _, _, p95, rec in rows if s == "chroma"}
    within = all(flat[n] <= BUDGET_MS[n] for n in flat)
    faster = all(flat[n] <= chroma[n][0] for n in chroma)
    worst = ", ".join(f"{n // 1000}k {flat[n]:.1f}/{BUDGET_MS[n]:.0f} ms" for n in flat)
    vs = ", ".join(f"{n // 1000}k flat {flat[n]:.1f} vs chroma {chroma[n][0]:.1f} ms" for n in chroma)
    print()
    print(f"load average {os.getloadavg()[0]:.2f} at end; total {time.perf_counter() - T0:.0f} s")
    if within or faster:
        why = "exact results" + (" and within the p95 budget (" + worst + ")" if within else "")
        print(f"default store: flat  ({why}; p95 {vs})")
    else:
        print(f"default store: chroma  (flat p95 over budget: {worst}; {vs})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
