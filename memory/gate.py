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
6. **Audit**: every decision keeps the candidate, the related facts, the
   votes, the score, the credibility, the outcome and the reason; the trail is
   saved with the game and can be queried. A failing judge degrades to
   quarantine (or to the rule judge alone, by config); identical candidates
   against unchanged memory reuse the cached decision.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from memory.rule_judge import ClaimCandidate, Fact, RelationRule, RuleJudge, Triple, keywords, norm

# the claims, the facts and the rule judge live in memory.rule_judge; importable from here too
__all__ = ["LIVE", "OUTCOMES", "ClaimCandidate", "ConsistencyGate", "Decision", "Fact", "GateConfig",
           "RelationRule", "RuleJudge", "Triple", "keywords", "norm"]

OUTCOMES = ("admit", "quarantine", "reject")
LIVE = ("admitted", "verified")          # statuses that count as evidence and are retrievable
KEYWORD_FACTS = 8   # at most this many facts per shared keyword (the most recent)


class GateConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    k: int = Field(5, ge=3, le=7, description="semantic neighbours considered")
    similarity_floor: float = Field(0.35, ge=-1.0, le=1.0)
    t_low: float = Field(0.3, ge=0.0, le=1.0)
    t_high: float = Field(0.7, ge=0.0, le=1.0)
    alpha: float = Field(0.2, ge=0.0, le=1.0, description="weight of source credibility in the final score")
    sharpness: float = Field(2.0, gt=0.0, le=10.0, description="exponent k of the credibility contest")
    jury_weight: float = Field(0.5, ge=0.0, le=1.0, description="weight of the LLM jury vs the rule judge")
    on_judge_error: Literal["quarantine", "rule_only"] = "quarantine"
    cache: bool = True

    @model_validator(mode="after")
    def _order(self) -> GateConfig:
        if self.t_low > self.t_high:
            raise ValueError(f"t_low ({self.t_low}) must not exceed t_high ({self.t_high})")
        return self


