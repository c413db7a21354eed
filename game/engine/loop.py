"""The turn-based world engine.

A turn is the player's action, then each NPC's, then ``end_round``. Every
action resolves through the rules into events; each event records who
perceived it. Randomness comes from the game's seed tree (``game.core.seeds``; the
engine's own stream is its child ``engine``). Same world + seed + actions ⇒ the same
transcript, byte for byte.

This module imports no UI, LLM, embedding or vector-store library, and neither the
``agents`` nor the ``memory`` package (the import-linter contracts): NPC agents, the voice of an
NPC whose agent cannot reply and the negotiators come in from the composition layer
(``game.play.session`` passes ``game.play.wiring.engine_defaults()``; see ``game.core.protocols``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from functools import wraps
from typing import Any, Protocol

from game.core import seeds
from game.core.errors import NotInjected
from game.core.protocols import Agent, NegotiatorFactory, Voice, VoiceFactory
from game.core.types import PLAYER, Action, Decision, Event, EventKind, Observation, TurnResult, Verb
from game.engine import commands, dialogue, observation, rules
from game.engine.catalogue import CatalogueIndex, build_templates
from game.engine.perception import perceivers
from game.engine.quests import newly_complete
from game.engine.rules import Refusal
from game.engine.scenes import SceneManager
from game.engine.state import GameState, canonical_json, state_hash, state_problems

INVALID_PENALTY = 0.1
RECENT_EVENTS = 32


def _article(name: str) -> str:
    """'a lamp', 'an oak chest'; names that start with 'the' or a capital keep their own."""
    if name[:4].lower() == "the " or name[:1].isupper() or name[:1].isdigit():
        return name
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


class ReplayDivergence(ValueError):
    """A replayed game asked for a decision the transcript did not record at that point."""


def _and_joined(words: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c`` ("" for none)."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1] if words else ""


def _turn_result(method: Callable[..., Any]) -> Callable[..., TurnResult]:
    """Wrap an engine entry point so that it returns a ``TurnResult``: the events it emitted, the
    rewards it gave and the penalties it recorded (calls nested inside it count in its result)."""

    @wraps(method)
    def wrapper(self: Engine, *args: Any, **kwargs: Any) -> TurnResult:
        if self._depth == 0:
            self._events = []
            self._credits = []
        start, credited, penalties = len(self._events), len(self._credits), self._penalties
        self._depth += 1
        try:
            method(self, *args, **kwargs)
        finally:
            self._depth -= 1
        # the outermost call lists every entity; a call nested in it (an NPC's move in npc_phase)
        # only those it rewarded, so a turn's cost does not grow with every NPC per action
        gained = dict.fromkeys(self.order, 0.0) if self._depth == 0 else {}
        for who, amount in self._credits[credited:]:
            gained[who] = gained.get(who, 0.0) + amount
        rewards = tuple(gained.items())
        result = TurnResult(tuple(self._events[start:]), rewards, self._penalties - penalties, self.state.done)
        self.last = result
        return result

    return wrapper


class TranscriptSink(Protocol):
    def write(self, record: dict[str, Any]) -> None: ...


class Engine:
    """One game: world spec, mutable state, RNG, NPC actors and the event log."""

    def __init__(
        self,
        world: Any,
        seed: int = 0,
        actors: dict[str, Agent] | None = None,
        negotiator_factory: NegotiatorFactory | None = None,
        transcript: TranscriptSink | None = None,
        *,
        voice_factory: VoiceFactory | None = None,
        default_negotiator: NegotiatorFactory | None = None,
        debate_factory: Callable[[Any, str], Any] | None = None,
    ):
        """``actors``: the NPC agents by id. ``voice_factory(engine, npc)``: the voice of an NPC whose
        agent has no ``reply``. ``negotiator_factory``: if given, every party trades through it;
        else an NPC trades through its voice's own ``negotiator`` and any other party through
        ``default_negotiator(scene, party, utility, params)``. ``debate_factory(engine, scene_id)``:
        the debate of a council scene that declares one. The engine knows no agents: the standard
        factories are ``game.play.wiring.engine_defaults()``, which ``Game`` and
        ``game.testing.standard_engine`` inject; a factory needed but not given raises ``NotInjected``."""
        self.world = world
        self.spec = world.spec
        self.seed = int(seed)
        self.rng = seeds.rng(self.seed, "engine")
        self.state = GameState.from_spec(self.spec)
        self.order: tuple[str, ...] = (PLAYER, *self.spec.npcs)
        self._rank = {e: i for i, e in enumerate(self.order)}  # each entity's place in ``order``
        self.actors: dict[str, Agent] = dict(actors or {})
        self.voice_factory = voice_factory
        self.debate_factory = debate_factory
        self.scenes = SceneManager(self, negotiator_factory, default_negotiator)
        self.transcript = transcript
        self.listeners: list[Callable[[Event], None]] = []
        # memory: (agent, observation) -> context handed to the agent with its observation; if it
        # (or the object of a bound method) has ``prepare_round(requests)``, it is first handed every
        # (agent, observation) that will read a context this round, once per round
        self.context_provider: Callable[[str, Observation], Any] | None = None
        self._prepared: int | None = None  # the turn whose contexts were last prepared
        self.recent: dict[str, deque[Event]] = {e: deque(maxlen=RECENT_EVENTS) for e in self.order}
        self.totals: dict[str, float] = dict.fromkeys(self.order, 0.0)  # each entity's reward so far
        self.last = TurnResult()  # what the last engine call produced
        self._events: list[Event] = []  # events of the call in progress (see _turn_result)
        self._credits: list[tuple[str, float]] = []  # rewards given in the call in progress
        self._depth = 0
        self._penalties = 0
        self._seq = 0
        self._names = {
            PLAYER: self.spec.player.name,
            **{k: v.name for k, v in self.spec.npcs.items()},
            **{k: v.name for k, v in self.spec.items.items()},
            **{k: v.name for k, v in self.spec.locations.items()},
        }
        self._asks = 0
        self._voices: dict[str, Any] = {}
        self._catalogue: CatalogueIndex | None = None  # built on first use (``catalogue``)
        # replaying a transcript: agents' recorded decisions, consumed in order instead of asking agents
        self.replay_decisions: deque[dict[str, Any]] | None = None
        self._log({"type": "start", "world": self.spec.id, "hash": world.content_hash, "seed": self.seed})
        self.scenes.on_arrive(self.state.where[PLAYER])  # a council may sit where the player starts

    # --- naming and prose --------------------------------------------------------
    def name(self, ident: str | None) -> str:
        """The display name of an id; a noun id of the parser's (``exit:up``, ``scenery:bell``) by
        the name of that lock or scenery where the player stands, never the id itself."""
        known = self._names.get(ident or "")
        if known is not None or not ident or ":" not in ident:
            return known or ident or "something"
        kind, _, rest = ident.partition(":")
        loc = self.spec.locations[self.state.where[PLAYER]]
        thing = loc.locked.get(rest) if kind == "exit" else loc.scenery.get(rest) if kind == "scenery" else None
        return thing.name if thing is not None else rest.replace("_", " ")

    def list_names(self, ids: Iterable[str]) -> str:
        names = [_article(self.name(i)) if i in self.spec.items else self.name(i) for i in ids]
        return _and_joined(names) or "nothing"

    def describe(self, actor: str, loc: str) -> str:
        spec, st = self.spec.locations[loc], self.state
        parts = [f"{spec.name}. {spec.description}"]
        items = [i for i in st.items_in(loc)]
        if items:
            parts.append(f"You see {self.list_names(items)}.")
        people = [e for e in st.entities_at(loc) if e != actor]
        if people:
            who = self.list_names(people)
            parts.append(f"{who[:1].upper()}{who[1:]} {'is' if len(people) == 1 else 'are'} here.")
        exits = list(spec.exits)
        parts.append(f"Exits: {', '.join(exits)}." if exits else "There is no way out.")
        return " ".join(parts)

    # --- events ------------------------------------------------------------------
    def emit(
        self,
        kind: EventKind | str,
        actor: str,
        text: str,
        *,
        view: str | None = None,
        location: str | None = None,
        listener: str | None = None,
        public: bool = False,
        private: bool = False,
        also_at: str | None = None,
        data: dict[str, Any] | None = None,
        witnesses_only: bool = False,
    ) -> Event:
        """Record an event and hand it to those who perceive it (``witnesses_only``: not to the actor,
        as an arrival is seen by the room arrived at, while the mover sees the room)."""
        loc = location if location is not None else self.state.where.get(actor)
        who = (
            (actor,)
            if private
            else perceivers(self.state, self.order, loc, actor, listener, public, also_at, self._rank)
        )
        if witnesses_only:
            who = tuple(e for e in who if e != actor)
        payload = dict(data or {})
        if view is not None:
            payload["view"] = view
        self._seq += 1
        ev = Event(
            turn=self.state.turn,
            seq=self._seq,
            kind=EventKind(kind),
            actor=actor,
            text=text,
            location=loc,
            perceivers=who,
            public=public,
            data=payload,
        )
        for e in who:
            self.recent[e].append(ev)
        self._events.append(ev)
        self._log({"type": "event", **ev.to_dict()})
        for fn in self.listeners:
            fn(ev)
        return ev

    def _log(self, record: dict[str, Any]) -> None:
        if self.transcript is not None:
            self.transcript.write(record)

    def add_score(self, points: int, why: str) -> None:
        self.state.score += points
        self._credit(PLAYER, points)
        self.emit("score", PLAYER, f"+{points} points: {why}.", private=True, data={"points": points})

    def verify(self, fact_ids: Iterable[str], actor: str, how: str, private: bool = False) -> None:
        """Ground truth observed: record the truth of each fact and announce it to witnesses (to the
        actor alone when ``private``: what an examination shows, only the examiner sees)."""
        truth = {f: self.spec.facts[f].true for f in fact_ids}
        self.state.verified.update(truth)
        lines = [self.spec.facts[f].text + ("" if t else " — that turns out to be false") for f, t in truth.items()]
        self.emit("verify", actor, f"Verified by {how}: " + " ".join(lines), private=private, data={"truth": truth})

    # --- agents' decisions ----------------------------------------------------------
    def _credit(self, who: str, amount: float) -> None:
        """Give ``who`` a reward (negative: a penalty); it counts in this call's ``TurnResult``."""
        self.totals[who] = self.totals.get(who, 0.0) + amount
        self._credits.append((who, amount))

    @property
    def rewards(self) -> dict[str, float]:
        """Each entity's reward from the last engine call (``last.rewards`` as a dict; a call made inside
        another, such as an NPC's move in ``npc_phase``, lists only the entities it rewarded)."""
        return dict(self.last.rewards)

    def next_ask(self) -> int:
        """A fresh number for a request to an agent (seeds stateless choices)."""
        self._asks += 1
        return self._asks

    def voice(self, npc: str) -> Any:
        """Who speaks for ``npc``: its agent, or the world's scripted voice when it has none."""
        actor = self.actors.get(npc)
        if isinstance(actor, Voice):
            return actor
        v = self._voices.get(npc)
        if v is None:
            if self.voice_factory is None:
                raise NotInjected("voice_factory", f"NPC {npc!r} has no agent that speaks")
            v = self.voice_factory(self, npc)
            self._voices[npc] = v
        return v

    def council_debate(self, scene_id: str) -> Any:
        """The debate of council scene ``scene_id`` (one that declares ``debate``), over its state."""
        if self.debate_factory is None:
            raise NotInjected("debate_factory", f"council scene {scene_id!r} debates")
        return self.debate_factory(self, scene_id)

    def context_for(self, who: str, agent: Any, request: Any = None) -> Any:
        """The memory context for an agent that reads one (None when memory is off or it does not).
        ``request``: what it is asked to say (a ``Request``), the decision its context focuses on."""
        if self.context_provider is None or not agent.uses_context:
            return None
        obs = self.observe(who, request)
        self.prepare_contexts(who, obs)
        return self.context_provider(who, obs)

    def prepare_contexts(self, first: str, obs: Observation) -> None:
        """At the round's first context request (``first`` with ``obs``), hand the context provider's
        ``prepare_round`` every (agent, observation) that will read a context this round: ``first``,
        then each acting NPC agent that reads one, as it sees the world now. Memory embeds their
        queries with the writes still pending in one batch. Once per round; nothing without a hook."""
        if self._prepared == self.state.turn:
            return
        self._prepared = self.state.turn
        provider = self.context_provider
        hook = getattr(provider, "prepare_round", None) or getattr(
            getattr(provider, "__self__", None), "prepare_round", None
        )  # GameMemory.context
        if hook is None:
            return
        requests = [(first, obs)]
        for npc in self.order[1:]:
            actor = self.actors.get(npc)
            if npc != first and actor is not None and not actor.passive and actor.uses_context:
                requests.append((npc, self.observe(npc)))
        hook(requests)

    def penalise(self, who: str, reason: str, log: bool = True) -> None:
        """Record a penalised invalid move. ``log``: write a ``penalty`` record so a replay applies
        it too (decisions carry their own reason instead)."""
        if log and self.replay_decisions is None:
            self._log({"type": "penalty", "turn": self.state.turn, "who": who, "reason": reason})
        self.state.invalid[who] = self.state.invalid.get(who, 0) + 1
        self._credit(who, -INVALID_PENALTY)
        self._penalties += 1
        self.emit("invalid", who, f"{self.name(who)} fumbled: {reason}", private=True, data={"fallback": True})

    def decide(self, kind: str, who: str, compute: Callable[[], tuple[Any, str | None]]) -> Any:
        """An agent's decision (a reply, a negotiation move, a speech), logged to the transcript.
        ``compute`` returns ``(value, fallback reason or None)``; a fallback is penalised. During
        a replay the recorded decision is used instead, so no agent or LLM is needed."""
        if self.replay_decisions is not None:
            if not self.replay_decisions:
                raise ReplayDivergence(f"the transcript has no recorded {kind} for {who!r}")
            rec = self.replay_decisions.popleft()
            if rec.get("kind") != kind or rec.get("who") != who:
                raise ReplayDivergence(
                    f"expected a recorded {kind} by {who!r}, found {rec.get('kind')} by {rec.get('who')!r}"
                )
            value, reason = rec["value"], rec.get("invalid")
        else:
            value, reason = compute()
            rec = {"type": "decision", "turn": self.state.turn, "kind": kind, "who": who, "value": value}
            if reason:
                rec["invalid"] = reason
            self._log(rec)
        if reason:
            self.penalise(who, reason, log=False)
        return value

    # --- acting -------------------------------------------------------------------
    @property
    def done(self) -> bool:
        return self.state.done

    @_turn_result
    def apply(self, action: Action) -> None:
        """Resolve one actor's action (returns a ``TurnResult``). Illegal moves become penalised
        ``invalid`` events."""
        st = self.state
        actor = action.actor
        if st.done:
            raise RuntimeError("the game is over")
        if actor not in st.where:
            raise ValueError(f"unknown actor {actor!r}")
        self._log({"type": "action", "turn": st.turn, **action.to_dict()})
        self.recent[actor].clear()
        try:
            self._dispatch(action)
        except Refusal as r:
            st.invalid[actor] = st.invalid.get(actor, 0) + 1
            self._credit(actor, -INVALID_PENALTY)
            self._penalties += 1
            self.emit("invalid", actor, str(r), private=True, data={"verb": action.verb.value})
        self._check_quests()

    def _dispatch(self, a: Action) -> None:
        v = a.verb
        handler = rules.HANDLERS.get(v)
        if handler is not None:
            handler(self, a)
        elif v is Verb.TALK:
            dialogue.do_talk(self, a)
        elif v is Verb.ASK:
            dialogue.do_ask(self, a)
        elif v is Verb.TRADE:
            self.scenes.open_trade(a)
        elif v in (Verb.OFFER, Verb.ACCEPT, Verb.REJECT, Verb.WALK_AWAY):
            self.scenes.player_move(a)
        elif v is Verb.VOTE:
            self.scenes.vote(a)
        else:  # pragma: no cover - every Verb is routed above
            raise Refusal(f"Nothing happens when you {v.value}.")

    def _reward_text(self, reward: Any) -> str:
        """What a quest gave, as the player reads it: "+40 points, 20 gold and Gannet's compass"."""
        parts = [f"+{reward.score} points"] + ([f"{reward.gold} gold"] if reward.gold else [])
        return _and_joined(parts + [self.name(it) for it in reward.items])

    def _check_quests(self) -> None:
        st = self.state
        for qid in newly_complete(self.spec, st):
            q = self.spec.quests[qid]
            st.quests_done.append(qid)
            st.score += q.reward.score
            self._credit(PLAYER, q.reward.score)
            st.gold[PLAYER] += q.reward.gold
            for it in q.reward.items:
                st.item_at[it] = PLAYER
            self.emit(
                "quest",
                PLAYER,
                f"Quest complete: {q.title} ({self._reward_text(q.reward)}).",
                public=True,
                data={"quest": qid, "reward": q.reward.model_dump()},
            )
        if self.spec.quests and len(st.quests_done) == len(self.spec.quests) and not st.done:
            st.done = st.won = True
            self.emit(
                "win",
                PLAYER,
                f"You have completed every quest. Final score: {st.score}.",
                public=True,
                data={"score": st.score},
            )

    @_turn_result
    def end_round(self) -> None:
        """Close the turn: scenes progress, the turn counter advances, the turn limit is checked."""
        self.scenes.end_round()
        self.state.turn += 1
        self._log({"type": "round", "turn": self.state.turn})
        if not self.state.done and self.state.turn >= self.spec.max_turns:
            self.state.done = True
            self.emit("timeout", PLAYER, f"The turn limit ({self.spec.max_turns}) is reached.", public=True)

    @_turn_result
    def run_round(self, move: Action | Decision) -> None:
        """One round (returns a ``TurnResult``): the player's move, then every NPC with an agent,
        then the end of the round. ``move``: an action, or an agent's ``Decision`` (its action,
        and the reason it fell back to a default, which is penalised); a Decision without an
        action penalises its fallback and lets the NPCs act."""
        self.take(move)
        self.npc_phase()
        if not self.state.done:
            self.end_round()

    @_turn_result
    def take(self, move: Action | Decision, actor: str = PLAYER) -> None:
        """Apply one move (returns a ``TurnResult``): an action, or a ``Decision`` whose fallback
        (if any) is penalised after its action is applied."""
        decision = move if isinstance(move, Decision) else Decision(move)
        if decision.action is not None:
            self.apply(decision.action)
        if decision.fallback:
            self.penalise(decision.action.actor if decision.action is not None else actor, decision.fallback)

    @_turn_result
    def npc_phase(self, actors: dict[str, Agent] | None = None, after: Callable[[], None] | None = None) -> None:
        """Each NPC with an agent acts once, in world order (``after`` runs after each action)."""
        actors = self.actors if actors is None else actors
        for npc in self.order[1:]:
            if self.state.done:
                break
            actor = actors.get(npc)
            if actor is None or actor.passive:
                continue
            decision = actor.act(*self.turn_inputs(npc, actor.uses_context))
            self.take(decision, npc)
            if decision.action is not None and after is not None:
                after()

    def turn_inputs(
        self, agent: str, wants_context: bool = True, question: str | None = None
    ) -> tuple[Observation] | tuple[Observation, Any]:
        """What an agent's ``act`` receives: its observation, and its memory context when memory is on
        (agents that declare ``uses_context = False`` are spared the work). ``question``: one put to
        it now (the parser's clarify question), its decision instead of the one the state shows."""
        obs = self.observe(agent)
        if question is not None:
            import dataclasses

            obs = dataclasses.replace(obs, decision=question)
        if self.context_provider is None or not wants_context:
            return (obs,)
        self.prepare_contexts(agent, obs)
        return obs, self.context_provider(agent, obs)

    # --- observing ----------------------------------------------------------------
    def observe(self, actor: str, request: Any = None) -> Observation:
        """What ``actor`` knows at the start of its turn (``game.engine.observation.observe``); ``request``:
        what it is asked to say now (its decision)."""
        return observation.observe(self, actor, request)

    def glance(self, actor: str) -> Observation:
        """What ``actor`` sees at a glance: its room, what is in sight, the exits, what it carries
        (``game.engine.observation.glance``; an ``Observation`` without prose or recent events)."""
        return observation.glance(self, actor)

    def scope(self, actor: str = PLAYER) -> Any:
        """What the parser may match for this actor right now (``game.engine.observation.scope``)."""
        return observation.scope(self, actor)

    @property
    def catalogue(self) -> CatalogueIndex:
        """The world's action catalogue and its masks (``game.engine.catalogue``), built once."""
        if self._catalogue is None:
            self._catalogue = CatalogueIndex(self.spec, build_templates(self.spec))
        return self._catalogue

    def legal_commands(self, actor: str = PLAYER) -> tuple[str, ...]:
        """The command lines ``actor`` could type now, each one the parser reads and the rules do
        not refuse as out of reach, in catalogue order (``game.engine.commands.legal_commands``)."""
        return commands.legal_commands(self, actor)

    # --- persistence --------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        return {
            "state": self.state.to_dict(),
            "rng": self.rng.bit_generator.state,
            "seq": self._seq,
            "seed": self.seed,
            "asks": self._asks,
            "recent": {e: [ev.to_dict() for ev in q] for e, q in self.recent.items() if q},
        }

    def set_state(self, data: dict[str, Any]) -> None:
        """Restore a saved state; ``ValueError`` if it cannot belong to this world."""
        st = GameState.from_dict(data["state"])
        problems = state_problems(st, self.spec)
        if not isinstance(data["seq"], int) or isinstance(data["seq"], bool):
            problems.append(f"seq is not a whole number: {data['seq']!r}")
        if problems:
            raise ValueError(
                "; ".join(problems[:3]) + (f" (and {len(problems) - 3} more)" if len(problems) > 3 else "")
            )
        # saves store keys sorted; restore the world's own order so prose and perception match
        st.where = {e: st.where[e] for e in self.order if e in st.where}
        st.item_at = {i: st.item_at[i] for i in self.spec.items if i in st.item_at}
        self.state = st
        self.rng.bit_generator.state = data["rng"]  # the saved stream replaces this game's own
        self._seq = data["seq"]
        self._asks = int(data.get("asks", 0))
        self.seed = data["seed"]
        self.scenes.reset()
        self._prepared = None
        for e, q in self.recent.items():
            q.clear()
            q.extend(Event.from_dict(d) for d in data.get("recent", {}).get(e, ()))

    def state_hash(self) -> str:
        return state_hash(self.get_state())

    def snapshot(self) -> str:
        return canonical_json(self.get_state())
