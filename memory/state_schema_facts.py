"""The save schema of world-fact memory (``components.facts``, ``WorldFacts.get_state``): the
consistency gate's facts, decisions and cache (``FactMemory.get_state``), Σ-Mem
(``memory.state_schema_sigma``), the claims heard, what the player saw for itself.

Beyond each field's type and bound: fact ids are distinct and the gate's counter is at least
each one's number (a new fact is ``f<next+1>``); every fact a decision, a vote or a related
entry names exists; a cache row points at a decision; a judged claim is a claim heard; each
fact mirrored into agent memory (``records``) is a fact of the gate (the record it names is
checked against agent memory by ``memory.state_schema.check_links``). Keys an older save lacks
take the defaults ``set_state`` gives them (a cache row of 6 or 7 values, a decision without
``p`` or ``evidence``, a fact without ``jury``).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, StrictStr, Tag, model_validator
from pydantic_core import InitErrorDetails

from memory.state_schema_sigma import SigmaState
from memory.state_schema_types import (
    MAX_ITEMS,
    MAX_KEYS,
    MAX_NAME,
    MAX_REFS,
    Count,
    Flag,
    Label,
    Name,
    Real,
    Seq,
    Strict,
    Text,
    Triple,
    Turn,
    Unit,
    many,
    numbered,
    problem,
    raise_all,
    table,
)

FACT_STATUSES = ("admitted", "verified", "quarantined", "rejected", "superseded", "purged")
OUTCOMES = ("admit", "quarantine", "reject")
CLAIM_KINDS = ("claim", "statement", "summary", "observation")
MATCHES = ("structured", "semantic", "keyword")
JUDGES = ("rule", "jury")
HEARD_SEP = "\x1f"  # memory.gate_evidence.Bursts.key joins a triple and its truth with it


class FactState(Strict):
    """An entry of world-fact memory (``memory.rule_judge.Fact``)."""

    id: Name
    subject: Label
    relation: Label
    object: Label
    topic: Label
    source: Name
    turn: Turn
    text: Text
    status: Literal[FACT_STATUSES] = "admitted"  # type: ignore[valid-type]
    truth: Flag = True
    sources: many(Name, MAX_REFS) = []
    jury: Real | None = None  # a jury's score (the LLM jury's lie in [0, 1]; a custom one's may not)
    awaiting_jury: Flag = False


class CandidateState(Strict):
    """The claim a decision was about (``memory.rule_judge.ClaimCandidate``)."""

    subject: Label
    relation: Label
    object: Label
    topic: Label
    source: Name
    turn: Turn = 0
    text: Text = ""
    kind: Literal[CLAIM_KINDS] = "claim"  # type: ignore[valid-type]
    truth: Flag = True


class RelatedState(Strict):
    """A fact the gate weighed a candidate against, and how it was found."""

    id: Name
    text: Text
    status: Literal[FACT_STATUSES]  # type: ignore[valid-type]
    source: Name
    match: Literal[MATCHES]  # type: ignore[valid-type]


class VoteState(Strict):
    """A judge's vote on a candidate (``about``: the fact it rests on, if one)."""

    judge: Literal[JUDGES]  # type: ignore[valid-type]
    about: Name | None
    vote: Real
    reason: Text
    strength: Unit | None = None


class TermState(Strict):
    """One evidence term of a posterior (``memory.gate_posterior``)."""

    term: Name
    x: Real
    weight: Real | None
    log_odds: Real | None
    reason: Text | None = None


class DecisionState(Strict):
    """One decision of the gate's audit trail (``memory.fact_memory.Decision``)."""

    seq: Seq
    turn: Turn
    candidate: CandidateState
    related: many(RelatedState, MAX_REFS)
    votes: many(VoteState, MAX_REFS)
    score: Unit
    credibility: Unit
    outcome: Literal[OUTCOMES]  # type: ignore[valid-type]
    reason: Text
    fact: Name | None = None
    superseded: many(Name, MAX_REFS) = []
    cached: Flag = False
    p: Unit | None = None
    evidence: many(TermState, 256) = []


_KEY = (Triple, Name, Label, Unit, Count, Count)  # triple, source, topic, credibility, version, decision
CacheRow = Annotated[
    Annotated[tuple[_KEY], Tag("~6")]  # type: ignore[valid-type]
    | Annotated[tuple[(*_KEY, Flag)], Tag("~7")]  # type: ignore[misc]
    | Annotated[tuple[(*_KEY, Flag, Turn | None)], Tag("~8")],  # type: ignore[misc]
    Discriminator(
        lambda row: f"~{len(row)}" if isinstance(row, list | tuple) and 6 <= len(row) <= 8 else None,
        custom_error_type="link",
        custom_error_message="a cache row is a list of 6 to 8 values (key, decision, truth, turn)",
    ),
]
Heard = many(tuple[Name, Turn], MAX_KEYS)  # (source, turn) of each who asserted a triple
HeardKey = Annotated[StrictStr, Field(max_length=4 * MAX_NAME)]


