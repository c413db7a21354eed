"""The consistency gate in front of world-fact memory.

Every candidate world fact (an NPC's claim, a summary, a player's statement)
passes the gate before it enters world-fact memory:

1. **Related facts**: structured matches (same subject and relation), the
   semantic top-k (``k`` in 3..7) above a similarity floor, and keyword matches
   on names and numbers. Only admitted and verified facts are evidence.
2. **Judges**: the rule judge votes on each structured match (support 1,
   contradiction 0): a functional relation with another object, a number
   outside the relation's range, or a reversed temporal order is a
   contradiction. An optional LLM jury (``memory.jury``) answers yes / no /
   unsure per candidate in K samples (1 / 0 / 0.5); the consistency score is
   the weighted mean of the judges' scores.
3. **Source credibility** ``c`` in [0, 1] comes from the reliability memory
   (Σ-Mem: ``c = (1 + s) / 2`` for the source's score ``s`` on the topic; 0.5 for
   an unknown source; an observation is 1). A contradiction is a contest
   between the candidate's source and the contradicted fact's source, scored
   like a Bradley–Terry match with sharpness ``k`` (= 2): the rule vote is
   ``c_new^k / (c_new^k + c_old^k)`` instead of 0 (0 when the old fact was
   verified). So a trusted source
   supersedes a stale fact from an untrusted one, while an untrusted source's
   contradiction of a trusted fact is rejected. The final score is
   ``(1 - alpha) * consistency + alpha * c_new`` (``alpha`` = 0.2).
4. **Tiers**: score >= ``t_high`` admit (superseding what it contradicts);
   score < ``t_low`` reject; in between, quarantine: kept out of retrieval and
   out of the evidence, and re-checked when new evidence arrives (a
   verification, or a change in source credibility). Thresholds can be set per
   relation.
5. **Verified observations always win**: ``observe`` records ground truth,
   purges every fact it contradicts (however it got in) and resolves the
   quarantine. "Consistent" is not "true": a poisoned fact admitted early
   cannot block the truth forever.
6. **Wording**: with a world lexicon (``memory.lexicon``), entity aliases, relation
   synonyms, units and number words are resolved before anything is compared,
   a candidate may be a negation (``truth=False``), and :meth:`ConsistencyGate.hear`
   reads free text through the claim extractor (``memory.extract``).
7. **Backing, age, chains, bursts** (``memory.gate_evidence``): a fact's weight in a
   contest is the trust-weighted corroboration of all its sources; for a relation
   that ``changes``, it fades with age towards 0.5 (a verified one too, from 1),
   so a credible newer report can replace an old value; an ordered relation's
   chains count (x < y, y < z contradicts z < x); a claim about something new
   counts its backers' trust (a proven liar's is held or rejected), and a burst of
   agreeing strangers about it is held, not admitted.
8. **Audit**: every decision keeps the candidate, the related facts, the
   votes, the score, the credibility, the outcome and the reason; the trail is
   saved with the game and can be queried. A failing judge degrades to
   quarantine (or to the rule judge alone, by config); identical candidates
   against unchanged memory reuse the cached decision.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, replace
from typing import Any

import numpy as np

from memory.fact_memory import KEYWORD_FACTS, LIVE, Decision, FactMemory, GateConfig
from memory.gate_evidence import aged, backing, chain
from memory.rule_judge import ClaimCandidate, Fact, RelationRule, RuleJudge, Triple, keywords, norm

# the claims, the facts and the rule judge live in memory.rule_judge, the fact memory and the
# config in memory.fact_memory; all importable from here too
__all__ = [
    "KEYWORD_FACTS",
    "LIVE",
    "OUTCOMES",
    "ClaimCandidate",
    "ConsistencyGate",
    "Decision",
    "Fact",
    "GateConfig",
    "RelationRule",
    "RuleJudge",
    "Triple",
    "keywords",
    "norm",
]

OUTCOMES = ("admit", "quarantine", "reject")


def rules_of(lexicon: Any) -> dict[str, RelationRule]:
    """The rule judge's relation rules from a lexicon's relations."""
    return {
        rid: RelationRule(
            functional=i.functional,
            range=i.range,
            temporal=i.temporal,
            thresholds=i.thresholds,
            changes=i.changes,
            half_life=i.half_life,
        )
        for rid, i in lexicon.relations.items()
    }


class ConsistencyGate(FactMemory):
    """Admission control for world-fact memory, with an audit trail.

    ``credibility(source, topic) -> [0, 1]`` (default: 0.5 for everyone);
    ``embedder``: texts -> unit vectors for the semantic neighbours (optional);
    ``jury``: an object with ``judge(items) -> list[float]`` (optional);
    ``lexicon``: a ``memory.lexicon.Lexicon`` for names, synonyms, units and free text (optional;
    its relations are the rules when ``relations`` is not given);
    ``extractor``: reads free text for :meth:`hear` (default: the rule-based one of the lexicon).
    """

    def __init__(
        self,
        relations: Mapping[str, RelationRule] | None = None,
        config: GateConfig | None = None,
        embedder: Any = None,
        credibility: Callable[[str, str], float] | None = None,
        jury: Any = None,
        lexicon: Any = None,
        extractor: Any = None,
    ):
        self.cfg = config or GateConfig()
        if relations is None and lexicon is not None:
            relations = rules_of(lexicon)
        self.rules = RuleJudge(relations or {})
        self.embedder = embedder
        self.credibility = credibility or (lambda source, topic: 0.5)
        self.jury = jury
        self.lexicon = lexicon
        self._extractor = extractor
        self._init_memory()

    # --- wording ----------------------------------------------------------------------
    @property
    def extractor(self) -> Any:
        if self._extractor is None and self.lexicon is not None:
            from memory.extract import RuleExtractor

            self._extractor = RuleExtractor(self.lexicon, seen=self.heard_values, embedder=self.embedder)
        return self._extractor

    def heard_values(self, relation: str) -> set[str]:
        """The values live facts give ``relation`` (what a clause naming no relation may mean)."""
        key = (self._version, norm(relation))
        if self._heard_memo[0] != key:
            vals = {norm(f.object) for f in self.facts.values() if f.status in LIVE and norm(f.relation) == key[1]}
            self._heard_memo = (key, vals)
        return self._heard_memo[1]

    def normalise(self, c: ClaimCandidate) -> ClaimCandidate:
        """The candidate in the lexicon's terms: entity ids, the relation's own name, numbers without
        units or words; its topic from the world when it has none."""
        if self.lexicon is None:
            return c
        s, r, o = self.lexicon.resolve(c.subject, c.relation, c.object)
        topic = c.topic or self.lexicon.topic(s, r) or r
        if (s, r, o, topic) == (c.subject, c.relation, c.object, c.topic):
            return c
        return replace(c, subject=s, relation=r, object=o, topic=topic)

    def read(self, text: str) -> list[Any]:
        """The claims free text makes (``memory.extract.Extracted``); none without an extractor."""
        ex = self.extractor
        return list(ex.extract(text)) if ex is not None else []

    def hear(
        self, text: str, source: str, turn: int = 0, topic: str | None = None, kind: str = "claim"
    ) -> list[Decision]:
        """Decide the claims a piece of free text makes (none found: no decision)."""
        cands = [
            ClaimCandidate(
                e.subject, e.relation, e.object, topic or e.topic or "", source, turn, text, kind=kind, truth=e.truth
            )
            for e in self.read(text)
        ]
        return self.submit_many(cands) if cands else []

    # --- deciding ---------------------------------------------------------------------
    def thresholds(self, relation: str) -> tuple[float, float]:
        t = self.rules.rule(relation).thresholds
        return t if t is not None else (self.cfg.t_low, self.cfg.t_high)

    def _cred(self, source: str, topic: str, verified: bool = False) -> float:
        if verified or source == "observation":
            return 1.0
        return float(min(1.0, max(0.0, self.credibility(source, topic))))

    def _weight(self, f: Fact, turn: int) -> float:
        """What a held fact weighs in a contest: its sources' backing (1 if verified), faded by age
        when its relation changes."""
        rule = self.rules.rule(f.relation)
        if f.status == "verified":
            c = 1.0
        else:
            c = backing(self._cred(s, f.topic) for s in dict.fromkeys([f.source, *f.sources]))
        return aged(c, turn - f.turn, rule.half_life) if rule.changes else c

    def _cache_key(self, c: ClaimCandidate) -> tuple:
        when = c.turn if self.rules.rule(c.relation).changes else None  # old values fade: the turn matters
        return (
            c.triple,
            c.source,
            norm(c.topic),
            round(self._cred(c.source, c.topic), 6),
            self._version,
            c.truth,
            when,
        )

    def _contest(self, new: float, old: float) -> float:
        """The chance the newcomer is right when two sources disagree: ``new^k / (new^k + old^k)``."""
        k = self.cfg.sharpness
        a, b = new**k, old**k
        return a / (a + b) if a + b > 0 else 0.5

    def invalidate(self) -> None:
        """Credibility changed (the reliability memory learned): cached decisions are stale."""
        self._version += 1

    def submit(self, c: ClaimCandidate) -> Decision:
        """Decide one candidate: admit, quarantine or reject (and remember the decision)."""
        return self.submit_many([c])[0]

    def submit_many(self, cands: Iterable[ClaimCandidate]) -> list[Decision]:
        """Decide several candidates; the LLM jury, when set, sees them in one batch."""
        cands = [self.normalise(c) for c in cands]
        prepared = []
        for c in cands:
            if c.kind != "observation":
                self.bursts.note(c.triple, c.truth, c.source, c.turn)
            key = self._cache_key(c)
            if self.cfg.cache and key in self._cache:
                prev = self.decisions[self._cache[key]]
                prepared.append(("cached", c, prev))
            else:
                prepared.append(("new", c, self.related(c)))
        jury_scores: dict[int, float | None] = {}
        todo = [(i, c, rel) for i, (state, c, rel) in enumerate(prepared) if state == "new"]
        jury_error = None
        if self.jury is not None and todo:
            try:
                self.judge_calls += 1
                scores = self.jury.judge([(c, [f for f, _ in rel]) for _, c, rel in todo])
                jury_scores = {i: s for (i, _, _), s in zip(todo, scores)}
            except Exception as e:  # a failing judge must not let anything through unchecked
                jury_error = f"{type(e).__name__}: {e}"
        out = []
        for i, (state, c, prev) in enumerate(prepared):
            key = self._cache_key(c)
            if state == "cached" or (self.cfg.cache and key in self._cache):  # repeats inside the batch too
                prev = prev if state == "cached" else self.decisions[self._cache[key]]
                d = replace(prev, seq=len(self.decisions) + 1, turn=c.turn, cached=True, candidate=asdict(c))
                self.decisions.append(d)
                if d.outcome in ("admit", "quarantine") and d.fact in self.facts:
                    f = self.facts[d.fact]
                    if c.source not in f.sources:
                        f.sources.append(c.source)
                out.append(d)
                continue
            # decided one at a time against memory as it is now (earlier candidates of the batch count);
            # the jury saw the batch at once, against memory as it was before it
            d = self._decide(c, self.related(c), jury_scores.get(i), jury_error)
            if jury_error is None:  # a decision made without a working jury is not worth reusing
                self._cache[self._cache_key(c)] = len(self.decisions)
            self.decisions.append(d)
            out.append(d)
        return out

    def _decide(
        self,
        c: ClaimCandidate,
        rel: list[tuple[Fact, str]],
        jury: float | None,
        jury_error: str | None,
        held: Fact | None = None,
    ) -> Decision:
        """Score a candidate and apply the outcome. ``held``: the quarantined entry being re-checked."""
        held = held or self._held(c)
        backers = dict.fromkeys([c.source, *(held.sources if held is not None else ())])
        cred = 1.0 if c.kind == "observation" else backing(self._cred(s, c.topic) for s in backers)
        related = [{"id": f.id, "text": f.text, "status": f.status, "source": f.source, "match": why} for f, why in rel]
        alone = self.rules.check_alone(c)
        base = {
            "seq": len(self.decisions) + 1,
            "turn": c.turn,
            "candidate": asdict(c),
            "related": related,
            "credibility": round(cred, 6),
        }
        if alone:
            votes = [{"judge": "rule", "about": None, "vote": 0.0, "reason": alone}]
            return Decision(**base, votes=votes, score=0.0, outcome="reject", reason=alone)
        votes, contradicted, same = self._rule_votes(c, rel, cred)
        rule_votes = [v.get("contest", v["vote"]) for v in votes]
        rule_score = float(np.mean(rule_votes)) if rule_votes else 1.0
        hold = None
        if not contradicted and self._new(same, c.turn):
            # nothing known either way: as good as its backers (a proven liar's news is held or rejected)
            rule_score = min(rule_score, 2.0 * cred)
            hold = self._burst(c)
        consistency = rule_score
        if jury is not None:
            votes.append({"judge": "jury", "about": None, "vote": round(float(jury), 6), "reason": "LLM jury"})
            w = self.cfg.jury_weight
            consistency = (1 - w) * rule_score + w * float(jury)
        score = round((1 - self.cfg.alpha) * consistency + self.cfg.alpha * cred, 6)
        outcome, reason = self._outcome(c, score, cred, same, contradicted, jury_error, jury is not None)
        if hold is not None and outcome == "admit":
            outcome, reason = "quarantine", hold
            if same is not None and same.status == "admitted":  # what the first of them got in goes back on hold
                self._set_status(same, "quarantined")
                held, same = same, None
        d = Decision(**base, votes=votes, score=score, outcome=outcome, reason=reason)
        self._apply(d, c, same, contradicted, held, jury, jury_error)
        return d

    def _rule_votes(
        self, c: ClaimCandidate, rel: list[tuple[Fact, str]], cred: float
    ) -> tuple[list[dict[str, Any]], list[Fact], Fact | None]:
        """The rule judge's votes on the related facts, the facts the candidate contradicts, and
        the first fact it restates (None if none)."""
        votes: list[dict[str, Any]] = []
        contradicted: list[Fact] = []
        same: Fact | None = None
        for f, _why in rel:
            v = self.rules.vote(c, f)
            if v is None:
                continue
            vote, why = v
            if vote >= 1.0:
                same = same or f
                votes.append({"judge": "rule", "about": f.id, "vote": 1.0, "reason": why})
                continue
            old = self._weight(f, c.turn)
            final = f.status == "verified" and not self.rules.rule(f.relation).changes
            contest = 0.0 if final else self._contest(cred, old)
            contradicted.append(f)
            votes.append(
                {
                    "judge": "rule",
                    "about": f.id,
                    "vote": 0.0,
                    "contest": round(contest, 6),
                    "source_credibility": round(old, 6),
                    "reason": why,
                }
            )
        link = self._chain_vote(c, cred, contradicted)
        if link is not None:
            votes.append(link[0])
            contradicted.append(link[1])
        return votes, contradicted, same

    def _chain_vote(self, c: ClaimCandidate, cred: float, known: list[Fact]) -> tuple[dict[str, Any], Fact] | None:
        """An ordered claim against a chain of two or more facts saying the opposite (x < y, y < z:
        not z < x). The chain weighs what its weakest link does; an all-verified chain is final."""
        pair = self.rules.order(c) if c.truth else None
        if pair is None:
            return None
        path = chain(self.ordered(), pair[1], pair[0])
        if not path or len(path) < 2 or any(f in known for f in path):
            return None
        weights = [self._weight(f, c.turn) for f in path]
        weakest = path[int(np.argmin(weights))]
        final = all(f.status == "verified" and not self.rules.rule(f.relation).changes for f in path)
        contest = 0.0 if final else self._contest(cred, min(weights))
        why = "order chain: " + ", ".join(f"{f.subject} {f.relation} {f.object}" for f in path)
        return (
            {
                "judge": "rule",
                "about": weakest.id,
                "vote": 0.0,
                "contest": round(contest, 6),
                "source_credibility": round(min(weights), 6),
                "reason": why,
            },
            weakest,
        )

    def _held(self, c: ClaimCandidate) -> Fact | None:
        """The quarantined entry asserting the same thing, if any."""
        return next(
            (
                self.facts[i]
                for i in self._by_key.get(c.key, ())
                if self.facts[i].status == "quarantined"
                and self.facts[i].triple == c.triple
                and self.facts[i].truth == c.truth
            ),
            None,
        )

    def _new(self, same: Fact | None, turn: int) -> bool:
        """Is the claim news: nothing verified backs it, and no source with trust evidence?"""
        if same is None:
            return True
        return same.status != "verified" and self._weight(same, turn) <= 0.5 + self.cfg.stranger_band

    def _burst(self, c: ClaimCandidate) -> str | None:
        """Why to hold a claim about something new that a burst of strangers agrees on, or None."""
        n, trusted = self.bursts.strangers(
            c.triple, c.truth, c.turn, self.cfg.burst_window, lambda s: self._cred(s, c.topic), self.cfg.stranger_band
        )
        if n >= self.cfg.burst_size and not trusted:
            return f"a burst of {n} agreeing sources without trust about something new; held until evidence"
        return None

    def _outcome(
        self,
        c: ClaimCandidate,
        score: float,
        cred: float,
        same: Fact | None,
        contradicted: list[Fact],
        jury_error: str | None,
        juried: bool = False,
    ) -> tuple[str, str]:
        """The tier a score falls in, with the reason the audit trail gives. A low score rejects
        only on strong evidence: a contradicted fact that is verified or weighs ``strong``, or an LLM
        jury's verdict; a weak source against weak evidence, or a poor source's news, is held."""
        t_low, t_high = self.thresholds(c.relation)
        ids = ", ".join(f.id for f in contradicted)
        if jury_error is not None and self.cfg.on_judge_error == "quarantine":
            return "quarantine", f"the LLM jury failed ({jury_error}); held for review"
        if score >= t_high:
            return "admit", (
                "corroborates a known fact"
                if same is not None and not contradicted
                else f"supersedes {ids} (source credibility {cred:.2f})"
                if contradicted
                else "consistent with what is known"
            )
        if score < t_low:
            if contradicted:
                final = any(f.status == "verified" and not self.rules.rule(f.relation).changes for f in contradicted)
                if final or max(self._weight(f, c.turn) for f in contradicted) >= self.cfg.strong:
                    return "reject", f"contradicts {ids}"
                return "quarantine", f"disputes {ids}, which is weakly held too; held until more evidence"
            if juried:
                return "reject", "low consistency"
            return "quarantine", "news from a source with a poor record; held until evidence"
        return "quarantine", (
            f"disputes {ids}; held until more evidence" if contradicted else "uncertain; held until more evidence"
        )

    def _apply(
        self,
        d: Decision,
        c: ClaimCandidate,
        same: Fact | None,
        contradicted: list[Fact],
        held: Fact | None,
        jury: float | None,
        jury_error: str | None,
    ) -> None:
        """Carry out a decision on world-fact memory and note the entry it touched in ``d.fact``."""
        if d.outcome == "admit":
            if same is not None and not contradicted:  # corroboration: no new entry
                if c.source not in same.sources:
                    same.sources.append(c.source)
                d.fact = same.id
                if held is not None:
                    self._set_status(held, "superseded")
            else:
                for f in contradicted:
                    self._set_status(f, "superseded")
                d.superseded = [f.id for f in contradicted]
                if held is not None:
                    self._set_status(held, "admitted")
                    d.fact = held.id
                else:
                    d.fact = self._add(c, "admitted").id
        elif d.outcome == "quarantine":
            existing = held or self._held(c)
            if existing is None:
                existing = self._add(c, "quarantined")
            elif c.source not in existing.sources:
                existing.sources.append(c.source)
            if jury is not None:
                existing.jury = float(jury)
            existing.awaiting_jury = jury_error is not None
            d.fact = existing.id
        elif held is not None:
            self._set_status(held, "rejected")
            d.fact = held.id

    # --- ground truth -----------------------------------------------------------------
    def observe(
        self, subject: str, relation: str, obj: str, truth: bool, turn: int, topic: str = "", text: str = ""
    ) -> list[Decision]:
        """A verified observation: record it, purge what it contradicts, and re-check the quarantine."""
        c = self.normalise(ClaimCandidate(subject, relation, obj, topic, "observation", turn, text, kind="observation"))
        truth = bool(truth)
        out: list[Decision] = []
        purged: list[str] = []
        near = [self.facts[i] for i in self._by_key.get(c.key, ())] + [f for f, _ in self.related(c)]
        near += [f for f in self.facts.values() if f.status == "quarantined" and f.key == c.key]
        for f in {f.id: f for f in near}.values():
            if f.status not in (*LIVE, "quarantined"):
                continue
            if f.triple == c.triple:
                if f.truth != truth:  # the newest observation wins
                    self._set_status(f, "purged")
                    purged.append(f.id)
                continue
            v = self.rules.vote(c, f) if truth else None
            if v is not None and v[0] == 0.0:  # whatever the truth contradicts goes, however it got in
                self._set_status(f, "purged")
                purged.append(f.id)
        for f in [f for f in self.facts.values() if f.awaiting_jury and f.key == c.key]:
            f.awaiting_jury = False  # new evidence on its key: it may be decided again
        existing = next(
            (
                self.facts[i]
                for i in self._by_key.get(c.key, ())
                if self.facts[i].triple == c.triple and self.facts[i].truth == truth
            ),
            None,
        )
        if existing is not None:
            self._set_status(existing, "verified")
            fact = existing
        else:
            fact = self._add(c, "verified", truth=truth)
        d = Decision(
            seq=len(self.decisions) + 1,
            turn=turn,
            candidate=asdict(c),
            related=[],
            votes=[],
            score=1.0,
            credibility=1.0,
            outcome="admit",
            reason="verified observation" + (f"; purges {', '.join(purged)}" if purged else ""),
            fact=fact.id,
            superseded=purged,
        )
        self.decisions.append(d)
        out.append(d)
        out += self.recheck(turn)
        return out

    def recheck(self, turn: int) -> list[Decision]:
        """Decide every quarantined fact again (after new evidence or new credibility)."""
        out = []
        for f in [f for f in self.facts.values() if f.status == "quarantined" and not f.awaiting_jury]:
            c = ClaimCandidate(f.subject, f.relation, f.object, f.topic, f.source, turn, f.text, truth=f.truth)
            d = self._decide(c, self.related(c), f.jury, None, held=f)
            if d.outcome == "quarantine":  # still undecided: nothing to record
                continue
            d.reason = "re-checked: " + d.reason
            self.decisions.append(d)
            out.append(d)
        return out
