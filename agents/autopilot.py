"""A goal-directed heuristic player for headless runs (``parley run WORLD --autopilot``).

``Autopilot(engine, rng)`` reads the engine (``engine.spec`` and ``engine.state``)
and never changes it: it only returns the player's next ``Action``. What it
uses is what a careful human player could know:

* the quest goals, the map of the locations it has visited (their exits), the
  locks, the trade and council scenes (issues, parties, stances), and its own
  inventory and gold;
* what it has *seen*: items and people in the rooms it stood in, remembered
  until it looks again;
* what NPCs *claim* when asked (``say`` events with claims). Claims are only
  hints for where to look first; a hint that does not pan out is dropped. It
  never reads whether a fact is true, nor how honest an NPC is.

Each turn it picks the first of:

1. a move in the open negotiation: it models the merchant's time-based
   concession negotiator, looks ahead over the rounds left, and closes the
   deal at the round where the best outcome the merchant will accept (within
   the gold it can spare) is worth the most, less a small cost per turn of
   waiting. If the merchant does not behave as modelled it falls back to
   accepting any affordable counter-offer or offering the merchant's favourite
   affordable outcome;
2. something useful right here: hand a quest item to the NPC who wants it,
   show evidence to a council member who is not yet for the motion, drop an
   item where a quest wants it, call the vote once it will pass, unlock a
   lock it holds the key to, open a container, take an item a quest, a lock
   or a council needs (or one an NPC here would thank it for), start a needed
   trade, or ask an NPC here where a needed thing is;
3. a step along a shortest known path to the nearest place where (2) will
   apply; else toward a location an NPC named for a needed thing; else toward
   the nearest unexplored location; else to the least recently visited place;
4. wait.

Trust (``make_autopilot(game, seed, trust=True)``, the default): the autopilot
reads the game's Σ-Mem (``game.facts.sigma``, learnt by the game from verified
outcomes) and never writes it. It uses only reads (``score``, ``route``,
``vote``), and only at two decisions:

* **M-Route**, whom to ask about a needed thing. The thing's topic comes from
  the claims heard about it, else from the world's fact catalogue (a fact's
  subject and topic, never its object or whether it is true). The candidates
  are the NPCs here whose talk hint lists that topic (``dialogue.topics_of``,
  the same list ``talk`` shows), in the usual order. It asks
  ``sigma.route(topic, candidates)`` (ties keep that order), but never an NPC
  whose score on the topic is below 0: that NPC has been proved wrong there
  more than right. After the usual one question per thing it may ask once more,
  if the candidate now routed to is trusted (score > 0) and nobody trusted has
  spoken about the thing yet;
* **M-Vote**, which lead to follow. When the claims heard about the same
  (subject, relation) name several places still worth a look, it heads for
  ``sigma.vote(topic, {speaker: place})`` first (the last claim of each
  speaker counts), and to the others only once that one has been ruled out.
  When no claimant is trusted (score > 0) the vote is a plain majority; a tied
  majority prefers no place, and it takes the nearest lead as without trust.

With ``trust=False``, or a game without world facts, it plays exactly as
without trust (nearest lead first, the first talker here). ``trust`` may also
be a ``SigmaMem`` to read instead of the game's (for example one kept across
games; the autopilot still only reads it).

Ties are broken with its own ``numpy.random.Generator``, so a run is a function
of the engine state, the autopilot's memory, the trust it reads and that
generator. ``get_state``/``set_state`` round-trip its memory and generator as
JSON-able data (the Σ-Mem belongs to the game and is saved with it).
"""

from __future__ import annotations

import itertools
from collections import deque
from typing import Any

import numpy as np

from agents.base import BaseAgent
from game import dialogue
from game.rules import reachable
from game.types import PLAYER, Action, Observation, Verb

STATE_VERSION = 2         # 2: claims heard and leads followed (a version 1 state loads with both empty)
TURN_COST = 0.05         # utility a negotiation gives up per extra turn spent haggling
HASTE_TURNS = 30         # with fewer turns left than this, close every deal at once
MAX_ASKS_PER_THING = 1   # ask at most this many NPCs where one needed thing is
MAX_TRADE_TRIES = 3      # re-open a failed negotiation at most this many times


def seeded_rng(seed: int) -> np.random.Generator:
    """The autopilot's own random stream for a game seed (independent of the engine's)."""
    return np.random.default_rng(np.random.SeedSequence([int(seed), 1]))


