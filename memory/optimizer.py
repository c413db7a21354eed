"""MEMO: the context optimizer that feeds every agent's turn.

``build(agent, turn, query, ...)``:

1. retrieve: top-k by similarity among the agent's readable memories (shared,
   facts, own private), plus its recent history and its anchors;
2. score: ``w_rel·relevance + w_rec·recency + w_imp·importance``, each min–max
   normalised over the candidates; recency decays with turns since last access;
3. mask: redundancy, self-repetition, controversy, novelty, resolved sub-goals
   (``memory.masking``); anchors exempt;
4. compress: near-duplicates merged, older clusters summarised (``memory.compress``);
5. assemble under a token budget into sections: anchors, priors, shared facts,
   private observations and beliefs, recent history.

The same bank state and inputs give the same context. ``explain`` reports every
candidate with its scores and fate.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from memory.blas import one_blas_thread
from memory.compress import Item, group_line, join_substitutes, llm_text, merge_duplicates, summarise_old
from memory.config import MemoConfig
from memory.linking import names as names_in
from memory.masking import ScoredMemory, boost, mask
from memory.records import FACTS, LIVE, SHARED
from memory.retrieval import collapse, contiguous, cut, hybrid
from memory.values import values

ONCE_READ = 512  # memories said once of a linked name read per build, newest first
HISTORY = LIVE + ("superseded",)  # LIVE (memory.records): what contexts read
SECTIONS = ("anchors", "priors", "shared", "private", "recent")
TITLES = {
    "anchors": "Always remember",
    "priors": "Lessons from earlier games",
    "shared": "Known to all",
    "private": "Your own observations and beliefs",
    "recent": "Just now",
}


@dataclass
class Context:
    """What one agent sees this turn, in sections, with its token count."""

    agent: str
    turn: int
    query: str
    sections: dict[str, list[str]]
    tokens: int
    budget: int
    ids: list[str] = field(default_factory=list)  # records shown, directly or heading a merged or series line

    def text(self) -> str:
        parts = []
        for name in SECTIONS:
            lines = self.sections.get(name)
            if lines:
                parts.append(f"## {TITLES[name]}\n" + "\n".join(f"- {ln}" for ln in lines))
        return "\n\n".join(parts)

    def __len__(self) -> int:
        return sum(len(v) for v in self.sections.values())


def _relevance(vecs: np.ndarray, qvecs: list[tuple[np.ndarray, float]]) -> np.ndarray:
    """Each vector's relevance: its best weighted similarity to the query vectors (0 without any)."""
    if not qvecs:
        return np.zeros(len(vecs))
    return np.max(np.stack([w * (vecs @ q) for q, w in qvecs]), axis=0)


def _minmax(values: np.ndarray) -> np.ndarray:
    if len(values) == 0:
        return values
    lo, hi = float(values.min()), float(values.max())
    if hi - lo < 1e-12:
        return np.ones_like(values)
    return (values - lo) / (hi - lo)


