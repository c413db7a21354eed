"""The stream generator behind ``gate_stream.generate``: one method per class of write.

State is the *ideal* memory: what a perfect gate would hold after the writes and
observations so far (every true positive claim, every observation). Classes are
chosen against it and the hidden truth; labels are always the truth at the
write's turn. Bursts (collusion, repeats) are queued and labelled when they
are emitted.
"""

from __future__ import annotations

import numpy as np

from benchmarks.gate.stream import CLASS_WEIGHTS, DRAWS_PER_TURN, OBSERVE_RATE, Observation, Write, band_of
from benchmarks.gate.text import FUNCTIONAL, TOPIC
from benchmarks.gate.writes import WriteClasses

Sem = tuple[str, str, str, bool]
SURFACE = {
    "alias": "alias",
    "synonym": "synonym",
    "units": "units",
    "number-words": "words",
    "paraphrase": "paraphrase",
}


class Generator(WriteClasses):
    def __init__(self, rng: np.random.Generator, stream, renderer) -> None:
        self.rng, self.stream, self.world, self.render = rng, stream, stream.world, renderer
        self.turn, self.n = 0, 0
        self.ideal: dict[tuple[str, str], str] = {}
        self.mentioned: set[tuple[str, str]] = set()
        self.poisoned: set[tuple[str, str]] = set()
        self.said: list[Sem] = []  # true person facts stated so far
        self.pairs: set[tuple[str, str, str]] = set()  # person facts mentioned so far
        self.chains: list[tuple[str, str, str, int]] = []
        self.pending: list[tuple[int, tuple]] = []
        self.updates = self.sybils = 0

    # ------------------------------------------------------------------ driving

    def run(self, n_writes: int) -> None:
        names, w = list(CLASS_WEIGHTS), np.array(list(CLASS_WEIGHTS.values()), float)
        while self.n < n_writes:
            self.turn += 1
            due = [spec for t, spec in self.pending if t <= self.turn]
            self.pending = [(t, spec) for t, spec in self.pending if t > self.turn]
            for spec in due:
                self.emit(*spec)
            if self.rng.random() < OBSERVE_RATE:
                self.observe()
            for _ in range(DRAWS_PER_TURN):
                for _try in range(20):
                    cls = names[int(self.rng.choice(len(names), p=w / w.sum()))]
                    if getattr(self, "c_" + cls.replace("-", "_"))(cls):
                        break

    def pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))] if len(seq) else None

    def source(self, topic: str, label: bool, bands=None, exclude=()) -> str | None:
        """A named source, drawn in proportion to its honesty on the topic (dishonesty for a false claim)."""
        cands = [
            s
            for s in self.stream.sources.values()
            if s.id not in exclude and (bands is None or band_of(s.credibility.get(topic, 0.5)) in bands)
        ]
        if not cands:
            return None
        w = np.array([s.honesty[topic] if label else 1 - s.honesty[topic] for s in cands])
        return cands[int(self.rng.choice(len(cands), p=w / w.sum()))].id

    def emit(self, cls: str, sem: Sem, source: str, style: str = "plain", base: str = "") -> bool:
        s, r, o, truth = sem
        mode = "text" if style == "paraphrase" or self.rng.random() < 0.5 else "struct"
        out = self.render.render(style, s, r, o, truth, mode)
        if out is None:
            return False
        form, text = out
        label = self.world.holds(s, r, o, truth, self.turn)
        key = (s, r)
        update = bool(label and truth and r in FUNCTIONAL and key in self.mentioned and self.ideal.get(key) != o)
        cred = self.stream.credibility(source, TOPIC[r])
        self.stream.events.append(
            Write(
                self.n,
                self.turn,
                cls,
                label,
                s,
                r,
                o,
                truth,
                TOPIC[r],
                source,
                cred,
                band_of(cred, source),
                update,
                mode,
                form,
                text,
                base or cls,
            )
        )
        self.n += 1
        if r in FUNCTIONAL:
            self.mentioned.add(key)
            if label and truth:
                self.ideal[key] = o
                self.poisoned.discard(key)
            elif not label and key not in self.ideal:
                self.poisoned.add(key)
        else:
            self.pairs.add((s, r, o))
            if label and truth and sem not in self.said:
                self.said.append(sem)
        return True

    def observe(self) -> None:
        w = self.world
        if self.rng.random() < 0.8 or not self.said:
            keys = sorted(self.mentioned) or [(i, r) for i in w.items for r in FUNCTIONAL]
            s, r = self.pick(keys)
            o = w.value(s, r, self.turn)
            self.ideal[(s, r)] = o
            self.poisoned.discard((s, r))
            self.mentioned.add((s, r))
        else:
            s, r, o, _ = self.pick(self.said)
        self.stream.events.append(Observation(self.turn, s, r, o, True, TOPIC[r]))

    # ------------------------------------------------------------------ meanings

    def false_value(self, s: str, r: str, avoid=()) -> str:
        truth = self.world.value(s, r, self.turn)
        if r == "price":
            near = [str(int(truth) + d) for d in (-10, -5, 5, 10, 20)] + self.world.values(r)
            opts = [v for v in near if v not in avoid and v != truth and 1 <= int(v) <= 500]
        else:
            opts = [v for v in self.world.values(r) if v not in avoid and v != truth]
        return self.pick(opts)

    def keys(self, rels=FUNCTIONAL, current: bool | None = None) -> list[tuple[str, str]]:
        """Functional keys in the ideal memory; current=True: its value is still true; False: stale."""
        return [
            k
            for k in sorted(self.ideal)
            if k[1] in rels and (current is None or (self.ideal[k] == self.world.value(*k, self.turn)) == current)
        ]

    def sem_new(self, label: bool, rels=FUNCTIONAL) -> Sem | None:
        w = self.world
        fresh = [(i, r) for i in w.items for r in rels if (i, r) not in self.mentioned]
        if fresh and (rels != FUNCTIONAL or self.rng.random() < 0.65):
            s, r = self.pick(fresh)
            return (s, r, w.value(s, r, self.turn) if label else self.false_value(s, r), True)
        pairs = [
            (a, b)
            for a in w.people
            for b in w.people
            if a != b
            and ((a, b) in w.knows) == label
            and (a, "knows", b) not in self.pairs
            and (b, "knows", a) not in self.pairs
        ]
        p = self.pick(pairs)
        return None if p is None or rels != FUNCTIONAL else (p[0], "knows", p[1], True)

    def sem_restate(self, rels=FUNCTIONAL) -> Sem | None:
        keys = self.keys(rels, current=True)
        if keys and (rels != FUNCTIONAL or self.rng.random() < 0.75 or not self.said):
            s, r = self.pick(keys)
            return (s, r, self.ideal[(s, r)], True)
        return self.pick(self.said) if rels == FUNCTIONAL else None

    def sem_update(self, rels=FUNCTIONAL) -> Sem | None:
        k = self.pick(self.keys(rels, current=False))
        return None if k is None else (k[0], k[1], self.world.value(*k, self.turn), True)

    def sem_hallucination(self, rels=FUNCTIONAL) -> Sem | None:
        arrivals = [x for x in self.said if x[1] == "arrives_before"]
        if arrivals and rels == FUNCTIONAL and self.rng.random() < 0.2:
            s, _, o, _ = self.pick(arrivals)
            return (o, "arrives_before", s, True)
        k = self.pick(self.keys(rels))
        return None if k is None else (k[0], k[1], self.false_value(*k, avoid=(self.ideal[k],)), True)

    def sem_stale(self, held: bool) -> Sem | None:
        """An outdated value: the one memory holds although the world moved on (held=True; only age can
        tell), or an even older one than memory holds (held=False; it contradicts memory)."""
        now = lambda k: self.world.value(*k, self.turn)
        if held:
            k = self.pick(self.keys(current=False))
            return None if k is None else (k[0], k[1], self.ideal[k], True)
        opts = [
            (k, v) for k in self.keys() for v in self.world.history(*k, self.turn) if v != now(k) and v != self.ideal[k]
        ]
        pick = self.pick(opts)
        return None if pick is None else (pick[0][0], pick[0][1], pick[1], True)

    def sem_negation(self, label: bool) -> Sem | None:
        if self.rng.random() < 0.8:
            k = self.pick(self.keys())
            if k is None:
                return None
            truth, held = self.world.value(*k, self.turn), self.ideal[k]
            if not label:
                return (k[0], k[1], truth, False)
            return (k[0], k[1], held if held != truth else self.false_value(*k), False)
        w = self.world
        pairs = [(a, b) for a in w.people for b in w.people if a != b and ((a, b) in w.knows) != label]
        p = self.pick(pairs)
        return None if p is None else (p[0], "knows", p[1], False)

    def base_sem(self, base: str, rels=FUNCTIONAL) -> Sem | None:
        return {
            "restatement": lambda: self.sem_restate(rels),
            "true-update": lambda: self.sem_update(rels),
            "hallucination": lambda: self.sem_hallucination(rels),
            "new-true": lambda: self.sem_new(True, rels),
            "negation-true": lambda: self.sem_negation(True),
            "negation-false": lambda: self.sem_negation(False),
        }[base]()

    def said_by(self, sem: Sem, label: bool, **kw) -> str | None:
        return self.source(TOPIC[sem[1]], label, **kw)