class GateState(Strict):
    """The consistency gate (``memory.fact_memory.FactMemory.get_state``)."""

    facts: many(FactState) = []
    next: Count = 0
    version: Count = 0
    cache: many(CacheRow) = []
    decisions: many(DecisionState) = []
    judge_calls: Count = 0
    heard: table(HeardKey, Heard, MAX_ITEMS) = {}

    @model_validator(mode="after")
    def _links(self) -> GateState:
        errors: list[InitErrorDetails] = []
        ids: set[str] = set()
        nxt = self.next if "next" in self.model_fields_set else len(self.facts)  # set_state's default
        for i, f in enumerate(self.facts):
            if f.id in ids:
                errors.append(problem(("facts", i, "id"), f"fact id {f.id!r} repeats"))
            ids.add(f.id)
            n = numbered(f.id, "f")
            if n is not None and n > nxt:
                errors.append(problem(("facts", i, "id"), f"fact {f.id!r} is past the gate's next ({nxt})"))
        for i, d in enumerate(self.decisions):
            errors += _named(("decisions", i, "fact"), [d.fact] if d.fact is not None else [], ids, flat=True)
            errors += _named(("decisions", i, "superseded"), d.superseded, ids)
            errors += _named(("decisions", i, "related"), [r.id for r in d.related], ids, field="id")
            abouts = [v.about for v in d.votes]
            errors += [
                problem(("decisions", i, "votes", j, "about"), f"no fact {a!r}")
                for j, a in enumerate(abouts)
                if a is not None and a not in ids
            ]
        errors += [
            problem(("decisions", i, "seq"), f"seq {d.seq} where the audit trail is at {i + 1}")
            for i, d in enumerate(self.decisions)
            if d.seq != i + 1
        ]
        errors += [
            problem(("heard", key), "not a heard triple's key (subject, relation, object, 1 or 0)")
            for key in self.heard
            if key.count(HEARD_SEP) != 3 or key[-2:] not in (HEARD_SEP + "1", HEARD_SEP + "0")
        ]
        n = len(self.decisions)
        errors += [
            problem(("cache", i, 5), f"decision {row[5]} is past the {n} decisions")
            for i, row in enumerate(self.cache)
            if row[5] >= n
        ]
        raise_all(errors, "GateState")
        return self


def _named(loc: tuple, refs: list[str], ids: set[str], flat: bool = False, field: str = "") -> list[Any]:
    """A problem for each of ``refs`` (listed at ``loc``) that is not one of ``ids``."""
    out = []
    for j, ref in enumerate(refs):
        if ref not in ids:
            at = loc if flat else (*loc, j, field) if field else (*loc, j)
            out.append(problem(at, f"no fact {ref!r}"))
    return out


class ClaimState(Strict):
    """A claim heard (``WorldFacts.claims``; ``truth`` only for a negation)."""

    speaker: Name
    subject: Label
    relation: Label
    object: Label
    topic: Label
    turn: Turn
    truth: Flag = True


class EvidenceState(Strict):
    """One thing the player saw for itself (``memory.witness.Evidence``)."""

    subject: Label
    relation: Label
    object: Label
    truth: Flag
    turn: Turn
    text: Text = ""


class WitnessState(Strict):
    """What an agent saw for itself (``memory.witness.Witness.get_state``)."""

    moved: many(Name, MAX_KEYS) = []
    known: many(EvidenceState) = []


class FactsState(Strict):
    """``components.facts`` of a save (``memory.fact_listener.WorldFacts.get_state``)."""

    gate: GateState
    sigma: SigmaState
    claims: many(ClaimState) = []
    judged: many(Count) = []
    records: table(Name, Name, 10**6) = {}
    witness: WitnessState = WitnessState()
    settled: many(tuple[Label, Label, Label, Flag]) = []

    @model_validator(mode="after")
    def _links(self) -> FactsState:
        n = len(self.claims)
        errors = [
            problem(("judged", i), f"claim {c} is past the {n} claims") for i, c in enumerate(self.judged) if c >= n
        ]
        ids = {f.id for f in self.gate.facts}
        errors += [problem(("records", fid), f"no fact {fid!r} in the gate") for fid in self.records if fid not in ids]
        raise_all(errors, "FactsState")
        return self
