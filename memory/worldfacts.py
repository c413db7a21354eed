"""World-fact memory in a game: claims through the consistency gate, trust from
verified outcomes.

Listens to the engine's events:

* each claim an NPC makes (``say``, ``talk``, ``speech`` events) is a candidate
  for world-fact memory and goes through the gate (``memory.gate``), which
  uses the speaker's credibility on the claim's topic from Σ-Mem;
* each verification (``verify`` events: the player opened the chest, a trade
  revealed the price) is ground truth: the gate records it and purges what it
  contradicts; Σ-Mem is written for every NPC who claimed about the verified
  fact (+1 if the claim matched the truth, -1 if it contradicted it); then the
  quarantine is re-checked against the new evidence and credibility.

With agent memory on, admitted claims become ``fact`` records in the shared
``facts`` scope, quarantined ones are stored but kept out of retrieval, and
superseded, rejected or purged ones are masked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from game.claims import settles, verdict
from game.errors import ParleyError
from game.types import Event, EventKind
from memory.gate import ClaimCandidate, ConsistencyGate, Decision, GateConfig, RelationRule, norm
from memory.sigma import SigmaMem

CLAIM_EVENTS = (EventKind.SAY, EventKind.TALK, EventKind.SPEECH)
BANK_STATUS = {"admitted": "active", "verified": "active", "quarantined": "quarantined"}


class WorldFacts:
    """The gate, the reliability memory and the claim log of one game."""

    def __init__(self, spec: Any, config: GateConfig | None = None, embedder: Any = None,
                 sigma: SigmaMem | None = None, bank: Any = None, jury: Any = None):
        self.spec = spec
        relations = {rid: RelationRule(functional=r.functional, range=r.range, temporal=r.temporal,
                                       thresholds=r.thresholds) for rid, r in spec.relations.items()}
        topics = sorted({f.topic for f in spec.facts.values()})
        if sigma is None:  # one-hot topics when the world names them; hashed projections otherwise
            # decay on judgement: in play an NPC is judged only when what it said is verified, which
            # may be rare; decaying it at every other NPC's verification would keep its trust near 0
            sigma = SigmaMem(peers=list(spec.npcs), topics=topics, phi="onehot", decay="judged") if topics else \
                SigmaMem(peers=list(spec.npcs), phi="projection", embedder="hash", decay="judged")
        self.sigma = sigma
        self.gate = ConsistencyGate(relations, config, embedder=embedder, credibility=self.credibility, jury=jury)
        self.bank = bank
        self.claims: list[dict[str, Any]] = []         # every claim heard: speaker, triple, topic, turn
        self.judged: set[int] = set()                  # claims (indices) already settled in Σ-Mem
        self.records: dict[str, str] = {}              # gate fact id -> memory record id
        self._by_key: dict[tuple[str, str], list[int]] = {}   # (subject, relation) -> claim indices

    # --- credibility -------------------------------------------------------------------
    def credibility(self, source: str, topic: str) -> float:
        """``(1 + s) / 2`` for the source's Σ-Mem score ``s`` on the topic; 0.5 when unknown."""
        if source not in self.sigma.peers:
            return 0.5
        try:
            s = self.sigma.score(source, topic)
        except Exception:  # a topic Σ-Mem was not told about: no evidence either way
            return 0.5
        return (1.0 + max(-1.0, min(1.0, s))) / 2.0

    def trust_table(self) -> dict[str, dict[str, float]]:
        return self.sigma.trust_table()

    # --- events ------------------------------------------------------------------------
    def on_event(self, ev: Event) -> None:
        if ev.kind in CLAIM_EVENTS:
            claims = ev.data.get("claims") or ()
            if claims:
                self._claims(ev, claims)
        elif ev.kind == EventKind.VERIFY:
            self._verify(ev)

    def _claims(self, ev: Event, claims: list[dict[str, Any]]) -> None:
        cands = []
        start = len(self.claims)
        for c in claims:
            self._note_claim({"speaker": c["speaker"], "subject": c["subject"], "relation": c["relation"],
                              "object": c["object"], "topic": c["topic"], "turn": ev.turn})
            fid = c.get("fact_id")
            text = self.spec.facts[fid].text if fid in self.spec.facts else ""
            cands.append(ClaimCandidate(c["subject"], c["relation"], c["object"], c["topic"], c["speaker"],
                                   ev.turn, text))
        self._mirror(self.gate.submit_many(cands))
        if self._learn(self._settle_against_verified(start)):  # credibility moved: held claims again
            self._mirror(self.gate.recheck(ev.turn))

    def _note_claim(self, c: dict[str, Any]) -> None:
        self.claims.append(c)
        self._by_key.setdefault((norm(c["subject"]), norm(c["relation"])), []).append(len(self.claims) - 1)

    def _learn(self, by_topic: dict[str, dict[str, list[int]]]) -> bool:
        """Write Σ-Mem: one outcome per NPC per topic (+1 only if every verdict was right).
        Topics Σ-Mem cannot place (a custom agent's invention) teach nothing. True if it learned."""
        learned = False
        for topic, verdicts in sorted(by_topic.items()):
            try:
                self.sigma.write(topic, {who: (1 if min(v) > 0 else -1) for who, v in sorted(verdicts.items())})
                learned = True
            except ParleyError:
                continue
        if learned:
            self.gate.invalidate()
        return learned

    def _settle_against_verified(self, start: int) -> dict[str, dict[str, list[int]]]:
        """Claims about what is already verified are judged at once (the truth is known)."""
        by_topic: dict[str, dict[str, list[int]]] = {}
        for i in range(start, len(self.claims)):
            c = self.claims[i]
            key = (norm(c["subject"]), norm(c["relation"]))
            verified = [self.gate.facts[j] for j in self.gate._by_key.get(key, ())
                        if self.gate.facts[j].status == "verified"]
            if not verified:
                continue
            functional = self.gate.rules.rule(c["relation"]).functional
            holds = verdict([(f.object, f.truth) for f in verified], c["object"], functional)
            if holds is not None:
                self.judged.add(i)
                by_topic.setdefault(c["topic"], {}).setdefault(c["speaker"], []).append(1 if holds else -1)
        return by_topic

    def _verify(self, ev: Event) -> None:
        """Σ-Mem learns first, so the quarantine is re-checked with the new credibility."""
        truths = [(self.spec.facts[fid], bool(t)) for fid, t in sorted(ev.data.get("truth", {}).items())
                  if fid in self.spec.facts]
        by_topic: dict[str, dict[str, list[int]]] = {}
        for f, truth in truths:
            for who, outcome in self._verdicts(f, truth):
                by_topic.setdefault(f.topic, {}).setdefault(who, []).append(outcome)
        self._learn(by_topic)
        decisions: list[Decision] = []
        for f, truth in truths:
            decisions += self.gate.observe(f.subject, f.relation, f.object, truth, ev.turn, f.topic, f.text)
        self._mirror(decisions)

    def _verdicts(self, f: Any, truth: bool) -> list[tuple[str, int]]:
        """(speaker, +1/-1) for each not yet judged claim the verified fact settles; each claim is
        judged once, however many verified facts bear on it."""
        functional = self.gate.rules.rule(f.relation).functional
        out = []
        for i in self._by_key.get((norm(f.subject), norm(f.relation)), ()):
            c = self.claims[i]
            if i in self.judged:
                continue
            holds = settles(f.object, truth, c["object"], functional)
            if holds is None:
                continue
            out.append((c["speaker"], 1 if holds else -1))
            self.judged.add(i)
        return out

    # --- agent memory ------------------------------------------------------------------
    def _mirror(self, decisions: list[Decision]) -> None:
        """Keep the memory bank's ``facts`` scope in step with the gate (claims only;
        verified observations are written by the memory runtime itself)."""
        if self.bank is None:
            return
        from memory.records import FACTS
        refused: set[tuple[str, tuple[str, str, str]]] = set()
        for d in decisions:
            if d.outcome == "reject":
                c = d.candidate
                refused.add((c.get("source", ""), (c.get("subject", ""), c.get("relation", ""), c.get("object", ""))))
            for fid in [d.fact, *d.superseded]:
                f = self.gate.facts.get(fid or "")
                if f is None or f.source == "observation":
                    continue
                status = BANK_STATUS.get(f.status, "rejected")
                rid = self.records.get(f.id)
                if rid is None:
                    if status == "rejected":
                        continue
                    rec = self.bank.add(FACTS, "fact", f.text or f"{f.subject} {f.relation} {f.object}", f.turn,
                                        speaker=f.source, topic=f.topic, triple=(f.subject, f.relation, f.object),
                                        status=status)
                    self.records[f.id] = rec.id
                elif self.bank.records[rid].status != status:
                    self.bank.set_status([rid], status)
                if status == "rejected":  # purged or superseded: the claims that stated it go too
                    for src in {f.source, *f.sources}:
                        refused.add((src, (f.subject, f.relation, f.object)))
        self._mask_claims(refused)

    def _mask_claims(self, refused: set[tuple[str, tuple[str, str, str]]]) -> None:
        """A claim the gate rejected, or whose fact it purged, is masked wherever an agent's memory
        holds it (the memory runtime stored the raw claim as each listener heard it)."""
        if not refused:
            return
        want = {(norm(src), tuple(norm(x) for x in triple)) for src, triple in refused}
        ids = [r.id for r in self.bank.records.values()
               if r.kind == "claim" and r.status in ("active", "resolved", "consolidated") and r.triple
               and (norm(r.speaker or ""), tuple(norm(x) for x in r.triple)) in want]
        if ids:
            self.bank.set_status(ids, "rejected")

    # --- persistence -------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        return {"gate": self.gate.get_state(), "sigma": self.sigma.get_state(), "claims": self.claims,
                "judged": sorted(self.judged), "records": dict(self.records)}

    def set_state(self, state: Mapping[str, Any]) -> None:
        self.gate.set_state(state["gate"])
        self.sigma.set_state(state["sigma"])
        self.claims, self._by_key = [], {}
        for c in state.get("claims", ()):
            self._note_claim(dict(c))
        self.judged = {int(i) for i in state.get("judged", ())}
        self.records = dict(state.get("records", {}))
