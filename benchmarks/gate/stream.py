"""A labelled stream of world-fact claims for the consistency-gate benchmark.

A seeded world (``numpy.random.Generator`` only) with a hidden truth over time:
things move (``located_in``), prices change (``price``), things are sold
(``owned_by``); who knows whom (``knows``) and the order in which people
arrived (``arrives_before`` / ``arrives_after``) are fixed. Sources have a
hidden honesty per topic and a credibility the gate is told; the two are
correlated but not equal: there are trusted liars (high credibility, lying on
one topic or now and then), untrusted truth-tellers (low credibility, telling
the truth), strangers (0.5) and sybils (fresh stranger ids in a burst).

Each write's label is the hidden truth at its turn (``World.holds``): a true
claim should not be rejected, a false one should. The class names the situation
the write was drawn for, judged against the *ideal* memory (everything true
that was said or observed before), never against what a gate decided. Who says
a thing depends on honesty, not credibility: a true claim comes from a source
drawn in proportion to its honesty on the topic, a false one in proportion to
its dishonesty (stale claims from anyone; true updates rotate through the
credibility bands so that every band brings some).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from benchmarks.gate.render import Renderer
from benchmarks.gate.text import FUNCTIONAL, ITEMS, PEOPLE, PLACES, PRICES, RELATIONS, SOURCE_NAMES, TOPICS

CLASS_WEIGHTS = {
    "new-true": 7,
    "new-false": 6,
    "correction": 3,
    "restatement": 7,
    "true-update": 9,
    "hallucination": 7,
    "stale": 3,
    "stale-held": 2,
    "alias": 6,
    "synonym": 6,
    "paraphrase": 9,
    "units": 4,
    "number-words": 4,
    "negation": 6,
    "temporal": 3,
    "chain": 4,
    "collusion": 2,
    "corroboration": 2,
    "sybil": 1.2,
    "repeat": 2,
}
CLASSES = tuple(CLASS_WEIGHTS)
BANDS = ("trusted", "stranger", "untrusted")
OBSERVE_RATE = 0.2  # verified observations per turn (about one event in ten)
DRAWS_PER_TURN = 2
SOURCE_KINDS = (
    ("honest", 5),
    ("liar-on-topic", 2),
    ("sometimes-liar", 1),
    ("untrusted-truthful", 2),
    ("untrusted-liar", 3),
    ("stranger", 3),
)


def band_of(cred: float, source: str = "") -> str:
    if source.startswith("traveller_"):
        return "sybil"
    return "trusted" if cred >= 0.65 else "untrusted" if cred <= 0.35 else "stranger"


@dataclass(frozen=True)
class Source:
    id: str
    kind: str
    honesty: dict[str, float]  # topic -> probability that what it says is true (hidden)
    credibility: dict[str, float]  # topic -> what the gate is told (strangers: not in the table)


@dataclass(frozen=True)
class Write:
    idx: int
    turn: int
    cls: str
    label: bool  # the claim is true at its turn: it should not be rejected
    subject: str  # the meaning, in canonical ids (a price as digits)
    relation: str
    object: str
    truth: bool  # False: a negation ("the gem is not in the well")
    topic: str
    source: str
    cred: float
    band: str
    update: bool  # a true value that differs from what was said before
    mode: str  # "struct" (gate.submit) or "text" (gate.hear)
    form: tuple[str, str, str, bool]  # subject, relation, object, truth as written (fields or text spans)
    text: str  # the sentence (text mode); "" for structured writes
    base: str = ""  # for surface classes: the situation underneath (restatement, ...)


@dataclass(frozen=True)
class Observation:
    turn: int
    subject: str
    relation: str
    object: str
    truth: bool
    topic: str


@dataclass
class World:
    items: list[str]
    places: list[str]
    people: list[str]
    names: dict[str, list[str]]
    kind: dict[str, str]
    timeline: dict[tuple[str, str], list[tuple[int, str]]]
    knows: frozenset
    rank: dict[str, int]

    def value(self, subject: str, relation: str, turn: int) -> str:
        out = ""
        for start, v in self.timeline[(subject, relation)]:
            if start > turn:
                break
            out = v
        return out

    def history(self, subject: str, relation: str, turn: int) -> list[str]:
        return [v for start, v in self.timeline[(subject, relation)] if start <= turn]

    def holds(self, subject: str, relation: str, obj: str, truth: bool, turn: int) -> bool:
        if relation in FUNCTIONAL:
            fact = self.value(subject, relation, turn) == obj
        elif relation == "knows":
            fact = (subject, obj) in self.knows
        elif relation == "arrives_before":
            fact = self.rank[subject] < self.rank[obj]
        else:
            fact = self.rank[subject] > self.rank[obj]
        return fact == truth

    def values(self, relation: str) -> list[str]:
        return (
            self.places
            if relation == "located_in"
            else self.people
            if relation == "owned_by"
            else [str(p) for p in PRICES]
        )


@dataclass
class Stream:
    seed: int
    world: World
    sources: dict[str, Source]
    events: list = field(default_factory=list)

    @property
    def writes(self) -> list[Write]:
        return [e for e in self.events if isinstance(e, Write)]

    def credibility_table(self) -> dict[tuple[str, str], float]:
        return {(s.id, t): c for s in self.sources.values() for t, c in s.credibility.items()}

    def credibility(self, source: str, topic: str) -> float:
        src = self.sources.get(source)
        return src.credibility.get(topic, 0.5) if src else 0.5


def _next_price(rng: np.random.Generator, old: str) -> str:
    i = PRICES.index(int(old))
    j = int(np.clip(i + rng.choice([-3, -2, -1, 1, 2, 3]), 0, len(PRICES) - 1))
    return str(PRICES[j if j != i else (i + 1 if i + 1 < len(PRICES) else i - 1)])


def make_world(
    rng: np.random.Generator, turns: int, n_items: int = 36, n_places: int = 14, n_people: int = 14
) -> World:
    pick = lambda pool, n: [pool[i] for i in sorted(rng.choice(len(pool), n, replace=False))]
    items, places, people = pick(ITEMS, n_items), pick(PLACES, n_places), pick(PEOPLE, n_people)
    names = {e: list(a) for e, a in items + places + people}
    kind = {e: k for group, k in ((items, "item"), (places, "place"), (people, "person")) for e, _ in group}
    items, places, people = [e for e, _ in items], [e for e, _ in places], [e for e, _ in people]
    world = World(items, places, people, names, kind, {}, frozenset(), {})
    for relation in FUNCTIONAL:
        p = 1 - 0.5 ** (1 / RELATIONS[relation]["half_life"])
        for item in items:
            v = str(rng.choice(world.values(relation)))
            line = [(0, v)]
            for t in range(1, turns):
                if rng.random() < p:
                    if relation == "price":
                        v = _next_price(rng, v)
                    else:
                        v = str(rng.choice([x for x in world.values(relation) if x != v]))
                    line.append((t, v))
            world.timeline[(item, relation)] = line
    pairs = [(a, b) for i, a in enumerate(people) for b in people[i + 1 :] if rng.random() < 0.3]
    world.knows = frozenset(pairs + [(b, a) for a, b in pairs])
    world.rank = {p: i for i, p in enumerate(rng.permutation(people).tolist())}
    return world


def make_sources(rng: np.random.Generator) -> dict[str, Source]:
    names = rng.permutation(SOURCE_NAMES).tolist()
    out: dict[str, Source] = {}
    for kind, count in SOURCE_KINDS:
        for _ in range(count):
            sid = f"npc_{names.pop()}"
            u = lambda a, b: float(rng.uniform(a, b))
            lie_topic = TOPICS[int(rng.integers(len(TOPICS)))]
            honesty, cred = {}, {}
            for t in TOPICS:
                if kind == "honest":
                    honesty[t], cred[t] = u(0.95, 0.99), u(0.75, 0.95)
                elif kind == "liar-on-topic":
                    honesty[t], cred[t] = (u(0.05, 0.2) if t == lie_topic else u(0.93, 0.99)), u(0.7, 0.9)
                elif kind == "sometimes-liar":
                    honesty[t], cred[t] = u(0.6, 0.75), u(0.65, 0.85)
                elif kind == "untrusted-truthful":
                    honesty[t], cred[t] = u(0.93, 0.99), u(0.1, 0.35)
                elif kind == "untrusted-liar":
                    honesty[t], cred[t] = u(0.1, 0.3), u(0.05, 0.3)
                else:
                    honesty[t] = u(0.55, 0.9)
            out[sid] = Source(sid, kind, honesty, cred)
    return out


def generate(seed: int, n_writes: int = 600) -> Stream:
    """The stream for one seed: about ``n_writes`` labelled writes with observations interleaved."""
    from benchmarks.gate.classes import Generator

    rng = np.random.default_rng([seed, 4021])
    world = make_world(rng, turns=n_writes + 20)
    stream = Stream(seed, world, make_sources(rng))
    Generator(rng, stream, Renderer(rng, world)).run(n_writes)
    return stream
