"""Consistency-gate benchmark: a labelled stream of world-fact writes through ``memory.gate``.

Usage:  python benchmarks/gate_bench.py [--writes 2000] [--seed 0] [--embedder hash|minilm|none]
            [--quick] [--t-low 0.3] [--t-high 0.7] [--alpha 0.2] [--json FILE]

World (seeded ``numpy.random.Generator``s only): 1,024 items ("Red Gem"), 1,600
people ("Ada Finch"), 64 places ("Old Mill"); relations ``located_in`` and
``owned_by`` (functional), ``price`` (functional, numeric range [1, 500]),
``knows`` (non-functional), ``arrives_before`` / ``arrives_after`` (temporal,
true against a hidden arrival order of the people). Sources and their
credibility, given to the gate as its ``credibility(source, topic)`` callable,
drawn once per (source, topic): six *trusted* NPCs U(0.85, 0.95), six
*untrusted* U(0.10, 0.25), four *unknown* ones 0.5 (not in the table, as in
``memory.worldfacts``).

Memory is seeded first (not scored): functional facts that are verified
(``gate.observe``, 30 %), admitted from trusted sources (35 %) or admitted from
untrusted (25 %) / unknown (10 %) sources -- the latter are *stale*, the world
has moved on; temporal facts (some in chains x < y < z) and ``knows`` facts.
Then the scored stream; each write is labelled *should admit* or *should reject*:

  new              true facts about fresh (subject, relation) keys, any source    admit
  update           the world changed: a trusted source states the new value of   admit
                   a fact held from an untrusted / unknown source (supersede)
  hallucination    an untrusted / unknown source gives another object for a      reject
                   functional fact, or the reversed / opposite temporal order,
                   against a fact from a trusted source or a verified observation
  adversarial      an untrusted source repeating a contradicting claim 2-4 times  reject
                   (half in bursts, half spread over the next ~40 writes); three
                   untrusted sources colluding on one false value; prices out of
                   range or not numbers
  paraphrase-contra  a hallucination written in another surface form the gate      reject
                   can match ("RED-GEM" / "red_gem", "Located In"), object a
                   genuinely different entity, also re-spelled
  restatement      an established true fact re-spelled the same way, any source   admit

3 % of the events are interleaved verified observations (``gate.observe``) of
current truths: they resolve quarantine via the gate's re-check. The stream is
generated from the ideal memory (what a perfect gate would hold), never from the
gate's decisions, so every method sees the same writes.

Diagnostic writes (about 10 %, left out of every headline figure, tabled
separately) probe known limits: updates of a trusted-but-stale fact and of a
verified fact (true, should admit); an untrusted source's false claim about a
fresh key, before anyone else ("poison first", should reject); a price restated
as "12.0" for "12" and a place restated with an article ("the Old Mill") by a
trusted source (should admit); a transitive temporal contradiction
(x < y, y < z known; "z arrives before x", should reject).

Figures, rule judge alone (no LLM jury), positive class = should reject:

* precision / recall / F1 of rejection, counting quarantine as *not* rejected
  ("strict"), plus the quarantine rate, plus F1 when quarantine counts as
  rejection ("kept out of memory");
* F1 on structured contradictions (hallucinations, paraphrased contradictions,
  repeats, collusion vs every should-admit write; out-of-range prices left out
  since they need no related fact) -- goal >= 0.95;
* false-reject rate on true updates from trusted sources -- goal <= 5 %
  (also shown with quarantine counted as a failure);
* p50 / p95 latency per write, as a ratio to a bare dict insert timed the
  same way; rule-judge checks and votes per write; LLM-judge calls per write.

Baselines on the same stream in the same run: *admit-all*; *reject any
contradiction* (source-blind: the same structural checks, numbers compared as
numbers, a contradiction is always rejected, never a contest); *source-only*
(reject iff credibility < 0.5); and a bare dict insert for latency.

Cache: the stream's in-line hit rate, then every stream write resubmitted
against the final memory until it stops changing (hit rate per pass), then one
timed pass with the cache against the same pass on a cache-off copy of the same
memory (speedup, and whether the cached outcomes equal the fresh ones). A last
probe checks whether a cached decision survives a change of credibility.

Also printed: the knock-on count (wrong decisions that came after the gate's
memory had already diverged from the ideal one, e.g. because a true update was
held back), where quarantined writes ended up after the re-checks, and the
closed-form consequences of the configured thresholds ("score algebra").

``--quick``: 300 scored writes. ``--embedder minilm`` runs the real model for
the gate's semantic neighbours (the rule judge does not vote on those, so the
decisions do not change; the digest printed at the end lets runs be compared).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from memory.gate import ClaimCandidate, ConsistencyGate, GateConfig, RelationRule, norm  # noqa: E402

T0 = time.perf_counter()

# ----------------------------------------------------------------------------- world

ADJ = ["Red", "Iron", "Silver", "Golden", "Broken", "Ancient", "Tiny", "Heavy", "Hidden", "Cursed", "Blue",
       "Green", "Copper", "Crystal", "Wooden", "Bone", "Amber", "Velvet", "Rusty", "Sacred", "Black", "White",
       "Bronze", "Jade", "Stone", "Glass", "Silk", "Oaken", "Ivory", "Obsidian", "Pale", "Scarlet"]
NOUN = ["Gem", "Key", "Lantern", "Sword", "Ring", "Chalice", "Map", "Compass", "Amulet", "Dagger", "Crown",
        "Mirror", "Flute", "Scroll", "Shield", "Helm", "Cloak", "Idol", "Coin", "Bell", "Box", "Staff", "Orb",
        "Quill", "Horn", "Lute", "Mask", "Seal", "Torch", "Vial", "Tome", "Chest"]
FIRST = ["Ada", "Bram", "Cora", "Dain", "Edda", "Finn", "Greta", "Hugo", "Ilse", "Jory", "Kara", "Lev", "Mara",
         "Nils", "Orla", "Pim", "Quinn", "Rhea", "Sven", "Tove", "Ulf", "Vera", "Wren", "Xan", "Yara", "Zeno",
         "Alba", "Borin", "Cleo", "Dex", "Elin", "Fenna", "Gus", "Hana", "Ivo", "Juna", "Kell", "Lina", "Milo",
         "Nora"]
LAST = ["Finch", "Hale", "Marsh", "Thorn", "Vale", "Brook", "Cotter", "Dunn", "Ember", "Frost", "Glenn", "Holt",
        "Irons", "Judd", "Kettle", "Lark", "Moss", "Noble", "Oakes", "Pike", "Quill", "Reed", "Sage", "Tarn",
        "Umber", "Voss", "Wade", "Yew", "Zell", "Ashby", "Birch", "Crane", "Drake", "Fairweather", "Gale",
        "Hawke", "Ivey", "Jarrow", "Kemp", "Lowe"]
PLACE_A = ["North", "South", "Old", "High", "Low", "East", "West", "Upper"]
PLACE_B = ["Mill", "Harbor", "Bridge", "Market", "Chapel", "Tower", "Gate", "Well"]

PRICE_RANGE = (1.0, 500.0)
RELATIONS = {
    "located_in": RelationRule(functional=True),
    "owned_by": RelationRule(functional=True),
    "price": RelationRule(functional=True, range=PRICE_RANGE),
    "knows": RelationRule(),
    "arrives_before": RelationRule(temporal="before"),
    "arrives_after": RelationRule(temporal="after"),
}
TOPIC = {"located_in": "geography", "owned_by": "ownership", "price": "trade", "knows": "society",
         "arrives_before": "schedule", "arrives_after": "schedule"}
TOPICS = sorted(set(TOPIC.values()))
FUNCTIONAL = ("located_in", "owned_by", "price")

TRUSTED = ["warden", "scribe", "abbot", "magistrate", "cartographer", "quartermaster"]
UNTRUSTED = ["smuggler", "drunkard", "con_artist", "rumormonger", "fence", "trickster"]
UNKNOWN = ["stranger", "pilgrim", "new_merchant", "traveller"]
CLASS_SOURCES = {"trusted": TRUSTED, "untrusted": UNTRUSTED, "unknown": UNKNOWN}

HEADLINE = ("new", "update", "hallucination", "adversarial", "paraphrase-contra", "restatement")
STRUCTURED = ("hallucination", "paraphrase-contra")     # plus adversarial repeat / collusion (flag per write)


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - T0:6.1f}s] {msg}", file=sys.stderr, flush=True)


@dataclass
class Write:
    cand: ClaimCandidate
    category: str            # one of HEADLINE, or "diagnostic"
    sub: str                 # finer label
    reject: bool             # the gate should keep it out
    structured: bool = False  # a structured contradiction (for the structured F1)
    kind: str = ""           # functional | numeric | temporal | knows
    target: tuple[str, str, str] | None = None   # the held fact it contradicts / restates / updates


@dataclass
class Observe:
    subject: str
    relation: str
    obj: str
    topic: str
    turn: int


class Pool:
    """A set with O(1) add / remove / uniform sample (deterministic given the Generator)."""

    def __init__(self):
        self.items: list = []
        self.pos: dict = {}

    def add(self, x) -> None:
        if x not in self.pos:
            self.pos[x] = len(self.items)
            self.items.append(x)

    def discard(self, x) -> None:
        i = self.pos.pop(x, None)
        if i is None:
            return
        last = self.items.pop()
        if i < len(self.items):
            self.items[i] = last
            self.pos[last] = i

    def sample(self, rng: np.random.Generator):
        return self.items[int(rng.integers(len(self.items)))] if self.items else None

    def __len__(self) -> int:
        return len(self.items)


def surface(name: str, rng: np.random.Generator) -> str:
    """Another spelling of ``name`` that ``memory.gate.norm`` maps to the same string."""
    words = [w for w in re.split(r"[\s_\-]+", name) if w]
    forms = ["_".join(w.lower() for w in words), "-".join(w.upper() for w in words), "  ".join(words),
             " ".join(w.lower() for w in words), "_".join(w.capitalize() for w in words),
             " ".join(w.capitalize() for w in words), "-".join(w.lower() for w in words)]
    forms = [f for f in forms if f != name] or [name]
    out = forms[int(rng.integers(len(forms)))]
    assert norm(out) == norm(name), (out, name)
    return out


class StreamGen:
    """The synthetic world, its ideal memory, and the labelled write stream."""

    P_OBS = 0.03
    MIX = (("new", 0.22), ("update", 0.13), ("hallucination", 0.20), ("adversarial", 0.14),
           ("paraphrase-contra", 0.12), ("restatement", 0.09), ("diagnostic", 0.10))

    def __init__(self, seed: int):
        self.rng = np.random.default_rng([seed, 0])
        crng = np.random.default_rng([seed, 1])
        self.cred_table: dict[tuple[str, str], float] = {}
        for s in TRUSTED:
            for t in TOPICS:
                self.cred_table[(s, t)] = float(crng.uniform(0.85, 0.95))
        for s in UNTRUSTED:
            for t in TOPICS:
                self.cred_table[(s, t)] = float(crng.uniform(0.10, 0.25))
        self.items = [f"{a} {n}" for a in ADJ for n in NOUN]
        self.people = [f"{f} {ln}" for f in FIRST for ln in LAST]
        self.places = [f"{a} {b}" for a in PLACE_A for b in PLACE_B]
        self.arrival = {p: int(t) for p, t in zip(self.people, self.rng.permutation(len(self.people)))}
        # ideal memory
        self.fun: dict[tuple[str, str], tuple[str, str]] = {}     # (subject, rel) -> (object, class)
        self.anchor = Pool()        # functional keys held from trusted / verified
        self.weak = Pool()          # functional keys held from untrusted / unknown (update targets)
        self.trusted_keys = Pool()  # subset of anchor held from trusted (not verified): observation targets
        self.temporal = Pool()      # (a, rel, b, class) anchored temporal facts
        self.chains = Pool()        # (x, y, z): x<y and y<z both anchored
        self.knows = Pool()         # (a, b) knows facts (restatement targets)
        self.used: set[tuple[str, str]] = set()    # functional keys ever touched
        self.pairs: set[frozenset] = set()          # people pairs with a temporal fact
        self.knows_pairs: set[tuple[str, str]] = set()
        self.pending: list[tuple[int, int, Write]] = []   # (due step, tiebreak, write)
        self._tick = 0
        self.turn = 0

    def credibility(self, source: str, topic: str) -> float:
        return self.cred_table.get((source, topic), 0.5)

    # --- drawing -----------------------------------------------------------------
    def choice(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def source(self, cls: str) -> str:
        return self.choice(CLASS_SOURCES[cls])

    def fresh_key(self) -> tuple[str, str] | None:
        for _ in range(200):
            if self.rng.random() < 0.75:
                key = (self.choice(self.items), self.choice(FUNCTIONAL))
            else:
                key = (self.choice(self.people), "located_in")
            if key not in self.used:
                self.used.add(key)
                return key
        return None

    def value(self, rel: str, subject: str, other_than: str | None = None) -> str:
        while True:
            if rel == "located_in":
                v = self.choice(self.places)
            elif rel == "owned_by":
                v = self.choice(self.people)
                if v == subject:
                    continue
            else:
                v = str(int(self.rng.integers(int(PRICE_RANGE[0]), int(PRICE_RANGE[1]) + 1)))
            if other_than is None or norm(v) != norm(other_than):
                return v

    def person_pair(self) -> tuple[str, str] | None:
        for _ in range(200):
            a, b = self.choice(self.people), self.choice(self.people)
            if a != b and frozenset((a, b)) not in self.pairs:
                return a, b
        return None

    def true_order(self, a: str, b: str) -> tuple[str, str, str]:
        """A true temporal statement about a and b, in either wording."""
        first, second = (a, b) if self.arrival[a] < self.arrival[b] else (b, a)
        return (first, "arrives_before", second) if self.rng.random() < 0.5 else (second, "arrives_after", first)

    def false_order(self, fact: tuple[str, str, str]) -> tuple[str, str, str]:
        """The reversed order or the opposite relation on the same pair (both false)."""
        a, rel, b = fact
        if self.rng.random() < 0.5:
            return b, rel, a
        return a, ("arrives_after" if rel == "arrives_before" else "arrives_before"), b

    # --- ideal memory ------------------------------------------------------------
    def hold(self, key: tuple[str, str], obj: str, cls: str) -> None:
        self.fun[key] = (obj, cls)
        self.used.add(key)
        for p in (self.anchor, self.weak, self.trusted_keys):
            p.discard(key)
        if cls in ("trusted", "verified"):
            self.anchor.add(key)
            if cls == "trusted":
                self.trusted_keys.add(key)
        else:
            self.weak.add(key)

    def retire(self, key: tuple[str, str]) -> None:
        """Take a key out of every pool (a diagnostic touched it: later labels must not depend on it)."""
        for p in (self.anchor, self.weak, self.trusted_keys):
            p.discard(key)

    def cand(self, s: str, rel: str, o: str, source: str, canon_rel: str | None = None) -> ClaimCandidate:
        return ClaimCandidate(s, rel, o, TOPIC[canon_rel or rel], source, self.turn)

    # --- seeding -----------------------------------------------------------------
    def seed_events(self, n_fun: int, n_temporal: int, n_knows: int) -> list:
        ev: list = []
        for _ in range(n_fun):
            key = self.fresh_key()
            if key is None:
                break
            s, rel = key
            cls = self.choice(["verified"] * 30 + ["trusted"] * 35 + ["untrusted"] * 25 + ["unknown"] * 10)
            obj = self.value(rel, s)
            self.hold(key, obj, cls)
            if cls == "verified":
                ev.append(Observe(s, rel, obj, TOPIC[rel], 0))
            else:
                ev.append(Write(self.cand(s, rel, obj, self.source(cls)), "seed", cls, False))
        # temporal chains x < y < z (two anchored facts each) and single pairs
        for i in range(n_temporal):
            if i % 3 == 0:
                trio = sorted(self.rng.choice(len(self.people), size=3, replace=False).tolist())
                x, y, z = sorted((self.people[j] for j in trio), key=self.arrival.get)
                if any(frozenset(p) in self.pairs for p in ((x, y), (y, z), (x, z))):
                    continue
                facts = [(x, "arrives_before", y), (y, "arrives_before", z)]
                self.chains.add((x, y, z))
                self.pairs.add(frozenset((x, z)))   # reserved for the transitive probe
            else:
                pair = self.person_pair()
                if pair is None:
                    continue
                facts = [self.true_order(*pair)]
            for a, rel, b in facts:
                self.pairs.add(frozenset((a, b)))
                cls = "verified" if self.rng.random() < 0.3 else "trusted"
                self.temporal.add((a, rel, b, cls))
                if cls == "verified":
                    ev.append(Observe(a, rel, b, TOPIC[rel], 0))
                else:
                    ev.append(Write(self.cand(a, rel, b, self.source("trusted")), "seed", cls, False))
        for _ in range(n_knows):
            a, b = self.choice(self.people), self.choice(self.people)
            if a == b or (a, b) in self.knows_pairs:
                continue
            self.knows_pairs.add((a, b))
            self.knows.add((a, b))
            ev.append(Write(self.cand(a, "knows", b, self.source("trusted")), "seed", "trusted", False))
        return ev

    # --- categories --------------------------------------------------------------
    def any_class(self) -> str:
        return self.choice(["trusted", "trusted", "unknown", "untrusted"])

    def gen_new(self) -> list[Write]:
        r = self.rng.random()
        cls = self.any_class()
        src = self.source(cls)
        if r < 0.7:
            key = self.fresh_key()
            if key is None:
                return []
            s, rel = key
            obj = self.value(rel, s)
            self.hold(key, obj, cls)
            return [Write(self.cand(s, rel, obj, src), "new", f"{cls} source", False,
                          kind="numeric" if rel == "price" else "functional")]
        if r < 0.85:
            pair = self.person_pair()
            if pair is None:
                return []
            a, rel, b = self.true_order(*pair)
            self.pairs.add(frozenset(pair))
            if cls == "trusted":
                self.temporal.add((a, rel, b, cls))
            return [Write(self.cand(a, rel, b, src), "new", f"{cls} source", False, kind="temporal")]
        a, b = self.choice(self.people), self.choice(self.people)
        if a == b or (a, b) in self.knows_pairs:
            return []
        self.knows_pairs.add((a, b))
        self.knows.add((a, b))
        return [Write(self.cand(a, "knows", b, src), "new", f"{cls} source", False, kind="knows")]

    def gen_update(self) -> list[Write]:
        key = self.weak.sample(self.rng)
        if key is None:
            return []
        s, rel = key
        old, old_cls = self.fun[key]
        obj = self.value(rel, s, other_than=old)
        self.hold(key, obj, "trusted")
        return [Write(self.cand(s, rel, obj, self.source("trusted")), "update", f"old from {old_cls}", False,
                      kind="numeric" if rel == "price" else "functional", target=(s, rel, old))]

    def contradiction(self, src_cls: str, paraphrase: bool, category: str) -> list[Write]:
        src = self.source(src_cls)
        if self.rng.random() < 0.75 or not len(self.temporal):
            key = self.anchor.sample(self.rng)
            if key is None:
                return []
            s, rel = key
            obj, cls = self.fun[key]
            wrong = self.value(rel, s, other_than=obj)
            kind = "numeric" if rel == "price" else "functional"
            crel, target = rel, (s, rel, obj)
        else:
            a, trel, b, cls = self.temporal.sample(self.rng)
            s, rel, wrong = self.false_order((a, trel, b))
            kind, crel, target = "temporal", rel, (a, trel, b)
        if paraphrase:
            s, rel = surface(s, self.rng), surface(rel, self.rng)
            if kind != "numeric":
                wrong = surface(wrong, self.rng)
        return [Write(self.cand(s, rel, wrong, src, crel), category, f"{src_cls} vs {cls}", True, True, kind,
                      target)]

    def gen_adversarial(self) -> list[Write]:
        r = self.rng.random()
        if r < 0.45:   # one untrusted source repeating the same contradicting claim
            w = self.contradiction("untrusted", False, "adversarial")
            if not w:
                return []
            first = w[0]
            reps = int(self.rng.integers(2, 5))
            burst = self.rng.random() < 0.5
            first.sub = "repeat (burst)" if burst else "repeat (spread)"
            for k in range(1, reps):
                due = self.turn + (k if burst else int(self.rng.integers(1, 41)))
                c = first.cand
                self._tick += 1
                self.pending.append((due, self._tick, Write(
                    ClaimCandidate(c.subject, c.relation, c.object, c.topic, c.source, 0), "adversarial", first.sub,
                    True, True, first.kind, first.target)))
            return [first]
        if r < 0.65:   # three untrusted sources colluding on one false value
            w = self.contradiction("untrusted", False, "adversarial")
            if not w:
                return []
            c = w[0].cand
            srcs = self.rng.choice(len(UNTRUSTED), size=3, replace=False)
            return [Write(ClaimCandidate(c.subject, c.relation, c.object, c.topic, UNTRUSTED[int(i)], self.turn),
                          "adversarial", "collusion x3", True, True, w[0].kind, w[0].target) for i in srcs]
        # a price out of range or not a number at all, on a known or a fresh item
        cls = self.choice(["untrusted", "untrusted", "unknown", "trusted"])
        item = self.choice(self.items)
        q = self.rng.random()
        if q < 0.35:
            obj = str(-int(self.rng.integers(1, 100)))
        elif q < 0.7:
            obj = str(int(self.rng.integers(int(PRICE_RANGE[1]) + 1, 100_000)))
        else:
            obj = self.choice(["free", "priceless", "a fortune", "two gold", "ten coins"])
        return [Write(self.cand(item, "price", obj, self.source(cls)), "adversarial", f"out of range ({cls})", True,
                      False, "numeric")]

    def gen_restatement(self) -> list[Write]:
        cls = self.any_class()
        src = self.source(cls)
        r = self.rng.random()
        if r < 0.6 and len(self.anchor):
            key = self.anchor.sample(self.rng)
            s, rel = key
            obj, _ = self.fun[key]
            kind = "numeric" if rel == "price" else "functional"
            crel = rel
        elif r < 0.8 and len(self.temporal):
            s, rel, obj, _ = self.temporal.sample(self.rng)
            kind, crel = "temporal", rel
        elif len(self.knows):
            s, obj = self.knows.sample(self.rng)
            rel, kind, crel = "knows", "knows", "knows"
        else:
            return []
        target = (s, rel, obj)
        s, rel = surface(s, self.rng), surface(rel, self.rng)
        if kind != "numeric":
            obj = surface(obj, self.rng)
        return [Write(self.cand(s, rel, obj, src, crel), "restatement", f"{cls} source", False, kind=kind,
                      target=target)]

    def gen_diagnostic(self) -> list[Write]:
        which = int(self.rng.integers(6))
        if which == 0:   # update of a trusted-but-stale fact
            key = self.trusted_keys.sample(self.rng)
            if key is None:
                return []
            s, rel = key
            obj = self.value(rel, s, other_than=self.fun[key][0])
            self.retire(key)
            return [Write(self.cand(s, rel, obj, self.source("trusted")), "diagnostic",
                          "update of a trusted-but-stale fact", False,
                          kind="numeric" if rel == "price" else "functional")]
        if which == 1:   # update of a verified fact (the world changed after the verification)
            cands = [k for k in self.anchor.items if self.fun[k][1] == "verified"]
            if not cands:
                return []
            key = cands[int(self.rng.integers(len(cands)))]
            s, rel = key
            obj = self.value(rel, s, other_than=self.fun[key][0])
            self.retire(key)
            return [Write(self.cand(s, rel, obj, self.source("trusted")), "diagnostic",
                          "update of a verified fact", False, kind="numeric" if rel == "price" else "functional")]
        if which == 2:   # poison first: untrusted false claim about a key nobody spoke of yet
            key = self.fresh_key()
            if key is None:
                return []
            s, rel = key
            return [Write(self.cand(s, rel, self.value(rel, s), self.source("untrusted")), "diagnostic",
                          "poison first (untrusted, fresh key)", True,
                          kind="numeric" if rel == "price" else "functional")]
        if which == 3:   # "12.0" for "12"
            keys = [k for k in self.anchor.items if k[1] == "price"]
            if not keys:
                return []
            key = keys[int(self.rng.integers(len(keys)))]
            obj = self.fun[key][0] + self.choice([".0", ".00"])
            self.retire(key)
            return [Write(self.cand(key[0], "price", obj, self.source("trusted")), "diagnostic",
                          "numeric restatement (12 -> 12.0)", False, kind="numeric")]
        if which == 4:   # "the Old Mill" for "Old Mill"
            keys = [k for k in self.anchor.items if k[1] == "located_in"]
            if not keys:
                return []
            key = keys[int(self.rng.integers(len(keys)))]
            obj = "the " + self.fun[key][0]
            self.retire(key)
            return [Write(self.cand(key[0], "located_in", obj, self.source("trusted")), "diagnostic",
                          "restatement with an article", False, kind="functional")]
        chain = self.chains.sample(self.rng)   # x<y, y<z known; "z arrives before x"
        if chain is None:
            return []
        self.chains.discard(chain)
        x, _, z = chain
        s, rel, o = (z, "arrives_before", x) if self.rng.random() < 0.5 else (x, "arrives_after", z)
        return [Write(self.cand(s, rel, o, self.source("untrusted")), "diagnostic",
                      "transitive temporal contradiction", True, kind="temporal")]

    def gen_observe(self) -> Observe | None:
        """A verification of a current truth (a trusted key, or now and then a stale weak one)."""
        pool = self.weak if (self.rng.random() < 0.2 and len(self.weak)) else self.trusted_keys
        key = pool.sample(self.rng)
        if key is None:
            return None
        s, rel = key
        if pool is self.weak:      # the world moved on and someone checked
            obj = self.value(rel, s, other_than=self.fun[key][0])
        else:
            obj = self.fun[key][0]
        self.hold(key, obj, "verified")
        return Observe(s, rel, obj, TOPIC[rel], self.turn)

    # --- the stream --------------------------------------------------------------
    def stream(self, n_headline: int) -> list:
        out: list = []
        headline = 0
        names = [m for m, _ in self.MIX]
        probs = np.array([p for _, p in self.MIX])
        probs = probs / probs.sum()
        while headline < n_headline or self.pending:
            self.turn += 1
            due = [p for p in self.pending if p[0] <= self.turn or headline >= n_headline]
            if due:
                nxt = min(due)
                self.pending.remove(nxt)
                w = nxt[2]
                w.cand.turn = self.turn
                ws = [w]
            elif self.rng.random() < self.P_OBS:
                ob = self.gen_observe()
                if ob is not None:
                    out.append(ob)
                continue
            else:
                cat = names[int(self.rng.choice(len(names), p=probs))]
                if cat == "new":
                    ws = self.gen_new()
                elif cat == "update":
                    ws = self.gen_update() or self.gen_new()
                elif cat == "hallucination":
                    ws = self.contradiction(self.choice(["untrusted", "untrusted", "untrusted", "unknown",
                                                         "unknown"]), False, "hallucination")
                elif cat == "adversarial":
                    ws = self.gen_adversarial()
                elif cat == "paraphrase-contra":
                    ws = self.contradiction(self.choice(["untrusted", "unknown"]), True, "paraphrase-contra")
                elif cat == "restatement":
                    ws = self.gen_restatement()
                else:
                    ws = self.gen_diagnostic()
            for w in ws:
                out.append(w)
                headline += w.category in HEADLINE
        return out


# ----------------------------------------------------------------------------- methods

class GateMethod:
    """The real gate (rule judge alone) behind the common interface."""

    name = "consistency gate"

    def __init__(self, cfg: GateConfig, embedder, cred):
        self.gate = ConsistencyGate(RELATIONS, cfg, embedder=embedder, credibility=cred)
        self.last = None

    def submit(self, c: ClaimCandidate) -> str:
        self.last = self.gate.submit(c)
        return self.last.outcome

    def observe(self, o: Observe) -> None:
        self.gate.observe(o.subject, o.relation, o.obj, True, o.turn, o.topic)


class AdmitAll:
    name = "admit-all"

    def __init__(self):
        self.mem: dict[tuple[str, str], list[str]] = {}

    def submit(self, c: ClaimCandidate) -> str:
        self.mem.setdefault(c.key, []).append(norm(c.object))
        return "admit"

    def observe(self, o: Observe) -> None:
        self.mem[(norm(o.subject), norm(o.relation))] = [norm(o.obj)]


def _num(s: str) -> float | None:
    try:
        return float(s)
    except ValueError:
        return None


class RejectAnyContradiction:
    """Source-blind: the same structural checks as the rule judge, and any contradiction is rejected."""

    name = "reject-any-contradiction"

    def __init__(self):
        self.rules = {norm(k): v for k, v in RELATIONS.items()}
        self.fun: dict[tuple[str, str], str] = {}
        self.order: set[tuple[str, str]] = set()        # (earlier, later)
        self.other: set[tuple[str, str, str]] = set()

    def _same(self, a: str, b: str) -> bool:
        x, y = _num(a), _num(b)
        return x == y if x is not None and y is not None else a == b

    def _write(self, s: str, rel: str, o: str, force: bool) -> str:
        r = self.rules.get(rel, RelationRule())
        if r.range is not None:
            x = _num(o)
            if x is None or not r.range[0] <= x <= r.range[1]:
                return "reject"
        if r.functional or r.range is not None:
            cur = self.fun.get((s, rel))
            if cur is not None and not self._same(cur, o) and not force:
                return "reject"
            self.fun[(s, rel)] = o
        elif r.temporal:
            a, b = (s, o) if r.temporal == "before" else (o, s)
            if (b, a) in self.order:
                if not force:
                    return "reject"
                self.order.discard((b, a))
            self.order.add((a, b))
        else:
            self.other.add((s, rel, o))
        return "admit"

    def submit(self, c: ClaimCandidate) -> str:
        return self._write(*c.triple, force=False)

    def observe(self, o: Observe) -> None:
        self._write(norm(o.subject), norm(o.relation), norm(o.obj), force=True)


class SourceOnly:
    """Reject iff the source's credibility is below 0.5; content is ignored."""

    name = "source-only"

    def __init__(self, cred):
        self.cred = cred
        self.mem: dict[tuple[str, str], str] = {}

    def submit(self, c: ClaimCandidate) -> str:
        if self.cred(c.source, c.topic) < 0.5:
            return "reject"
        self.mem[c.key] = norm(c.object)
        return "admit"

    def observe(self, o: Observe) -> None:
        self.mem[(norm(o.subject), norm(o.relation))] = norm(o.obj)


