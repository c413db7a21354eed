"""The save schema of agent memory (``components.memory``, ``GameMemory.get_state``) and of
world-fact memory (``components.facts``, ``memory.state_schema_facts``), and the links between
them (:func:`check_links`).

:class:`MemoryState` checks the section as saved, field by field, and what the code that reads
it assumes across fields: every id a record, an access entry or a correction names is a record
of the bank; the bank's counter is at least every record's number (a new record is ``m<seq+1>``
and must not overwrite one) and records are in write order; a superseded record names a newer
one; a claim carries its triple. Keys a save of an older version lacks take the defaults
``set_state`` gives them. Nothing is converted: validating reads the section, never changes it.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StrictStr, model_validator
from pydantic_core import InitErrorDetails, PydanticCustomError

from memory.config import MaskConfig, MemoConfig, ReflectionConfig
from memory.records import FACTS, KINDS, STATUSES
from memory.state_schema_facts import FactsState, WitnessState
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

__all__ = ["FactsState", "MemoryState", "check_links"]

EMBEDDERS = ("minilm", "hash")  # memory.embedder.KINDS: what a save's memory can be rebuilt with
Kind = Literal[KINDS]  # type: ignore[valid-type]
Status = Literal[STATUSES]  # type: ignore[valid-type]
SCOPE_PATTERN = r"^(shared|facts|private:[^\s:][^\n]*)$"  # memory.records: who may read a memory
Scope = Annotated[StrictStr, Field(pattern=SCOPE_PATTERN, max_length=MAX_NAME + 8)]
_STRICT = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class StrictMask(MaskConfig):
    model_config = _STRICT


class StrictReflection(ReflectionConfig):
    model_config = _STRICT


class StrictMemoConfig(MemoConfig):
    """MEMO's configuration as saved: the same fields and bounds, strict types."""

    model_config = _STRICT
    mask: StrictMask = Field(default_factory=StrictMask)
    reflection: StrictReflection = Field(default_factory=StrictReflection)


class RecordState(Strict):
    """One memory (``memory.records.MemoryRecord.to_dict``)."""

    id: Name
    scope: Scope
    kind: Kind
    text: Text
    turn: Turn
    speaker: Label | None = None
    importance: Unit = 0.0
    topic: Label | None = None
    triple: Triple | None = None
    references: many(Name, MAX_REFS) = []
    controversy: Unit = 0.0
    novelty: Unit = 0.0
    last_access: Turn = 0
    status: Status = "active"
    tier: Literal["working", "long"] = "working"
    anchor: Flag = False
    superseded_by: Name | None = None
    seq: Count = 0
    disputed: Flag = False

    @model_validator(mode="after")
    def _triple(self) -> RecordState:
        if self.kind == "claim" and self.triple is None:
            raise PydanticCustomError("link", "a claim record carries its triple (subject, relation, object)")
        return self


class BankState(Strict):
    """The bank (``MemoryBank.get_state``): records in write order, the write counter, what each
    agent last retrieved (record -> turn) and the statements still to check at the next flush."""

    seq: Count
    records: many(RecordState)
    corrections: many(Name) = []
    access: table(Name, table(Name, Turn, MAX_ITEMS)) = {}

    @model_validator(mode="after")
    def _links(self) -> BankState:
        ids: dict[str, int] = {}
        errors: list[InitErrorDetails] = []
        last = 0
        for i, r in enumerate(self.records):
            if r.id in ids:
                errors.append(problem(("records", i, "id"), f"record id {r.id!r} repeats records[{ids[r.id]}]"))
            ids.setdefault(r.id, i)
            n = numbered(r.id, "m")
            if r.seq > self.seq or (n is not None and n > self.seq):
                errors.append(
                    problem(
                        ("records", i, "seq"),
                        f"record {r.id!r} (seq {max(r.seq, n or 0)}) is past the bank's seq {self.seq}: "
                        "a new record would overwrite it",
                    )
                )
            if r.seq and r.seq <= last:  # written in order: seq breaks ties deterministically
                errors.append(problem(("records", i, "seq"), f"seq {r.seq} does not follow {last} (write order)"))
            last = max(last, r.seq)
        for i, r in enumerate(self.records):
            errors += _superseded(i, r, ids, self.records)
            errors += [
                problem(("records", i, "references", j), f"no record {ref!r}")
                for j, ref in enumerate(r.references)
                if ref not in ids
            ]
        errors += [
            problem(("corrections", j), f"no record {ref!r}")
            for j, ref in enumerate(self.corrections)
            if ref not in ids
        ]
        for agent, seen in self.access.items():
            errors += [problem(("access", agent, ref), f"no record {ref!r}") for ref in seen if ref not in ids]
        raise_all(errors, "BankState")
        return self


