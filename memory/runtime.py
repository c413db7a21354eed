"""Memory for one game: turns engine events into memories and builds each agent's context.

``GameMemory.on_event`` is an engine listener: every event goes into the
private memory of every entity that perceived it; public events go to shared
memory; claims carry their triple; agreed terms become anchors; verified
facts go to world-fact memory; what an agent sees for itself (``see``) settles the
claims in its own memory. ``context(agent, observation)`` runs MEMO for
that agent's turn, focused on the decision the observation names (``Observation.decision``).

``prepare_round(requests)`` (the engine calls it once per round, before the first context) embeds
every write still pending and the query and focus texts of every agent that will read a context
this round in one embedder call; each context then reuses those vectors (looked up by text).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from game.core.claims import canonical, verdict
from game.core.types import PLAYER, Event, EventKind, Observation
from memory.bank import MemoryBank
from memory.config import MemoConfig
from memory.importance import ImportanceRater, key_terms_of, things_of
from memory.optimizer import Context, ContextOptimizer
from memory.records import FACTS, LIVE, SHARED, private
from memory.reflection import Reflector
from memory.witness import Sight, Witness

KIND_OF = {
    "move": "observation",
    "look": "observation",
    "examine": "observation",
    "take": "observation",
    "drop": "observation",
    "give": "observation",
    "open": "observation",
    "unlock": "observation",
    "inventory": "observation",
    "persuaded": "observation",
    "council_open": "rule",
    "talk": "utterance",
    "say": "utterance",
    "speech": "utterance",
    "council_result": "quest",
    "trade_open": "offer",
    "offer": "offer",
    "accept": "offer",
    "reject": "offer",
    "walk_away": "offer",
    "agreement": "agreement",
    "no_agreement": "offer",
    "verify": "fact",
    "quest": "quest",
    "win": "quest",
    "timeout": "observation",
    "score": "quest",
}
SKIP = {EventKind.WAIT, EventKind.INVALID}
KEEP_VECTORS = 256  # query vectors kept by text between rounds (a round's are always kept)


class GameMemory:
    def __init__(
        self,
        spec: Any,
        embedder: Any = "minilm",
        store: Any = "flat",
        config: MemoConfig | None = None,
        priors: dict[str, Sequence[str]] | None = None,
        summariser: Callable[[list[str]], str] | None = None,
        store_options: dict | None = None,
    ):
        from memory.embedder import get_embedder
        from memory.store import make_store

        self.spec = spec
        self.cfg = config or MemoConfig()
        self.embedder_name = embedder if isinstance(embedder, str) else getattr(embedder, "name", "custom")
        self.store_name = store if isinstance(store, str) else type(store).__name__
        emb = get_embedder(embedder) if isinstance(embedder, str) else embedder
        st = make_store(store, **(store_options or {})) if isinstance(store, str) else store
        self.bank = MemoryBank(emb, st, rater=ImportanceRater(key_terms_of(spec), things=things_of(spec)))
        self.store_options = dict(getattr(st, "options", dict)())  # a Chroma server's host, port, collection
        self.optimizer = ContextOptimizer(self.bank, self.cfg, summariser=summariser)
        self.reflector = Reflector(self.bank, self.cfg.reflection, llm=summariser)
        # the claims an event makes, when world-fact memory reads free text too (``WorldFacts.claims_of``)
        self.claims_of: Callable[[Event], list[dict]] | None = None
        self.batching = True  # False: each context embeds its own texts (for comparisons)
        self._vectors: dict[str, np.ndarray] = {}  # query and focus texts -> vectors, this round's first
        self.priors = {k: list(v) for k, v in (priors or {}).items()}
        self.quests_done: set[str] = set()
        self.sight = Sight.from_spec(spec)
        self.witnesses: dict[str, Witness] = {}  # what each agent saw for itself
        self._names = {
            PLAYER: spec.player.name,
            **{k: v.name for k, v in spec.npcs.items()},
            **{k: v.name for k, v in spec.items.items()},
        }

    # --- writing -------------------------------------------------------------------
    def on_event(self, ev: Event) -> None:
        if ev.kind in SKIP:
            return
        kind = KIND_OF.get(ev.kind, "observation")
        readers = [SHARED] if ev.public else [private(p) for p in ev.perceivers]
        if ev.kind == EventKind.VERIFY:  # ground truth observed: world-fact memory
            for fid, truth in sorted(ev.data.get("truth", {}).items()):
                f = self.spec.facts[fid]
                text = f.text if truth else f"False: {f.text}"
                self.bank.add(
                    FACTS,
                    "fact",
                    text,
                    ev.turn,
                    speaker=ev.actor,
                    topic=f.topic,
                    triple=(f.subject, f.relation, f.object) if truth else None,
                )
            return
        claims = self.claims_of(ev) if self.claims_of is not None else (ev.data.get("claims") or [])
        anchor = kind == "agreement"
        for scope in readers:
            if claims:
                for c in claims:
                    rec = self.bank.add(
                        scope,
                        "claim",
                        ev.text,
                        ev.turn,
                        speaker=c["speaker"],
                        topic=c["topic"],
                        triple=(c["subject"], c["relation"], c["object"]),
                    )
                    self._pressure(scope, rec.importance, ev.turn)
                self._settle_own(scope, ev.turn)  # what the listener saw for itself bears on it
            else:
                rec = self.bank.add(
                    scope,
                    kind,
                    ev.text,
                    ev.turn,
                    speaker=ev.actor,
                    topic=ev.data.get("scene") or ev.data.get("topic"),
                    anchor=anchor,
                )
                self._pressure(scope, rec.importance, ev.turn)
        if ev.kind == EventKind.QUEST:
            self.quests_done.add(ev.data.get("quest"))
            self._resolve_quest(ev.data.get("quest"))
        if ev.kind in (EventKind.AGREEMENT, EventKind.NO_AGREEMENT):
            self._resolve_scene(ev.data.get("scene"))

    # --- first-hand evidence ------------------------------------------------------------
    def see(self, agent: str, ev: Event | None, obs: Observation) -> None:
        """What ``agent`` saw for itself in ``ev`` (an event it perceived; None: none) and in its
        observation after it (``memory.witness``) settles the claims in its own memory."""
        witness = self.witnesses.setdefault(agent, Witness(self.sight))
        if witness.read(ev, obs):
            self._settle_own(private(agent), obs.turn)

    def _settle_own(self, scope: str, turn: int) -> None:
        """Settle the claims in an agent's private memory (``scope``) by what it saw: one it saw
        disproved is masked; a sighting that bears on one it heard joins its memory as a fact."""
        witness = self.witnesses.get(scope.split(":", 1)[1]) if scope.startswith("private:") else None
        if witness is None or not witness.known:
            return
        mine = [r for r in self.bank.records.values() if r.scope == scope and r.triple and r.status in LIVE]
        claims = [r for r in mine if r.kind == "claim"]
        keys = {(canonical(r.triple[0]), canonical(r.triple[1])) for r in claims if r.triple}
        noted = {r.triple for r in mine if r.kind == "fact"}
        for e in list(witness.known.values()):
            if e.truth and e.triple not in noted and (canonical(e.subject), canonical(e.relation)) in keys:
                self.bank.add(scope, "fact", e.text, turn, speaker=scope.split(":", 1)[1], triple=e.triple)
        wrong = [r.id for r in claims if r.triple and self._seen_otherwise(witness, r.triple)]
        if wrong:
            self.bank.set_status(wrong, "rejected")

    def _seen_otherwise(self, witness: Witness, triple: tuple[str, str, str]) -> bool:
        """Whether ``witness`` saw for itself that ``triple`` does not hold."""
        seen = [(e.object, e.truth) for e in witness.about(triple[0], triple[1])]
        rel = next((v for k, v in self.spec.relations.items() if canonical(k) == canonical(triple[1])), None)
        return bool(seen) and verdict(seen, triple[2], bool(getattr(rel, "functional", False))) is False

    def _pressure(self, scope: str, importance: float, turn: int) -> None:
        if scope.startswith("private:"):
            agent = scope.split(":", 1)[1]
            self.reflector.note(agent, importance)
            self.reflector.maybe_consolidate(agent, turn)

    def _resolve_quest(self, qid: str | None) -> None:
        """Task-goal filter: memories about a finished quest's goals fade (anchors excepted)."""
        q = self.spec.quests.get(qid or "")
        if q is None:
            return
        names = set()
        for c in q.goal:
            for attr in ("item", "npc"):
                ident = getattr(c, attr, None)
                if ident in self._names:
                    names.add(self._names[ident].lower())
        mine = (private(PLAYER), SHARED)  # quests are the player's; NPCs' own memories are left alone
        done = [
            r.id
            for r in self.bank.records.values()
            if r.scope in mine
            and r.status == "active"
            and not r.anchor
            and r.kind not in ("quest", "fact")
            and any(n in r.text.lower() for n in names)
        ]
        self.bank.set_status(done, "resolved")

    def _resolve_scene(self, sid: str | None) -> None:
        """Offers of a closed negotiation are resolved; the agreement itself is an anchor."""
        if not sid:
            return
        done = [
            r.id for r in self.bank.records.values() if r.topic == sid and r.kind == "offer" and r.status == "active"
        ]
        self.bank.set_status(done, "resolved")

    # --- reading -------------------------------------------------------------------
    def goal_lines(self, agent: str) -> list[str]:
        """The agent's goals (open quests for the player; persona and goal for an NPC)."""
        spec, lines = self.spec, []
        if agent == PLAYER:
            for qid, q in spec.quests.items():
                if qid not in self.quests_done:
                    lines.append(f"Goal: {q.title}" + (f" — {q.description}" if q.description else ""))
        elif agent in spec.npcs:
            npc = spec.npcs[agent]
            if npc.persona:
                lines.append(f"You are {npc.name}: {npc.persona}")
            goal = npc.agent.params.get("goal")
            if isinstance(goal, str):
                lines.append(f"Goal: {goal}")
        return lines

    def scene_lines(self, obs: Observation) -> list[str]:
        """The rules of the scene the agent is in, if any."""
        if obs.scene is None or obs.scene.get("type") != "negotiation":
            return []
        sc = self.spec.scenes[obs.scene["id"]]
        issues = "; ".join(f"{k}: {', '.join(v)}" for k, v in sc.issues.items())
        return [
            f"Negotiation '{sc.title}': alternate offers over {issues}; "
            f"deadline {sc.deadline} rounds; no deal leaves you at your reservation value."
        ]

    def query_for(self, agent: str, obs: Observation, goals: list[str] | None = None) -> str:
        """The retrieval query: what the agent sees, what just happened, and its goals."""
        goals = self.goal_lines(agent) if goals is None else goals
        return "\n".join([obs.text, *(e.text for e in obs.recent[-4:]), *goals])

    def focus_for(self, agent: str, obs: Observation) -> str | None:
        """The decision at hand (``obs.decision``: the question put to the agent, the council motion,
        the offer to answer); for an observation made without one, the open negotiation, if any."""
        if obs.decision:
            return obs.decision
        if obs.scene and obs.scene.get("type") == "negotiation":
            sc = self.spec.scenes[obs.scene["id"]]
            return f"Negotiating {sc.title}: standing offer {obs.scene.get('standing_offer')}"
        return None

    def context(self, agent: str, obs: Observation, touch: bool = True, focus: str | None = None) -> Context:
        """MEMO for one turn, focused on ``focus`` or else the decision the observation names."""
        goals = self.goal_lines(agent)
        query = self.query_for(agent, obs, goals)
        focus = focus or self.focus_for(agent, obs)
        names = self.optimizer.linked_names(agent, focus)  # looked up once for the text and the build
        qvec, fvec, lvec = self._vectors_for(query, focus, self.optimizer.linked_focus(agent, focus, names))
        return self.optimizer.build(
            agent,
            obs.turn,
            query,
            focus=focus,
            query_vector=qvec,
            focus_vector=fvec,
            link_vector=lvec,
            linked=names,
            priors=self.priors.get(agent, ()),
            extra_anchors=goals + self.scene_lines(obs),
            touch=touch,
        )

    def __call__(self, agent: str, obs: Observation) -> Context:
        """A context provider (``game.core.protocols.ContextProvider``): ``context(agent, obs)``."""
        return self.context(agent, obs)

    # --- one embedder batch per round --------------------------------------------------
    def prepare_round(self, requests: Sequence[tuple[str, Observation]]) -> None:
        """Embed the writes still pending and the query and focus texts of every (agent, observation)
        in ``requests`` in one embedder call; the contexts built this round reuse the vectors."""
        if not self.batching:
            return
        if len(self._vectors) > KEEP_VECTORS:
            self._vectors.clear()
        texts = []
        for agent, obs in requests:
            focus = self.focus_for(agent, obs)
            texts += [self.query_for(agent, obs), focus or "", self.optimizer.linked_focus(agent, focus) or ""]
        self._embed([t for t in dict.fromkeys(texts) if t.strip() and t not in self._vectors], always=True)

    def _vectors_for(self, query: str, focus: str | None, link: str | None = None) -> tuple:
        """The vectors of a context's query, focus and linked focus (``ContextOptimizer.linked_focus``):
        prepared this round, or embedded now together with the writes still pending (one call).
        None for each with batching off."""
        if not self.batching:
            return None, None, None
        texts = [t for t in (query, focus or "", link or "") if t.strip()]
        self._embed([t for t in dict.fromkeys(texts) if t not in self._vectors])
        return tuple(self._vectors.get(t) if t and t.strip() else None for t in (query, focus, link))

    def _embed(self, texts: list[str], always: bool = False) -> None:
        if texts or always:
            for text, vec in zip(texts, self.bank.prepare(texts)):
                self._vectors[text] = vec

    # --- persistence -----------------------------------------------------------------
    def drop(self) -> None:
        """Delete this game's memories from its store (on a Chroma server: its collection)."""
        getattr(self.bank.store, "drop", self.bank.store.reset)()

    def get_state(self) -> dict[str, Any]:
        state = {
            "embedder": self.embedder_name,
            "store": self.store_name,
            "config": self.cfg.model_dump(),
            "bank": self.bank.get_state(),
            "reflector": self.reflector.get_state(),
            "priors": self.priors,
            "quests_done": sorted(self.quests_done),
            "witnesses": {agent: w.get_state() for agent, w in sorted(self.witnesses.items())},
        }
        if self.store_options:  # a Chroma server: the save reopens the game's own collection
            state["store_options"] = dict(self.store_options)
        return state

    def set_state(self, state: dict[str, Any]) -> None:
        self.bank.set_state(state["bank"])
        self.reflector.set_state(state.get("reflector", {}))
        self.priors = {k: list(v) for k, v in state.get("priors", {}).items()}
        self.quests_done = set(state.get("quests_done", ()))
        self.witnesses = {}
        for agent, seen in state.get("witnesses", {}).items():
            self.witnesses[agent] = Witness(self.sight)
            self.witnesses[agent].set_state(seen)