class ContextOptimizer:
    def __init__(
        self,
        bank: Any,
        config: MemoConfig | None = None,
        count_tokens: Callable[[str], int] | None = None,
        summariser: Callable[[list[str]], str] | None = None,
        keep_explanations: int = 64,
    ):
        from memory.tokens import count_tokens as default_count

        self.bank = bank
        self.cfg = config or MemoConfig()
        self._count = count_tokens or default_count
        self._counts: dict[str, int] = {}
        self.summariser = summariser
        self._explained: dict[tuple[str, int], list] = {}  # (candidate, its record's status then)
        self._leads: dict[tuple[str, int], str | None] = {}
        self._lines: dict[tuple, str] = {}
        self._repeat_counts: dict[tuple, int] = {}
        self._keep = keep_explanations

    def count(self, text: str) -> int:
        """Token count, cached per line (the same memories are counted turn after turn)."""
        n = self._counts.get(text)
        if n is None:
            if len(self._counts) > 50_000:
                self._counts.clear()
            n = self._counts[text] = self._count(text)
        return n

    # --- the pipeline ------------------------------------------------------------------
    def build(
        self,
        agent: str,
        turn: int,
        query: str,
        *,
        focus: str | None = None,
        priors: Sequence[str] = (),
        extra_anchors: Sequence[str] = (),
        touch: bool = True,
        query_vector: np.ndarray | None = None,
        focus_vector: np.ndarray | None = None,
        budget: int | None = None,
        history: bool = False,
        link_vector: np.ndarray | None = None,
        linked: Sequence[str] | None = None,
    ) -> Context:
        """The context for ``agent`` at ``turn``.

        ``query`` describes the situation (what the agent sees, what just happened,
        its goals); ``focus`` is the decision at hand, if any (a question put to it,
        the open negotiation). Both retrieve candidates; a memory's relevance is
        ``max(context_weight · sim(query), sim(focus))``, so a long room description
        cannot drown the question. ``query_vector``/``focus_vector`` skip embedding
        (benchmarks time the embedding separately). ``budget`` overrides the configured
        token budget for this call only (the shared config is left as it is). ``history=True``
        also retrieves superseded memories, marked as such (the current value still leads).
        ``linked``/``link_vector``: the focus's linked names and the vector of ``linked_focus``, when
        the caller has them already (looked up here otherwise)."""
        cfg, bank = self.cfg, self.bank
        bank.flush()
        qvecs: list[tuple[np.ndarray, float]] = []
        texts = [(query, cfg.context_weight if focus else 1.0, query_vector), (focus or "", 1.0, focus_vector)]
        names = self.linked_names(agent, focus) if linked is None else list(linked)
        if names:
            texts.append((self._spelled(focus, names), 1.0, link_vector))
        todo = [t for t, _, v in texts if t.strip() and v is None]
        embedded = iter(bank.embed(todo)) if todo else iter(())
        for text, weight, vec in texts:
            if vec is not None:
                qvecs.append((np.asarray(vec, dtype=np.float32), weight))
            elif text.strip():
                qvecs.append((next(embedded), weight))
        # the decision at hand retrieves by its words too; a situation (a room, the last lines seen) says
        # too many words that are everywhere for its rare ones to mean much
        lex = [(t, w) for t, w, _ in texts[1:] if t.strip()] if cfg.lexical_weight else []
        cands = self._retrieve(agent, turn, qvecs, HISTORY if history else LIVE, names, lex)
        with one_blas_thread():  # small products: a second thread only waits to be scheduled
            ctx = self._select(agent, turn, query, cands, priors, extra_anchors, budget, bool(focus), names)
        if touch:
            bank.touch(ctx.ids, turn, agent)
        self._remember(agent, turn, cands)
        return ctx

    def _select(
        self,
        agent: str,
        turn: int,
        query: str,
        cands: list[ScoredMemory],
        priors: Sequence[str],
        extra_anchors: Sequence[str],
        budget: int | None,
        focused: bool,
        names: Sequence[str],
    ) -> Context:
        """Score, mask, compress and assemble the candidates."""
        cfg, bank = self.cfg, self.bank
        self._score(cands, turn, agent, focused=focused, linked=names)
        boost(cands, cfg.mask)
        ids = [c.id for c in cands]
        vecs = bank.vectors(ids)
        own = [
            r
            for r in bank.recent(agent, turn - cfg.mask.own_statement_turns, kinds=("utterance", "offer"))
            if r.speaker == agent
        ]
        own_vecs = bank.vectors([r.id for r in own])
        kept = mask(cands, vecs, own_vecs, {r.id for r in own}, cfg.mask, [r.text for r in own])
        row = {c.id: k for k, c in enumerate(cands)}
        kept_vecs = vecs[[row[c.id] for c in kept]] if kept else np.zeros((0, vecs.shape[1]), np.float32)
        items = merge_duplicates(kept, kept_vecs, cfg, masked=cands)
        budget = cfg.budget if budget is None else budget
        if self._cost(items, agent, turn) > budget:  # compress only what does not fit: first losslessly
            items = join_substitutes(items)
            if self._cost(items, agent, turn) > budget:
                items = summarise_old(items, bank.vectors, turn, cfg, self.summariser)
        return self._assemble(agent, turn, query, items, priors, extra_anchors, budget)

    def linked_names(self, agent: str, focus: str | None) -> list[str]:
        """Names the focus is about but does not say (``memory.linking``): the seller of the thing
        a question asks about."""
        if not focus or not focus.strip() or not self.cfg.link_names:
            return []
        return self.bank.linked(agent, focus, self.cfg.link_names)

    def linked_focus(self, agent: str, focus: str | None, names: Sequence[str] | None = None) -> str | None:
        """The focus with its linked names (``names``, else looked up) spelled out ("… the sextant?
        (Wenna)"), queried beside it; None when nothing links."""
        names = self.linked_names(agent, focus) if names is None else list(names)
        return self._spelled(focus, names) if names else None

    @staticmethod
    def _spelled(focus: str, names: list[str]) -> str:
        return f"{focus} ({', '.join(n.title() for n in names)})"

    def _retrieve(
        self,
        agent: str,
        turn: int,
        qvecs: list[tuple[np.ndarray, float]],
        statuses: Sequence[str] = LIVE,
        names: Sequence[str] = (),
        lex: Sequence[tuple[str, float]] = (),
    ) -> list[ScoredMemory]:
        """Candidates, near-duplicates collapsed before the cut (``memory.retrieval``); what was said
        only once of a linked name is always among them. ``lex``: the query texts and weights whose
        rare words also retrieve (BM25, ``memory.lexical``) and add to relevance (``lexical_weight``)."""
        cfg, bank = self.cfg, self.bank
        min_turn = turn - cfg.turn_window if cfg.turn_window else None
        with one_blas_thread():
            named = self._said_once_of(agent, names, qvecs, statuses, min_turn) if names else []
        must = {
            r.id: r
            for r in bank.anchors(agent)
            + bank.recent(agent, turn - cfg.recent_turns, kinds=cfg.kinds, statuses=statuses)
            + [r for r in named if cfg.kinds is None or r.kind in cfg.kinds]
        }
        k, widened, before = cfg.candidates * cfg.pool_factor, 0, 0
        while True:
            hits = (
                bank.search_many(agent, [q for q, _ in qvecs], k, kinds=cfg.kinds, min_turn=min_turn, statuses=statuses)
                if qvecs
                else []
            )
            words = [bank.lexical_search(agent, t, k, cfg.kinds, min_turn, statuses) for t, _ in lex]
            pool = dict(must)
            for found in hits + words:
                for rec, _sim in found:
                    pool.setdefault(rec.id, rec)
            if cfg.contiguity and lex:  # what was said beside a pooled memory (a reply, the next line)
                for r in bank.neighbours(agent, list(pool.values()), cfg.kinds, min_turn, statuses):
                    pool.setdefault(r.id, r)
            recs = sorted(pool.values(), key=lambda r: r.seq)
            vecs = bank.vectors([r.id for r in recs])
            with one_blas_thread():
                dense = _relevance(vecs, qvecs)
                rel = contiguous(hybrid(bank, cfg, dense, recs, lex), recs, cfg.contiguity) if lex else dense
                clusters = collapse(recs, rel, vecs, bank.group_key, cfg.collapse_similarity)
            # widen while near-duplicates leave too few clusters, the store has more and widening still
            # finds new ones (a world with few distinct things need not be read whole every turn)
            if (
                len(clusters) >= cfg.candidates
                or not hits
                or all(len(h) < k for h in hits)
                or k >= len(bank)
                or widened >= 2
                or len(clusters) <= before
            ):
                break
            k, widened, before = k * 4, widened + 1, len(clusters)
        row = {r.id: i for i, r in enumerate(recs)}
        chosen = cut(clusters, recs, turn, cfg, {row[i] for i in must}, bank.said_once)
        cands = []
        for members in chosen:
            group = sorted((recs[i] for i in members), key=lambda r: r.seq)
            rep = group[-1]  # the newest statement stands for the cluster
            if not rep.anchor:
                kin = bank.group(rep, statuses)  # the whole template group (oldest first), not only the pool
                key = bank.group_key(rep)
                other = [r for r in group if bank.group_key(r) != key]  # other wordings, joined by vector
                group = sorted(kin + other, key=lambda r: r.seq) if other else kin
            c = ScoredMemory(
                rec=rep,
                relevance=float(max(rel[i] for i in members)),
                meaning=float(max(dense[i] for i in members)) if rel is not dense else None,
                importance=max(recs[i].importance for i in members),
                group=group if len(group) > 1 else [],
            )
            if len(group) > 1:
                c.line = self._group_line(group, turn)
            elif rep.status == "superseded":
                c.line = f"{rep.text} (superseded at turn {bank.records[rep.superseded_by].turn})"
            if rep.disputed:  # held by the consistency gate: what was said, not what is known
                c.line = f"(disputed) {c.line or rep.text}"
            cands.append(c)
        return sorted(cands, key=lambda c: c.rec.seq)

    def _said_once_of(
        self,
        agent: str,
        names: Sequence[str],
        qvecs: list[tuple[np.ndarray, float]],
        statuses: Sequence[str],
        min_turn: int | None,
    ) -> list:
        """The ``rare_candidates`` memories said only once that name a linked name and answer the
        queries best (a name may have hundreds; the one that matters can be the oldest)."""
        cfg, bank = self.cfg, self.bank
        found = bank.said_once_of(agent, names, ONCE_READ, statuses, min_turn)
        if len(found) <= cfg.rare_candidates or not qvecs:
            return found[: cfg.rare_candidates]
        vecs = bank.vectors([r.id for r in found])
        rel = _relevance(vecs, qvecs)
        best = np.argsort(-rel, kind="stable")[: cfg.rare_candidates]
        return [found[int(i)] for i in best]

    def _cost(self, items: list[Item], agent: str, turn: int) -> int:
        """Tokens the items would take with their section headers (an estimate: each line alone)."""
        secs = {self._section(it, agent, turn) for it in items}
        return sum(self.count(f"- {it.text}") + 1 for it in items) + sum(
            self.count(f"## {TITLES[s]}") + 2 for s in secs
        )

    def _group_line(self, group: list, turn: int) -> str:
        """``group_line``, cached by the group's first and last member and size (groups only grow)."""
        lead = self._lead(group, turn)
        key = (group[0].id, group[-1].id, len(group), lead)
        line = self._lines.get(key)
        if line is None:
            if len(self._lines) > 8192:
                self._lines.clear()
            line = self._lines[key] = group_line(group, lead)
        return line

    def _repeats(self, group: list) -> int:
        """How many times a group says one thing with no value changing (0 for a series of values or
        several wordings of changing values): a refrain, not news. Cached like ``_group_line``."""
        if len(group) < 2:
            return 0
        key = (group[0].id, group[-1].id, len(group))
        n = self._repeat_counts.get(key)
        if n is None:
            if len(self._repeat_counts) > 8192:
                self._repeat_counts.clear()
            first = values(group[0].text)
            n = self._repeat_counts[key] = len(group) if all(values(r.text) == first for r in group) else 0
        return n

    def _lead(self, group: list, turn: int) -> str | None:
        """An LLM's wording for a large, settled group (its newest member older than ``summarise_after``
        turns), asked once per group and size; None without a summariser."""
        cfg = self.cfg
        if self.summariser is None or len(group) < cfg.llm_cluster_min or group[-1].turn >= turn - cfg.summarise_after:
            return None
        key = (group[0].id, len(group))
        if key not in self._leads:
            if len(self._leads) > 4096:
                self._leads.clear()
            texts = [r.text for r in group]
            self._leads[key] = llm_text(self.summariser, texts, group_line(group), cfg) or None
        return self._leads[key]

    def _weights(self, focused: bool) -> tuple[float, float, float]:
        cfg = self.cfg
        if not focused:
            return cfg.w_relevance, cfg.w_recency, cfg.w_importance
        rest = cfg.w_recency + cfg.w_importance
        share = (1.0 - cfg.w_relevance_focus) / rest if rest else 0.0
        return cfg.w_relevance_focus, cfg.w_recency * share, cfg.w_importance * share

    def _score(
        self, cands: list[ScoredMemory], turn: int, agent: str, focused: bool = False, linked: Sequence[str] = ()
    ) -> None:
        cfg = self.cfg
        w_rel, w_rec, w_imp = self._weights(focused)
        rel = np.array([c.relevance for c in cands], dtype=np.float64)
        seen = (lambda r: self.bank.last_access(agent, r)) if cfg.refresh_recency else (lambda r: r.turn)
        rec = np.array([cfg.recency_decay ** max(0, turn - seen(c.rec)) for c in cands])
        rec = np.array([max(r, cfg.long_tier_recency) if c.rec.tier == "long" else r for r, c in zip(rec, cands)])
        imp = np.array([c.importance or c.rec.importance for c in cands], dtype=np.float64)
        # relevance as a share of the best candidate's (a cosine of 0 counts as none): the scale must not
        # move with whatever weak candidates happen to be in the pool, or adding a candidate would
        # demote the rest
        nrel = np.clip(rel, 0.0, None) / max(float(rel.max()), 1e-9) if len(rel) else rel
        # the best answers by meaning alone, when relevance mixes in words: a warning that is the closest
        # in meaning is among the best answers even where other lines share more of the question's words
        mean = np.array([c.relevance if c.meaning is None else c.meaning for c in cands], dtype=np.float64)
        best_meaning = (np.clip(mean, 0.0, None) / max(float(mean.max()), 1e-9) if len(mean) else mean).tolist()
        if linked and cfg.link_boost:
            # the question is about the person it is linked to: what names them is more to the point
            about = set(linked)
            hit = np.array([bool(about & names_in(c.rec.text)) for c in cands], dtype=bool)
            nrel = np.where(hit, np.minimum(1.0, nrel + cfg.link_boost), nrel)
        nrec, nimp = _minmax(rec), _minmax(imp)
        base = (w_rel * nrel + w_rec * nrec + w_imp * nimp).tolist()
        rel_l, rec_l, imp_l = nrel.tolist(), nrec.tolist(), nimp.tolist()
        for k, c in enumerate(cands):
            c.recency, c.importance = float(rec[k]), float(imp[k])
            c.norm = (rel_l[k], rec_l[k], imp_l[k])  # relevance, recency, importance (explain rounds them)
            # a refrain (said n times, nothing changing) carries less news than what was said once:
            # score / (1 + repeat_penalty * ln n), unless it is among the best answers to the
            # question (relevance, or meaning alone, within 10% of the best): a warning repeated forty
            # times still leads
            n = self._repeats(c.group)
            best = max(rel_l[k], best_meaning[k])
            damp = 1 + cfg.repeat_penalty * math.log(n) if n > 1 and best < 0.9 else 1.0
            c.score = round(base[k] / damp, 9)
            if damp > 1:
                c.adjustments.append(f"/{damp:.3f} said {n} times, nothing changing")

    def _section(self, it: Item, agent: str, turn: int) -> str:
        if it.anchor:
            return "anchors"
        if it.kind != "summary" and it.turn >= turn - self.cfg.recent_turns:
            return "recent"
        scope = it.rec.scope
        if scope in (FACTS, SHARED):
            return "shared"
        return "private"

    def _assemble(
        self,
        agent: str,
        turn: int,
        query: str,
        items: list[Item],
        priors: Sequence[str],
        extra_anchors: Sequence[str],
        budget: int,
    ) -> Context:
        """Anchors first (never dropped), then priors, then items by score while they fit the budget.

        Costs are estimated per line (the line, its bullet and newline) plus each
        section's header when it opens; the rendered text is then counted exactly
        and, if the estimate was short, the lowest-scored lines are dropped until it fits.
        """
        sections: dict[str, list[tuple[int, int, str, Item | None]]] = {s: [] for s in SECTIONS}
        used = 0

        def cost(sec: str, line: str) -> int:
            head = 0 if sections[sec] else self.count(f"## {TITLES[sec]}") + 2
            return head + self.count(f"- {line}") + 1

        for k, line in enumerate(extra_anchors):
            used += cost("anchors", line)
            sections["anchors"].append((-1, k, line, None))
        anchors = [it for it in items if it.anchor]
        rest = sorted((it for it in items if not it.anchor), key=lambda it: (-it.score, it.rec.seq))
        for it in anchors:  # anchors never drop, even past the budget
            used += cost("anchors", it.text)
            sections["anchors"].append((it.first_turn, it.rec.seq, it.text, it))
        for k, line in enumerate(priors):
            c = cost("priors", line)
            if used + c <= budget:
                used += c
                sections["priors"].append((-1, k, line, None))
        placed: list[tuple[str, Item]] = []
        for it in self._packing_order(rest):
            sec = self._section(it, agent, turn)
            c = cost(sec, it.text)
            if used + c > budget:
                self._drop(it, f"over the token budget ({used}+{c} > {budget})")
                continue
            used += c
            sections[sec].append((it.first_turn, it.rec.seq, it.text, it))
            placed.append((sec, it))
        placed.sort(key=lambda e: (-e[1].score, e[1].rec.seq))  # if the rendering runs over, drop the weakest
        while True:
            ctx = self._render(agent, turn, query, sections, budget)
            if ctx.tokens <= budget or not placed:
                break
            sec, it = placed.pop()  # lowest score last
            sections[sec] = [e for e in sections[sec] if e[3] is not it]
            self._drop(it, f"over the token budget (rendered {ctx.tokens} > {budget})")
        shown: list[str] = []
        for sec, entries in sections.items():
            for *_, it in entries:
                if it is not None:
                    self._mark(it, "selected", "anchor" if it.anchor else f"score {it.score:.3f}", sec, shown)
        ctx.ids = shown
        return ctx

    def _packing_order(self, items: list[Item]) -> list[Item]:
        """The order lines claim the budget: by score, each line's score lowered by how nearly it repeats
        a line already ahead of it (``near_duplicate``: similarity above ``near_duplicate`` counts, in full
        at 1.0), so a flood of near-identical lines (one offer in twenty values) costs one line's place
        before the next distinct memory, while the rest still fill what room is left. With
        ``length_penalty`` > 0 a score is divided by the line's tokens ** length_penalty."""
        cfg = self.cfg
        if not items:
            return []
        costs = np.array([float(self.count(f"- {it.text}") + 1) for it in items])
        score = np.array([it.score for it in items]) / costs**cfg.length_penalty
        vecs = self.bank.vectors([it.rec.id for it in items])
        floor, weight = cfg.near_duplicate, cfg.duplicate_penalty
        if not weight or floor >= 1.0 or len(items) == 1:
            order = sorted(range(len(items)), key=lambda k: (-score[k], -items[k].score, items[k].rec.seq))
            return [items[k] for k in order]
        sims = np.clip((vecs @ vecs.T - floor) / (1.0 - floor), 0.0, None)
        return self._repeat_order(items, score, sims, weight)

    @staticmethod
    def _repeat_order(items: list[Item], score: np.ndarray, sims: np.ndarray, weight: float) -> list[Item]:
        """``items`` by ``score - weight * worst``, where ``worst`` is a line's largest ``sims`` to a line
        already placed; ties the older first."""
        sims = sims.copy()
        np.fill_diagonal(sims, 0.0)  # a placed line is out of the running: its own row no longer matters
        near = [np.flatnonzero(row) for row in sims > 0]  # the lines each one repeats
        worst = np.zeros(len(items))  # each line's nearest repeat of a line already placed
        eff = score.tolist()
        # the best line by ``score - weight * worst``, ties the older first: scores only fall as lines are
        # placed, so a line whose score was read before the last fall is read again when it comes up
        heap = [(-e, it.rec.seq, k) for k, (e, it) in enumerate(zip(eff, items))]
        heapq.heapify(heap)
        out: list[Item] = []
        while heap:
            stale, seq, k = heapq.heappop(heap)
            w = float(worst[k])
            e = eff[k] - weight * w if w else eff[k]
            if -stale != e:
                heapq.heappush(heap, (-e, seq, k))
                continue
            if w > 0:
                items[k].members[0].adjustments.append(f"-{weight * w:.3f} repeats a line ahead of it")
            out.append(items[k])
            cols = near[k]
            if len(cols):
                worst[cols] = np.maximum(worst[cols], sims[k, cols])
        return out

    def _render(self, agent: str, turn: int, query: str, sections: dict[str, list], budget: int) -> Context:
        out = {s: [e[2] for e in sorted(v, key=lambda e: (e[0], e[1]))] for s, v in sections.items() if v}
        ctx = Context(agent=agent, turn=turn, query=query, sections=out, tokens=0, budget=budget)
        ctx.tokens = self.count(ctx.text())
        return ctx

    @staticmethod
    def _drop(it: Item, reason: str) -> None:
        for c in it.members:
            if c.fate in ("candidate", "summarised", "merged") and c.into in (None, it.id):
                c.fate, c.reason = "dropped", reason

    @staticmethod
    def _mark(it: Item, fate: str, reason: str, section: str, shown: list[str]) -> None:
        for c in it.members:
            c.section = section
            shown.append(c.id)
            if c.fate == "candidate":
                c.fate, c.reason = fate, reason
            elif c.fate in ("merged", "summarised"):
                c.section = section

    # --- explain -------------------------------------------------------------------------
    def _remember(self, agent: str, turn: int, cands: list[ScoredMemory]) -> None:
        """Keep the candidates for ``explain``; their rows are written when asked for (a record's status
        is noted now: it can change before then)."""
        self._explained[(agent, turn)] = [(c, c.rec.status) for c in cands]
        while len(self._explained) > self._keep:
            self._explained.pop(next(iter(self._explained)))

    @staticmethod
    def _rows(kept: list) -> list[dict[str, Any]]:
        rows = []
        for c, status in sorted(kept, key=lambda cs: (-cs[0].score, cs[0].rec.seq)):
            rows.append(
                {
                    "id": c.id,
                    "kind": c.rec.kind,
                    "scope": c.rec.scope,
                    "turn": c.rec.turn,
                    "text": c.rec.text,
                    "relevance": round(c.relevance, 4),
                    "recency": round(c.recency, 4),
                    "importance": round(c.importance, 4),
                    "normalised": dict(zip(("relevance", "recency", "importance"), (round(x, 6) for x in c.norm))),
                    "score": round(c.score, 4),
                    "adjustments": list(c.adjustments),
                    "fate": c.fate,
                    "reason": c.reason,
                    "into": c.into,
                    "section": c.section,
                    "anchor": c.rec.anchor,
                    "stands_for": len(c.group) or 1,
                    "line": c.line,
                    "status": status,
                }
            )
        return rows

    def explain(self, agent: str, turn: int) -> list[dict[str, Any]]:
        """Every candidate of ``agent``'s context at ``turn``: scores and fate (selected, masked
        and why, merged or summarised into what, dropped by the budget)."""
        try:
            kept = self._explained[(agent, turn)]
        except KeyError:
            built = sorted(t for a, t in self._explained if a == agent)
            raise KeyError(
                f"no context was built for {agent!r} at turn {turn}" + (f"; built turns: {built}" if built else "")
            ) from None
        return self._rows(kept)
