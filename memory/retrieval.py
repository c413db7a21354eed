"""Candidate retrieval that a flood of near-duplicates cannot crowd out.

Similarity top-k alone fails in long games: three hundred near-identical offers
outrank the one overheard reservation price, and the few candidates left are all
the same offer. So MEMO collapses before it cuts:

1. a pool of hits per query vector (``candidates x pool_factor``), widened while
   the pool collapses to fewer than ``candidates`` clusters and the store has more;
2. collapse: memories with one template (same speaker, kind and wording with the
   values taken out) are one cluster, and so are differently worded memories of one
   kind whose vectors are at least ``collapse_similarity`` alike, unless the newcomer
   is rated more important than the cluster's first member; anchors stay alone;
3. cut: the ``candidates`` most relevant clusters, plus the ``rare_candidates`` most
   relevant memories said only once (news, not a refrain or a series), plus the most
   relevant cluster of every kind and every time band not yet represented, plus every
   cluster holding an anchor or a recent memory.

Each cluster reaches scoring as one candidate: its newest member (the current
statement), with the cluster's best relevance and importance, standing for the
whole group (rendered as a series of its values or a count).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from memory.config import MemoConfig
from memory.records import MemoryRecord
from memory.values import labels, substituted


def collapse(
    recs: Sequence[MemoryRecord],
    rel: np.ndarray,
    vecs: np.ndarray,
    key_of: Callable[[MemoryRecord], tuple],
    threshold: float,
) -> list[list[int]]:
    """Clusters of ``recs`` (indexes), most relevant cluster first; each cluster lists its members
    in order of relevance.

    Memories of one template join the cluster of the template's most relevant member, so only that
    member (the template's leader) is compared by vector, and only with the leaders that opened a
    cluster before it: a flood of a thousand offers in five wordings costs five comparisons."""
    rel_l = rel.tolist() if isinstance(rel, np.ndarray) else list(rel)  # Python floats: cheaper to read one by one
    order = sorted(range(len(recs)), key=lambda i: (-rel_l[i], recs[i].seq))
    keys: list[tuple | None] = [None] * len(recs)
    leaders: list[int] = []
    first: dict[tuple, int] = {}
    for i in order:
        r = recs[i]
        if r.anchor:
            continue
        key = keys[i] = key_of(r)[1:]  # the same words in shared and private memory are one thing
        if key not in first:
            first[key] = i
            leaders.append(i)
    pos = {i: p for p, i in enumerate(leaders)}
    n = len(leaders)
    lv = vecs[leaders] if leaders else vecs[:0]
    sim = lv @ lv.T if n <= 4000 else None  # one product beats a loop of small ones
    if sim is not None:
        # each leader's most alike more relevant leader: when that one opened a cluster it is also the
        # most alike open cluster, and no row of heads need be read
        earlier = np.where(np.tri(n, k=-1, dtype=bool), sim, -np.inf)
        best_all, best_sim = earlier.argmax(axis=1) if n else earlier[:, :0], earlier.max(axis=1, initial=-np.inf)
        near = (best_sim >= threshold).tolist()  # none that alike: a cluster of its own, without a look
        best_all, best_sim = best_all.tolist(), best_sim.tolist()
    else:
        near = [True] * n
    clusters: list[list[int]] = []
    by_key: dict[tuple, int] = {}
    heads = np.empty(n, dtype=np.intp)  # leader position of each open cluster's first member
    opened = [-1] * n  # the cluster a leader opened, or -1
    nh = 0
    for i in order:
        r = recs[i]
        if r.anchor:
            clusters.append([i])
            continue
        key = keys[i]
        c = by_key.get(key)
        if c is None and nh and near[pos[i]]:
            p = pos[i]
            if sim is not None and opened[best_all[p]] >= 0:
                h, best = best_all[p], best_sim[p]
            else:
                sims = sim[p, heads[:nh]] if sim is not None else lv[heads[:nh]] @ lv[p]
                j = int(np.argmax(sims))
                h, best = int(heads[j]), float(sims[j])
            head = recs[leaders[h]]
            # another wording of the same kind of thing; a statement that matters more than the cluster
            # (a reservation price among offers) is never folded into it
            if (
                best >= threshold
                and head.kind == r.kind
                and r.importance <= head.importance + 0.05
                and not substituted(head.text, r.text)
                and labels(head.text) == labels(r.text)
            ):
                # "the left goblet" is not "the right goblet", crate 12 is not crate 17
                c = opened[h]
        if c is None:
            c = len(clusters)
            clusters.append([])
            heads[nh] = pos[i]
            opened[pos[i]] = c
            nh += 1
        by_key[key] = c
        clusters[c].append(i)
    return clusters


def _band(turn: int, now: int, bands: int) -> int:
    return min(bands - 1, max(0, turn) * bands // max(1, now + 1))


def cut(
    clusters: list[list[int]],
    recs: Sequence[MemoryRecord],
    now: int,
    cfg: MemoConfig,
    must: set[int],
    said_once: Callable[[MemoryRecord], bool] = lambda r: False,
) -> list[list[int]]:
    """The clusters kept as candidates (``clusters`` is in relevance order)."""
    keep = set(range(min(cfg.candidates, len(clusters))))
    # what was said once is news: the most relevant statements made only once get a place too, so a
    # fact worded unlike the question is not cut behind a hundred refrains and series that are
    rare = 0
    for c in range(len(keep), len(clusters)):
        if rare >= cfg.rare_candidates:
            break
        if len(clusters[c]) == 1 and said_once(recs[clusters[c][0]]):
            keep.add(c)
            rare += 1
    kind_of = [r.kind for r in recs]
    band_of = [_band(r.turn, now, cfg.time_bands) for r in recs]
    kinds: set[str] = set()
    bands: set[int] = set()
    for c in keep:
        kinds.update(kind_of[i] for i in clusters[c])
        bands.update(band_of[i] for i in clusters[c])
    for c, members in enumerate(clusters):
        if c in keep:
            continue
        ks, bs = {kind_of[i] for i in members}, {band_of[i] for i in members}
        if not ks <= kinds or not bs <= bands or not must.isdisjoint(members):
            keep.add(c)
            kinds |= ks
            bands |= bs
    return [clusters[c] for c in sorted(keep)]


def hybrid(bank, cfg: MemoConfig, dense: np.ndarray, recs: Sequence[MemoryRecord], lex) -> np.ndarray:
    """Relevance from meaning and from words: ``(1 - a) * dense + a * lexical``, where lexical is each
    query's BM25 score (``bank.lexicon``) as a share of the pool's best, weighted like the query, scaled to
    the best dense relevance (so the mix keeps the scale that thresholds downstream read) and ``a`` is
    ``lexical_weight``. ``lex``: (query text, weight) pairs."""
    a = cfg.lexical_weight
    if not lex or not a or not len(recs):
        return dense
    ids = [r.id for r in recs]
    best = np.zeros(len(recs))
    for text, weight in lex:
        raw = np.asarray(bank.lexicon.scores(text, ids), dtype=np.float64)
        top = float(raw.max()) if len(raw) else 0.0
        if top > 0:
            best = np.maximum(best, weight * raw / top)
    scale = max(float(dense.max()), 1e-9) if len(dense) else 1.0
    return (1.0 - a) * dense + a * best * scale


def contiguous(rel: np.ndarray, recs: Sequence[MemoryRecord], share: float) -> np.ndarray:
    """Relevance plus ``share`` times how far the memory written just before or after stands above half
    the best relevance (temporal contiguity: memories said together are recalled together). Only the
    better answers lend: a weak candidate joining the pool moves no other memory's relevance."""
    if not share or len(recs) < 2:
        return rel
    at = {r.seq: i for i, r in enumerate(recs)}
    near = np.zeros(len(recs))
    for i, r in enumerate(recs):
        for seq in (r.seq - 1, r.seq + 1):
            j = at.get(seq)
            if j is not None and rel[j] > near[i]:
                near[i] = rel[j]
    floor = 0.5 * float(rel.max())
    return rel + share * np.clip(near - floor, 0.0, None)
