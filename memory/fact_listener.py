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
  quarantine is re-checked against the new evidence and credibility;
* what the player sees for itself (``see``: its observation after each event it perceives, read
  by ``memory.witness``: a thing lying in the room, or missing where it would be in plain sight)
  is evidence too, settled the same way once a claim bears on it (what it saw before anyone
  spoke is kept, and settles the claim when it is heard).

With agent memory on, admitted claims become ``fact`` records in the shared
``facts`` scope, quarantined ones are stored but kept out of retrieval, and
superseded, rejected or purged ones are masked.

An NPC's words with no structured claim (an LLM NPC speaks free text) are read
by the claim extractor (``memory.extract``, rule-based from the world's
lexicon, plus an LLM extractor when one is given), so every statement that
asserts something about the world reaches the gate. The raw claim an agent
heard follows the gate's outcome in every agent's memory: masked when
rejected or purged, marked "(disputed)" while held.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from game.core.claims import settles, verdict
from game.core.errors import ParleyError
from game.core.types import Event, EventKind, Observation
from memory.gate import ClaimCandidate, ConsistencyGate, Decision, GateConfig, norm, rules_of
from memory.lexicon import Lexicon
from memory.sigma import SigmaMem
from memory.witness import Evidence, Sight, Witness

CLAIM_EVENTS = (EventKind.SAY, EventKind.TALK, EventKind.SPEECH)
BANK_STATUS = {"admitted": "active", "verified": "active", "quarantined": "quarantined"}
_QUOTED = re.compile(r'^[^"]*?says?[^"]*?:\s*"(.*)"\s*$', re.S)


def spoken(text: str) -> str:
    """The words of an utterance as the engine writes it (``Lou says: "..."``), else the text."""
    m = _QUOTED.match(text)
    return m.group(1) if m else text


def as_said(holds: bool | None, claim: Mapping[str, Any]) -> bool | None:
    """Whether the claim holds, given whether its positive form does (a negation holds when that fails)."""
    return holds if holds is None or claim.get("truth", True) else not holds


def claim_holds(obj: Any, truth: bool, claim: Mapping[str, Any], functional: bool) -> bool | None:
    """Whether a verified fact (its object and truth) settles a heard claim, negations included."""
    return as_said(settles(obj, truth, claim["object"], functional), claim)


