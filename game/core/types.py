"""Plain data shared by every package: actions, events, claims, observations.

These are frozen slotted dataclasses: cheap to build on the hot path, easy to
serialise (``to_dict``), and hashable where that helps. Validation of untrusted
input (LLM replies, saves) happens at the edges, not here.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from enum import Enum, StrEnum
from typing import Any

PLAYER = "player"
DIRECTIONS = (
    "north",
    "south",
    "east",
    "west",
    "up",
    "down",
    "in",
    "out",
    "northeast",
    "northwest",
    "southeast",
    "southwest",
)


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
    TRADE = "trade"  # open a negotiation with a merchant
    OFFER = "offer"  # offer or counter-offer in a negotiation
    ACCEPT = "accept"
    REJECT = "reject"
    WALK_AWAY = "walk_away"
    VOTE = "vote"  # council scenes
    LIGHT = "light"  # light a light source


@dataclass(frozen=True, slots=True)
class Action:
    """One actor's move. ``obj``/``target`` are ids already resolved by the parser."""

    actor: str
    verb: Verb
    obj: str | None = None  # item, NPC, direction or topic
    target: str | None = None  # second object: give X *to Y*, unlock X *with Y*
    text: str | None = None  # say "..."; vote yes/no
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
        return cls(
            actor=d["actor"],
            verb=Verb(d["verb"]),
            obj=d.get("obj"),
            target=d.get("target"),
            text=d.get("text"),
            terms=tuple(sorted(terms.items())) if terms is not None else None,
        )


class EventKind(StrEnum):
    """Every kind of event the engine emits (a ``StrEnum``: ``kind == "say"`` and JSON work as strings)."""

    MOVE = "move"
    LOOK = "look"
    EXAMINE = "examine"
    TAKE = "take"
    DROP = "drop"
    GIVE = "give"
    OPEN = "open"
    UNLOCK = "unlock"
    LIGHT = "light"
    TALK = "talk"
    SAY = "say"
    INVENTORY = "inventory"
    WAIT = "wait"
    TRADE_OPEN = "trade_open"
    OFFER = "offer"
    ACCEPT = "accept"
    REJECT = "reject"
    WALK_AWAY = "walk_away"
    AGREEMENT = "agreement"
    NO_AGREEMENT = "no_agreement"
    COUNCIL_OPEN = "council_open"
    SPEECH = "speech"
    PERSUADED = "persuaded"
    COUNCIL_RESULT = "council_result"
    VERIFY = "verify"
    SCORE = "score"
    QUEST = "quest"
    WIN = "win"
    TIMEOUT = "timeout"
    INVALID = "invalid"


def event_kind(kind: str) -> EventKind | str:
    """``kind`` as an ``EventKind``; a kind this version does not know (an old or foreign
    transcript) stays a plain string rather than failing the load."""
    try:
        return EventKind(kind)
    except ValueError:
        return kind


