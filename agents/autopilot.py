"""A goal-directed heuristic player for headless runs (``parley run WORLD --autopilot``).

``Autopilot(engine, rng)`` reads the engine (``engine.spec`` and ``engine.state``)
and never changes it: it only returns the player's next ``Action``. What it
uses is what a careful human player could know:

* the quest goals, the map of the locations it has visited (their exits), the
  locks, the public terms of the trade scenes (issues and values, deadline, who
  opens, the price issue and the seller), its *own* party in them (weights,
  values, reservation), the council scenes (participants, stances, the evidence
  that persuades them), and its own inventory and gold;
* what it has *seen*: items and people in the rooms it stood in, remembered
  until it looks again;
* what NPCs *claim* when asked (``say`` events with claims). Claims are only
  hints for where to look first; a hint that does not pan out is dropped;
* what merchants *do* in the talks it has with them.

It never reads whether a fact is true, how honest an NPC is, another party's
weights, values or reservation, or which negotiator (kind, parameters) an NPC
uses (``npcs.*.agent``); ``tests/test_autopilot.py`` fails if it does.

Known gaps: it still reads world-file fields the game never shows a player, namely
NPCs' ``wants``, councillors' ``persuaded_by`` (listed above as "public"), which
key opens each lock, where unvisited exits lead, and the whole fact catalogue
(for topics). The guard does not catch these, nor ``model_dump()`` on the
wrapped objects or reads of ``engine.state``.

Each turn it picks the first of:

1. a move in the open negotiation (``agents.autopilot_haggle``): it models the
   merchant only from the talks it has seen (the merchant's offers, which of its
   own offers were refused or accepted, in this session and earlier ones): an
   estimate of the merchant's utility learnt from the orderings those moves
   reveal, and a concession curve fitted to them (``agents.autopilot_merchant``).
   It weighs accepting now, holding out for a better outcome and, at the last
   move, testing an offer, against a small cost per turn of waiting;
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

import copy
import itertools
from typing import Any

import numpy as np

from agents.autopilot_haggle import MAX_TRADE_TRIES, HaggleMixin
from agents.autopilot_nav import NavMixin
from agents.autopilot_trust import TrustMixin
from agents.base import BaseAgent
from game.rules import reachable
from game.types import PLAYER, Action, Observation, Verb

STATE_VERSION = 3  # 2: claims heard, leads followed; 3: talks remembered (older states load with them empty)
TURN_COST = 0.05   # utility a negotiation gives up per extra turn spent haggling


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


class Autopilot(HaggleMixin, NavMixin, TrustMixin, BaseAgent):
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
        self._analyse_spec()
        self._reset_memory()

    # --- what the spec says, once ------------------------------------------------------
    def _analyse_spec(self) -> None:
        from game.negotiation.utility import UtilityFunction
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
            if not isinstance(sc, NegotiationScene) or sid in self.trades:
                continue
            mine = next((p for p in sc.parties if p.id == PLAYER), None)
            if mine is None:
                continue
            other = next(p.id for p in sc.parties if p.id != PLAYER)
            issues = list(sc.issues)
            outcomes = [dict(zip(issues, vals)) for vals in itertools.product(*(sc.issues[i] for i in issues))]
            # only the player's own party is read: the merchant's weights, values and reservation are not
            self.trades[sid] = {"npc": nid, "other": other, "scene": sc, "outcomes": outcomes,
                                "me": UtilityFunction.from_party(mine, sc.issues),
                                "first": sc.first or sc.parties[0].id}
        self.councils = {sid: sc for sid, sc in spec.scenes.items() if isinstance(sc, CouncilScene)}

    # --- memory ----------------------------------------------------------------------
    def _reset_memory(self) -> None:
        self.visited: dict[str, int] = {}        # location -> last turn stood there
        self.seen_items: dict[str, str] = {}     # item -> location it was last seen lying in
        self.seen_npcs: dict[str, str] = {}      # npc -> location last seen
        self.hints: dict[str, list[str]] = {}    # thing -> places someone said it is
        self.asked: list[list[str]] = []         # [npc, thing] pairs already asked
        self.neg: dict[str, dict[str, Any]] = {}  # scene -> {"tries": sessions opened, "log": sessions seen}
        self.claims: list[list[str]] = []        # [speaker, subject, relation, object, topic] heard when asking
        self.followed: list[list[Any]] = []      # [thing, place, steps]: leads it walked toward (a diagnostic)
        self.actions = 0
        self.invalid = 0
        self.last_turn = -1

    def get_state(self) -> dict[str, Any]:
        return {"version": STATE_VERSION, "visited": dict(self.visited), "seen_items": dict(self.seen_items),
                "seen_npcs": dict(self.seen_npcs), "hints": {k: list(v) for k, v in self.hints.items()},
                "asked": [list(p) for p in self.asked],
                "neg": copy.deepcopy(self.neg), "actions": self.actions,
                "invalid": self.invalid, "last_turn": self.last_turn,
                "claims": [list(c) for c in self.claims], "followed": [list(f) for f in self.followed],
                "rng": self.rng.bit_generator.state}

    def set_state(self, state: dict[str, Any]) -> None:
        if state.get("version") not in (1, 2, STATE_VERSION):
            raise ValueError(f"autopilot state version {state.get('version')!r}, expected {STATE_VERSION}")
        self.visited = {str(k): int(v) for k, v in state["visited"].items()}
        self.seen_items = dict(state["seen_items"])
        self.seen_npcs = dict(state["seen_npcs"])
        self.hints = {k: list(v) for k, v in state["hints"].items()}
        self.asked = [list(p) for p in state["asked"]]
        self.neg = {k: {"tries": int(v.get("tries", 0)), "log": copy.deepcopy(list(v.get("log", ())))}
                    for k, v in state["neg"].items()}
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
        self._remember_talks()  # the offers seen in every trade session: all it knows of the merchants

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
                info = self.neg.setdefault(sid, {"tries": 0, "log": []})
                info["tries"] = int(info.get("tries", 0)) + 1
                return self._do(Verb.TRADE, npc)
        # 10. ask where a needed thing is
        return self._question(g, npcs_here)

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