@dataclass
class Decision:
    seq: int
    turn: int
    candidate: dict[str, Any]
    related: list[dict[str, Any]]
    votes: list[dict[str, Any]]
    score: float
    credibility: float
    outcome: str                    # admit | quarantine | reject
    reason: str
    fact: str | None = None         # the entry it created or confirmed
    superseded: list[str] = field(default_factory=list)
    cached: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class ConsistencyGate:
    """Admission control for world-fact memory, with an audit trail.

    ``credibility(source, topic) -> [0, 1]`` (default: 0.5 for everyone);
    ``embedder``: texts -> unit vectors for the semantic neighbours (optional);
    ``jury``: an object with ``judge(items) -> list[float]`` (optional).
    """

    def __init__(self, relations: Mapping[str, RelationRule] | None = None, config: GateConfig | None = None,
                 embedder: Any = None, credibility: Callable[[str, str], float] | None = None,
                 jury: Any = None):
        self.cfg = config or GateConfig()
        self.rules = RuleJudge(relations or {})
        self.embedder = embedder
        self.credibility = credibility or (lambda source, topic: 0.5)
        self.jury = jury
        self.facts: dict[str, Fact] = {}
        self.decisions: list[Decision] = []
        self._by_key: dict[tuple[str, str], list[str]] = {}
        self._by_word: dict[str, list[str]] = {}
        self._vec_ids: list[str] = []
        self._vecs: np.ndarray | None = None
        self._version = 0
        self._cache: dict[tuple, int] = {}
        self._next = 0
        self.judge_calls = 0

    # --- memory of facts -------------------------------------------------------------
    def _new_id(self) -> str:
        self._next += 1
        return f"f{self._next}"

    def _add(self, c: ClaimCandidate, status: str, truth: bool = True) -> Fact:
        f = Fact(self._new_id(), c.subject, c.relation, c.object, c.topic, c.source, c.turn, c.sentence(),
                 status=status, truth=truth, sources=[c.source])
        self.facts[f.id] = f
        self._by_key.setdefault(f.key, []).append(f.id)
        for w in sorted(set(keywords(f.text)) | set(keywords(f.object))):
            self._by_word.setdefault(w, []).append(f.id)
        if self.embedder is not None:
            v = self._embed([f.text])
            n = len(self._vec_ids)
            if self._vecs is None or n >= self._vecs.shape[0]:  # grow by doubling
                grown = np.zeros((max(16, 2 * n), v.shape[1]), dtype=np.float32)
                if self._vecs is not None:
                    grown[:n] = self._vecs[:n]
                self._vecs = grown
            self._vecs[n] = v[0]
            self._vec_ids.append(f.id)
        self._version += 1
        return f

    def _embed(self, texts: list[str]) -> np.ndarray:
        v = np.asarray(self.embedder(texts), dtype=np.float32)
        n = np.linalg.norm(v, axis=1, keepdims=True)
        return v / np.where(n == 0, 1.0, n)

    def _set_status(self, f: Fact, status: str) -> None:
        if f.status != status:
            f.status = status
            self._version += 1

    def live(self) -> list[Fact]:
        """Facts that count: admitted and verified (what retrieval may show)."""
        return [f for f in self.facts.values() if f.status in LIVE]

    def related(self, c: ClaimCandidate) -> list[tuple[Fact, str]]:
        """Evidence for a candidate: structured, semantic and keyword matches (live facts only)."""
        found: dict[str, str] = {}
        for fid in self._by_key.get(c.key, ()):
            found.setdefault(fid, "structured")
        r = self.rules.rule(c.relation)
        if r.temporal:  # the reverse order, and the opposite temporal relation on the same pair
            ends = (norm(c.subject), norm(c.object))
            for (s, rel), ids in self._by_key.items():
                if s in ends and self.rules.rule(rel).temporal:
                    for fid in ids:
                        found.setdefault(fid, "structured")
        if self.embedder is not None and self._vecs is not None and len(self._vec_ids):
            q = self._embed([c.sentence()])[0]
            sims = self._vecs[: len(self._vec_ids)] @ q
            order = np.argsort(-sims, kind="stable")
            taken = 0
            for i in order:
                if sims[i] < self.cfg.similarity_floor or taken >= self.cfg.k:
                    break
                fid = self._vec_ids[int(i)]
                if self.facts[fid].status in LIVE:
                    found.setdefault(fid, "semantic")
                    taken += 1
        for w in sorted(set(keywords(c.sentence())) | set(keywords(c.object))):
            hits = [fid for fid in self._by_word.get(w, ()) if self.facts[fid].status in LIVE]
            for fid in hits[-KEYWORD_FACTS:]:
                found.setdefault(fid, "keyword")
        return [(self.facts[fid], why) for fid, why in found.items() if self.facts[fid].status in LIVE]

    # --- deciding ---------------------------------------------------------------------
    def thresholds(self, relation: str) -> tuple[float, float]:
        t = self.rules.rule(relation).thresholds
        return t if t is not None else (self.cfg.t_low, self.cfg.t_high)

    def _cred(self, source: str, topic: str, verified: bool = False) -> float:
        if verified or source == "observation":
            return 1.0
        return float(min(1.0, max(0.0, self.credibility(source, topic))))

    def _cache_key(self, c: ClaimCandidate) -> tuple:
        return (c.triple, c.source, norm(c.topic), round(self._cred(c.source, c.topic), 6), self._version)

    def _contest(self, new: float, old: float) -> float:
        """The chance the newcomer is right when two sources disagree: ``new^k / (new^k + old^k)``."""
        k = self.cfg.sharpness
        a, b = new ** k, old ** k
        return a / (a + b) if a + b > 0 else 0.5

    def invalidate(self) -> None:
        """Credibility changed (the reliability memory learned): cached decisions are stale."""
        self._version += 1

    def submit(self, c: ClaimCandidate) -> Decision:
        """Decide one candidate: admit, quarantine or reject (and remember the decision)."""
        return self.submit_many([c])[0]

    def submit_many(self, cands: Iterable[ClaimCandidate]) -> list[Decision]:
        """Decide several candidates; the LLM jury, when set, sees them in one batch."""
        cands = list(cands)
        prepared = []
        for c in cands:
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

    def _decide(self, c: ClaimCandidate, rel: list[tuple[Fact, str]], jury: float | None,
                jury_error: str | None, held: Fact | None = None) -> Decision:
        """Score a candidate and apply the outcome. ``held``: the quarantined entry being re-checked."""
        cred = self._cred(c.source, c.topic, c.kind == "observation")
        related = [{"id": f.id, "text": f.text, "status": f.status, "source": f.source, "match": why}
                   for f, why in rel]
        alone = self.rules.check_alone(c)
        base = {"seq": len(self.decisions) + 1, "turn": c.turn, "candidate": asdict(c), "related": related,
                "credibility": round(cred, 6)}
        if alone:
            votes = [{"judge": "rule", "about": None, "vote": 0.0, "reason": alone}]
            return Decision(**base, votes=votes, score=0.0, outcome="reject", reason=alone)
        votes, contradicted, same = self._rule_votes(c, rel, cred)
        rule_votes = [v.get("contest", v["vote"]) for v in votes]
        rule_score = float(np.mean(rule_votes)) if rule_votes else 1.0
        consistency = rule_score
        if jury is not None:
            votes.append({"judge": "jury", "about": None, "vote": round(float(jury), 6), "reason": "LLM jury"})
            w = self.cfg.jury_weight
            consistency = (1 - w) * rule_score + w * float(jury)
        score = round((1 - self.cfg.alpha) * consistency + self.cfg.alpha * cred, 6)
        outcome, reason = self._outcome(c, score, cred, same, contradicted, jury_error)
        d = Decision(**base, votes=votes, score=score, outcome=outcome, reason=reason)
        self._apply(d, c, same, contradicted, held, jury, jury_error)
        return d

    def _rule_votes(self, c: ClaimCandidate, rel: list[tuple[Fact, str]], cred: float
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
            old = self._cred(f.source, f.topic, f.status == "verified")
            contest = 0.0 if f.status == "verified" else self._contest(cred, old)
            contradicted.append(f)
            votes.append({"judge": "rule", "about": f.id, "vote": 0.0, "contest": round(contest, 6),
                          "source_credibility": round(old, 6), "reason": why})
        return votes, contradicted, same

    def _outcome(self, c: ClaimCandidate, score: float, cred: float, same: Fact | None, contradicted: list[Fact],
                 jury_error: str | None) -> tuple[str, str]:
        """The tier a score falls in, with the reason the audit trail gives."""
        t_low, t_high = self.thresholds(c.relation)
        ids = ", ".join(f.id for f in contradicted)
        if jury_error is not None and self.cfg.on_judge_error == "quarantine":
            return "quarantine", f"the LLM jury failed ({jury_error}); held for review"
        if score >= t_high:
            return "admit", ("corroborates a known fact" if same is not None and not contradicted else
                             f"supersedes {ids} (source credibility {cred:.2f})" if contradicted
                             else "consistent with what is known")
        if score < t_low:
            return "reject", f"contradicts {ids}" if contradicted else "low consistency"
        return "quarantine", (f"disputes {ids}; held until more evidence" if contradicted
                              else "uncertain; held until more evidence")

    def _apply(self, d: Decision, c: ClaimCandidate, same: Fact | None, contradicted: list[Fact], held: Fact | None,
               jury: float | None, jury_error: str | None) -> None:
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
            existing = held or next((self.facts[i] for i in self._by_key.get(c.key, ())
                                     if self.facts[i].status == "quarantined" and self.facts[i].triple == c.triple),
                                    None)
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
    def observe(self, subject: str, relation: str, obj: str, truth: bool, turn: int, topic: str = "",
                text: str = "") -> list[Decision]:
        """A verified observation: record it, purge what it contradicts, and re-check the quarantine."""
        c = ClaimCandidate(subject, relation, obj, topic, "observation", turn, text, kind="observation")
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
        existing = next((self.facts[i] for i in self._by_key.get(c.key, ())
                         if self.facts[i].triple == c.triple and self.facts[i].truth == truth), None)
        if existing is not None:
            self._set_status(existing, "verified")
            fact = existing
        else:
            fact = self._add(c, "verified", truth=truth)
        d = Decision(seq=len(self.decisions) + 1, turn=turn, candidate=asdict(c), related=[], votes=[],
                     score=1.0, credibility=1.0, outcome="admit",
                     reason="verified observation" + (f"; purges {', '.join(purged)}" if purged else ""),
                     fact=fact.id, superseded=purged)
        self.decisions.append(d)
        out.append(d)
        out += self.recheck(turn)
        return out

    def recheck(self, turn: int) -> list[Decision]:
        """Decide every quarantined fact again (after new evidence or new credibility)."""
        out = []
        for f in [f for f in self.facts.values() if f.status == "quarantined" and not f.awaiting_jury]:
            c = ClaimCandidate(f.subject, f.relation, f.object, f.topic, f.source, turn, f.text)
            d = self._decide(c, self.related(c), f.jury, None, held=f)
            if d.outcome == "quarantine":  # still undecided: nothing to record
                continue
            d.reason = "re-checked: " + d.reason
            self.decisions.append(d)
            out.append(d)
        return out

    # --- reading ----------------------------------------------------------------------
    def audit(self, *, source: str | None = None, outcome: str | None = None, subject: str | None = None,
              topic: str | None = None, since: int | None = None) -> list[Decision]:
        """The decisions matching every given filter, oldest first."""
        out = []
        for d in self.decisions:
            c = d.candidate
            if source is not None and c["source"] != source:
                continue
            if outcome is not None and d.outcome != outcome:
                continue
            if subject is not None and norm(c["subject"]) != norm(subject):
                continue
            if topic is not None and norm(c["topic"]) != norm(topic):
                continue
            if since is not None and d.turn < since:
                continue
            out.append(d)
        return out

    def status_of(self, subject: str, relation: str, obj: str, truth: bool = True) -> str | None:
        """The status of the latest entry asserting (``truth``) or denying a triple; None if never seen."""
        key = (norm(subject), norm(relation), norm(obj))
        for f in reversed(list(self.facts.values())):
            if f.triple == key and f.truth == truth:
                return f.status
        return None

    # --- persistence ------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        return {"facts": [asdict(f) for f in self.facts.values()], "next": self._next, "version": self._version,
                "cache": [[list(k[0]), k[1], k[2], k[3], k[4], v] for k, v in self._cache.items()],
                "decisions": [d.to_dict() for d in self.decisions], "judge_calls": self.judge_calls}

    def set_state(self, state: Mapping[str, Any]) -> None:
        self.facts, self.decisions = {}, []
        self._by_key, self._by_word, self._vec_ids, self._vecs = {}, {}, [], None
        self._cache = {}
        for d in state.get("facts", ()):
            f = Fact(**d)
            self.facts[f.id] = f
            self._by_key.setdefault(f.key, []).append(f.id)
            for w in sorted(set(keywords(f.text)) | set(keywords(f.object))):
                self._by_word.setdefault(w, []).append(f.id)
        if self.embedder is not None and self.facts:
            self._vec_ids = list(self.facts)
            self._vecs = self._embed([self.facts[i].text for i in self._vec_ids])
        self.decisions = [Decision(**d) for d in state.get("decisions", ())]
        self.judge_calls = int(state.get("judge_calls", 0))
        self._next = int(state.get("next", len(self.facts)))
        self._version = int(state.get("version", len(self.decisions) + len(self.facts)))
        self._cache = {(tuple(t), src, tp, cred, ver): idx for t, src, tp, cred, ver, idx in state.get("cache", ())}