@dataclass(frozen=True, slots=True)
class Claim:
    """An assertion of a world fact by a speaker: (subject, relation, object) on a topic."""

    subject: str
    relation: str
    object: str
    topic: str
    speaker: str
    turn: int
    fact_id: str | None = None  # the world fact it restates, if any (hidden from agents)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Verification:
    """Ground truth observed in the game: which facts proved true or false, by whom, when."""

    by: str
    turn: int
    truth: tuple[tuple[str, bool], ...]


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened, as the transcript records it.

    ``perceivers`` are the entity ids who witnessed it; ``public`` events are
    heard everywhere (announcements) and go to shared memory.
    """

    turn: int
    seq: int
    kind: EventKind | str
    actor: str
    text: str
    location: str | None = None
    perceivers: tuple[str, ...] = ()
    public: bool = False
    data: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        d = {
            "turn": self.turn,
            "seq": self.seq,
            "kind": str(self.kind),
            "actor": self.actor,
            "text": self.text,
            "location": self.location,
            "perceivers": list(self.perceivers),
            "public": self.public,
        }
        if self.data:
            d["data"] = self.data
        return d

    def seen_by(self, viewer: str = PLAYER) -> str:
        """How this event reads to one viewer: its own actions in the second person."""
        if self.actor == viewer and "view" in self.data:
            return self.data["view"]
        if viewer == PLAYER and "you" in self.data:  # addressed to the player though someone else acted
            return self.data["you"]
        return self.text

    @property
    def claims(self) -> tuple[Claim, ...]:
        """The world-fact claims made in this event, typed (stored in ``data["claims"]`` so
        transcripts keep their shape). A claim an agent sees has no ``fact_id``."""
        raw = self.data.get("claims") if self.data else None
        if not raw:
            return ()
        return tuple(c if isinstance(c, Claim) else Claim(**c) for c in raw)

    @property
    def verification(self) -> Verification | None:
        """What a ``verify`` event established: fact id -> truth (None for other events)."""
        if self.kind != EventKind.VERIFY or not self.data or "truth" not in self.data:
            return None
        return Verification(by=self.actor, turn=self.turn, truth=tuple(sorted(self.data["truth"].items())))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Event:
        return cls(
            turn=d["turn"],
            seq=d["seq"],
            kind=event_kind(d["kind"]),
            actor=d["actor"],
            text=d["text"],
            location=d.get("location"),
            perceivers=tuple(d.get("perceivers", ())),
            public=bool(d.get("public", False)),
            data=dict(d.get("data", {})),
        )


@dataclass(frozen=True, slots=True)
class Observation:
    """What one actor knows at the start of its turn."""

    actor: str
    turn: int
    location: str
    text: str  # room description as prose
    visible: tuple[str, ...] = ()  # ids of items and NPCs in sight
    exits: tuple[str, ...] = ()
    inventory: tuple[str, ...] = ()
    gold: int = 0
    recent: tuple[Event, ...] = ()  # events perceived since the last turn
    scene: dict[str, Any] | None = None  # open negotiation, if any
    # what a player is also shown (None for NPCs): the parser's scope (the nouns, exits, topics
    # and negotiation issues it may name right now), the display names of the ids in this
    # observation, the quest log, the score and the turn limit
    briefing: str = ""  # the world's title and introduction
    scope: Any = None  # a game.engine.parser.Scope
    names: tuple[tuple[str, str], ...] = ()  # (id, display name)
    quests: tuple[QuestView, ...] = ()
    score: int = 0
    max_turns: int = 0
    # the decision at hand, in words the actor could read for itself (None: none): the question put
    # to it, the council motion to vote on, the offer to answer; memory uses it as the context's focus
    decision: str | None = None
    # the commands open to the actor now, as it would type them (filled for seats that ask for them:
    # ``wants_commands = True``; ``Engine.legal_commands``)
    commands: tuple[str, ...] = ()

    def name(self, ident: str | None) -> str:
        """The display name of an id in this observation (the id itself when it has none)."""
        return dict(self.names).get(ident or "", ident or "something")

    def to_dict(self) -> dict[str, Any]:
        d = {
            "actor": self.actor,
            "turn": self.turn,
            "location": self.location,
            "text": self.text,
            "visible": list(self.visible),
            "exits": list(self.exits),
            "inventory": list(self.inventory),
            "gold": self.gold,
            "recent": [e.to_dict() for e in self.recent],
            "scene": self.scene,
        }
        if self.quests:
            d["quests"] = [q.to_dict() for q in self.quests]
            d["score"], d["max_turns"] = self.score, self.max_turns
        if self.decision is not None:
            d["decision"] = self.decision
        if self.commands:  # left out when empty, so saves, goldens and transcripts keep their shape
            d["commands"] = list(self.commands)
        return d


@dataclass(frozen=True, slots=True)
class Objective:
    """One line of a quest log, as a player is shown it: what to do (``text``) and the ids it
    names (``kind``: has, at, item_at, gave, opened or scene)."""

    kind: str
    text: str
    item: str | None = None
    npc: str | None = None
    location: str | None = None
    scene: str | None = None
    done: bool = False


@dataclass(frozen=True, slots=True)
class QuestView:
    """A quest as the player's quest log shows it."""

    id: str
    title: str
    description: str
    objectives: tuple[Objective, ...] = ()
    done: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Decision:
    """What an acting agent chose: an action (None: it passes), and ``fallback``, the reason
    when its own output was unusable and it fell back to a safe default (a penalised move)."""

    action: Action | None
    fallback: str | None = None


@dataclass(frozen=True, slots=True)
class TurnResult:
    """What one call into the engine produced: the events in order, each entity's reward for
    it, how many penalised invalid moves it held, and whether the game is over."""

    events: tuple[Event, ...] = ()
    rewards: tuple[tuple[str, float], ...] = ()
    penalties: int = 0
    done: bool = False

    # a TurnResult reads as the sequence of its events
    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)

    def __getitem__(self, index: int) -> Event:
        return self.events[index]

    def reward(self, who: str) -> float:
        return dict(self.rewards).get(who, 0.0)

    def __add__(self, other: TurnResult) -> TurnResult:
        total = dict(self.rewards)
        for k, v in other.rewards:
            total[k] = total.get(k, 0.0) + v
        return TurnResult(
            self.events + other.events, tuple(total.items()), self.penalties + other.penalties, other.done
        )


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
        return {
            "speaker": self.speaker,
            "intent": self.intent,
            "text": self.text,
            "claims": [c.to_dict() for c in self.claims],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Utterance:
        return cls(
            speaker=d["speaker"],
            intent=d["intent"],
            text=d["text"],
            claims=tuple(Claim(**c) for c in d.get("claims", ())),
        )