# ----------------------------------------------------------------------------- running

@dataclass
class Run:
    name: str
    outcomes: list[str] = field(default_factory=list)
    ns: list[int] = field(default_factory=list)
    obs_ns: list[int] = field(default_factory=list)
    cached: list[bool] = field(default_factory=list)
    checks: list[int] = field(default_factory=list)     # rule-judge checks (check_alone + one per related fact)
    votes: list[int] = field(default_factory=list)      # rule-judge votes cast
    related: list[int] = field(default_factory=list)
    facts: list[str | None] = field(default_factory=list)
    diverged: list[bool | None] = field(default_factory=list)   # wrong decision with its target fact not live
    seconds: float = 0.0
    seed_rejects: int = 0


def holds(gate: ConsistencyGate, target: tuple[str, str, str]) -> bool:
    """Is ``target`` live in the gate's memory (public ``related`` only; not timed)?"""
    s, rel, o = target
    c = ClaimCandidate(s, rel, o, TOPIC[rel], "probe")
    return any(f.triple == c.triple and f.truth for f, why in gate.related(c) if why == "structured")


def run_method(m, seed_events: list, stream: list, label: str) -> Run:
    run = Run(m.name)
    for ev in seed_events:
        if isinstance(ev, Observe):
            m.observe(ev)
        elif m.submit(ev.cand) != "admit":
            run.seed_rejects += 1
    is_gate = isinstance(m, GateMethod)
    pc = time.perf_counter_ns
    writes = sum(isinstance(e, Write) for e in stream)
    step = max(1, writes // 10)
    k = 0
    t = time.perf_counter()
    for ev in stream:
        if isinstance(ev, Observe):
            t0 = pc()
            m.observe(ev)
            run.obs_ns.append(pc() - t0)
            continue
        t0 = pc()
        out = m.submit(ev.cand)
        run.ns.append(pc() - t0)
        run.outcomes.append(out)
        if is_gate:
            d = m.last
            run.cached.append(d.cached)
            alone = any(v.get("about") is None and v["judge"] == "rule" for v in d.votes)
            run.checks.append(0 if d.cached else 1 if alone else 1 + len(d.related))
            run.votes.append(0 if d.cached else len(d.votes))
            run.related.append(len(d.related))
            run.facts.append(d.fact)
            wrong = out != ("reject" if ev.reject else "admit")
            run.diverged.append(None if not (wrong and ev.target) else not holds(m.gate, ev.target))
        k += 1
        if label and k % step == 0:
            log(f"{label}: {k}/{writes} writes")
    run.seconds = time.perf_counter() - t
    return run


def dict_insert_baseline(stream: list) -> list[int]:
    """A bare ``dict[(subject, relation)] = object`` per write, timed per call like the methods."""
    mem: dict[tuple[str, str], str] = {}
    pc = time.perf_counter_ns
    out = []
    for ev in stream:
        if isinstance(ev, Write):
            c = ev.cand
            t0 = pc()
            mem[(c.subject, c.relation)] = c.object
            out.append(pc() - t0)
    return out


# ----------------------------------------------------------------------------- figures

def prf(should: np.ndarray, pred: np.ndarray) -> dict[str, float]:
    tp = int(np.sum(should & pred))
    fp = int(np.sum(~should & pred))
    fn = int(np.sum(should & ~pred))
    p = tp / (tp + fp) if tp + fp else float("nan")
    r = tp / (tp + fn) if tp + fn else float("nan")
    f1 = 2 * tp / (2 * tp + fp + fn) if tp else 0.0
    return {"precision": p, "recall": r, "f1": f1, "tp": tp, "fp": fp, "fn": fn}


def pct(ns: list[int], q: float) -> float:
    return float(np.percentile(np.asarray(ns, dtype=np.float64), q)) / 1e6 if ns else float("nan")


def scores(writes: list[Write], run: Run, dict_p50_ms: float) -> dict:
    head = np.array([w.category in HEADLINE for w in writes])
    should = np.array([w.reject for w in writes])[head]
    out = np.array(run.outcomes)[head]
    rej, quar = out == "reject", out == "quarantine"
    cats = np.array([w.category for w in writes])[head]
    structured = np.array([w.structured for w in writes])[head]
    in_struct = structured | ~should
    upd = cats == "update"
    ns = np.array(run.ns)[head].tolist()
    res = {
        "writes": int(head.sum()),
        "strict": prf(should, rej),
        "kept_out": prf(should, rej | quar),
        "quarantine_rate": float(quar.mean()),
        "structured_strict": prf(should[in_struct], rej[in_struct]),
        "structured_kept_out": prf(should[in_struct], (rej | quar)[in_struct]),
        "update_false_reject": float(rej[upd].mean()) if upd.any() else float("nan"),
        "update_kept_out": float((rej | quar)[upd].mean()) if upd.any() else float("nan"),
        "updates": int(upd.sum()),
        "p50_ms": pct(ns, 50), "p95_ms": pct(ns, 95), "mean_ms": float(np.mean(ns)) / 1e6,
    }
    res["p50_vs_dict"] = res["p50_ms"] / dict_p50_ms
    res["p95_vs_dict"] = res["p95_ms"] / dict_p50_ms
    return res


def fmt(x, spec: str) -> str:
    if x is None or (isinstance(x, float) and x != x):
        return "-"
    return format(x, spec)


def table(headers: list[tuple[str, int, str]], rows: list[list]) -> str:
    """headers: (name, width, align '<' or '>'); rows: already-formatted strings."""
    head = " ".join(f"{h:{a}{w}}" for h, w, a in headers)
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(" ".join(f"{str(v):{a}{w}}" for v, (_, w, a) in zip(r, headers)))
    return "\n".join(lines)


def category_rows(writes: list[Write], run: Run, categories: tuple[str, ...]) -> tuple[list, dict]:
    rows, data = [], {}
    groups: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, w in enumerate(writes):
        groups[(w.category, w.sub)].append(i)
    for cat in categories:
        subs = sorted({s for (c, s) in groups if c == cat})
        idx_all = [i for s in subs for i in groups[(cat, s)]]
        if not idx_all:
            continue
        for label, idx in [(cat, idx_all)] + [(f"  {s}", groups[(cat, s)]) for s in subs]:
            if cat == "diagnostic" and label == cat:
                continue
            o = Counter(run.outcomes[i] for i in idx)
            should = writes[idx[0]].reject
            n = len(idx)
            good = o["reject"] if should else o["admit"]
            kept = o["reject"] + o["quarantine"]
            rows.append([label, n, "reject" if should else "admit", f"{o['admit'] / n:.1%}",
                         f"{o['quarantine'] / n:.1%}", f"{o['reject'] / n:.1%}", f"{good / n:.1%}",
                         f"{kept / n:.1%}"])
            data[label.strip() if label == cat else f"{cat}: {label.strip()}"] = {
                "n": n, "should": "reject" if should else "admit", "admit": o["admit"] / n,
                "quarantine": o["quarantine"] / n, "reject": o["reject"] / n, "correct_strict": good / n,
                "kept_out": kept / n}
    return rows, data


CAT_HEAD = [("category / subcategory", 40, "<"), ("n", 5, ">"), ("should", 7, ">"), ("admit", 7, ">"),
            ("quar.", 7, ">"), ("reject", 7, ">"), ("correct", 8, ">"), ("kept out", 9, ">")]


# ----------------------------------------------------------------------------- cache

def cache_bench(gate: ConsistencyGate, embedder, cred, cfg: GateConfig, writes: list[Write],
                max_passes: int = 6) -> dict:
    state = gate.get_state()
    cands = [ClaimCandidate(w.cand.subject, w.cand.relation, w.cand.object, w.cand.topic, w.cand.source, 10 ** 6)
             for w in writes]
    g1 = ConsistencyGate(RELATIONS, cfg.model_copy(update={"cache": True}), embedder=embedder, credibility=cred)
    g1.set_state(state)
    passes = []
    for _ in range(max_passes):
        hits = sum(g1.submit(c).cached for c in cands)
        passes.append(hits / len(cands))
        if hits == len(cands):
            break
    # timed: cached pass vs the same memory with the cache off
    g2 = ConsistencyGate(RELATIONS, cfg.model_copy(update={"cache": False}), embedder=embedder, credibility=cred)
    g2.set_state(g1.get_state())
    pc = time.perf_counter_ns
    on, off, same, hits = [], [], 0, 0
    for c in cands:
        t0 = pc()
        d1 = g1.submit(c)
        on.append(pc() - t0)
        t0 = pc()
        d2 = g2.submit(c)
        off.append(pc() - t0)
        hits += d1.cached
        same += d1.outcome == d2.outcome
    return {"resubmitted": len(cands), "pass_hit_rates": passes, "timed_hit_rate": hits / len(cands),
            "p50_ms_cached": pct(on, 50), "p50_ms_uncached": pct(off, 50),
            "p95_ms_cached": pct(on, 95), "p95_ms_uncached": pct(off, 95),
            "speedup_p50": pct(off, 50) / pct(on, 50), "speedup_total": sum(off) / sum(on),
            "outcomes_identical": same, "mismatches": len(cands) - same}


def contest_score(cfg: GateConfig, c_new: float, c_old: float) -> float:
    """The gate's score for one contradiction of a non-verified fact (rule judge alone)."""
    k = cfg.sharpness
    return (1 - cfg.alpha) * c_new ** k / (c_new ** k + c_old ** k) + cfg.alpha * c_new


def solve_c_new(cfg: GateConfig, c_old: float, threshold: float) -> float | None:
    """Smallest c_new in [0, 1] with contest_score >= threshold (score rises with c_new), or None."""
    if contest_score(cfg, 1.0, c_old) < threshold:
        return None
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if contest_score(cfg, mid, c_old) >= threshold else (mid, hi)
    return hi


def algebra(cfg: GateConfig) -> dict:
    """Closed-form consequences of the scoring for the source classes of this benchmark."""
    out = {"unknown_vs_any_nonverified_min_score": contest_score(cfg, 0.5, 1.0),
           "novel_claim_min_score": (1 - cfg.alpha) + cfg.alpha * 0.0,
           "verified_contradiction_max_score": cfg.alpha * 1.0, "by_c_old": {}}
    for c_old in (0.175, 0.5, 0.85, 0.9, 0.95):
        out["by_c_old"][c_old] = {"admit_needs_c_new": solve_c_new(cfg, c_old, cfg.t_high),
                                  "reject_needs_c_new_below": solve_c_new(cfg, c_old, cfg.t_low)}
    return out


def credibility_probe() -> dict:
    """Does a cached decision survive a change of the source's credibility?"""
    table_ = {"warden": 0.9, "smuggler": 0.15}
    out = {}
    for cache in (True, False):
        tab = dict(table_)
        g = ConsistencyGate(RELATIONS, GateConfig(cache=cache), credibility=lambda s, t: tab.get(s, 0.5))
        g.submit(ClaimCandidate("Iron Key", "located_in", "Harbor", "geography", "warden"))
        first = g.submit(ClaimCandidate("Iron Key", "located_in", "Docks", "geography", "smuggler"))
        tab["smuggler"] = 0.95
        second = g.submit(ClaimCandidate("Iron Key", "located_in", "Docks", "geography", "smuggler"))
        out["cache_on" if cache else "cache_off"] = {"before": first.outcome, "after": second.outcome,
                                                     "after_cached": second.cached, "after_score": second.score}
    return out


# ----------------------------------------------------------------------------- main

def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--writes", type=int, default=2000, help="scored (headline) writes in the stream (default 2000)")
    ap.add_argument("--quick", action="store_true", help="300 scored writes (overrides --writes)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--embedder", default="hash", choices=("hash", "minilm", "none"),
                    help="the gate's embedder for semantic neighbours (default hash; minilm is the real model)")
    ap.add_argument("--t-low", type=float, default=None, help="override GateConfig.t_low (default 0.3)")
    ap.add_argument("--t-high", type=float, default=None, help="override GateConfig.t_high (default 0.7)")
    ap.add_argument("--alpha", type=float, default=None, help="override GateConfig.alpha (default 0.2)")
    ap.add_argument("--json", metavar="FILE", help="write every figure to FILE as JSON")
    args = ap.parse_args(argv)
    n = 300 if args.quick else args.writes
    if n < 50:
        ap.error("--writes must be at least 50")
    over = {k: v for k, v in (("t_low", args.t_low), ("t_high", args.t_high), ("alpha", args.alpha)) if v is not None}
    cfg = GateConfig(**over)

    embedder = None
    if args.embedder != "none":
        from memory.embedder import EmbedderUnavailable, get_embedder
        try:
            embedder = get_embedder(args.embedder)
            log(f"loading the {args.embedder} embedder")
            embedder(["warm up the embedder"])
        except EmbedderUnavailable as e:
            print(f"error: {e}", file=sys.stderr)
            raise SystemExit(1)

    log(f"generating the world and the stream ({n} scored writes, seed {args.seed})")
    gen = StreamGen(args.seed)
    seed_events = gen.seed_events(n_fun=max(150, int(0.45 * n)), n_temporal=max(30, n // 10),
                                  n_knows=max(20, n // 20))
    stream = gen.stream(n)
    writes = [e for e in stream if isinstance(e, Write)]
    n_obs = sum(isinstance(e, Observe) for e in stream)
    cred = gen.credibility

    gm = GateMethod(cfg, embedder, cred)
    log(f"gate: seeding {len(seed_events)} facts")
    gate_run = run_method(gm, seed_events, stream, "gate")
    base_runs = []
    for m in (AdmitAll(), RejectAnyContradiction(), SourceOnly(cred)):
        log(f"baseline: {m.name}")
        base_runs.append(run_method(m, seed_events, stream, ""))
    log("baseline: bare dict insert")
    dict_insert_baseline(stream)     # warm-up
    dict_ns = dict_insert_baseline(stream)
    dict_p50 = pct(dict_ns, 50)

    log("cache: resubmitting the stream")
    cache = cache_bench(gm.gate, embedder, cred, cfg, writes)
    probe = credibility_probe()
    inline_hits = sum(gate_run.cached) / len(gate_run.cached)
    rep = [i for i, w in enumerate(writes) if w.sub.startswith("repeat")]
    rep_hits = sum(gate_run.cached[i] for i in rep) / len(rep) if rep else float("nan")
    burst = [i for i, w in enumerate(writes) if w.sub == "repeat (burst)"]
    burst_hits = sum(gate_run.cached[i] for i in burst) / len(burst) if burst else float("nan")

    # ------------------------------------------------------------------ printing
    runs = [gate_run] + base_runs
    S = {r.name: scores(writes, r, dict_p50) for r in runs}
    g = S[gate_run.name]
    comp = Counter(w.category for w in writes)
    head_n = sum(comp[c] for c in HEADLINE)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "-"
    print(f"machine: {os.cpu_count()} cores (load average {load} at the end), python {sys.version.split()[0]}, "
          f"numpy {np.__version__}")
    print(f"gate config: t_low {cfg.t_low}, t_high {cfg.t_high}, alpha {cfg.alpha}, k {cfg.k}, "
          f"similarity floor {cfg.similarity_floor}, cache {cfg.cache}; rule judge alone (no LLM jury); "
          f"embedder {args.embedder}")
    print(f"seed {args.seed}: memory seeded with {len(seed_events)} facts "
          f"({sum(isinstance(e, Observe) for e in seed_events)} verified by observation; "
          f"{gate_run.seed_rejects} seed writes not admitted by the gate); stream of {len(writes)} writes "
          f"({head_n} scored + {comp['diagnostic']} diagnostic) and {n_obs} interleaved observations")
    print("scored mix: " + ", ".join(f"{c} {comp[c]}" for c in HEADLINE)
          + f"; should reject {sum(w.reject for w in writes if w.category in HEADLINE)} / {head_n}")
    print("source credibility: trusted U(0.85, 0.95), untrusted U(0.10, 0.25), unknown 0.5 (per source and topic)")

    print("\nconsistency gate, per category (correct = admit when it should admit, reject when it should reject; "
          "kept out = reject or quarantine):")
    rows, cat_data = category_rows(writes, gate_run, HEADLINE)
    print(table(CAT_HEAD, rows))
    knock = Counter()
    wrong_t = Counter()
    for i, w in enumerate(writes):
        if w.category in HEADLINE and gate_run.diverged[i] is not None:
            wrong_t[w.category] += 1
            knock[w.category] += gate_run.diverged[i]
    if wrong_t:
        print("knock-on: wrong decisions on writes about a held fact, and how many of them came when that fact was "
              "not live in the gate (memory had already diverged from the ideal, e.g. a true update was held back): "
              + "; ".join(f"{c} {knock[c]}/{wrong_t[c]}" for c in HEADLINE if wrong_t[c]))

    kinds = defaultdict(list)
    for i, w in enumerate(writes):
        if w.category in HEADLINE and w.reject:
            kinds[w.kind].append(i)
    print("\nshould-reject writes by relation kind (consistency gate):")
    krows = []
    for k in ("functional", "numeric", "temporal"):
        idx = kinds.get(k, [])
        if idx:
            o = Counter(gate_run.outcomes[i] for i in idx)
            krows.append([k, len(idx), f"{o['reject'] / len(idx):.1%}", f"{o['quarantine'] / len(idx):.1%}",
                          f"{o['admit'] / len(idx):.1%}"])
    print(table([("kind", 12, "<"), ("n", 5, ">"), ("reject", 8, ">"), ("quar.", 8, ">"), ("admit", 8, ">")], krows))

    print(f"\nrejection quality on the {head_n} scored writes (positive = should reject; strict: quarantine is not "
          "a rejection; kept out: it is):")
    mrows = []
    for r in runs:
        s = S[r.name]
        mrows.append([r.name, fmt(s["strict"]["precision"], ".3f"), fmt(s["strict"]["recall"], ".3f"),
                      fmt(s["strict"]["f1"], ".3f"), f"{s['quarantine_rate']:.1%}",
                      fmt(s["kept_out"]["precision"], ".3f"), fmt(s["kept_out"]["recall"], ".3f"),
                      fmt(s["kept_out"]["f1"], ".3f"), fmt(s["structured_strict"]["f1"], ".3f"),
                      fmt(s["structured_kept_out"]["f1"], ".3f"), f"{s['update_false_reject']:.1%}",
                      f"{s['update_kept_out']:.1%}"])
    print(table([("method", 25, "<"), ("P", 6, ">"), ("R", 6, ">"), ("F1", 6, ">"), ("quar.", 6, ">"),
                 ("P kept", 7, ">"), ("R kept", 7, ">"), ("F1 kept", 7, ">"), ("F1 struct", 9, ">"),
                 ("F1 st.kept", 10, ">"), ("upd rej", 8, ">"), ("upd kept", 8, ">")], mrows))
    print("(F1 struct: structured contradictions vs every should-admit write; upd rej: true updates from trusted "
          f"sources rejected, n = {g['updates']}; upd kept: rejected or quarantined)")

    print("\nlatency per write (scored writes; each call timed with perf_counter_ns; ratio to the bare dict insert's "
          "p50):")
    lrows = [["bare dict insert", f"{pct(dict_ns, 50) * 1e3:.2f}", f"{pct(dict_ns, 95) * 1e3:.2f}",
              f"{np.mean(dict_ns) / 1e3:.2f}", "1.0", "1.0"]]
    for r in runs:
        s = S[r.name]
        lrows.append([r.name, f"{s['p50_ms'] * 1e3:.2f}", f"{s['p95_ms'] * 1e3:.2f}", f"{s['mean_ms'] * 1e3:.2f}",
                      f"{s['p50_vs_dict']:,.0f}", f"{s['p95_vs_dict']:,.0f}"])
    print(table([("method", 25, "<"), ("p50 us", 9, ">"), ("p95 us", 9, ">"), ("mean us", 9, ">"),
                 ("p50 x dict", 11, ">"), ("p95 x dict", 11, ">")], lrows))
    head_idx = [i for i, w in enumerate(writes) if w.category in HEADLINE]
    checks = np.mean([gate_run.checks[i] for i in head_idx])
    votes = np.mean([gate_run.votes[i] for i in head_idx])
    related = np.mean([gate_run.related[i] for i in head_idx])
    jc = gm.gate.judge_calls / len(writes)
    print(f"gate: p50 {g['p50_ms']:.3f} ms, p95 {g['p95_ms']:.3f} ms per write; {len(writes) / gate_run.seconds:,.0f} "
          f"writes/s over the whole stream; rule-judge checks/write {checks:.2f} (1 range check + 1 per related "
          f"fact), rule votes cast/write {votes:.2f}, related facts/write {related:.1f}; LLM-judge calls/write "
          f"{jc:.3f} (no jury configured)")
    by_kind = defaultdict(list)
    for i in head_idx:
        by_kind[writes[i].kind].append(gate_run.ns[i])
    print("gate p50 / p95 by relation kind (ms): " + ", ".join(
        f"{k} {pct(v, 50):.3f} / {pct(v, 95):.3f} (n {len(v)})" for k, v in sorted(by_kind.items())))
    half = len(gate_run.ns) // 2
    print(f"gate p50 first / second half of the stream: {pct(gate_run.ns[:half], 50):.3f} / "
          f"{pct(gate_run.ns[half:], 50):.3f} ms")
    status = Counter(f.status for f in gm.gate.facts.values())
    rechecks = sum(d.reason.startswith("re-checked") for d in gm.gate.decisions)
    print(f"observations: {len(gate_run.obs_ns)}, p50 {pct(gate_run.obs_ns, 50):.3f} ms, p95 "
          f"{pct(gate_run.obs_ns, 95):.3f} ms each (purge + re-check of the whole quarantine); "
          f"{status['quarantined']} facts quarantined at the end")
    print(f"memory at the end: {len(gm.gate.facts)} entries (" + ", ".join(f"{k} {v}" for k, v in status.most_common())
          + f"); audit trail {len(gm.gate.decisions)} decisions, {rechecks} of them quarantine re-checks")

    # quarantine: where the held writes ended up
    fate = defaultdict(Counter)
    for i, w in enumerate(writes):
        if w.category in HEADLINE and gate_run.outcomes[i] == "quarantine":
            f = gm.gate.facts.get(gate_run.facts[i])
            fate["should reject" if w.reject else "should admit"][f.status if f else "?"] += 1
    if fate:
        print("\nquarantined scored writes, status of their entry at the end of the stream (after re-checks):")
        for k in ("should reject", "should admit"):
            if fate[k]:
                tot = sum(fate[k].values())
                print(f"  {k:<14} {tot:>5}: " + ", ".join(f"{s} {c} ({c / tot:.0%})" for s, c in fate[k].most_common()))

    print("\ncache:")
    ctab = [["in-stream hit rate (all writes)", f"{inline_hits:.1%}"],
            ["  adversarial repeats", fmt(rep_hits, ".1%")],
            ["  repeats in bursts (back to back)", fmt(burst_hits, ".1%")],
            ["resubmission of the stream, hit rate per pass",
             ", ".join(f"{p:.1%}" for p in cache["pass_hit_rates"])],
            ["timed pass at the fixed point: hit rate", f"{cache['timed_hit_rate']:.1%}"],
            ["  p50 cached / uncached (us)",
             f"{cache['p50_ms_cached'] * 1e3:.2f} / {cache['p50_ms_uncached'] * 1e3:.2f}"],
            ["  p95 cached / uncached (us)",
             f"{cache['p95_ms_cached'] * 1e3:.2f} / {cache['p95_ms_uncached'] * 1e3:.2f}"],
            ["  speedup p50 / total", f"{cache['speedup_p50']:.1f}x / {cache['speedup_total']:.1f}x"],
            ["  cached outcome == fresh outcome", f"{cache['outcomes_identical']}/{cache['resubmitted']}"]]
    pon, poff = probe["cache_on"], probe["cache_off"]
    ctab.append(["credibility 0.15 -> 0.95, same claim again",
                 f"cache on: {pon['before']} -> {pon['after']} (cached {pon['after_cached']}); "
                 f"cache off: {poff['before']} -> {poff['after']}"])
    print(table([("measure", 48, "<"), ("value", 30, "<")], ctab))

    print("\ndiagnostics (not in any figure above; known limits of the rule judge and the scoring):")
    drows, diag_data = category_rows(writes, gate_run, ("diagnostic",))
    print(table(CAT_HEAD, drows))

    f1s, f1k = g["structured_strict"]["f1"], g["structured_kept_out"]["f1"]
    ufr, uko = g["update_false_reject"], g["update_kept_out"]
    goals = [
        ("F1 on structured contradictions >= 0.95 (strict)", f1s, f1s >= 0.95, ".3f"),
        ("  same, quarantine counted as kept out", f1k, f1k >= 0.95, ".3f"),
        ("false rejects of true trusted updates <= 5 %", ufr, ufr <= 0.05, ".1%"),
        ("  same, quarantine counted as a failure", uko, uko <= 0.05, ".1%"),
    ]
    print("\ngoals (consistency gate):")
    print(table([("goal", 50, "<"), ("value", 8, ">"), ("met", 4, ">")],
                [[name, fmt(v, spec), "yes" if ok else "NO"] for name, v, ok, spec in goals]))

    alg = algebra(cfg)
    print(f"\nscore algebra of this GateConfig (rule judge alone; score = (1 - alpha) * c_new^k / (c_new^k + "
          f"c_old^k) + alpha * c_new, k = {cfg.sharpness:g}, for a contradicted non-verified fact):")
    arows = []
    for c_old, v in alg["by_c_old"].items():
        arows.append([f"{c_old:.3f}", fmt(v["admit_needs_c_new"], ".3f") if v["admit_needs_c_new"] is not None
                      else "never", fmt(v["reject_needs_c_new_below"], ".3f")
                      if v["reject_needs_c_new_below"] is not None else "always"])
    print(table([("c_old", 8, ">"), ("admitted iff c_new >=", 22, ">"), ("rejected iff c_new <", 21, ">")], arows))
    u = alg["unknown_vs_any_nonverified_min_score"]
    print(f"an unknown source (c = 0.5) contradicting any non-verified fact scores >= {u:.3f} "
          f"({'never rejected' if u >= cfg.t_low else 'can be rejected'} at t_low {cfg.t_low}); any contradiction of "
          f"a verified fact scores <= {alg['verified_contradiction_max_score']:.2f} "
          f"({'always rejected' if alg['verified_contradiction_max_score'] < cfg.t_low else 'not always rejected'}); "
          f"a claim with no "
          f"structured match scores >= {alg['novel_claim_min_score']:.2f} "
          f"({'always admitted, whatever the source' if alg['novel_claim_min_score'] >= cfg.t_high else 'may be held'}"
          ")")

    digest = hashlib.sha1("\n".join(gate_run.outcomes).encode()).hexdigest()[:12]
    print(f"\ndecision digest (gate outcomes, in order): {digest}; run time {time.perf_counter() - T0:.1f} s")

    if args.json:
        out = {"config": {"writes": n, "seed": args.seed, "embedder": args.embedder, "gate": cfg.model_dump(),
                          "seed_facts": len(seed_events), "stream_writes": len(writes), "observations": n_obs,
                          "composition": dict(comp)},
               "methods": S, "dict_insert": {"p50_ms": dict_p50, "p95_ms": pct(dict_ns, 95)},
               "categories": cat_data, "diagnostics": diag_data,
               "gate_extra": {"rule_checks_per_write": float(checks), "rule_votes_per_write": float(votes),
                              "p50_ms_by_kind": {k: pct(v, 50) for k, v in by_kind.items()},
                              "fact_status": dict(status), "decisions": len(gm.gate.decisions),
                              "recheck_decisions": rechecks,
                              "knock_on": {c: [knock[c], wrong_t[c]] for c in HEADLINE if wrong_t[c]},
                              "related_per_write": float(related), "llm_judge_calls_per_write": jc,
                              "observe_p50_ms": pct(gate_run.obs_ns, 50), "observe_p95_ms": pct(gate_run.obs_ns, 95),
                              "quarantine_fate": {k: dict(v) for k, v in fate.items()}},
               "cache": {**cache, "inline_hit_rate": inline_hits, "repeat_hit_rate": rep_hits,
                         "burst_hit_rate": burst_hits, "credibility_probe": probe},
               "goals": {name.strip(): {"value": v, "met": bool(ok)} for name, v, ok, _ in goals},
               "algebra": alg, "digest": digest, "seconds": time.perf_counter() - T0}
        Path(args.json).write_text(json.dumps(out, indent=2, default=str), encoding="utf-8")
        log(f"wrote {args.json}")
    log(f"done in {time.perf_counter() - T0:.1f} s")


if __name__ == "__main__":
    main()
