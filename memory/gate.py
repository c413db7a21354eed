"""The consistency gate in front of world-fact memory.

Every candidate world fact (an NPC's claim, a summary, a player's statement)
passes the gate before it enters world-fact memory:

1. **Related facts**: structured matches (same subject and relation), the
   semantic top-k (``k`` in 3..7) above a similarity floor, and keyword matches
   on names and numbers. Only admitted and verified facts are evidence.
2. **Rule judge**: a vote on each structured match: support (the same fact, or
   a negation another value implies) or contradiction (a functional relation
   with another object, a reversed temporal order, directly or through a
   chain of facts). A number outside the relation's range, a contradiction of
   a verified fact that cannot change, and an order reversed through verified
   facts are *hard*: rejected whatever else speaks for the claim.
3. **Posterior** (``memory.gate_posterior``): ``P(true | evidence)`` as a prior
   log-odds plus one weighted term per piece of evidence: the backers' trust
   and distrust (Σ-Mem credibility, combined as independent evidence, not by
   count), their record against the observations the gate saw, a fresh
   source id, the strongest verified and admitted fact for and against
   (weighed by their backers and faded by age for a relation that changes),
   news, a burst of strangers, and the LLM jury's vote (``memory.jury``) when
   set. The weights are fitted on the gate benchmark's tune seeds.
4. **Outcome**: the one with the smallest expected cost under the costs of
   each error (``GateConfig.costs``): admit (superseding what it contradicts),
   reject, or quarantine: kept out of retrieval and out of the evidence, and
   re-checked with the same posterior when new evidence arrives. A relation's
   ``thresholds`` override the cost-derived cut points. The unverified values
   of a functional relation are re-decided symmetrically as evidence arrives
   (each against the others' backing), so the better-backed one stands
   whichever was heard first.
5. **Verified observations always win**: ``observe`` records ground truth,
   purges every fact it contradicts (however it got in) and resolves the
   quarantine. "Consistent" is not "true": a poisoned fact admitted early
   cannot block the truth forever.
6. **Wording**: with a world lexicon (``memory.lexicon``), entity aliases, relation
   synonyms, units and number words are resolved before anything is compared,
   a candidate may be a negation (``truth=False``), and :meth:`ConsistencyGate.hear`
   reads free text through the claim extractor (``memory.extract``).
7. **Audit**: every decision keeps the candidate, the related facts, the
   votes, ``p`` with the evidence terms and their log-odds, the credibility,
   the outcome and the reason; the trail is saved with the game and can be
   queried. A failing judge degrades to quarantine (or to the rule judge
   alone, by config); identical candidates against unchanged memory reuse the
   cached decision.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, replace
from typing import Any

import numpy as np

from memory.fact_memory import KEYWORD_FACTS, LIVE, Decision, FactMemory, GateConfig
from memory.gate_evidence import Evidence, TrackRecord, backing, chain
from memory.gate_posterior import JURY_CLIP, choose, fade, logit
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


def source_id(source: str) -> str:
    """One id per source: case and spacing do not matter ("Lou", "lou ", " LOU" are one)."""
    return " ".join(str(source).split()).lower()


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
        self._track: TrackRecord | None = None
        self._init_memory()

    def set_state(self, state: Mapping[str, Any]) -> None:
        super().set_state(state)
        self._track = None  # rebuilt from the loaded audit trail

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
        units or words; its topic from the world when it has none. Its source id is normalised
        (:func:`source_id`) whatever the lexicon, so one source spelled two ways is one backer."""
        source = source_id(c.source)
        if self.lexicon is None:
            return c if source == c.source else replace(c, source=source)
        s, r, o = self.lexicon.resolve(c.subject, c.relation, c.object)
        topic = c.topic or self.lexicon.topic(s, r) or r
        if (s, r, o, topic, source) == (c.subject, c.relation, c.object, c.topic, c.source):
            return c
        return replace(c, subject=s, relation=r, object=o, topic=topic, source=source)

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
        """(reject below, admit from) on the posterior: the relation's own, else the config's cut points."""
        t = self.rules.rule(relation).thresholds
        return t if t is not None else self.cfg.cut_points()

    def _cred(self, source: str, topic: str, verified: bool = False) -> float:
        if verified or source == "observation":
            return 1.0
        return float(min(1.0, max(0.0, self.credibility(source, topic))))

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
            self.decisions.extend(self._contest(c, c.turn))
        return out

    def _decide(
        self,
        c: ClaimCandidate,
        rel: list[tuple[Fact, str]],
        jury: float | None,
        jury_error: str | None,
        held: Fact | None = None,
    ) -> Decision:
        """Weigh a candidate's evidence into ``p``, choose the outcome and apply it. ``held``: the
        quarantined entry being re-checked (its sources back the candidate too)."""
        held = held or self._held(c)
        p, ev, terms, base, hard = self._weigh(c, rel, jury, held)
        if hard is not None:
            return self._hard(base, ev.votes, hard)
        outcome, reason = self._outcome(c, p, ev, jury_error)
        same = ev.same
        if ev.x.get("burst", 0.0) >= 1.0 and outcome != "admit" and same is not None and same.status == "admitted":
            self._set_status(same, "quarantined")  # what the first of a full burst got in goes back on hold
            held, same = (same, None) if outcome == "quarantine" else (held, None)
        d = Decision(
            **base, votes=ev.votes, score=round(p, 6), outcome=outcome, reason=reason, p=round(p, 6), evidence=terms
        )
        self._apply(d, c, same, ev.contradicted, held, jury, jury_error)
        return d

    def _weigh(
        self, c: ClaimCandidate, rel: list[tuple[Fact, str]], jury: float | None, held: Fact | None
    ) -> tuple[float, Evidence, list[dict[str, Any]], dict[str, Any], str | None]:
        """(p, the evidence, its terms, the decision's record so far, why it is hard or None) for a
        candidate backed by its source and ``held``'s sources, against the facts ``rel``."""
        track = self._record()  # the sources' records and the verifications so far
        backers = list(dict.fromkeys([c.source, *(held.sources if held is not None else ())]))
        creds = [1.0 if c.kind == "observation" and s == c.source else self._cred(s, c.topic) for s in backers]
        cred = backing(creds)
        related = [{"id": f.id, "text": f.text, "status": f.status, "source": f.source, "match": why} for f, why in rel]
        base = {
            "seq": len(self.decisions) + 1,
            "turn": c.turn,
            "candidate": asdict(c),
            "related": related,
            "credibility": round(cred, 6),
        }
        alone = self.rules.check_alone(c)
        if alone:
            votes = [{"judge": "rule", "about": None, "vote": 0.0, "reason": alone}]
            return 0.0, Evidence(votes=votes), [], base, alone
        ev = self._rule_votes(c, rel, backers)
        if ev.hard is not None:
            return 0.0, ev, [], base, f"contradicts {ev.hard}"
        ev.x["trust"] = sum(max(0.0, logit(x)) for x in creds)
        ev.x["distrust"] = sum(min(0.0, logit(x)) for x in creds)
        if c.kind != "observation":
            ev.x["track"] = sum(track.log_odds(s, c.topic) for s in backers)
            ev.x["track_any"] = sum(track.log_odds(s) for s in backers)
            earlier = set(held.sources) if held is not None else set()  # a held claim was heard once already
            band = self.cfg.stranger_band
            fresh = all(
                track.claims.get(s, 0) <= (s in earlier) and abs(x - 0.5) <= band and not self._member(s)
                for s, x in zip(backers, creds)
            )
            if fresh and not (ev.x.get("verified_support") or ev.x.get("admitted_support")):
                ev.x["newcomer"] = 1.0  # unsupported, from strangers none of whom said anything else before
        if jury is not None:
            ev.votes.append({"judge": "jury", "about": None, "vote": round(float(jury), 6), "reason": "LLM jury"})
            ev.x["jury"] = logit(jury, JURY_CLIP)
        p, terms = self.cfg.posterior.combine(ev.x)
        if ev.certain is not None and not ev.contradicted:  # a verified fact that cannot change says so
            p = 1.0
            terms.append({"term": "verified", "x": 1.0, "weight": None, "log_odds": None})
        return p, ev, terms, base, None

    def _contest(self, c: ClaimCandidate, turn: int) -> list[Decision]:
        """Re-decide the unverified values of ``c``'s functional (subject, relation) symmetrically: each
        value's posterior against the other values' backing, whichever was heard first. A held value that
        weighs more than every admitted one, and would have been admitted had it been heard first, stands,
        and they go back on hold; a verified value settles the key (nothing to contest). The decision that makes a held value stand is returned."""
        if not self.rules.rule(c.relation).functional:
            return []
        facts = [self.facts[i] for i in self._by_key.get(c.key, ())]
        values = [f for f in facts if f.truth and f.status in ("admitted", "quarantined") and not f.awaiting_jury]
        standing = [f for f in values if f.status == "admitted"]
        if any(f.status == "verified" for f in facts) or not standing or len(values) < 2:
            return []
        weighed = {
            f.id: self._against(f, [g for g in values if norm(g.object) != norm(f.object)], turn) for f in values
        }
        best = max(values, key=lambda f: (weighed[f.id][0], f.status == "admitted"))
        p, ev, terms, base = weighed[best.id]
        if best.status == "admitted" or any(norm(f.object) == norm(best.object) for f in standing):
            return []
        if self._against(best, [], turn)[0] < self.thresholds(c.relation)[1]:
            return []  # heard first, it would not have stood either
        for f in standing:
            self._set_status(f, "quarantined")
        self._set_status(best, "admitted")
        theirs = max(weighed[f.id][0] for f in standing)
        ids = ", ".join(f.id for f in standing)
        why = f"re-checked: better backed than {ids} (p {p:.2f} against {theirs:.2f}), which go back on hold"
        return [
            Decision(
                **base, votes=ev.votes, score=round(p, 6), outcome="admit", reason=why, p=round(p, 6), evidence=terms
            )
        ]

    def _against(
        self, f: Fact, rivals: list[Fact], turn: int
    ) -> tuple[float, Evidence, list[dict[str, Any]], dict[str, Any]]:
        """``f``'s posterior now, backed by its sources, against ``rivals`` as if they stood."""
        c = ClaimCandidate(f.subject, f.relation, f.object, f.topic, f.source, turn, f.text, truth=f.truth)
        rel = [(g, why) for g, why in self.related(c) if g.key != f.key] + [(g, "structured") for g in rivals]
        p, ev, terms, base, hard = self._weigh(c, rel, f.jury, f)
        base["seq"] = len(self.decisions) + 1
        return (0.0 if hard else p), ev, terms, base

    def _record(self) -> TrackRecord:
        """The sources' records from the observations so far (rebuilt from the audit trail after a load)."""
        if self._track is None or self._track.seen > len(self.decisions):
            self._track = TrackRecord()
        self._track.refresh(self.decisions, self._claim_of, self._observed, self.rules.vote, self._window)
        return self._track

    @staticmethod
    def _claim_of(d: Decision) -> ClaimCandidate:
        return ClaimCandidate(**d.candidate)

    def _observed(self, d: Decision) -> Fact | None:
        """The verified fact an observation's decision recorded, else None."""
        if d.candidate.get("kind") != "observation" or not d.reason.startswith("verified observation"):
            return None
        return self.facts.get(d.fact) if d.fact is not None else None

    def _window(self, relation: str) -> float:
        """How long after a claim an observation still settles it (a quarter half-life if it changes)."""
        rule = self.rules.rule(relation)
        return rule.half_life / 4 if rule.changes else float("inf")

    def _hard(self, base: dict[str, Any], votes: list[dict[str, Any]], reason: str) -> Decision:
        """A structural contradiction: rejected whatever else speaks for the claim (p = 0)."""
        ev = [{"term": "hard", "x": 1.0, "weight": None, "log_odds": None, "reason": reason}]
        return Decision(**base, votes=votes, score=0.0, outcome="reject", reason=reason, p=0.0, evidence=ev)

    def _strength(self, f: Fact, turn: int, exclude: Iterable[str] = ()) -> float:
        """What a held fact's evidence weighs now: 1 if verified, else the credibility its sources other
        than ``exclude`` lend it (0 if none), faded by age when its relation changes."""
        rule = self.rules.rule(f.relation)
        since = f.turn
        if f.status == "verified":
            c, since = 1.0, self._record().verified_at.get(f.id, f.turn)
        else:
            skip = set(exclude)
            others = [s for s in dict.fromkeys([f.source, *f.sources]) if s not in skip]
            c = backing(self._cred(s, f.topic) for s in others) if others else 0.0
        return c * fade(turn - since, rule.half_life, rule.changes)

    def _final(self, f: Fact) -> bool:
        """A verified fact of a relation that does not change: contradicting it is hard."""
        return f.status == "verified" and not self.rules.rule(f.relation).changes

    def _rule_votes(self, c: ClaimCandidate, rel: list[tuple[Fact, str]], backers: list[str]) -> Evidence:
        """The rule judge's votes on the related facts and the evidence strengths they give."""
        ev = Evidence()
        for f, _why in rel:
            v = self.rules.vote(c, f)
            implied = v is None
            v = v or self._implied(c, f)
            if v is None:
                continue
            vote, why = v
            strength = self._strength(f, c.turn, backers)
            kind = "verified" if f.status == "verified" else "admitted"
            if vote >= 1.0:
                ev.same = ev.same or (None if implied else f)
                if self._final(f):
                    ev.certain = ev.certain or f.id
                ev.note(f"{kind}_support", strength)
            else:
                ev.contradicted.append(f)
                ev.note(f"{kind}_conflict", strength)
                if self._final(f):
                    ev.hard = ev.hard or f.id
            ev.votes.append(
                {"judge": "rule", "about": f.id, "vote": float(vote), "strength": round(strength, 6), "reason": why}
            )
        self._chain_vote(c, ev, backers)
        if not any(ev.x.values()):
            ev.x["news"] = 1.0  # nothing known bears on it
        if not ev.contradicted and not ev.x.get("verified_support"):
            ev.x["burst"] = self._burst_strength(c)
        return ev

    def _implied(self, c: ClaimCandidate, f: Fact) -> tuple[float, str] | None:
        """A negation that another value of a functional relation implies ("not in the well" when it
        is in the chest): support."""
        if c.truth or not f.truth or c.key != f.key or not self.rules.rule(c.relation).functional:
            return None
        return (1.0, f"implied: {f.subject} {f.relation} {f.object}") if norm(c.object) != norm(f.object) else None

    def _chain_vote(self, c: ClaimCandidate, ev: Evidence, backers: list[str]) -> None:
        """An ordered claim against a chain of two or more facts saying the opposite (x < y, y < z:
        not z < x). The chain weighs what its weakest link does; an all-verified chain is hard."""
        pair = self.rules.order(c) if c.truth else None
        if pair is None:
            return
        path = chain(self.ordered(), pair[1], pair[0])
        if not path or len(path) < 2 or any(f in ev.contradicted for f in path):
            return
        weights = [self._strength(f, c.turn, backers) for f in path]
        weakest = path[int(np.argmin(weights))]
        why = "order chain: " + ", ".join(f"{f.subject} {f.relation} {f.object}" for f in path)
        verified = all(f.status == "verified" for f in path)
        ev.note("verified_conflict" if verified else "admitted_conflict", min(weights))
        if all(self._final(f) for f in path):
            ev.hard = ev.hard or weakest.id
        ev.contradicted.append(weakest)
        ev.votes.append(
            {"judge": "rule", "about": weakest.id, "vote": 0.0, "strength": round(min(weights), 6), "reason": why}
        )

    def _member(self, source: str) -> bool:
        """Is ``source`` someone the world names (one of its people)? A member is never a newcomer,
        however little it has said: only an id the world does not know can be a fresh one."""
        return self.lexicon is not None and self.lexicon.entity(source) is not None

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

    def _burst_strength(self, c: ClaimCandidate) -> float:
        """How strongly agreeing sources without trust evidence about something new look like a burst:
        0 up to one such source, 1 at ``burst_size`` strangers, growing with the square of each more
        (counted as in ``memory.gate_evidence.Bursts.untrusted``), and only as much as the most trusted
        of them is untrusted (one trusted source's word is no burst: it adds through the trust term)."""
        n, least = self.bursts.untrusted(
            c.triple, c.truth, c.turn, self.cfg.burst_window, lambda s: self._cred(s, c.topic)
        )
        return (max(0.0, n - 1.0) / (self.cfg.burst_size - 1)) ** 2 * least

    def _outcome(self, c: ClaimCandidate, p: float, ev: Evidence, jury_error: str | None) -> tuple[str, str]:
        """The cheapest outcome for ``p`` (or the relation's own cut points), with the reason in words."""
        if jury_error is not None and self.cfg.on_judge_error == "quarantine":
            return "quarantine", f"the LLM jury failed ({jury_error}); held for review"
        t_low, t_high = self.thresholds(c.relation)
        outcome = choose(p, t_low, t_high)
        ids = ", ".join(f.id for f in ev.contradicted)
        poor = ev.x.get("distrust", 0.0) < 0
        if outcome == "admit":
            if ev.contradicted:
                return outcome, f"supersedes {ids} (p {p:.2f})"
            return outcome, "corroborates a known fact" if ev.same is not None else "consistent with what is known"
        if outcome == "reject":
            if ev.contradicted:
                return outcome, f"contradicts {ids} (p {p:.2f})"
            return outcome, f"{'news from a source with a poor record' if poor else 'unlikely to be true'} (p {p:.2f})"
        if ev.contradicted:
            return outcome, f"disputes {ids}; held until more evidence (p {p:.2f})"
        if ev.x.get("burst", 0.0) >= 1.0:
            return (
                outcome,
                f"a burst of agreeing sources without trust about something new; held until evidence (p {p:.2f})",
            )
        if ev.x.get("news") and poor:
            return outcome, f"news from a source with a poor record; held until evidence (p {p:.2f})"
        return outcome, f"uncertain; held until more evidence (p {p:.2f})"

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
        held = {f.key: f for f in self.facts.values() if f.status == "quarantined"}
        for f in held.values():
            ds = self._contest(ClaimCandidate(f.subject, f.relation, f.object, f.topic, f.source, turn), turn)
            self.decisions.extend(ds)
            out += ds
        return out