class WorldFacts:
    """The gate, the reliability memory and the claim log of one game."""

    def __init__(
        self,
        spec: Any,
        config: GateConfig | None = None,
        embedder: Any = None,
        sigma: SigmaMem | None = None,
        bank: Any = None,
        jury: Any = None,
        extractor: Any = None,
    ):
        self.spec = spec
        self.lexicon = Lexicon.from_spec(spec)
        relations = rules_of(self.lexicon)
        topics = sorted({f.topic for f in spec.facts.values()})
        if sigma is None:  # the world's topics exactly orthogonal; others by their names' likeness to them
            # (decay on judgement: an NPC verified rarely still builds trust)
            sigma = SigmaMem.for_world(list(spec.npcs), topics, embedder=embedder)
        self.sigma = sigma
        self.gate = ConsistencyGate(
            relations,
            config,
            embedder=embedder,
            credibility=self.credibility,
            jury=jury,
            lexicon=self.lexicon,
            extractor=extractor,
        )
        self._read: dict[int, list[dict[str, Any]]] = {}  # event seq -> the claims read from its text
        self.bank = bank
        self.claims: list[dict[str, Any]] = []  # every claim heard: speaker, triple, topic, turn
        self.judged: set[int] = set()  # claims (indices) already settled in Σ-Mem
        self.records: dict[str, str] = {}  # gate fact id -> memory record id
        self._by_key: dict[tuple[str, str], list[int]] = {}  # (subject, relation) -> claim indices
        self.witness = Witness(Sight.from_spec(spec))  # what the player saw for itself
        self.settled: set[tuple[str, str, str, bool]] = set()  # evidence already handed to the gate

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
    def claims_of(self, ev: Event) -> list[dict[str, Any]]:
        """The claims an event makes: its structured ones, else what an NPC's words assert (read once
        per event; the memory runtime and the gate see the same claims)."""
        claims = list(ev.data.get("claims") or ()) if ev.data else []
        if claims or ev.kind not in CLAIM_EVENTS or ev.actor not in self.spec.npcs:
            return claims
        if ev.seq not in self._read:
            if len(self._read) > 16:
                self._read.clear()
            self._read[ev.seq] = [
                {
                    "speaker": ev.actor,
                    "subject": e.subject,
                    "relation": e.relation,
                    "object": e.object,
                    "topic": e.topic or e.relation,
                    "truth": e.truth,
                    "read_from": e.span,
                }
                for e in self.gate.read(spoken(ev.text))
            ]
        return self._read[ev.seq]

    def on_event(self, ev: Event) -> None:
        if ev.kind in CLAIM_EVENTS:
            claims = self.claims_of(ev)
            if claims:
                self._claims(ev, claims)
        elif ev.kind == EventKind.VERIFY:
            self._verify(ev)

    def see(self, ev: Event | None, obs: Observation) -> None:
        """What the player saw for itself in ``ev`` (an event it perceived; None: none) and in its
        observation ``obs`` after it: new evidence on what a heard claim is about is settled now,
        the rest when a claim about it is heard."""
        found = self.witness.read(ev, obs)
        self._settle([e for e in found if (norm(e.subject), norm(e.relation)) in self._by_key], turn=obs.turn)

    def _settle(self, found: list[Evidence], turn: int) -> None:
        """Hand first-hand evidence to Σ-Mem and the gate, as a verification is (``_verify``)."""
        found = [e for e in found if (*e.triple, e.truth) not in self.settled]
        if not found:
            return
        self.settled.update((*e.triple, e.truth) for e in found)
        self._verified([(e.subject, e.relation, e.object, e.truth, None, e.text) for e in found], turn)

    def _claims(self, ev: Event, claims: list[dict[str, Any]]) -> None:
        cands = []
        start = len(self.claims)
        keys = {self.lexicon.resolve(c["subject"], c["relation"], c["object"])[:2] for c in claims}
        seen = [e for s, r in sorted(keys) for e in self.witness.about(s, r)]
        self._settle(seen, ev.turn)  # what the player saw of it counts before the claim is weighed
        for c in claims:
            truth = bool(c.get("truth", True))
            s, r, o = self.lexicon.resolve(c["subject"], c["relation"], c["object"])
            self._note_claim(
                {
                    "speaker": c["speaker"],
                    "subject": s,
                    "relation": r,
                    "object": o,
                    "topic": c["topic"],
                    "turn": ev.turn,
                    **({} if truth else {"truth": False}),
                }
            )
            fid = c.get("fact_id")
            text = self.spec.facts[fid].text if fid in self.spec.facts else c.get("read_from", "")
            cands.append(ClaimCandidate(s, r, o, c["topic"], c["speaker"], ev.turn, text, truth=truth))
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
            verified = [
                self.gate.facts[j] for j in self.gate._by_key.get(key, ()) if self.gate.facts[j].status == "verified"
            ]
            if not verified:
                continue
            functional = self.gate.rules.rule(c["relation"]).functional
            holds = as_said(verdict([(f.object, f.truth) for f in verified], c["object"], functional), c)
            if holds is not None:
                self.judged.add(i)
                by_topic.setdefault(c["topic"], {}).setdefault(c["speaker"], []).append(1 if holds else -1)
        return by_topic

    def _verify(self, ev: Event) -> None:
        facts = [
            (self.spec.facts[fid], bool(t))
            for fid, t in sorted(ev.data.get("truth", {}).items())
            if fid in self.spec.facts
        ]
        # filed as what was seen, not as the line someone says about it (which the player may never
        # have heard: a claim heard keeps its words, as the gate's fact for it does)
        seen = self.witness.sight.describe
        self._verified(
            [(f.subject, f.relation, f.object, t, f.topic, seen(f.subject, f.relation, f.object, t)) for f, t in facts],
            ev.turn,
        )

    def _verified(self, truths: list[tuple[str, str, str, bool, str | None, str]], turn: int) -> None:
        """Verified ``(subject, relation, object, truth, topic, text)``: Σ-Mem learns first, so the
        quarantine is re-checked with the new credibility. A verification names its fact's topic;
        evidence with none (``None``) teaches on each settled claim's own topic, and is filed under
        the topic of the first claim about it."""
        by_topic: dict[str, dict[str, list[int]]] = {}
        topics: list[str] = []
        for s, r, o, truth, topic, _ in truths:
            judged = self._verdicts(s, r, o, truth)
            for who, outcome, said in judged:
                by_topic.setdefault(topic or said, {}).setdefault(who, []).append(outcome)
            topics.append(topic if topic is not None else self._topic_of(s, r))
        self._learn(by_topic)
        decisions: list[Decision] = []
        for (s, r, o, truth, _, text), topic in zip(truths, topics):
            decisions += self.gate.observe(s, r, o, truth, turn, topic, text)
        self._mirror(decisions)

    def _topic_of(self, subject: str, relation: str) -> str:
        heard = self._by_key.get((norm(subject), norm(relation)), ())
        return self.claims[heard[0]]["topic"] if heard else ""

    def _verdicts(self, subject: str, relation: str, obj: str, truth: bool) -> list[tuple[str, int, str]]:
        """(speaker, +1/-1, topic) for each not yet judged claim the verified fact settles; each
        claim is judged once, however many verified facts bear on it."""
        functional = self.gate.rules.rule(relation).functional
        out = []
        s, r, o = self.lexicon.resolve(subject, relation, obj)
        for i in self._by_key.get((norm(s), norm(r)), ()):
            c = self.claims[i]
            if i in self.judged:
                continue
            holds = claim_holds(o, truth, c, functional)
            if holds is None:
                continue
            out.append((c["speaker"], 1 if holds else -1, c["topic"]))
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
        held: dict[tuple[str, tuple[str, str, str]], bool] = {}
        for d in decisions:
            c = d.candidate
            said = (c.get("source", ""), (c.get("subject", ""), c.get("relation", ""), c.get("object", "")))
            if d.outcome == "reject":
                refused.add(said)
            f = self.gate.facts.get(d.fact or "")
            if f is not None and f.source != "observation":  # everyone who said it is held or cleared with it
                for src in {f.source, *f.sources}:
                    held[(src, (f.subject, f.relation, f.object))] = f.status == "quarantined"
            for fid in [d.fact, *d.superseded]:
                f = self.gate.facts.get(fid or "")
                if f is None or f.source == "observation":
                    continue
                status = BANK_STATUS.get(f.status, "rejected")
                rid = self.records.get(f.id)
                if rid is None:
                    if status == "rejected":
                        continue
                    rec = self.bank.add(
                        FACTS,
                        "fact",
                        f.text or f"{f.subject} {f.relation} {f.object}",
                        f.turn,
                        speaker=f.source,
                        topic=f.topic,
                        triple=(f.subject, f.relation, f.object),
                        status=status,
                    )
                    self.records[f.id] = rec.id
                elif self.bank.records[rid].status != status:
                    self.bank.set_status([rid], status)
                if status == "rejected":  # purged or superseded: the claims that stated it go too
                    for src in {f.source, *f.sources}:
                        refused.add((src, (f.subject, f.relation, f.object)))
        self._mark_claims(refused, held)

    def _said(self, src: str, triple: tuple[str, str, str]) -> tuple[str, tuple[str, ...]]:
        return norm(src), tuple(norm(x) for x in self.lexicon.resolve(*triple))

    def _mark_claims(
        self, refused: set[tuple[str, tuple[str, str, str]]], held: Mapping[tuple[str, tuple[str, str, str]], bool]
    ) -> None:
        """The raw claims agents heard follow the gate: a claim the gate rejected, or whose fact it
        purged, is masked wherever an agent's memory holds it; one it holds is marked disputed (and
        unmarked once decided). The memory runtime stored each claim as each listener heard it."""
        if not refused and not held:
            return
        gone = {self._said(*k) for k in refused}
        marks = {self._said(*k): v for k, v in held.items()}
        speakers = {src for src, _ in gone} | {src for src, _ in marks}
        ids = []
        for r in self.bank.records.values():
            if (
                r.kind != "claim"
                or not r.triple
                or r.status not in ("active", "resolved", "consolidated")
                or norm(r.speaker or "") not in speakers
            ):  # resolve only what a touched source said
                continue
            key = self._said(r.speaker or "", r.triple)
            if key in gone:
                ids.append(r.id)
            elif key in marks:
                r.disputed = marks[key]
        if ids:
            self.bank.set_status(ids, "rejected")

    # --- persistence -------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        return {
            "gate": self.gate.get_state(),
            "sigma": self.sigma.get_state(),
            "claims": self.claims,
            "judged": sorted(self.judged),
            "records": dict(self.records),
            "witness": self.witness.get_state(),
            "settled": sorted(list(k) for k in self.settled),
        }

    def set_state(self, state: Mapping[str, Any]) -> None:
        self.gate.set_state(state["gate"])
        self.sigma.set_state(state["sigma"])
        self.claims, self._by_key = [], {}
        for c in state.get("claims", ()):
            self._note_claim(dict(c))
        self.judged = {int(i) for i in state.get("judged", ())}
        self.records = dict(state.get("records", {}))
        self.witness.set_state(state.get("witness", {}))
        self.settled = {(str(s), str(r), str(o), bool(t)) for s, r, o, t in state.get("settled", ())}
