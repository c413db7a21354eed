"""Context benchmark: key-fact recall, context size, build latency and write throughput of MEMO.

Usage:  python benchmarks/context_bench.py [--worlds worlds/harbor worlds/bazaar]
            [--turns 50 200 1000 5000] [--budget 400] [--quick] [--seed 0]

Part 1, recall. For each world and each log length L, a real game is driven with
memory on (``game.session.Game``, real MiniLM, flat store): every engine event
reaches memory through ``GameMemory.on_event``. The player is a seeded, state-aware
filler: it walks (unlocked exits only), looks, examines, takes and drops things,
talks to and asks the NPCs present about the world's topics, waits, and haggles
with merchants, always offering terms the merchant values below its reservation
(so no deal closes). It never opens, unlocks or gives, so no quest completes and the
game never ends; the world's ``max_turns`` is raised on an in-memory copy of the
spec so one game spans all L turns (turn numbers stay monotonic).

Key facts are planted at seeded random turns (max(8, L/20) per log) as engine
events written through ``GameMemory.on_event``, as the engine would write them:

* offers:     ``Old Hobb offers price=4 for the flask of rum.``  (offer event)
* agreements: ``Deal: Traveller buys the rum from Old Hobb (price=5).`` (agreement event: an anchor)
* locations:  ``The brass key is under the third plank at the Long Pier.``  (examine event)
* who said what: ``Jory Flint says: "The brass key is hidden ... at the Crypt."``  (say event with a claim triple)

Offers and locations may be superseded later (a new offer, the thing moved);
the needed fact is then the latest one. Each plant gets one or two near-miss
distractors at random turns that mention the same entities (other prices, the
same merchant's offer for another item, rival claims about the same item, a search
that came up empty...). Trade-scene (seller, item) pairs are never planted, so the
world's own haggling (also in the log) never makes an answer ambiguous.

Decision points: at L/3 and 2L/3 (up to 20 sampled facts each) and at the end of
the log (every planted fact), the player faces a question that needs one fact
("Old Hobb asks what price you agreed for the flask of rum."). The situation query
is built the way ``GameMemory.query_for`` does (observation text, last 4 events,
goals) and the question is the *focus* (``ContextOptimizer.build(focus=...)``):
relevance is ``max(context_weight * sim(situation), sim(question))`` for MEMO and,
identically, for the similarity baseline.
A decision counts as recalled when the needed fact's text is shown verbatim in the
rendered context (a fact folded out of sight inside a merged line or a summary is
*not* recalled); recall by record id (``Context.ids``) is also reported for MEMO.

Methods, all at the same token budget, rendered and counted with
``memory.tokens.count_tokens`` (lines as ``- text``, one header per section):

* full history (truncated): every event the player perceived (including waits and
  refusals), in order; the *oldest* end is cut, keeping the newest lines that fit,
  because the decision is taken now and a chat log that overflows drops its start;
* recency window: the player's memories (shared, facts, private) of the last W
  whole turns, W the largest window that fits;
* similarity top-k: the player's memories ranked by cosine similarity to the
  query, added best first while they fit (no de-duplication);
* MEMO: ``ContextOptimizer.build`` with masking and compression (default
  ``MemoConfig``, budget B, ``touch=False``, no goal lines or priors).

The baselines read every memory written for the player (any status, reflections
excluded): they stand for a system without MEMO's bookkeeping. MEMO reads what it
reads in a game (active memories, reflections included).

The engine builds a context only for agents that read one (``uses_context``);
the shipped NPC agents (patrol, wanderer, idle) do not, and the filler player
reads none either, so nothing is retrieved (or touched) while a log is written.

Diagnostics: every MEMO miss is explained with ``ContextOptimizer.explain``
(not retrievable, not among the similarity candidates, dropped by the budget,
masked, merged or summarised out of sight), and both MEMO and top-k are also run
with the decision question alone as the query, which separates what the query
costs from what the optimizer costs.

Part 2, latency. Banks of 1k/10k/100k memories replay the records written in the
longest Part 1 logs (all agents, with their scope, kind, status and anchors), cycling
with a turn offset (each cycle repeats the log's agreements, so anchors grow with
the cycles); their vectors are the real MiniLM vectors of those texts (each unique
text encoded once, repeats served from the embedder's cache). Garbage-collector
passes during the timed builds are counted (``gc.callbacks``) and reported. ``build`` is timed
with a precomputed query vector over 100 of the Part 1 decision queries (after 5
warm-up builds); the store query alone (top ``candidates`` with the same scope and
status filter) is the in-run baseline. The query embedding is timed separately
(MiniLM, one text per call, cache off).

Part 3, write throughput. The same unique memory texts are embedded by a cold
MiniLM embedder (cache off, batch 64) in one call, and written by ``bank.add`` for
each plus one ``bank.flush`` with another cold embedder. The ratio is the goal.
Flushing every few records, as a game does when it reads every turn, is shown for
information.

``--quick`` runs one world (the first), turns 50/200/1000, 50 latency queries and
512 texts for write throughput.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import os
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from game.types import PLAYER, Action, Event, Verb  # noqa: E402
from memory.config import MemoConfig  # noqa: E402
from memory.records import private, readable_scopes  # noqa: E402

try:  # statuses MEMO retrieves (resolved memories fade but stay retrievable)
    from memory.optimizer import LIVE  # noqa: E402
except ImportError:  # older optimizer: active only
    LIVE = ("active",)

DEFAULT_WORLDS = (str(ROOT / "worlds" / "harbor"), str(ROOT / "worlds" / "bazaar"))
DEFAULT_TURNS = (50, 200, 1000, 5000)
SWEEP = (200, 400, 800)
SWEEP_AT = 1000
GOAL_TURNS = 1000
GOAL_RECALL = 0.95
GOAL_SHARE = 0.10
GOAL_P95_MS = {10_000: 10.0, 100_000: 30.0}
GOAL_WRITE_RATIO = 0.80
LATENCY_SIZES = (1_000, 10_000, 100_000)
MID_SAMPLE = 20
OLD_AGE = 100
HEADER = "## History"
METHODS = ("full history (truncated)", "recency window", "similarity top-k", "MEMO")
QONLY_TOPK, QONLY_MEMO = "top-k, question-only query", "MEMO, question-only query"

SPOTS = ("under the third plank", "behind a loose stone", "inside a tarred barrel", "beneath a coil of rope",
         "on the top shelf", "in a crack by the door", "under a heap of sacks", "inside an old boot",
         "wrapped in oilcloth under the bench", "in a clay jar by the wall")

T0 = time.perf_counter()


def log(msg: str) -> None:
    print(f"[{time.perf_counter() - T0:7.1f}s] {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- token costs


class Costs:
    """Token cost of a context line (``- text`` plus its newline), cached per text."""

    def __init__(self):
        from memory.tokens import count_tokens
        self.count = count_tokens
        self._cache: dict[str, int] = {}
        self.header = count_tokens(HEADER) + 2

    def many(self, texts: list[str]) -> list[int]:
        from memory.tokens import count_many
        todo = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if todo:
            for t, n in zip(todo, count_many([f"- {t}" for t in todo])):
                self._cache[t] = n + 1
        return [self._cache[t] for t in texts]


def render(lines: list[str]) -> str:
    return HEADER + "\n" + "\n".join(f"- {ln}" for ln in lines) if lines else ""


def exact_fit(lines: list[str], budget: int, count, drop_from_front: bool) -> list[str]:
    """Drop lines until the rendered text is within budget (the estimate is additive; this guards it)."""
    while lines and count(render(lines)) > budget:
        lines = lines[1:] if drop_from_front else lines[:-1]
    return lines


# --------------------------------------------------------------------------- the world's vocabulary


def _place(name: str) -> str:
    return "the " + name[4:] if name.startswith("The ") else name


@dataclass
class Vocab:
    player: str
    npcs: list[tuple[str, str]]            # (id, name)
    items: list[tuple[str, str]]           # portable items: (id, name)
    places: list[tuple[str, str]]          # (id, phrase)
    scene_pairs: set[tuple[str, str]]      # (seller, item) of the world's trade scenes
    scene_items: set[str]

    @classmethod
    def of(cls, spec) -> Vocab:
        pairs, items = set(), set()
        for sc in spec.scenes.values():
            trade = getattr(sc, "trade", None)
            if trade is not None:
                pairs.add((trade.seller, trade.item))
                items.add(trade.item)
        return cls(player=spec.player.name,
                   npcs=[(k, v.name) for k, v in spec.npcs.items()],
                   items=[(k, v.name) for k, v in spec.items.items() if v.portable],
                   places=[(k, _place(v.name)) for k, v in spec.locations.items()],
                   scene_pairs=pairs, scene_items=items)


# --------------------------------------------------------------------------- plants and distractors


@dataclass
class Plant:
    pid: int
    kind: str                      # offer | agreement | location | claim
    key: tuple
    turn: int
    text: str
    question: str
    event: Event
    rid: str | None = None         # the player's record, once written


@dataclass
class Distractor:
    turn: int
    text: str
    event: Event


def _ev(turn: int, kind: str, actor: str, text: str, perceivers: tuple[str, ...], data: dict | None = None) -> Event:
    return Event(turn=turn, seq=0, kind=kind, actor=actor, text=text, perceivers=perceivers, data=dict(data or {}))


def _price(rng: np.random.Generator) -> int:
    return int(rng.integers(3, 61))


def plan_log(spec, length: int, rng: np.random.Generator) -> tuple[list[Plant], list[Distractor]]:
    """Planted key facts (with their questions) and near-miss distractors for one log of ``length`` turns."""
    v = Vocab.of(spec)
    n = max(8, length // 20)
    n_agree = max(1, round(0.1 * n))
    rest = ["offer", "location", "claim"] * ((n - n_agree) // 3 + 1)
    kinds = ["agreement"] * n_agree + rest[: n - n_agree]
    kinds = [kinds[i] for i in rng.permutation(len(kinds))]
    turns = sorted(int(t) for t in rng.choice(np.arange(1, length), size=n, replace=False))
    pick = lambda seq: seq[int(rng.integers(len(seq)))]  # noqa: E731

    plants: list[Plant] = []
    latest: dict[tuple, Plant] = {}
    agreed: set[str] = set()
    claimed: set[tuple[str, str]] = set()
    for pid, (kind, t) in enumerate(zip(kinds, turns)):
        if kind == "offer":
            options = [(n_, i) for n_ in v.npcs for i in v.items if (n_[0], i[0]) not in v.scene_pairs]
            (nid, nname), (iid, iname) = pick(options)
            key = ("offer", nid, iid)
            p = _price(rng)
            while key in latest and f"price={p} " in latest[key].text:
                p = _price(rng)
            text = f"{nname} offers price={p} for the {iname}."
            q = f"{nname} is waiting for your answer about the {iname}. What price did {nname} offer you for it?"
            ev = _ev(t, "offer", nid, text, (PLAYER, nid))
        elif kind == "agreement":
            options = [(n_, i) for n_ in v.npcs for i in v.items if i[0] not in agreed and i[0] not in v.scene_items]
            if not options:
                kind = "location"
            else:
                (nid, nname), (iid, iname) = pick(options)
                agreed.add(iid)
                key = ("agreement", iid)
                text = f"Deal: {v.player} buys the {iname} from {nname} (price={_price(rng)})."
                q = f"{nname} asks what price you agreed for the {iname}."
                ev = _ev(t, "agreement", nid, text, (PLAYER, nid), {"scene": f"side_deal_{pid}"})
        if kind == "claim":
            options = [(s, i, p) for s in v.npcs for i in v.items for p in v.places if (i[0], p[0]) not in claimed]
            if not options:
                kind = "location"
            else:
                (sid, sname), (iid, iname), (lid, lname) = pick(options)
                claimed.add((iid, lid))
                key = ("claim", iid, lid)
                text = f'{sname} says: "The {iname} is hidden {pick(SPOTS)} at {lname}."'
                q = f"Someone told you the {iname} was at {lname}. Who was it, and can you trust them?"
                ev = _ev(t, "say", sid, text, (PLAYER, sid),
                         {"topic": "rumours", "claims": [{"subject": iid, "relation": "located_in", "object": lid,
                                                          "topic": "rumours", "speaker": sid, "turn": t}]})
        if kind == "location":
            (iid, iname) = pick(v.items)
            key = ("location", iid)
            prev = latest.get(key)
            while True:
                (lid, lname), spot = pick(v.places), pick(SPOTS)
                text = f"The {iname} is {spot} at {lname}."
                if prev is None or prev.text != text:
                    break
            q = f"Where should you look for the {iname}?"
            ev = _ev(t, "examine", PLAYER, text, (PLAYER,), {"obj": iid})
        plant = Plant(pid=pid, kind=kind, key=key, turn=t, text=text, question=q, event=ev)
        plants.append(plant)
        latest[key] = plant

    # distractors: same entities, different facts; never a key that is asked about
    offer_keys = {p.key[1:] for p in plants if p.kind == "offer"}
    located = {p.key[1] for p in plants if p.kind == "location"}
    claim_keys = {p.key[1:] for p in plants if p.kind == "claim"}
    names = dict(v.npcs) | dict(v.items)
    places = dict(v.places)
    texts = {p.text for p in plants}
    out: list[Distractor] = []
    for p in plants:
        for _ in range(int(rng.integers(1, 3))):
            t = int(rng.integers(0, length))
            r = rng.random()
            if p.kind == "offer":
                nid, iid = p.key[1:]
                others = [i for i, _ in v.items if (nid, i) not in offer_keys and (nid, i) not in v.scene_pairs]
                if r < 0.5 or not others:
                    text = (f'{names[nid]} says: "A {names[iid]} like that fetched {_price(rng)} gold '
                            f'at the spring fair."')
                    ev = _ev(t, "say", nid, text, (PLAYER, nid), {"claims": []})
                else:
                    text = f"{names[nid]} offers price={_price(rng)} for the {names[pick(others)]}."
                    ev = _ev(t, "offer", nid, text, (PLAYER, nid))
            elif p.kind == "agreement":
                iid = p.key[1]
                if r < 0.5:
                    text = f"{v.player} offers price={_price(rng)} for the {names[iid]}."
                    ev = _ev(t, "offer", PLAYER, text, (PLAYER,))
                else:
                    nid = pick(v.npcs)[0]
                    text = f'{names[nid]} says: "I sold a {names[pick(v.items)[0]]} for {_price(rng)} gold yesterday."'
                    ev = _ev(t, "say", nid, text, (PLAYER, nid), {"claims": []})
            elif p.kind == "location":
                iid = p.key[1]
                others = [i for i, _ in v.items if i not in located]
                if r < 0.5 or not others:
                    text = f"You search {pick(SPOTS)} at {pick(v.places)[1]}, but the {names[iid]} is not there."
                else:
                    text = f"The {names[pick(others)]} is {pick(SPOTS)} at {pick(v.places)[1]}."
                ev = _ev(t, "examine", PLAYER, text, (PLAYER,))
            else:
                iid, lid = p.key[1:]
                rivals = [lo for lo, _ in v.places if (iid, lo) not in claim_keys]
                sid = pick(v.npcs)[0]
                if r < 0.5 and rivals:
                    other = pick(rivals)
                    text = f'{names[sid]} says: "The {names[iid]} is hidden {pick(SPOTS)} at {places[other]}."'
                    ev = _ev(t, "say", sid, text, (PLAYER, sid),
                             {"topic": "rumours", "claims": [{"subject": iid, "relation": "located_in", "object": other,
                                                              "topic": "rumours", "speaker": sid, "turn": t}]})
                else:
                    text = (f'{names[sid]} says: "Nobody has seen the {names[pick(v.items)[0]]} at {places[lid]} '
                            f'for years."')
                    ev = _ev(t, "say", sid, text, (PLAYER, sid), {"claims": []})
            if text not in texts:
                out.append(Distractor(turn=t, text=text, event=dataclasses.replace(ev, turn=t)))
    return plants, out


# --------------------------------------------------------------------------- the filler player


class Filler:
    """A seeded, state-aware mix of ordinary player actions that never finishes a quest."""

    def __init__(self, engine, rng: np.random.Generator):
        from game.negotiation.utility import outcome_space, utilities_for
        self.eng, self.rng = engine, rng
        spec = engine.spec
        self.topics = sorted({f.topic for f in spec.facts.values()}) or ["weather"]
        self.low: dict[str, list[dict[str, str]]] = {}
        for sid, sc in spec.scenes.items():
            trade = getattr(sc, "trade", None)
            if trade is None:
                continue
            u = utilities_for(sc)[trade.seller]
            self.low[sid] = [o for o in outcome_space(sc.issues) if u(o) < u.reservation]

    def _pick(self, seq):
        return seq[int(self.rng.integers(len(seq)))]

    def __call__(self) -> Action:
        eng, st, rng = self.eng, self.eng.state, self.rng
        spec = eng.spec
        here = st.where[PLAYER]
        loc = spec.locations[here]
        exits = [d for d in loc.exits if d not in loc.locked or f"{here}:{d}" in st.unlocked]
        go = Action(PLAYER, Verb.GO, obj=self._pick(exits)) if exits else Action(PLAYER, Verb.WAIT)
        sid = st.active_scene
        if sid is not None:
            r = rng.random()
            gold = st.gold.get(PLAYER, 0)
            trade = spec.scenes[sid].trade
            offers = [o for o in self.low.get(sid, []) if trade is None or int(o[trade.price_issue]) <= gold]
            if r < 0.75 and offers:
                return Action(PLAYER, Verb.OFFER, terms=tuple(sorted(self._pick(offers).items())))
            return Action(PLAYER, Verb.WALK_AWAY) if r < 0.9 else go
        npcs = [e for e in st.entities_at(here) if e != PLAYER and e in spec.npcs]
        things = st.items_in(here)
        portable = [i for i in things if spec.items[i].portable]
        held = st.items_in(PLAYER)
        r = rng.random()
        if r < 0.30:
            return go
        if r < 0.38:
            return Action(PLAYER, Verb.LOOK)
        if r < 0.48 and (things or npcs):
            return Action(PLAYER, Verb.EXAMINE, obj=self._pick(things + npcs))
        if r < 0.55 and portable:
            return Action(PLAYER, Verb.TAKE, obj=self._pick(portable))
        if r < 0.60 and held:
            return Action(PLAYER, Verb.DROP, obj=self._pick(held))
        if r < 0.70 and npcs:
            return Action(PLAYER, Verb.TALK, obj=self._pick(npcs))
        if r < 0.82 and npcs:
            return Action(PLAYER, Verb.ASK, obj=self._pick(npcs), target=self._pick(self.topics))
        if r < 0.88:
            traders = [n for n in npcs if eng.scenes.trade_refusal(PLAYER, n) is None]
            if traders:
                return Action(PLAYER, Verb.TRADE, obj=self._pick(traders))
        if r < 0.92:
            return Action(PLAYER, Verb.INVENTORY)
        if r < 0.96:
            return Action(PLAYER, Verb.WAIT)
        return go


# --------------------------------------------------------------------------- one log


@dataclass
class Decision:
    world: str
    length: int
    turn: int
    end: bool
    kind: str
    age: int
    fact: str
    query: str
    results: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict)  # (method, budget) -> result


@dataclass
class LogResult:
    world: str
    length: int
    plants: int
    distractors: int
    decisions: list[Decision]
    full_tokens: dict[int, int]          # checkpoint turn -> full-history tokens
    records: int                         # memories in the bank (all agents)
    player_records: int
    seconds: float
    misses: list[dict[str, Any]]
    source: list[tuple]                  # records for the latency banks


class LogRun:
    """Drives one game for ``length`` turns with memory on, plants facts, and evaluates decision points."""

    def __init__(self, world_path: str, length: int, seed: int, budgets: list[int], costs: Costs,
                 diag_budget: int | None = None):
        from game.session import Game
        from game.world.loader import load_world
        from memory.optimizer import ContextOptimizer
        world = load_world(world_path)
        world = dataclasses.replace(world, spec=world.spec.model_copy(update={"max_turns": 10 ** 9}))
        self.spec = world.spec
        self.length, self.budgets, self.costs, self.diag_budget = length, budgets, costs, diag_budget
        ss = np.random.SeedSequence([seed, length, sum(map(ord, world.spec.id))])
        plan_ss, fill_ss, ask_ss = ss.spawn(3)
        self.game = Game(world, seed=seed, memory={"embedder": "minilm", "store": "flat"})
        self.gm = self.game.memory
        self.bank = self.gm.bank
        self.full_log: list[str] = []
        self.game.engine.listeners.append(self._perceive)
        self.filler = Filler(self.game.engine, np.random.default_rng(fill_ss))
        self.ask_rng = np.random.default_rng(ask_ss)
        self.plants, self.distractors = plan_log(self.spec, length, np.random.default_rng(plan_ss))
        self.opts = {b: ContextOptimizer(self.bank, MemoConfig(budget=b)) for b in budgets}
        self.decisions: list[Decision] = []
        self.full_tokens: dict[int, int] = {}
        self.misses: list[dict[str, Any]] = []

    def _perceive(self, ev: Event) -> None:
        if ev.public or PLAYER in ev.perceivers:
            self.full_log.append(ev.text)

    def _write(self, ev: Event) -> list[str]:
        """Write an event the way the engine does (memory listener + the player's transcript)."""
        before = self.bank._seq
        self.gm.on_event(ev)
        self._perceive(ev)
        new = [f"m{i}" for i in range(before + 1, self.bank._seq + 1)]
        return [r for r in new if self.bank.records[r].scope == private(PLAYER)
                and self.bank.records[r].text == ev.text]

    def run(self) -> LogResult:
        t_start = time.perf_counter()
        eng = self.game.engine
        schedule: dict[int, list] = defaultdict(list)
        for d in self.distractors:
            schedule[d.turn].append(d)
        for p in self.plants:
            schedule[p.turn].append(p)
        checkpoints = sorted({self.length // 3, 2 * self.length // 3, self.length} - {0})
        for t in range(self.length):
            if eng.done:
                raise RuntimeError(f"{self.spec.id}: the game ended at turn {t}; the filler must never finish it")
            assert eng.state.turn == t
            self.game.act(self.filler())
            for item in schedule.get(t, ()):
                rids = self._write(item.event)
                if isinstance(item, Plant):
                    item.rid = rids[0] if rids else None
            if t + 1 in checkpoints:
                self.evaluate(t + 1, end=(t + 1 == self.length))
        readable = set(readable_scopes(PLAYER))
        source = [(r.scope, r.kind, r.text, r.turn, r.speaker, r.topic, r.triple, r.anchor, r.status)
                  for r in self.bank.records.values()]
        return LogResult(world=self.spec.id, length=self.length, plants=len(self.plants),
                         distractors=len(self.distractors), decisions=self.decisions, full_tokens=self.full_tokens,
                         records=len(self.bank),
                         player_records=sum(r.scope in readable for r in self.bank.records.values()),
                         seconds=time.perf_counter() - t_start, misses=self.misses, source=source)

    # --- evaluation ----------------------------------------------------------------
    def _asked(self, now: int, end: bool) -> list[Plant]:
        latest: dict[tuple, Plant] = {}
        for p in self.plants:
            if p.turn < now and p.rid is not None:
                latest[p.key] = p
        asked = sorted(latest.values(), key=lambda p: p.pid)
        if not end and len(asked) > MID_SAMPLE:
            idx = sorted(self.ask_rng.choice(len(asked), size=MID_SAMPLE, replace=False))
            asked = [asked[i] for i in idx]
        return asked

    def evaluate(self, now: int, end: bool) -> None:
        bank, costs = self.bank, self.costs
        asked = self._asked(now, end)
        bank.flush()
        eng = self.game.engine
        obs = eng.observe(PLAYER)
        base_query = self.gm.query_for(PLAYER, obs)
        queries = [f"{base_query}\n{p.question}" for p in asked]
        # an agent facing a decision retrieves with two vectors: the situation (weight
        # MemoConfig.context_weight) and the decision itself (the focus, weight 1); relevance is
        # the max. The similarity baseline ranks by exactly the same relevance.
        qbase = bank.embed([base_query])[0]
        qonly = bank.embed([p.question for p in asked]) if asked else np.zeros((0, 384), np.float32)
        qvecs = qonly
        cw = MemoConfig().context_weight

        # full history: everything the player perceived, in order
        full_costs = costs.many(self.full_log)
        self.full_tokens[now] = costs.header + sum(full_costs)
        # the player's memories without MEMO's bookkeeping (any status; reflections are MEMO's own)
        scopes = set(readable_scopes(PLAYER))
        raw = [r for r in bank.records.values() if r.scope in scopes and r.kind != "reflection"]
        raw_costs = costs.many([r.text for r in raw])
        raw_vecs = bank.vectors([r.id for r in raw])
        by_turn: dict[int, list[int]] = defaultdict(list)
        for k, r in enumerate(raw):
            by_turn[r.turn].append(k)
        turns_desc = sorted(by_turn, reverse=True)
        # what MEMO can retrieve (for diagnosing misses)
        active = [r.id for r in bank.records.values() if r.scope in scopes and r.status in LIVE]
        active_vecs = bank.vectors(active)

        for p, query, qvec, v in zip(asked, queries, qvecs, qonly):
            d = Decision(world=self.spec.id, length=self.length, turn=now, end=end, kind=p.kind,
                         age=now - 1 - p.turn, fact=p.text, query=query)
            sims = np.maximum(cw * (raw_vecs @ qbase), raw_vecs @ qvec)
            order = np.argsort(-sims, kind="stable")
            for b in self.budgets:
                # full history, truncated at the old end
                lines, used = [], costs.header
                for text, c in zip(reversed(self.full_log), reversed(full_costs)):
                    if used + c > b:
                        break
                    used += c
                    lines.append(text)
                lines = exact_fit(lines[::-1], b, costs.count, drop_from_front=True)
                d.results[("full history (truncated)", b)] = self._score(p, lines)
                # recency window: whole turns, newest first
                sel, used, w = [], costs.header, 0
                for t in turns_desc:
                    c = sum(raw_costs[k] for k in by_turn[t])
                    if used + c > b:
                        break
                    used += c
                    sel.extend(by_turn[t])
                    w = now - t
                lines = exact_fit([raw[k].text for k in sorted(sel)], b, costs.count, drop_from_front=True)
                res = self._score(p, lines)
                res["window"] = w
                d.results[("recency window", b)] = res
                # similarity top-k: best first while they fit
                d.results[("similarity top-k", b)] = self._score(p, self._topk(order, raw, raw_costs, b))
                # MEMO
                opt = self.opts[b]
                ctx = opt.build(PLAYER, now, base_query, focus=p.question, query_vector=qbase,
                                focus_vector=qvec, touch=False)
                text = ctx.text()
                res = {"hit": p.text in text, "id_hit": p.rid in ctx.ids, "tokens": ctx.tokens}
                d.results[("MEMO", b)] = res
                res["why"] = "shown" if res["hit"] else None
                if not res["hit"]:
                    miss = self._diagnose(p, d, b, opt, qvec, active, active_vecs, "MEMO")
                    res["why"] = miss["category"]
                    self.misses.append(miss)
            if self.diag_budget is not None:
                # diagnostic: the decision question alone as the query (no observation, recent events or goals)
                b = self.diag_budget
                order = np.argsort(-(raw_vecs @ v), kind="stable")
                d.results[(QONLY_TOPK, b)] = self._score(p, self._topk(order, raw, raw_costs, b))
                opt = self.opts[b]
                ctx = opt.build(PLAYER, now, p.question, query_vector=v, touch=False)
                res = {"hit": p.text in ctx.text(), "id_hit": p.rid in ctx.ids, "tokens": ctx.tokens, "why": "shown"}
                if not res["hit"]:
                    miss = self._diagnose(p, d, b, opt, v, active, active_vecs, QONLY_MEMO)
                    res["why"] = miss["category"]
                    self.misses.append(miss)
                d.results[(QONLY_MEMO, b)] = res
            self.decisions.append(d)

    def _topk(self, order: np.ndarray, raw: list, raw_costs: list[int], b: int) -> list[str]:
        sel, used = [], self.costs.header
        min_cost = min(raw_costs) if raw_costs else 1
        for k in order:
            c = raw_costs[k]
            if used + c <= b:
                used += c
                sel.append(int(k))
            if b - used < min_cost:
                break
        return exact_fit([raw[k].text for k in sorted(sel)], b, self.costs.count, drop_from_front=False)

    def _score(self, p: Plant, lines: list[str]) -> dict[str, Any]:
        text = render(lines)
        return {"hit": p.text in text, "tokens": self.costs.count(text) if lines else 0}

    def _diagnose(self, p: Plant, d: Decision, budget: int, opt, qvec, active: list[str],
                  active_vecs: np.ndarray, method: str) -> dict[str, Any]:
        """Why MEMO's context lacks the fact, from ContextOptimizer.explain."""
        rec = self.bank.records[p.rid]
        rows = opt.explain(PLAYER, d.turn)
        row = next((r for r in rows if r["id"] == p.rid), None)
        info = {"method": method, "world": d.world, "length": d.length, "turn": d.turn, "end": d.end,
                "budget": budget, "kind": p.kind, "age": d.age, "fact": p.text, "status": rec.status,
                "importance": rec.importance, "candidates": len(rows)}
        if row is None:
            if rec.status not in LIVE:
                refl = [r for r in self.bank.records.values() if r.kind == "reflection" and p.rid in r.references]
                info["category"] = "not retrievable"
                info["reason"] = f"status '{rec.status}'"
                if refl:
                    r = refl[0]
                    quoted = p.text in r.text
                    info["quoted"] = quoted
                    info["reason"] += f": folded into reflection {r.id}, which " + ("quotes it" if quoted else
                                                                                   "does not quote it")
                    if quoted:
                        rrow = next((x for x in rows if x["id"] == r.id), None)
                        info["reason"] += (f"; the reflection was {rrow['fate']} ({rrow['reason']})" if rrow else
                                           "; the reflection was not among the candidates")
                    info["shown_instead"] = r.text
            else:
                sims = active_vecs @ qvec
                mine = float(sims[active.index(p.rid)])
                rank = int((sims > mine).sum()) + 1
                info["category"] = "not retrieved"
                info["reason"] = f"similarity rank {rank} > {opt.cfg.candidates} candidates"
                info["similarity"], info["sim_rank"] = round(mine, 4), rank
                info["top_similarity"] = round(float(sims.max()), 4)
            return info
        info.update({"fate": row["fate"], "detail": row["reason"], "score": row["score"],
                     "normalised": row["normalised"], "relevance": row["relevance"], "into": row["into"]})
        scores = sorted((r["score"] for r in rows), reverse=True)
        info["score_rank"] = scores.index(row["score"]) + 1
        info["reason"] = f"{row['fate']}: {row['reason']}"
        if row["fate"] == "dropped":
            info["category"] = "dropped by the budget"
        elif row["fate"] == "masked":
            info["category"] = "masked"
        elif row["fate"] in ("merged", "summarised"):
            info["category"] = f"{row['fate']} out of sight"
            into = next((r for r in rows if r["id"] == row["into"]), None)
            info["shown_instead"] = into["text"] if into is not None else row["into"]
        else:
            info["category"] = f"{row['fate']}, text not shown"
        return info


# --------------------------------------------------------------------------- part 2: latency


class GcWatch:
    """Times the garbage collector's passes while active (``gc.callbacks``)."""

    def __init__(self):
        self.passes: list[tuple[int, float]] = []   # (generation, ms)
        self._t = 0.0

    def _cb(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._t = time.perf_counter()
        else:
            self.passes.append((info["generation"], (time.perf_counter() - self._t) * 1e3))

    def __enter__(self) -> GcWatch:
        gc.callbacks.append(self._cb)
        return self

    def __exit__(self, *exc) -> None:
        gc.callbacks.remove(self._cb)


def bench_latency(source: list[tuple], queries: list[str], sizes: tuple[int, ...], n_queries: int,
                  seed: int) -> dict[str, Any]:
    from memory.bank import MemoryBank
    from memory.embedder import MiniLMEmbedder, get_embedder
    from memory.optimizer import ContextOptimizer
    from memory.store import Where
    emb = get_embedder("minilm")
    rng = np.random.default_rng(seed)
    qs = [queries[i] for i in sorted(rng.choice(len(queries), size=min(n_queries, len(queries)), replace=False))]
    # query embedding, timed on its own: a cold embedder, one text per call
    cold = MiniLMEmbedder(cache_size=0)
    cold(["warm-up"])
    q_lat, qvecs = [], []
    for q in qs:
        t = time.perf_counter()
        qvecs.append(cold([q])[0])
        q_lat.append((time.perf_counter() - t) * 1e3)
    before = emb.stats()["encoded"]
    bank = MemoryBank(emb)
    span = max(s[3] for s in source) + 1
    cfg = MemoConfig()
    opt = ContextOptimizer(bank, cfg)
    where = Where(scopes=readable_scopes(PLAYER), kinds=tuple(cfg.kinds) if getattr(cfg, "kinds", None) else None,
                  status=tuple(LIVE))
    rows, k, cycle = [], 0, 0
    for size in sizes:
        while len(bank) < size:
            scope, kind, text, turn, speaker, topic, triple, anchor, status = source[k]
            bank.add(scope, kind, text, turn + cycle * span, speaker=speaker, topic=topic, triple=triple,
                     anchor=anchor, status=status)
            k += 1
            if k == len(source):
                k, cycle = 0, cycle + 1
            if len(bank) % 1000 == 0:
                bank.flush()
        bank.flush()
        gc.collect()
        now = max(r.turn for r in list(bank.records.values())[-50:]) + 1
        for v, q in zip(qvecs[:5], qs[:5]):  # warm-up
            opt.build(PLAYER, now, q, query_vector=v, touch=False)
        b_lat, s_lat, toks, over, b_gc = [], [], [], 0, []
        with GcWatch() as watch:
            for v, q in zip(qvecs, qs):
                n_pass = len(watch.passes)
                t = time.perf_counter()
                ctx = opt.build(PLAYER, now, q, query_vector=v, touch=False)
                b_lat.append((time.perf_counter() - t) * 1e3)
                b_gc.append(sum(ms for _, ms in watch.passes[n_pass:]))
                toks.append(ctx.tokens)
                over += ctx.tokens > cfg.budget
                t = time.perf_counter()
                bank.store.query(v, cfg.candidates, where)
                s_lat.append((time.perf_counter() - t) * 1e3)
        readable = set(readable_scopes(PLAYER))
        in_builds = [g for g, _ in watch.passes]
        rows.append({"size": len(bank), "load": os.getloadavg()[0],
                     "player": sum(r.scope in readable for r in bank.records.values()),
                     "anchors": len(bank.anchors(PLAYER)), "build_p50": float(np.percentile(b_lat, 50)),
                     "build_p95": float(np.percentile(b_lat, 95)), "store_p50": float(np.percentile(s_lat, 50)),
                     "store_p95": float(np.percentile(s_lat, 95)), "tokens": float(np.mean(toks)), "over": over,
                     "gc_builds": sum(x > 0 for x in b_gc), "gc_ms": float(sum(b_gc)),
                     "gc_gen2": in_builds.count(2),
                     "gc_max": float(max(b_gc)),
                     "build_p95_nogc": float(np.percentile(np.array(b_lat) - np.array(b_gc), 95)),
                     "tracked": len(gc.get_objects())})
        log(f"latency at {len(bank):,} memories: build p50 {rows[-1]['build_p50']:.2f} ms, "
            f"p95 {rows[-1]['build_p95']:.2f} ms; store p95 {rows[-1]['store_p95']:.2f} ms")
    return {"rows": rows, "queries": len(qs), "query_p50": float(np.percentile(q_lat, 50)),
            "query_p95": float(np.percentile(q_lat, 95)), "unique_texts": len({s[2] for s in source}),
            "encoded_for_banks": emb.stats()["encoded"] - before}


# --------------------------------------------------------------------------- part 3: write throughput


def bench_write(texts: list[str], per_turn: int, repeats: int = 2) -> dict[str, Any]:
    from memory.bank import MemoryBank
    from memory.embedder import MiniLMEmbedder
    MiniLMEmbedder(cache_size=0)(["warm-up", "warm up the model"])
    emb_rates, bank_rates, turn_rates = [], [], []
    for _ in range(repeats):  # interleaved, best of each: the machine is shared
        e = MiniLMEmbedder(batch_size=64, cache_size=0)
        t = time.perf_counter()
        e(texts)
        emb_rates.append(len(texts) / (time.perf_counter() - t))
        bank = MemoryBank(MiniLMEmbedder(batch_size=64, cache_size=0))
        t = time.perf_counter()
        for i, text in enumerate(texts):
            bank.add(private(PLAYER), "observation", text, i // max(1, per_turn))
        bank.flush()
        bank_rates.append(len(texts) / (time.perf_counter() - t))
    bank = MemoryBank(MiniLMEmbedder(batch_size=64, cache_size=0))
    t = time.perf_counter()
    for i, text in enumerate(texts):
        bank.add(private(PLAYER), "observation", text, i // max(1, per_turn))
        if (i + 1) % per_turn == 0:
            bank.flush()
    bank.flush()
    turn_rates.append(len(texts) / (time.perf_counter() - t))
    emb, wr = max(emb_rates), max(bank_rates)
    return {"texts": len(texts), "embedder": emb, "bank": wr, "ratio": wr / emb, "per_turn": per_turn,
            "bank_per_turn": turn_rates[0], "embedder_runs": emb_rates, "bank_runs": bank_rates}


# --------------------------------------------------------------------------- the whole run


def budgets_for(length: int, budget: int, sweep_at: int) -> list[int]:
    return sorted({budget, *SWEEP}) if length == sweep_at else [budget]


def run(worlds: list[str], turns: list[int], budget: int, seed: int, latency_sizes=LATENCY_SIZES,
        latency_queries: int = 100, write_texts: int = 2000) -> dict[str, Any]:
    from memory.embedder import get_embedder
    from memory.tokens import token_counter_name
    emb = get_embedder("minilm")
    emb.load()
    costs = Costs()
    sweep_at = SWEEP_AT if SWEEP_AT in turns else max(turns)
    logs: list[LogResult] = []
    for w in worlds:
        for n in turns:
            log(f"{Path(w).name}: {n:,}-turn log")
            res = LogRun(w, n, seed, budgets_for(n, budget, sweep_at), costs, diag_budget=budget).run()
            log(f"{Path(w).name}: {n:,} turns done in {res.seconds:.1f} s ({res.records:,} memories, "
                f"{len(res.decisions)} decisions)")
            logs.append(res)
    report: dict[str, Any] = {"budget": budget, "turns": list(turns), "worlds": [lg.world for lg in logs[::len(turns)]],
                              "sweep_at": sweep_at, "token_counter": token_counter_name(), "logs": logs}
    longest = [lg for lg in logs if lg.length == max(turns)]
    source = [s for lg in longest for s in lg.source]
    queries = [d.query for lg in logs for d in lg.decisions]
    if latency_sizes:
        log("latency banks")
        report["latency"] = bench_latency(source, queries, tuple(latency_sizes), latency_queries, seed)
    if write_texts:
        log("write throughput")
        uniq = list(dict.fromkeys(s[2] for lg in logs for s in lg.source))
        rng = np.random.default_rng(seed)
        texts = [uniq[i] for i in rng.permutation(len(uniq))[:write_texts]]
        per_turn = max(1, round(np.mean([lg.records / lg.length for lg in logs])))
        report["write"] = bench_write(texts, per_turn)
    return report


# --------------------------------------------------------------------------- report


def summarise(report: dict[str, Any]) -> dict[tuple[int, str, int], dict[str, float]]:
    """(turns, method, budget) -> recall, end recall, old recall, id recall, tokens, share, over-budget count."""
    out = {}
    groups: dict[tuple[int, str, int], list] = defaultdict(list)
    for lg in report["logs"]:
        for d in lg.decisions:
            full = lg.full_tokens[d.turn]
            for (m, b), r in d.results.items():
                groups[(lg.length, m, b)].append((d, r, full))
    for key, rows in groups.items():
        hits = [r["hit"] for _, r, _ in rows]
        end = [r["hit"] for d, r, _ in rows if d.end]
        old = [r["hit"] for d, r, _ in rows if d.age >= OLD_AGE]
        ids = [r["id_hit"] for _, r, _ in rows if "id_hit" in r]
        toks = [r["tokens"] for _, r, _ in rows]
        end_rows = [(r["tokens"], full) for d, r, full in rows if d.end]
        out[key] = {"n": len(rows), "recall": float(np.mean(hits)), "end_n": len(end),
                    "end": float(np.mean(end)) if end else float("nan"),
                    "old_n": len(old), "old": float(np.mean(old)) if old else float("nan"),
                    "ids": float(np.mean(ids)) if ids else float("nan"),
                    "tokens": float(np.mean(toks)), "max_tokens": int(max(toks)),
                    "share": float(np.mean([r["tokens"] / full for _, r, full in rows])),
                    "end_share": float(np.mean([t / f for t, f in end_rows])) if end_rows else float("nan"),
                    "over": sum(t > key[2] for t in toks),
                    "window": float(np.mean([r["window"] for _, r, _ in rows])) if "window" in rows[0][1] else None}
    return out


def _pct(x: float) -> str:
    return "   -  " if x != x else f"{100 * x:5.1f}%"


def print_report(report: dict[str, Any], out=sys.stdout) -> dict[str, Any]:
    p = lambda s="": print(s, file=out)  # noqa: E731
    B = report["budget"]
    s = summarise(report)
    p(f"Part 1: key-fact recall at equal budget (B={B} tokens; worlds: {', '.join(report['worlds'])}; "
      f"token counter: {report['token_counter']})")
    p("  recall = needed fact shown verbatim in the context; 'end' = decisions at the last turn; "
      f"'old' = facts >= {OLD_AGE} turns old")
    p("  % full = context tokens / tokens of the full history at that decision (mean)")
    for n in report["turns"]:
        lgs = [lg for lg in report["logs"] if lg.length == n]
        fulls = ", ".join(f"{lg.world} {lg.full_tokens[lg.length]:,}" for lg in lgs)
        p()
        mems = ", ".join(f"{lg.world} {lg.records:,} ({lg.player_records:,} readable by the player)" for lg in lgs)
        p(f"{n:,} turns: {sum(lg.plants for lg in lgs)} facts planted, "
          f"{sum(lg.distractors for lg in lgs)} distractors; memories {mems}; "
          f"full history at the end: {fulls} tokens; generated in {sum(lg.seconds for lg in lgs):.0f} s")
        p(f"  {'method':<26}{'decisions':>9}{'recall':>8}{'end':>8}{'old':>8}{'mean tok':>9}{'max tok':>8}"
          f"{'% full':>8}{'% full@end':>11}")
        for m in METHODS:
            r = s[(n, m, B)]
            extra = f"  (W = {r['window']:.1f} turns)" if r["window"] is not None else ""
            if m == "MEMO" and r["ids"] == r["ids"]:
                extra = f"  (recall by record id {_pct(r['ids']).strip()}; over budget {r['over']}/{r['n']})"
            p(f"  {m:<26}{r['n']:>9}{_pct(r['recall']):>8}{_pct(r['end']):>8}{_pct(r['old']):>8}"
              f"{r['tokens']:>9.0f}{r['max_tokens']:>8}{_pct(r['share']):>8}{_pct(r['end_share']):>11}{extra}")
        for m in (QONLY_TOPK, QONLY_MEMO):
            r = s.get((n, m, B))
            if r is not None:
                p(f"  {m:<26}{r['n']:>9}{_pct(r['recall']):>8}{_pct(r['end']):>8}{_pct(r['old']):>8}"
                  f"{r['tokens']:>9.0f}{r['max_tokens']:>8}{_pct(r['share']):>8}{_pct(r['end_share']):>11}"
                  "  (diagnostic: the question alone as the query)")
        by_world = []
        for lg in lgs:
            rs = {m: [d.results[(m, B)]["hit"] for d in lg.decisions] for m in METHODS}
            by_world.append(f"{lg.world}: " + ", ".join(f"{m.split(' ')[0]} {_pct(float(np.mean(v))).strip()}"
                                                       for m, v in rs.items()))
        p("  by world: " + "; ".join(by_world))
        kinds = sorted({d.kind for lg in lgs for d in lg.decisions})
        row = []
        for k in kinds:
            hits = {m: [d.results[(m, B)]["hit"] for lg in lgs for d in lg.decisions if d.kind == k] for m in METHODS}
            row.append(k + " " + "/".join(_pct(float(np.mean(h))).strip() for h in hits.values()))
        p("  by fact kind (full/recency/top-k/MEMO): " + "; ".join(row))

    sw = report["sweep_at"]
    budgets = sorted({b for (n, _, b) in s if n == sw})
    if len(budgets) > 1:
        p()
        p(f"Budget sweep at {sw:,} turns (recall all / end; mean tokens; % of full history)")
        p(f"  {'B':>5}  " + "".join(f"{m:>34}" for m in METHODS))
        for b in budgets:
            cells = [f"{_pct(s[(sw, m, b)]['recall']).strip()}/{_pct(s[(sw, m, b)]['end']).strip()} "
                     f"{s[(sw, m, b)]['tokens']:.0f}t {_pct(s[(sw, m, b)]['share']).strip()}" for m in METHODS]
            p(f"  {b:>5}  " + "".join(f"{c:>34}" for c in cells))

    misses = [m for lg in report["logs"] for m in lg.misses]
    p()
    p(f"Where MEMO loses the needed fact (B={B}; ContextOptimizer.explain on every miss)")
    cats = ("shown", "not retrievable", "not retrieved", "dropped by the budget", "masked",
            "merged out of sight", "summarised out of sight")
    short = ("shown", "consolidated", "not in top-k", "over budget", "masked", "merged", "summarised")
    p("  (consolidated = folded into a reflection, not retrievable; not in top-k = outside the similarity "
      "candidates; merged/summarised = a member of a line that does not show its text)")
    p(f"  {'turns':>5}  {'query':<14}" + "".join(f"{c:>14}" for c in short) + f"{'other':>7}")
    for n in report["turns"]:
        for m, label in (("MEMO", "full query"), (QONLY_MEMO, "question only")):
            whys = Counter(d.results[(m, B)].get("why") for lg in report["logs"] if lg.length == n
                           for d in lg.decisions if (m, B) in d.results)
            if not whys:
                continue
            total = sum(whys.values())
            other = total - sum(whys[c] for c in cats)
            p(f"  {n:>5}  {label:<14}" + "".join(f"{whys[c]:>5} {_pct(whys[c] / total):>8}" for c in cats)
              + f"{other:>7}")
    if len(budgets) > 1:
        p(f"  budget sweep at {sw:,} turns, full query: " + "; ".join(
            f"B={b}: " + ", ".join(f"{c} {k}" for c, k in sorted(Counter(
                m["category"] for m in misses if m["method"] == "MEMO" and m["length"] == sw and m["budget"] == b
            ).items())) for b in budgets))
    focus = GOAL_TURNS if GOAL_TURNS in report["turns"] else max(report["turns"])
    sel = [m for m in misses if m["length"] == focus and m["budget"] == B and m["end"]]
    for method in ("MEMO", QONLY_MEMO):
        ms = [m for m in sel if m["method"] == method]
        if not ms:
            continue
        p(f"  {focus:,} turns, end of log, {method}: {len(ms)} misses")
        nr = [m for m in ms if m["category"] == "not retrieved"]
        if nr:
            p(f"    not retrieved: needed fact's similarity rank median {np.median([m['sim_rank'] for m in nr]):.0f} "
              f"(cosine {np.median([m['similarity'] for m in nr]):.3f} vs best candidate "
              f"{np.median([m['top_similarity'] for m in nr]):.3f}); "
              f"ages median {np.median([m['age'] for m in nr]):.0f} turns")
        dr = [m for m in ms if m["category"] == "dropped by the budget"]
        if dr:
            med = {k: float(np.median([m["normalised"][k] for m in dr]))
                   for k in ("relevance", "recency", "importance")}
            p(f"    dropped by the budget: score rank median {np.median([m['score_rank'] for m in dr]):.0f} of "
              f"{np.median([m['candidates'] for m in dr]):.0f} candidates; "
              f"normalised relevance {med['relevance']:.2f}, "
              f"recency {med['recency']:.2f}, importance {med['importance']:.2f} (medians); "
              f"kinds {dict(Counter(m['kind'] for m in dr))}")
        nv = [m for m in ms if m["category"] == "not retrievable"]
        if nv:
            p(f"    consolidated: statuses {dict(Counter(m['status'] for m in nv))}; "
              f"kinds {dict(Counter(m['kind'] for m in nv))}; "
              f"the reflection quotes the fact in {sum(bool(m.get('quoted')) for m in nv)} of {len(nv)}")
        so = [m for m in ms if m["category"].endswith("out of sight")]
        if so:
            p(f"    out of sight: kinds {dict(Counter(m['kind'] for m in so))}")
        shown: dict[str, int] = Counter()
        for m in ms:
            if shown[m["category"]] >= 1:
                continue
            shown[m["category"]] += 1
            bits = [f"{m['world']} turn {m['turn']}, {m['kind']} planted {m['age']} turns earlier: {m['fact']}",
                    f"{m['category']}: {m['reason']}"]
            if "score" in m:
                bits.append(f"score {m['score']:.3f} (rank {m['score_rank']} of {m['candidates']}), raw relevance "
                            f"{m['relevance']:.3f}, normalised {m['normalised']}")
            if m.get("shown_instead", "").startswith("sum:"):
                bits.append(f"folded into the summary line {m['shown_instead']}, which quotes other members")
            elif m.get("shown_instead"):
                bits.append(f"shown instead: {m['shown_instead'][:200]}")
            p("    - " + "\n      ".join(bits))

    lat = report.get("latency")
    if lat:
        p()
        p(f"Part 2: context-build latency ({lat['queries']} queries; banks replay the longest logs' records, "
          f"{lat['unique_texts']:,} unique texts, real MiniLM vectors; {lat['encoded_for_banks']} texts encoded anew)")
        p(f"  query embedding alone (MiniLM, one text per call, cache off): p50 {lat['query_p50']:.1f} ms, "
          f"p95 {lat['query_p95']:.1f} ms")
        p(f"  {'memories':>9}{'player':>8}{'anchors':>8}{'store p50':>10}{'store p95':>10}{'build p50':>10}"
          f"{'build p95':>10}{'build/store p95':>16}{'mean tok':>9}{'over B':>7}{'load avg':>9}")
        for r in lat["rows"]:
            p(f"  {r['size']:>9,}{r['player']:>8,}{r['anchors']:>8}{r['store_p50']:>10.2f}{r['store_p95']:>10.2f}"
              f"{r['build_p50']:>10.2f}{r['build_p95']:>10.2f}{r['build_p95'] / r['store_p95']:>15.1f}x"
              f"{r['tokens']:>9.0f}{r['over']:>7}{r['load']:>9.2f}")
        for r in lat["rows"]:
            p(f"  {r['size']:>9,}: the garbage collector ran during {r['gc_builds']} of {lat['queries']} builds "
              f"({r['gc_gen2']} full passes), {r['gc_ms']:.1f} ms in all, longest {r['gc_max']:.1f} ms; build p95 "
              f"without those pauses {r['build_p95_nogc']:.2f} ms; {r['tracked']:,} gc-tracked objects in the process")
    wr = report.get("write")
    if wr:
        p()
        p(f"Part 3: write throughput on {wr['texts']:,} unique memory texts (cold MiniLM, cache off, batch 64; best of "
          f"{len(wr['embedder_runs'])})")
        p(f"  embedder alone, one batched call:        {wr['embedder']:>8,.0f} texts/s   "
          f"(runs: {', '.join(f'{x:,.0f}' for x in wr['embedder_runs'])})")
        p(f"  bank.add each + one flush:               {wr['bank']:>8,.0f} memories/s  "
          f"(runs: {', '.join(f'{x:,.0f}' for x in wr['bank_runs'])}); ratio {wr['ratio']:.2f}")
        p(f"  bank.add, flush every {wr['per_turn']} (one game turn):  {wr['bank_per_turn']:>8,.0f} memories/s  "
          f"(ratio {wr['bank_per_turn'] / wr['embedder']:.2f}; information only)")

    # goals
    goals = []
    if (GOAL_TURNS, "MEMO", B) in s:
        m = s[(GOAL_TURNS, "MEMO", B)]
        goals.append((f"{GOAL_TURNS:,} turns: MEMO recall >= {GOAL_RECALL:.0%} (end-of-log decisions, B={B})",
                      m["end"] >= GOAL_RECALL, f"{_pct(m['end']).strip()} of {m['end_n']} (all checkpoints "
                                                f"{_pct(m['recall']).strip()} of {m['n']})"))
        goals.append((f"{GOAL_TURNS:,} turns: MEMO tokens <= {GOAL_SHARE:.0%} of full history",
                      m["end_share"] <= GOAL_SHARE, f"{_pct(m['end_share']).strip()} at the end "
                                                    f"({m['tokens']:.0f} tokens mean, max {m['max_tokens']})"))
        for other in ("recency window", "similarity top-k"):
            o = s[(GOAL_TURNS, other, B)]
            goals.append((f"{GOAL_TURNS:,} turns: MEMO beats {other} at B={B}", m["end"] > o["end"],
                          f"end {_pct(m['end']).strip()} vs {_pct(o['end']).strip()}; all {_pct(m['recall']).strip()} "
                          f"vs {_pct(o['recall']).strip()}"))
    else:
        goals.append((f"{GOAL_TURNS:,}-turn recall goals", None, "not measured (no 1,000-turn log in --turns)"))
    if lat:
        for size, lim in GOAL_P95_MS.items():
            r = next((r for r in lat["rows"] if r["size"] == size), None)
            goals.append((f"p95 build <= {lim:.0f} ms at {size // 1000}k memories", None if r is None else
                          r["build_p95"] <= lim, "not measured" if r is None else f"{r['build_p95']:.2f} ms"))
    if wr:
        goals.append((f"write throughput >= {GOAL_WRITE_RATIO:.0%} of the embedder's batched throughput",
                      wr["ratio"] >= GOAL_WRITE_RATIO,
                      f"{wr['ratio']:.2f} ({wr['bank']:,.0f} vs {wr['embedder']:,.0f}/s)"))
    p()
    p("Goals")
    for name, ok, val in goals:
        p(f"  {'met    ' if ok else 'NOT met' if ok is False else 'n/a    '}  {name}: {val}")
    return {"summary": s, "goals": goals}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worlds", nargs="+", default=list(DEFAULT_WORLDS))
    ap.add_argument("--turns", nargs="+", type=int, default=None)
    ap.add_argument("--budget", type=int, default=MemoConfig().budget)
    ap.add_argument("--quick", action="store_true", help="first world only, turns 50/200/1000, fewer queries/texts")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    worlds = args.worlds[:1] if args.quick else args.worlds
    turns = args.turns or ([50, 200, 1000] if args.quick else list(DEFAULT_TURNS))
    import torch
    affinity = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    print(f"machine: {os.cpu_count()} cores ({affinity} usable, torch {torch.get_num_threads()} threads), load average "
          f"{os.getloadavg()[0]:.2f} at start; python {sys.version.split()[0]}, numpy {np.__version__}", flush=True)
    print(f"run: worlds {', '.join(Path(w).name for w in worlds)}; turns {', '.join(map(str, turns))}; "
          f"budget {args.budget}; seed {args.seed}{' (--quick)' if args.quick else ''}", flush=True)
    report = run(worlds, turns, args.budget, args.seed,
                 latency_queries=50 if args.quick else 100, write_texts=512 if args.quick else 2000)
    print()
    print_report(report)
    print()
    print(f"load average {os.getloadavg()[0]:.2f} at end; total {time.perf_counter() - T0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
