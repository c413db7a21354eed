"""Memory records and scopes.

A record is one thing remembered: an observation, an utterance, an offer, a
claim, a reflection. Its ``scope`` says who may read it: ``shared`` (everyone),
``facts`` (admitted world facts) or ``private:<agent>`` (that agent only).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

SHARED = "shared"
FACTS = "facts"
KINDS = (
    "observation",
    "utterance",
    "offer",
    "agreement",
    "claim",
    "fact",
    "quest",
    "insight",
    "reflection",
    "goal",
    "rule",
)
STATUSES = ("active", "resolved", "consolidated", "superseded", "quarantined", "rejected")
# kinds that state how things are (a newer one of the same template, or a correction, supersedes an older one);
# offers and observations are events in a series: all of them stay, compressed into a series line
STATEMENTS = ("utterance", "claim", "fact", "rule", "goal")
# what contexts read: resolved memories fade, consolidated ones stay in the long-term tier; superseded
# ones only when history is asked for
LIVE = ("active", "resolved", "consolidated")


def private(agent: str) -> str:
    return f"private:{agent}"


def readable_scopes(agent: str) -> tuple[str, ...]:
    """What an agent may read: shared memory, world facts and its own private memory."""
    return (SHARED, FACTS, private(agent))


@dataclass
class MemoryRecord:
    id: str
    scope: str
    kind: str
    text: str
    turn: int
    speaker: str | None = None
    importance: float = 0.0
    topic: str | None = None
    triple: tuple[str, str, str] | None = None
    references: list[str] = field(default_factory=list)
    controversy: float = 0.0
    novelty: float = 0.0
    last_access: int = 0
    status: str = "active"
    tier: str = "working"  # working | long
    anchor: bool = False  # never dropped by masking or budget
    superseded_by: str | None = None  # the newer memory that states the current value
    seq: int = 0  # write order, for deterministic ties
    disputed: bool = False  # a claim the consistency gate holds until evidence: shown marked

    def to_dict(self) -> dict[str, Any]:
        """The record as plain data (a fresh dict; its lists are copies). Built field by field, not
        by ``dataclasses.asdict``'s deep copy: a game reads every record each time its state is taken."""
        d = {name: getattr(self, name) for name in _FIELDS}
        d["references"] = list(self.references)
        d["triple"] = list(self.triple) if self.triple else None
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MemoryRecord:
        d = dict(d)
        if d.get("triple") is not None:
            d["triple"] = tuple(d["triple"])
        return cls(**d)

    def metadata(self) -> dict[str, Any]:
        """Flat metadata for a vector store filter."""
        return {"scope": self.scope, "kind": self.kind, "turn": self.turn, "status": self.status}


_FIELDS = tuple(f.name for f in fields(MemoryRecord))