def _superseded(i: int, r: RecordState, ids: dict[str, int], records: list[RecordState]) -> list[InitErrorDetails]:
    """Problems of record ``i``'s ``superseded_by``: a superseded memory names the newer one that
    states the current value (contexts show its turn)."""
    at = ("records", i, "superseded_by")
    if r.superseded_by is None:
        return (
            [problem(at, "a superseded record names the record that superseded it")] if r.status == "superseded" else []
        )
    j = ids.get(r.superseded_by)
    if j is None:
        return [problem(at, f"no record {r.superseded_by!r}")]
    if j <= i:
        return [problem(at, f"record {r.superseded_by!r} is not newer than {r.id!r}")]
    return []


class ReflectorState(Strict):
    """The reflector's state: the importance each agent has gathered since its last reflection and
    the turn of its last try (``memory.reflection.Reflector.get_state``)."""

    pressure: table(Name, Annotated[Real, Field(ge=0.0)]) = {}
    tried: table(Name, Turn) = {}


class StoreOptions(Strict):
    """A Chroma server's collection the game's memories live in."""

    host: Name
    port: int = Field(strict=True, ge=1, le=65535)
    collection: Name


class MemoryState(Strict):
    """``components.memory`` of a save (``memory.runtime.GameMemory.get_state``)."""

    embedder: Literal[EMBEDDERS]  # type: ignore[valid-type]
    store: Name = "flat"
    config: StrictMemoConfig
    bank: BankState
    reflector: ReflectorState = ReflectorState()
    priors: table(Name, many(Text, MAX_REFS)) = {}
    quests_done: many(Name, MAX_KEYS) = []
    witnesses: table(Name, WitnessState) = {}
    store_options: StoreOptions | None = None

    def record_ids(self) -> set[str]:
        return {r.id for r in self.bank.records}


def check_links(memory: MemoryState | None, facts: FactsState | None) -> None:
    """Check what links the two sections: each world fact mirrored into agent memory
    (``facts.records``: gate fact id -> memory record id) names a distinct fact record of the
    ``facts`` scope in ``memory``'s bank (a save without agent memory mirrors nothing). Raises a
    ``ValidationError`` whose paths start at ``components``."""
    if facts is None:
        return
    recs = {r.id: r for r in memory.bank.records} if memory is not None else {}
    errors: list[InitErrorDetails] = []
    taken: dict[str, str] = {}
    for fid, rid in facts.records.items():
        at = ("components", "facts", "records", fid)
        rec = recs.get(rid)
        if rec is None:
            why = "" if memory is not None else " (the save has no agent memory)"
            errors.append(problem(at, f"no memory record {rid!r}{why}"))
        elif rec.scope != FACTS or rec.kind != "fact":
            errors.append(problem(at, f"memory record {rid!r} is a {rec.kind} in {rec.scope!r}, not a world fact"))
        elif rid in taken:
            errors.append(problem(at, f"memory record {rid!r} already mirrors fact {taken[rid]!r}"))
        taken.setdefault(rid, fid)
    raise_all(errors, "Save")
