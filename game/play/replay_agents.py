"""The NPC agents' own state, re-derived by a replay (``components.agents`` of a save).

An NPC agent's state is what its body keeps: nothing for an idle one, a random stream for a
wanderer, a place on its route for a patrol. It advances each time the agent decides, once per
round for every NPC that acts (``Engine.npc_phase``), and what a body decides depends only on
where the NPC stands then. A replay reads the recorded actions back instead of asking the agents,
so this module asks fresh agents again, at the same moments and from the same places, and the
states they end in must be the saved ones. An LLM NPC keeps the body of the kind it was built
from, so its body is what is re-derived.
"""

from __future__ import annotations

from typing import Any

from agents.registry import LLM_KINDS, create
from game.core import seeds
from game.core.types import Observation

__all__ = ["AgentReplay", "fresh_agents"]


def fresh_agents(world: Any, seed: int) -> dict[str, Any]:
    """Each NPC's agent as a new game of ``seed`` makes it (an LLM kind: as the kind of its body,
    which is all of its state), drawing from the same seed stream; an NPC whose agent cannot be
    built here is left out."""
    tree = seeds.seed_tree(seed)
    out = {}
    for nid, npc in world.spec.npcs.items():
        kind, params = npc.agent.kind, dict(npc.agent.params)
        if kind in LLM_KINDS:
            kind, params = params.get("body", "idle"), dict(params.get("body_params") or {})
        try:
            out[nid] = create(
                kind, nid, rng=tree.child("npc", nid, "body").rng(), world=world, params=params, seed=seed
            )
        except Exception:  # noqa: BLE001 - a kind this install cannot build: its state is not re-derived
            continue
    return out


class AgentReplay:
    """Fresh NPC agents asked again as a replay goes: ``before(record)`` for each record before it
    is applied, ``end_round()`` before each round closes, ``finish()`` at the end; then
    ``states()``."""

    def __init__(self, eng: Any, world: Any, seed: int) -> None:
        self.eng = eng
        self.agents = fresh_agents(world, seed)
        self.active = [n for n in eng.order[1:] if n in self.agents and not getattr(self.agents[n], "passive", False)]
        self.stood: dict[str, str] = {}  # where each NPC stood when it decided this round
        self.notes: list[str] = []

    def before(self, rec: dict[str, Any]) -> None:
        who = rec.get("actor")
        if rec.get("type") == "action" and who in self.agents and who not in self.stood:
            self.stood[who] = self.eng.state.where.get(who, "")

    def _ask(self, npcs: list[str]) -> None:
        for npc in npcs:
            agent = self.agents.get(npc)
            if agent is None:
                continue
            where = self.stood.get(npc, self.eng.state.where.get(npc, ""))
            seen = Observation(actor=npc, turn=self.eng.state.turn, location=where, text="")
            try:  # the body decides (and keeps the state); a plugin's own code around it is not run again
                (agent.body if getattr(agent, "body", None) is not None else agent).act(seen)
            except Exception as e:  # noqa: BLE001 - an agent that fails here is left out, and said so
                del self.agents[npc]
                self.notes.append(
                    f"NPC {npc}'s agent could not decide again ({type(e).__name__}): its state not compared"
                )
        self.stood = {}

    def end_round(self) -> None:
        """Every acting NPC decided in this round (the engine's NPC phase came before its end)."""
        self._ask(self.active)

    def finish(self) -> None:
        """A game that ended during the NPC phase of its last round: the NPCs up to the one whose
        action ended it decided (one that ended on the player's move asked none)."""
        acted = [n for n in self.active if n in self.stood]
        if acted and self.eng.state.done:
            self._ask(self.active[: self.active.index(acted[-1]) + 1])

    def states(self) -> dict[str, Any]:
        return {nid: a.get_state() for nid, a in self.agents.items()}
