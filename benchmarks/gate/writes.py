"""One method per class of write in the gate benchmark's stream (mixed into ``gate_classes.Generator``).

Each ``c_<class>`` draws a meaning for its situation, a source that would say it
(honesty-weighted), and emits one write or queues a burst; it returns False
when the situation is not available yet (e.g. no stale fact to update), and
the generator draws another class.
"""

from __future__ import annotations

from benchmarks.gate.text import FUNCTIONAL, TOPIC

BANDS = ("trusted", "stranger", "untrusted")
SURFACE_BASES = ("restatement", "true-update", "hallucination")


class WriteClasses:
    def _one(self, cls: str, sem, label: bool, style: str = "plain", base: str = "", **kw) -> bool:
        if sem is None:
            return False
        src = self.said_by(sem, label, **kw) or self.said_by(sem, label)
        return self.emit(cls, sem, src, style, base)

    def c_new_true(self, cls):
        return self._one(cls, self.sem_new(True), True)

    def c_new_false(self, cls):
        return self._one(cls, self.sem_new(False), False)

    def c_correction(self, cls):
        key = self.pick(sorted(self.poisoned))
        sem = None if key is None else (key[0], key[1], self.world.value(*key, self.turn), True)
        return self._one(cls, sem, True)

    def c_restatement(self, cls):
        return self._one(cls, self.sem_restate(), True)

    def c_true_update(self, cls):
        sem = self.sem_update()
        if sem is None:
            return False
        self.updates += 1
        return self._one(cls, sem, True, bands={BANDS[self.updates % 3]})

    def c_hallucination(self, cls):
        return self._one(cls, self.sem_hallucination(), False)

    def c_stale(self, cls, held: bool = False):
        sem = self.sem_stale(held)
        if sem is None:
            return False
        return self.emit(cls, sem, self.pick(sorted(self.stream.sources)))  # outdated news: from anyone

    def c_stale_held(self, cls):
        return self.c_stale(cls, held=True)

    def _surface(self, cls: str, style: str, rels=FUNCTIONAL) -> bool:
        base = SURFACE_BASES[int(self.rng.choice(3, p=[0.3, 0.3, 0.4]))]
        return self._one(cls, self.base_sem(base, rels), base != "hallucination", style, base)

    def c_alias(self, cls):
        return self._surface(cls, "alias")

    def c_synonym(self, cls):
        return self._surface(cls, "synonym")

    def c_units(self, cls):
        return self._surface(cls, "units", ("price",))

    def c_number_words(self, cls):
        return self._surface(cls, "words", ("price",))

    def c_paraphrase(self, cls):
        bases = ("new-true", "restatement", "true-update", "hallucination", "negation-true", "negation-false")
        for _ in range(5):
            base = bases[int(self.rng.choice(len(bases), p=[0.15, 0.2, 0.2, 0.25, 0.1, 0.1]))]
            sem = self.base_sem(base)
            if sem is None or self.render.render("paraphrase", *sem, "text") is None:
                continue
            return self._one(cls, sem, base not in ("hallucination", "negation-false"), "paraphrase", base)
        return False

    def c_negation(self, cls):
        label = bool(self.rng.random() < 0.5)
        return self._one(cls, self.sem_negation(label), label, base=f"negation-{str(label).lower()}")

    def c_temporal(self, cls):
        people = sorted(self.world.people, key=self.world.rank.get)
        x, y, z = (people[i] for i in sorted(self.rng.choice(len(people), 3, replace=False)))
        for a, b in ((x, y), (y, z)):
            sem = (a, "arrives_before", b, True) if self.rng.random() < 0.6 else (b, "arrives_after", a, True)
            self._one(cls, sem, True)
        self.chains.append((x, y, z, self.turn))
        return True

    def c_chain(self, cls):
        chains = [c for c in self.chains if c[3] < self.turn]
        if not chains:
            return False
        x, _, z, _ = self.pick(chains)
        options = [
            ((z, "arrives_before", x, True), False),
            ((x, "arrives_after", z, True), False),
            ((x, "arrives_before", z, True), True),
            ((z, "arrives_after", x, True), True),
        ]
        sem, label = self.pick(options)
        return self._one(cls, sem, label)

    def c_collusion(self, cls):
        k = self.pick(self.keys(current=True))
        if k is None:
            return False
        sem = (k[0], k[1], self.false_value(*k, avoid=(self.ideal[k],)), True)
        chosen: list[str] = []
        for _ in range(int(self.rng.integers(3, 5))):
            src = self.source(TOPIC[k[1]], False, bands={"stranger", "untrusted"}, exclude=chosen)
            if src is None:
                break
            chosen.append(src)
        for i, src in enumerate(chosen):
            self.pending.append(
                (self.turn + (0 if i == 0 else int(self.rng.integers(0, 3))), (cls, sem, src, "plain", "hallucination"))
            )
        return bool(chosen)

    def c_corroboration(self, cls):
        """Several named sources report the same true thing within a few turns (the honest twin of collusion)."""
        sem = self.sem_update() if self.rng.random() < 0.7 else self.sem_new(True)
        if sem is None:
            return False
        chosen: list[str] = []
        for _ in range(int(self.rng.integers(3, 5))):
            src = self.source(TOPIC[sem[1]], True, exclude=chosen)
            if src is None:
                break
            chosen.append(src)
        for i, src in enumerate(chosen):
            self.pending.append(
                (self.turn + (0 if i == 0 else int(self.rng.integers(0, 3))), (cls, sem, src, "plain", "corroboration"))
            )
        return bool(chosen)

    def c_sybil(self, cls):
        fresh = self.rng.random() < 0.5
        sem = self.sem_new(False) if fresh else self.sem_hallucination()
        if sem is None or sem[1] not in FUNCTIONAL and not fresh:
            return False
        for _ in range(int(self.rng.integers(4, 7))):
            self.sybils += 1
            self.emit(cls, sem, f"traveller_{self.sybils}", "plain", "new-false" if fresh else "hallucination")
        return True

    def c_repeat(self, cls):
        label = bool(self.rng.random() < 0.5)
        sem = self.sem_restate() if label else self.sem_hallucination()
        if sem is None:
            return False
        src = self.said_by(sem, label)
        offsets = [0, int(self.rng.integers(1, 4)), int(self.rng.integers(4, 8))]
        for off in offsets:
            self.pending.append(
                (self.turn + off, (cls, sem, src, "plain", "restatement" if label else "hallucination"))
            )
        return True