def make_autopilot(game_or_engine: Any, seed: int | None = None, trust: Any = True) -> Autopilot:
    """An ``Autopilot`` for a ``Game`` or an ``Engine``, seeded from ``seed`` (default: the game's).

    ``trust``: True reads the game's Σ-Mem (``game.facts.sigma``) when the game has world
    facts (an ``Engine`` has none: no trust); False plays without trust; a ``SigmaMem``
    (anything with ``score``/``route``/``vote``) is read instead of the game's. It is only read.
    """
    engine = getattr(game_or_engine, "engine", game_or_engine)
    if trust is True:
        facts = getattr(game_or_engine, "facts", None)
        sigma = getattr(facts, "sigma", None) if facts is not None else None
    elif trust is False or trust is None:
        sigma = None
    else:
        sigma = trust
    return Autopilot(engine, seeded_rng(engine.seed if seed is None else seed), sigma=sigma)


def command_text(engine: Any, action: Action) -> str:
    """A readable command line for an action (for echoing headless runs)."""
    from game.phrasing import phrase

    def exit_name(direction: str) -> str:
        lock = engine.spec.locations[engine.state.where[PLAYER]].locked.get(direction)
        return lock.name if lock is not None else direction
    return phrase(action, engine.name, exit_name)


class Autopilot(BaseAgent):
    """Plays the player's side of a game to win it (see the module docstring)."""

    uses_context = True  # it receives the player context; its plan reads the engine state

    def __init__(self, engine: Any, rng: np.random.Generator | None = None, *,
                 ask: bool = True, turn_cost: float = TURN_COST, sigma: Any = None):
        super().__init__(PLAYER)
        self.engine = engine
        self.spec = engine.spec
        self.rng = rng if rng is not None else seeded_rng(engine.seed)
        self.ask = bool(ask)
        self.sigma = sigma  # Σ-Mem to read (never written), or None: play without trust
        self._picked: str | None = None      # the place the last _step_to headed for (transient)
        self.turn_cost = float(turn_cost)
        self._models: dict[str, Any] = {}    # scene -> the merchant's modelled negotiator (derived)
        self._answers: dict[tuple, bool] = {}  # (scene, moves, terms) -> modelled acceptance (derived)
        self._analyse_spec()
        self._reset_memory()

    # --- what the spec says, once ------------------------------------------------------
    def _analyse_spec(self) -> None:
        from game.negotiation.utility import utilities_for
        from game.world.spec import CouncilScene, NegotiationScene
        spec = self.spec
        self.loc_order = {k: i for i, k in enumerate(spec.locations)}
        # the topic each thing is talked about under: the fact catalogue's subject -> topic
        # (the vocabulary of the talk hints; never a fact's object or truth)
        self.subject_topic: dict[str, str] = {}
        for f in spec.facts.values():
            self.subject_topic.setdefault(f.subject, f.topic)
        self.trades: dict[str, dict[str, Any]] = {}
        for nid, npc in spec.npcs.items():
            sid = npc.trade
            sc = spec.scenes.get(sid) if sid else None
            if not isinstance(sc, NegotiationScene) or PLAYER not in (p.id for p in sc.parties):
                continue
            if sid in self.trades:
                continue
            other = next(p.id for p in sc.parties if p.id != PLAYER)
            utils = utilities_for(sc)
            issues = list(sc.issues)
            outcomes = [dict(zip(issues, vals)) for vals in itertools.product(*(sc.issues[i] for i in issues))]
            self.trades[sid] = {"npc": nid, "other": other, "scene": sc, "outcomes": outcomes,
                                "me": utils[PLAYER], "them": utils[other],
                                "first": sc.first or sc.parties[0].id}
        self.councils = {sid: sc for sid, sc in spec.scenes.items() if isinstance(sc, CouncilScene)}

    def _model(self, sid: str) -> Any:
        """The merchant's negotiator as the engine's default factory builds it (None if unknown)."""
        from game.scenes import default_negotiator
        if getattr(self.engine.scenes, "factory", None) is not default_negotiator:
            return None
        t = self.trades[sid]
        cache = self._models
        if sid not in cache:
            other = t["other"]
            params = self.spec.npcs[other].agent.params if other in self.spec.npcs else {}
            try:
                cache[sid] = default_negotiator(t["scene"], other, t["them"], params)
            except Exception:  # an unknown negotiator kind: play without a model
                cache[sid] = None
        return cache[sid]

    # --- memory ----------------------------------------------------------------------
    def _reset_memory(self) -> None:
        self.visited: dict[str, int] = {}        # location -> last turn stood there
        self.seen_items: dict[str, str] = {}     # item -> location it was last seen lying in
        self.seen_npcs: dict[str, str] = {}      # npc -> location last seen
        self.hints: dict[str, list[str]] = {}    # thing -> places someone said it is
        self.asked: list[list[str]] = []         # [npc, thing] pairs already asked
        self.neg: dict[str, dict[str, Any]] = {}  # scene -> {"fallback", "expect", "tries"}
        self.claims: list[list[str]] = []        # [speaker, subject, relation, object, topic] heard when asking
        self.followed: list[list[Any]] = []      # [thing, place, steps]: leads it walked toward (a diagnostic)
        self.actions = 0
        self.invalid = 0
        self.last_turn = -1

    def get_state(self) -> dict[str, Any]:
        return {"version": STATE_VERSION, "visited": dict(self.visited), "seen_items": dict(self.seen_items),
                "seen_npcs": dict(self.seen_npcs), "hints": {k: list(v) for k, v in self.hints.items()},
                "asked": [list(p) for p in self.asked],
                "neg": {k: dict(v) for k, v in self.neg.items()}, "actions": self.actions,
                "invalid": self.invalid, "last_turn": self.last_turn,
                "claims": [list(c) for c in self.claims], "followed": [list(f) for f in self.followed],
                "rng": self.rng.bit_generator.state}

    def set_state(self, state: dict[str, Any]) -> None:
        if state.get("version") not in (1, STATE_VERSION):
            raise ValueError(f"autopilot state version {state.get('version')!r}, expected {STATE_VERSION}")
        self.visited = {str(k): int(v) for k, v in state["visited"].items()}
        self.seen_items = dict(state["seen_items"])
        self.seen_npcs = dict(state["seen_npcs"])
        self.hints = {k: list(v) for k, v in state["hints"].items()}
        self.asked = [list(p) for p in state["asked"]]
        self.neg = {k: dict(v) for k, v in state["neg"].items()}
        self.actions = int(state["actions"])
        self.invalid = int(state["invalid"])
        self.last_turn = int(state["last_turn"])
        self.claims = [[str(x) for x in c] for c in state.get("claims", ())]
        self.followed = [[str(t), str(p), int(n)] for t, p, n in state.get("followed", ())]
        self.rng.bit_generator.state = state["rng"]

    # --- acting ----------------------------------------------------------------------
    def act(self, observation: Observation | None = None, context: Any = None) -> Action:
        if observation is None:
            observation = self.engine.observe(PLAYER)
        self._perceive(observation)
        action = self._choose()
        self.actions += 1
        self.last_turn = self.engine.state.turn
        return action

    def _perceive(self, obs: Observation) -> None:
        st, spec = self.engine.state, self.spec
        here = st.where[PLAYER]
        self.visited[here] = st.turn
        for ev in obs.recent:
            if ev.kind == "invalid" and ev.actor == PLAYER:
                self.invalid += 1
            if ev.kind == "say" and ev.data.get("asked_by") == PLAYER:
                for c in ev.data.get("claims", ()):
                    place = c.get("object")
                    heard = [str(c.get(k) or "") for k in ("speaker", "subject", "relation", "object", "topic")]
                    if heard not in self.claims:
                        self.claims.append(heard)
                    if place in spec.locations or place in spec.items:
                        places = self.hints.setdefault(c.get("subject", ""), [])
                        if place not in places:
                            places.append(place)
        items_here = [i for i in obs.visible if i in spec.items]
        npcs_here = [n for n in obs.visible if n in spec.npcs]
        for i, where in list(self.seen_items.items()):
            if where == here and i not in items_here:
                del self.seen_items[i]
        for i in items_here:
            self.seen_items[i] = here
        for i in obs.inventory:
            self.seen_items.pop(i, None)
        for n, where in list(self.seen_npcs.items()):
            if where == here and n not in npcs_here:
                del self.seen_npcs[n]
        for n in npcs_here:
            self.seen_npcs[n] = here
        # a negotiation we expected to close but is still open: the model is wrong
        for sid, info in self.neg.items():
            if info.get("expect") and st.active_scene == sid:
                info["fallback"] = True
            if st.active_scene != sid:
                info["expect"] = False

    # --- goals -----------------------------------------------------------------------
    def _goals(self) -> dict[str, Any]:
        """What still has to happen, from the incomplete quests and the locks still shut."""
        st, spec = self.engine.state, self.spec
        from game.quests import holds
        done = set(st.quests_done)
        g: dict[str, Any] = {"need": [], "keep": set(), "give": [], "drop": [], "at": [],
                             "trade": {}, "council": {}, "evidence": {}, "keys": []}
        for qid, q in spec.quests.items():
            if qid in done:
                continue
            for c in q.goal:
                if holds(c, st) and c.kind not in ("has",):
                    continue
                k = c.kind
                if k == "has":
                    g["keep"].add(c.item)
                    if not holds(c, st):
                        g["need"].append(c.item)
                elif k == "gave":
                    g["give"].append((c.item, c.npc))
                    g["need"].append(c.item)
                    g["keep"].add(c.item)
                elif k == "item_at":
                    g["drop"].append((c.item, c.location))
                    g["need"].append(c.item)
                    g["keep"].add(c.item)
                elif k == "opened":
                    g["need"].append(c.item)
                elif k == "at":
                    others = [o for o in q.goal if o is not c]
                    if all(holds(o, st) for o in others):
                        g["at"].append(c.location)
                elif k == "scene":
                    if c.scene in self.trades:
                        g["trade"][c.scene] = c.outcome
                    elif c.scene in self.councils:
                        g["council"][c.scene] = c.outcome
        for lid, loc in spec.locations.items():
            for d, lock in loc.locked.items():
                if f"{lid}:{d}" not in st.unlocked:
                    g["keys"].append(lock.key)
        for iid, item in spec.items.items():
            if item.locked_with and iid not in st.unlocked and iid not in st.opened:
                g["keys"].append(item.locked_with)
        for sid, outcome in g["council"].items():
            if outcome == "passed" and self._council_open(sid) and not self._projected(sid, "yes"):
                stances = self._stances(sid)
                for p in self.councils[sid].participants:
                    if p.id != PLAYER and stances.get(p.id) != "for":
                        for e in p.persuaded_by:
                            g["evidence"].setdefault(e, []).append(p.id)
        wanted = set(g["need"]) | set(g["keys"]) | set(g["evidence"])
        for sid, t in self.trades.items():
            item = t["scene"].trade.item if t["scene"].trade else None
            if sid not in g["trade"] and item in wanted and st.item_at.get(item) == t["scene"].trade.seller:
                g["trade"][sid] = "agreement"
        g["wanted"] = wanted
        g["keep"] |= set(g["keys"])
        return g

    def _stances(self, sid: str) -> dict[str, str]:
        cs = self.engine.state.scenes.get(sid)
        if cs and "stances" in cs:
            return dict(cs["stances"])
        return {p.id: p.stance for p in self.councils[sid].participants}

    def _council_open(self, sid: str) -> bool:
        return self.engine.state.scenes.get(sid, {}).get("status") in (None, "debating")

    def _projected(self, sid: str, my_vote: str) -> bool:
        """Whether the motion would pass if the vote were called now and the player voted ``my_vote``."""
        sc, stances = self.councils[sid], self._stances(sid)
        yes = sum(1 for p in sc.participants
                  if (p.id == PLAYER and my_vote == "yes") or (p.id != PLAYER and stances.get(p.id) == "for"))
        return yes / len(sc.participants) > sc.majority

    # --- choosing ----------------------------------------------------------------------
    def _do(self, verb: Verb, obj: str | None = None, target: str | None = None, text: str | None = None,
            terms: dict[str, str] | None = None) -> Action:
        t = tuple(sorted(terms.items())) if terms is not None else None
        return Action(PLAYER, verb, obj=obj, target=target, text=text, terms=t)

    def _choose(self) -> Action:
        st = self.engine.state
        g = self._goals()
        if st.active_scene is not None:
            return self._negotiate(st.active_scene, g)
        return self._local(g) or self._navigate(g) or self._do(Verb.WAIT)

    def _held(self) -> set[str]:
        return {i for i, h in self.engine.state.item_at.items() if h == PLAYER}

    def _affordable_min(self, sid: str) -> int | None:
        """The lowest price the merchant could ever accept (its reservation or better), or None."""
        t = self.trades[sid]
        trade = t["scene"].trade
        if trade is None:
            return 0
        prices = [int(o[trade.price_issue]) for o in t["outcomes"] if t["them"](o) >= t["them"].reservation]
        return min(prices) if prices else None

    def _trade_ok(self, sid: str) -> bool:
        info = self.neg.get(sid, {})
        if info.get("tries", 0) >= MAX_TRADE_TRIES:
            return False
        low = self._affordable_min(sid)
        return low is not None and self.engine.state.gold.get(PLAYER, 0) >= low

    def _local(self, g: dict[str, Any]) -> Action | None:
        eng, st, spec = self.engine, self.engine.state, self.spec
        here = st.where[PLAYER]
        held = self._held()
        npcs_here = [n for n in spec.npcs if st.where.get(n) == here]
        reserved = {item: npc for item, npc in g["give"]}
        # 1. quest gifts
        for item, npc in g["give"]:
            if item in held and npc in npcs_here and not self._needed_for_has(item):
                return self._do(Verb.GIVE, item, npc)
        # 2. evidence for council members who are not yet for the motion
        for item, members in g["evidence"].items():
            if item not in held or item in reserved or self._needed_for_has(item):
                continue
            for m in members:
                if m in npcs_here:
                    return self._do(Verb.GIVE, item, m)
        # 3. put an item where a quest wants it
        for item, loc in g["drop"]:
            if item in held and loc == here:
                return self._do(Verb.DROP, item)
        # 4. call the vote once it goes the way a quest wants
        for sid, outcome in g["council"].items():
            if self.councils[sid].location == here and eng.scenes.council_here(PLAYER) == sid:
                if outcome == "passed" and self._projected(sid, "yes"):
                    return self._do(Verb.VOTE, text="yes")
                if outcome == "failed" and not self._projected(sid, "no"):
                    return self._do(Verb.VOTE, text="no")
        # 5. unlock what we hold the key to
        for d, lock in spec.locations[here].locked.items():
            if f"{here}:{d}" not in st.unlocked and lock.key in held:
                return self._do(Verb.UNLOCK, f"exit:{d}", lock.key)
        reach = [i for i in spec.items if reachable(eng, PLAYER, i)]
        for iid in reach:
            item = spec.items[iid]
            if item.locked_with and iid not in st.unlocked and iid not in st.opened and item.locked_with in held:
                return self._do(Verb.UNLOCK, iid, item.locked_with)
        # 6. open containers (what is inside may be needed; some quests want them opened)
        for iid in reach:
            item = spec.items[iid]
            if item.container and iid not in st.opened and (item.locked_with is None or iid in st.unlocked):
                return self._do(Verb.OPEN, iid)
        # 7. take what a quest, a lock or the council needs, or what someone here would thank us for
        placed = {item for item, loc in g["drop"] if st.item_at.get(item) == loc}
        thanks = self._thanks(npcs_here)
        for iid in reach:
            if iid in held or not spec.items[iid].portable or iid in placed:
                continue
            if iid in g["wanted"] or iid in thanks:
                return self._do(Verb.TAKE, iid)
        # 8. small favours: an NPC here wants something we carry and no goal needs
        for iid in sorted(held, key=list(spec.items).index):
            if iid in g["wanted"] or iid in g["keep"] or iid in g["evidence"]:
                continue
            for n in npcs_here:
                if iid in spec.npcs[n].wants and f"{iid}>{n}" not in st.gave:
                    return self._do(Verb.GIVE, iid, n)
        # 9. start a needed trade
        for sid, outcome in g["trade"].items():
            npc = self.trades[sid]["npc"]
            if npc in npcs_here and self._trade_ok(sid) and eng.scenes.trade_refusal(PLAYER, npc) is None:
                info = self.neg.setdefault(sid, {"fallback": False, "expect": False, "tries": 0})
                info["tries"] = int(info.get("tries", 0)) + 1
                return self._do(Verb.TRADE, npc)
        # 10. ask where a needed thing is
        talkers = [n for n in npcs_here if dialogue.topics_of(eng, n)]  # NPCs with something to tell
        if self.ask and talkers and self._unexplored():
            for thing in self._lost(g, keys=False):
                if self.sigma is not None:
                    pick = self._informant(thing, talkers)
                    if pick is not None:
                        self.asked.append([pick, thing])
                        return self._do(Verb.ASK, pick, thing)
                    continue
                asked = [p for p in self.asked if p[1] == thing]
                if len(asked) >= MAX_ASKS_PER_THING or self._live_hints(thing):
                    continue
                for n in talkers:
                    if [n, thing] not in self.asked:
                        self.asked.append([n, thing])
                        return self._do(Verb.ASK, n, thing)
        return None

    # --- trust (reads of Σ-Mem only) ----------------------------------------------------
    def _topic_of(self, thing: str) -> str | None:
        """The topic ``thing`` is talked about under: from a claim heard about it, else the catalogue."""
        for c in self.claims:
            if c[1] == thing and c[4]:
                return c[4]
        return self.subject_topic.get(thing)

    def _score(self, peer: str, topic: str) -> float:
        from game.errors import InputError
        try:
            return float(self.sigma.score(peer, topic))
        except InputError:  # a topic the memory does not know: no evidence either way
            return 0.0

    def _informant(self, thing: str, talkers: list[str]) -> str | None:
        """M-Route: whom here to ask where ``thing`` is (None: ask nobody now)."""
        from game.errors import InputError
        topic = self._topic_of(thing)
        cands = [n for n in talkers if [n, thing] not in self.asked
                 and (topic is None or topic in dialogue.topics_of(self.engine, n))]
        if not cands:
            return None
        asked = [p for p in self.asked if p[1] == thing]
        first_ask = len(asked) < MAX_ASKS_PER_THING and not self._live_hints(thing)
        if topic is None:
            return cands[0] if first_ask else None
        try:
            pick = self.sigma.route(topic, cands)
        except InputError:
            pick = cands[0]
        score = self._score(pick, topic)
        if score < 0:  # proved wrong on this topic more than right: not worth a turn
            return None
        if first_ask:
            return pick
        # one more question, to someone trusted, while nobody trusted has spoken about it
        if score > 0 and not any(self._score(p[0], topic) > 0 for p in asked):
            return pick
        return None

    def _leads(self, thing: str) -> list[str]:
        """Live hints for ``thing`` to follow now. With trust, when the claims about one
        (subject, relation) name several live places, only M-Vote's answer (until it is
        ruled out; a tie among untrusted claimants decides nothing); otherwise every live hint."""
        live = self._live_hints(thing)
        if self.sigma is None or len(live) < 2:
            return live
        from game.errors import InputError
        groups: dict[str, dict[str, str]] = {}   # relation -> {speaker: place} (a speaker's last claim)
        topics: dict[str, str] = {}
        for speaker, subject, relation, obj, topic in self.claims:
            if subject == thing and obj in live:
                groups.setdefault(relation, {})[speaker] = obj
                topics.setdefault(relation, topic)
        winners: list[str] = []
        for relation, claims in groups.items():
            if len(set(claims.values())) < 2:
                continue
            topic = topics[relation]
            if not any(self._score(p, topic) > 0 for p in claims):
                # nobody here is trusted: M-Vote is a plain majority; a tied one prefers nothing
                counts = sorted((list(claims.values()).count(o) for o in set(claims.values())), reverse=True)
                if counts[0] == counts[1]:
                    continue
            try:
                win = self.sigma.vote(topic, claims)
            except InputError:
                continue
            if win not in winners:
                winners.append(str(win))
        return winners or live

    def _needed_for_has(self, item: str) -> bool:
        """True if an unfinished quest still needs the player to hold ``item`` (so: don't give it yet)."""
        done = set(self.engine.state.quests_done)
        for qid, q in self.spec.quests.items():
            if qid in done:
                continue
            if any(c.kind == "has" and c.item == item for c in q.goal):
                return True
        return False

    def _thanks(self, npcs_here: list[str]) -> set[str]:
        """Items that an NPC standing here wants and has not been given yet."""
        st = self.engine.state
        return {i for n in npcs_here for i in self.spec.npcs[n].wants if f"{i}>{n}" not in st.gave}

    def _lost(self, g: dict[str, Any], keys: bool = True) -> list[str]:
        """Needed things whose whereabouts we do not know (and no merchant sells)."""
        st = self.engine.state
        held = self._held()
        sold = {t["scene"].trade.item for t in self.trades.values() if t["scene"].trade}
        out = []
        for thing in dict.fromkeys(g["need"] + list(g["evidence"]) + (g["keys"] if keys else [])):
            if thing in held or thing in self.seen_items or thing in sold or thing in st.opened:
                continue
            out.append(thing)
        return out

    def _live_hints(self, thing: str) -> list[str]:
        """Places named for ``thing`` that are still worth a look (not visited since, or a closed container)."""
        st = self.engine.state
        out = []
        for place in self.hints.get(thing, ()):
            if place in self.spec.locations and place not in self.visited:
                out.append(place)
            elif place in self.spec.items and place not in st.opened:
                out.append(place)
        return out

    # --- moving ----------------------------------------------------------------------
    def _unexplored(self) -> bool:
        """Whether some reachable location has not been visited (hints can only help then)."""
        dist, _ = self._bfs()
        return any(p not in self.visited for p in dist)

    def _bfs(self) -> tuple[dict[str, int], dict[str, str]]:
        """Distances and first steps from here over the known map (locked exits count if we hold the key)."""
        st, spec = self.engine.state, self.spec
        here = st.where[PLAYER]
        held = self._held()
        dist, first = {here: 0}, {here: ""}
        q = deque([here])
        while q:
            loc = q.popleft()
            if loc not in self.visited:
                continue  # its exits are not known yet
            spec_loc = spec.locations[loc]
            for d, dest in spec_loc.exits.items():
                lock = spec_loc.locked.get(d)
                if lock is not None and f"{loc}:{d}" not in st.unlocked and lock.key not in held:
                    continue
                if dest not in dist:
                    dist[dest] = dist[loc] + 1
                    first[dest] = first[loc] or d
                    q.append(dest)
        return dist, first

    def _targets(self, g: dict[str, Any]) -> list[str]:
        """Places where a local action (see ``_local``) would apply."""
        st, spec = self.engine.state, self.spec
        held = self._held()
        out: list[str] = []
        for item in g["wanted"]:
            if item in self.seen_items and item not in held and spec.items[item].portable:
                out.append(self.seen_items[item])
        for iid, loc in self.seen_items.items():
            item = spec.items[iid]
            if item.container and iid not in st.opened and (
                    item.locked_with is None or iid in st.unlocked or item.locked_with in held):
                out.append(loc)
        for item, npc in g["give"]:
            if item in held and npc in self.seen_npcs and not self._needed_for_has(item):
                out.append(self.seen_npcs[npc])
        for item, members in g["evidence"].items():
            if item in held:
                out += [self.seen_npcs[m] for m in members if m in self.seen_npcs]
        for item, loc in g["drop"]:
            if item in held:
                out.append(loc)
        for sid, outcome in g["council"].items():
            loc = self.councils[sid].location
            if loc and self._council_open(sid) and self._projected(sid, "yes" if outcome == "passed" else "no") \
                    == (outcome == "passed"):
                out.append(loc)
        for lid in self.visited:
            for d, lock in spec.locations[lid].locked.items():
                if f"{lid}:{d}" not in st.unlocked and lock.key in held:
                    out.append(lid)
        for sid in g["trade"]:
            npc = self.trades[sid]["npc"]
            if npc in self.seen_npcs and self._trade_ok(sid):
                out.append(self.seen_npcs[npc])
        out += g["at"]
        return out

    def _note_followed(self, leads: dict[str, list[str]], place: str | None) -> None:
        """Count a step toward ``place`` as following the leads that named it."""
        for thing, places in leads.items():
            if place in places:
                for rec in self.followed:
                    if rec[0] == thing and rec[1] == place:
                        rec[2] += 1
                        break
                else:
                    self.followed.append([thing, place, 1])

    def _step_to(self, places: list[str], dist: dict[str, int], first: dict[str, str]) -> Action | None:
        here = self.engine.state.where[PLAYER]
        cands = sorted({p for p in places if p in dist and p != here}, key=lambda p: (dist[p], self.loc_order[p]))
        if not cands:
            return None
        best = [p for p in cands if dist[p] == dist[cands[0]]]
        pick = best[int(self.rng.integers(len(best)))] if len(best) > 1 else best[0]
        self._picked = pick
        return self._do(Verb.GO, first[pick])

    def _navigate(self, g: dict[str, Any]) -> Action | None:
        dist, first = self._bfs()
        step = self._step_to(self._targets(g), dist, first)
        if step is not None:
            return step
        leads = {thing: [p for p in self._leads(thing) if p in self.spec.locations] for thing in self._lost(g)}
        step = self._step_to([p for places in leads.values() for p in places], dist, first)
        if step is not None:
            self._note_followed(leads, self._picked)
            return step
        frontier = [p for p in dist if p not in self.visited]
        step = self._step_to(frontier, dist, first)
        if step is not None:
            return step
        # everything known is explored: walk to the place we have not seen for longest
        here = self.engine.state.where[PLAYER]
        stale = [p for p in dist if p != here]
        if not stale:
            return None
        oldest = min(self.visited.get(p, -1) for p in stale)
        return self._step_to([p for p in stale if self.visited.get(p, -1) == oldest], dist, first)

    # --- negotiating -------------------------------------------------------------------
    def _session(self, sid: str) -> Any:
        """A private copy of the negotiation as it stands (for look-ahead; the engine's is untouched)."""
        from game.negotiation.session import NegotiationSession
        scene = self.trades[sid]["scene"]
        saved = self.engine.state.scenes.get(sid, {}).get("session")
        return NegotiationSession.from_state(scene, saved) if saved else NegotiationSession(scene)

    def _price(self, sid: str, terms: dict[str, str]) -> int:
        trade = self.trades[sid]["scene"].trade
        return int(terms[trade.price_issue]) if trade is not None else 0

    def _reserve(self, sid: str, g: dict[str, Any]) -> int:
        """Gold to keep back for the other trades still needed: what each would cost to close at once."""
        total = 0
        for other in g["trade"]:
            if other == sid or self.trades[other]["scene"].trade is None:
                continue
            t = self.trades[other]
            model = None if self.neg.get(other, {}).get("fallback") else self._model(other)
            prices: list[int] = []
            if model is not None:
                from game.negotiation.session import NegotiationSession
                sim = NegotiationSession(t["scene"])
                if sim.turn != PLAYER:
                    self._npc_reply(sim, other, model)
                prices = [self._price(other, o) for o in t["outcomes"] if self._accepts(sim, other, model, o)]
            if not prices:
                top = t["them"].best
                prices = [self._price(other, o) for o in t["outcomes"] if t["them"](o) >= top]
            total += min(prices)
        return total

    def _npc_reply(self, sim: Any, sid: str, model: Any) -> None:
        m = model.respond(sim, self.trades[sid]["other"])
        sim.play(self.trades[sid]["other"], m.kind, m.terms_dict)

    def _accepts(self, sim: Any, sid: str, model: Any, terms: dict[str, str]) -> bool:
        """Whether the modelled merchant accepts ``terms`` offered now. A time-based negotiator's
        answer depends only on the time and the offer, so answers are cached per scene."""
        cache = self._answers
        key = (sid, sim.moves_made, tuple(terms.items()))
        if key not in cache:
            test = sim.copy()
            test.play(PLAYER, "offer", terms)
            cache[key] = test.is_open and model.respond(test, self.trades[sid]["other"]).kind == "accept"
        return cache[key]

    def _negotiate(self, sid: str, g: dict[str, Any]) -> Action:
        st = self.engine.state
        if sid not in self.trades or g["trade"].get(sid) != "agreement":
            return self._do(Verb.WALK_AWAY)
        sim = self._session(sid)
        if sim.turn != PLAYER:
            return self._do(Verb.WAIT)
        info = self.neg.setdefault(sid, {"fallback": False, "expect": False, "tries": 1})
        gold = st.gold.get(PLAYER, 0)
        model = None if info.get("fallback") else self._model(sid)
        if model is not None:
            left = self.spec.max_turns - st.turn
            for budget in (gold - self._reserve(sid, g), gold):
                plan = self._plan(sid, sim, model, budget, patience=max(0, left - HASTE_TURNS))
                if plan is not None:
                    kind, terms, closes = plan
                    info["expect"] = closes and kind == "offer"
                    if kind == "accept":
                        return self._do(Verb.ACCEPT)
                    return self._do(Verb.OFFER, terms=terms)
        # no model, or it failed: take any affordable counter-offer, else offer what the merchant likes best
        info["expect"] = False
        t = self.trades[sid]
        standing = sim.standing_offer
        if standing is not None and sim.standing_party != PLAYER and self._price(sid, standing) <= gold:
            return self._do(Verb.ACCEPT)
        options = [o for o in t["outcomes"] if self._price(sid, o) <= gold]
        if not options:
            return self._do(Verb.WALK_AWAY)
        best = max(options, key=lambda o: (t["them"](o), t["me"](o)))
        return self._do(Verb.OFFER, terms=best)

    def _plan(self, sid: str, sim: Any, model: Any, budget: int,
              patience: int) -> tuple[str, dict[str, str], bool] | None:
        """Look ahead over the player's next moves (at most ``patience`` of them before the one that
        closes); return the move to make now.

        ``("accept", standing, True)`` or ``("offer", terms, closes)`` where ``closes``
        says the merchant is expected to accept it at once.
        """
        t = self.trades[sid]
        me = t["me"]
        options = [o for o in t["outcomes"] if self._price(sid, o) <= budget]
        if not options:
            return None
        # the player's favourite affordable outcome: what it says while waiting for the merchant to concede
        stall = max(options, key=lambda o: me(o))
        best: tuple[float, int, str, dict[str, str]] | None = None  # (value, -k, kind, terms)
        cur = sim.copy()
        k = 0
        while cur.is_open and cur.turn == PLAYER:
            cands: list[tuple[float, str, dict[str, str]]] = []
            standing = cur.standing_offer
            if standing is not None and cur.standing_party != PLAYER and self._price(sid, standing) <= budget:
                cands.append((me(standing), "accept", standing))
            for o in options:
                if self._accepts(cur, sid, model, o):
                    cands.append((me(o), "offer", o))
            if cands:
                # best utility; prefer accepting over offering the same; then the earliest outcome
                top = max(c[0] for c in cands)
                tops = [c for c in cands if c[0] == top]
                _, kind, terms = next((c for c in tops if c[1] == "accept"), tops[0])
                value = top - self.turn_cost * k
                if best is None or value > best[0] + 1e-9:
                    best = (value, -k, kind, terms)
            if k >= patience:
                break
            cur.play(PLAYER, "offer", stall)
            if not cur.is_open:
                break
            self._npc_reply(cur, sid, model)
            k += 1
        if best is None:
            return None
        if best[1] == 0:
            return best[2], best[3], True
        return "offer", stall, False
