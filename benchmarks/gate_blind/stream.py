"""The held-out stream: a hidden truth over Sallowford that changes with time, sources with a hidden
honesty, and labelled writes in free text.

The truth (``Truth``) gives every (subject, relation) of the stream a value that changes now and
then (boats move and change skippers, stores are moved, locks change their tolls, hours and the
water over their sills), drawn from a seeded ``numpy.random.Generator``. A write records its text,
source, turn and class, the claims it is meant to make in the world's ids (numbers in the
relation's own unit, times as HH:MM) and, per claim, the label: whether the claim holds in the
hidden truth at that turn. A sentence that makes no claim (a question, a conditional, hearsay)
has no claims and no label. A trap (a value in another unit, a time, a stray number) also
records the triple a careless reader would take from it: the true value, so that reading it so
would count as corroboration.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np

from benchmarks.gate_blind.phrasing import digits
from benchmarks.gate_blind.world import RELATIONS, TOPICS, Town

TOLLS = (3, 4, 4.5, 6, 7.5, 8, 9, 10, 12, 15, 18, 24)
DEPTHS = (5, 6, 6.5, 7, 7.5, 8, 9, 10, 12)
TIMES = ("05:30", "06:00", "06:30", "07:00", "07:15", "07:45", "08:00", "08:30", "09:00", "12:00", "19:00")
NUMBERS = {"toll": TOLLS, "sill_depth": DEPTHS}
HALF_LIFE = {"moored_at": 40, "stored_in": 90, "skippered_by": 150, "toll": 80, "sill_depth": 60, "opens_at": 120}
# kind -> (how many, hidden honesty range, told credibility range or None for a stranger at 0.5);
# a liar-on-topic is honest but on one topic, where its honesty is LIAR_HONESTY
PROFILES = {
    "honest": (4, (0.92, 0.99), (0.7, 0.95)),
    "liar-on-topic": (2, (0.9, 0.98), (0.65, 0.9)),
    "sometimes-liar": (1, (0.55, 0.75), (0.6, 0.8)),
    "untrusted-truthful": (2, (0.9, 0.98), (0.1, 0.35)),
    "untrusted-liar": (2, (0.1, 0.3), (0.05, 0.3)),
    "stranger": (1, (0.5, 0.9), None),
}
LIAR_HONESTY = (0.05, 0.2)


@dataclass(frozen=True)
class Claim:
    subject: str
    relation: str
    object: str  # an entity id, a number in the relation's unit (digits), or HH:MM
    truth: bool = True  # False: the sentence denies it


@dataclass(frozen=True)
class Write:
    idx: int
    turn: int
    cls: str
    text: str
    source: str
    cred: float  # the credibility the gate is told for the source on the claim's topic
    topic: str
    claims: tuple[Claim, ...]
    labels: tuple[bool, ...]  # per claim: holds in the hidden truth at this turn
    trap: tuple[str, str, str] | None = None  # the careless reading: (subject, relation, true value)
    declared: bool | None = None  # the relation is worded with an alias the world declares
    base: str = ""  # for surface classes: whether the claim underneath is true or false

    @property
    def label(self) -> bool | None:
        return all(self.labels) if self.claims else None


@dataclass(frozen=True)
class Observation:
    """A verified observation of the truth at ``turn``."""

    turn: int
    claim: Claim
    topic: str


def same_value(relation: str, a: str, b: str) -> bool:
    if relation in NUMBERS:
        try:
            x, y = float(a), float(b)
        except ValueError:
            return False
        return abs(x - y) <= 1e-6 * max(1.0, abs(x), abs(y))
    return a == b


@dataclass
class Truth:
    timeline: dict[tuple[str, str], list[tuple[int, str]]]
    domains: dict[str, tuple[str, ...]]

    @classmethod
    def draw(cls, rng: np.random.Generator, town: Town, turns: int) -> Truth:
        domains = {r: tuple(town.objects(r)) for r in RELATIONS}
        domains.update({r: tuple(digits(v) for v in vs) for r, vs in NUMBERS.items()})
        domains["opens_at"] = TIMES
        timeline = {}
        for r in RELATIONS:
            p = 1 - 0.5 ** (1 / HALF_LIFE[r])
            for s in town.subjects(r):
                pool = domains[r]
                v = pool[int(rng.integers(len(pool)))]
                line = [(0, v)]
                for t in range(1, turns):
                    if rng.random() < p:
                        v = _next(rng, pool, v, r in NUMBERS)
                        line.append((t, v))
                timeline[(s, r)] = line
        return cls(timeline, domains)

    def value(self, subject: str, relation: str, turn: int) -> str:
        """The value at ``turn``: the last change at or before it."""
        line = self.timeline[(subject, relation)]
        i = bisect.bisect_right(line, turn, key=lambda change: change[0])
        return line[i - 1][1] if i else ""

    def holds(self, claim: Claim, turn: int) -> bool:
        now = self.value(claim.subject, claim.relation, turn)
        return same_value(claim.relation, now, claim.object) == claim.truth

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return list(self.timeline)


def _next(rng: np.random.Generator, pool: tuple[str, ...], v: str, ordered: bool) -> str:
    """A new value: for numbers a step or two up or down the scale, else any other value."""
    i = pool.index(v)
    if ordered:
        j = int(np.clip(i + rng.choice([-2, -1, 1, 2, 3]), 0, len(pool) - 1))
        return pool[j if j != i else (i - 1 if i else i + 1)]
    others = [x for x in pool if x != v]
    return others[int(rng.integers(len(others)))]


@dataclass(frozen=True)
class Source:
    id: str
    kind: str
    honesty: dict[str, float]  # hidden: topic -> probability that what it says is true
    credibility: dict[str, float]  # told to the gate (a stranger has none: 0.5)


def make_sources(rng: np.random.Generator, people: tuple[str, ...]) -> dict[str, Source]:
    """The people of the town as sources, each given a kind from ``PROFILES`` at random."""
    order = [people[i] for i in rng.permutation(len(people))]
    out = {}
    for kind, (count, honest, told) in PROFILES.items():
        for sid in (order.pop() for _ in range(count)):
            liar_on = TOPICS[int(rng.integers(len(TOPICS)))] if kind == "liar-on-topic" else None
            honesty = {t: float(rng.uniform(*(LIAR_HONESTY if t == liar_on else honest))) for t in TOPICS}
            cred = {t: float(rng.uniform(*told)) for t in TOPICS} if told else {}
            out[sid] = Source(sid, kind, honesty, cred)
    return out


@dataclass
class Stream:
    seed: int
    town: Town
    truth: Truth
    sources: dict[str, Source]
    events: list[Write | Observation] = field(default_factory=list)  # in the order the gate gets them
    writes: list[Write] = field(default_factory=list)  # the writes alone

    def add(self, event: Write | Observation) -> None:
        self.events.append(event)
        if isinstance(event, Write):
            self.writes.append(event)

    def credibility(self, source: str, topic: str) -> float:
        """What the gate is told: the source's credibility on the topic (0.5 for a stranger; a topic
        the table lacks gets the source's mean)."""
        src = self.sources.get(source)
        if src is None or not src.credibility:
            return 0.5
        if topic in src.credibility:
            return src.credibility[topic]
        return float(np.mean(list(src.credibility.values())))


def generate(seed: int, n_writes: int = 400) -> Stream:
    """The stream for one seed: ``n_writes`` labelled writes with verified observations between them."""
    from benchmarks.gate_blind.situations import Situations

    rng = np.random.default_rng([seed, 7717])
    town = Town.load()
    truth = Truth.draw(rng, town, turns=n_writes // 2 + 40)
    stream = Stream(seed, town, truth, make_sources(rng, town.people))
    Situations(rng, stream).run(n_writes)
    return stream
