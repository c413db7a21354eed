"""Plain data shared by every package: actions, events, claims, observations.

These are frozen slotted dataclasses: cheap to build on the hot path, easy to
serialise (``to_dict``), and hashable where that helps. Validation of untrusted
input (LLM replies, saves) happens at the edges, not here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import Enum
from typing import Any

PLAYER = "player"
DIRECTIONS = ("north", "south", "east", "west", "up", "down", "in", "out",
              "northeast", "northwest", "southeast", "southwest")


class Verb(str, Enum):
    """Every kind of action an actor can take in a turn."""

    GO = "go"
    LOOK = "look"
    EXAMINE = "examine"
    TAKE = "take"
    DROP = "drop"
    GIVE = "give"
    OPEN = "open"
    UNLOCK = "unlock"
    TALK = "talk"
    ASK = "ask"
    SAY = "say"
    INVENTORY = "inventory"
    WAIT = "wait"
    TRADE = "trade"        # open a negotiation with a merchant
    OFFER = "offer"        # offer or counter-offer in a negotiation
    ACCEPT = "accept"
    REJECT = "reject"
    WALK_AWAY = "walk_away"
    VOTE = "vote"          # council scenes


@dataclass(frozen=True, slots=True)
class Action:
    """One actor's move. ``obj``/``target`` are ids already resolved by the parser."""

    actor: str
    verb: Verb
    obj: str | None = None       # item, NPC, direction or topic
    target: str | None = None    # second object: give X *to Y*, unlock X *with Y*
    text: str | None = None      # say "..."; vote yes/no
    terms: tuple[tuple[str, str], ...] | None = None  # offer: ((issue, value), ...)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"actor": self.actor, "verb": self.verb.value}
        for k in ("obj", "target", "text"):
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        if self.terms is not None:
            d["terms"] = dict(self.terms)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Action:
        terms = d.get("terms")
        return cls(actor=d["actor"], verb=Verb(d["verb"]), obj=d.get("obj"),
                   target=d.get("target"), text=d.get("text"),
                   terms=tuple(sorted(terms.items())) if terms is not None else None)


@dataclass(frozen=True, slots=True)
class Claim:
    """An assertion of a world fact by a speaker: (subject, relation, object) on a topic."""

    subject: str
    relation: str
    object: str
    topic: str
    speaker: str
    turn: int
    fact_id: str | None = None   # the world fact it restates, if any (hidden from agents)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, as the transcript records it.

    ``perceivers`` are the entity ids who witnessed it; ``public`` events are
    heard everywhere (announcements) and go to shared memory.
    """

    turn: int
    seq: int
    kind: str
    actor: str
    text: str
    location: str | None = None
    perceivers: tuple[str, ...] = ()
    public: bool = False
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = {"turn": self.turn, "seq": self.seq, "kind": self.kind, "actor": self.actor,
             "text": self.text, "location": self.location,
             "perceivers": list(self.perceivers), "public": self.public}
        if self.data:
            d["data"] = self.data
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Event:
        return cls(turn=d["turn"], seq=d["seq"], kind=d["kind"], actor=d["actor"], text=d["text"],
                   location=d.get("location"), perceivers=tuple(d.get("perceivers", ())),
                   public=bool(d.get("public", False)), data=dict(d.get("data", {})))


@dataclass(frozen=True, slots=True)
class Observation:
    """What one actor knows at the start of its turn."""

    actor: str
    turn: int
    location: str
    text: str                                  # room description as prose
    visible: tuple[str, ...] = ()              # ids of items and NPCs in sight
    exits: tuple[str, ...] = ()
    inventory: tuple[str, ...] = ()
    gold: int = 0
    recent: tuple[Event, ...] = ()             # events perceived since the last turn
    scene: dict[str, Any] | None = None        # open negotiation, if any

    def to_dict(self) -> dict[str, Any]:
        return {"actor": self.actor, "turn": self.turn, "location": self.location,
                "text": self.text, "visible": list(self.visible), "exits": list(self.exits),
                "inventory": list(self.inventory), "gold": self.gold,
                "recent": [e.to_dict() for e in self.recent], "scene": self.scene}


@dataclass(frozen=True, slots=True)
class Request:
    """What an NPC is asked to say: greet (``talk``), ``ask`` about a topic, ``haggle``
    during a negotiation, or a council ``speech``. ``seq`` makes each request unique."""

    kind: str
    asker: str
    turn: int
    seq: int
    topic: str | None = None
    data: dict[str, Any] = field(default_factory=dict)


INTENTS = ("greet", "answer", "refuse", "rumour", "haggle", "speech")


@dataclass(frozen=True, slots=True)
class Utterance:
    """What an NPC says: its words (without "X says:"), the intent, and the claims it makes."""

    speaker: str
    intent: str
    text: str
    claims: tuple[Claim, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"speaker": self.speaker, "intent": self.intent, "text": self.text,
                "claims": [c.to_dict() for c in self.claims]}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Utterance:
        return cls(speaker=d["speaker"], intent=d["intent"], text=d["text"],
                   claims=tuple(Claim(**c) for c in d.get("claims", ())))
