"""Agent kinds by name: worlds and tournaments create agents from config.

Every NPC kind builds an NPC agent (``agents.npc.ScriptedNPC`` or the LLM NPC)
with a body that moves it (idle, wanderer, patrol) and a voice that speaks; the
``negotiator`` and ``negotiator_params`` parameters pick how it trades. The
same factories serve the engine, the AEC environment and tournaments.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from game.errors import InputError, did_you_mean

Factory = Callable[..., Any]
_KINDS: dict[str, Factory] = {}
LLM_KINDS = ("llm", "llm_debater")


@dataclass(frozen=True)
class Build:
    """What a factory gets besides its parameters."""

    entity: str
    rng: np.random.Generator      # the agent's own stream (movement, choices)
    seed: int                     # the seed of its voice (stateless per reply)
    world: Any
    llm: Any = None               # an agents.llm.LLMClient for LLM kinds


def register(kind: str) -> Callable[[Factory], Factory]:
    def deco(fn: Factory) -> Factory:
        _KINDS[kind] = fn
        return fn
    return deco


def kinds() -> list[str]:
    return sorted(_KINDS)


def create(kind: str, entity: str, *, rng: np.random.Generator, world: Any,
           params: dict[str, Any] | None = None, seed: int = 0, llm: Any = None) -> Any:
    """Build an agent of ``kind`` for ``entity``; unknown kinds get a did-you-mean hint."""
    fn = _KINDS.get(kind)
    if fn is None:
        raise InputError(f"unknown agent kind {kind!r} for {entity!r}",
                         hint=did_you_mean(kind, _KINDS) or f"known kinds: {', '.join(kinds())}")
    if kind in LLM_KINDS and llm is None:
        raise InputError(f"{entity!r} is an LLM agent ({kind!r}) but no LLM endpoint is configured",
                         hint="pass --llm URL (e.g. http://localhost:11434/v1 for Ollama) "
                              "or set OPENAI_BASE_URL / OPENAI_API_KEY")
    try:
        return fn(Build(entity, rng, int(seed), world, llm), **(params or {}))
    except (TypeError, ValueError) as e:
        raise InputError(f"bad parameters for agent kind {kind!r} of {entity!r}: {e}") from None


def _exits(world: Any) -> dict[str, dict[str, str]]:
    return {lid: dict(loc.exits) for lid, loc in world.spec.locations.items()}


def _npc(b: Build, body: Any, negotiator: str = "linear",
         negotiator_params: dict[str, Any] | None = None) -> Any:
    from agents.npc import ScriptedNPC
    return ScriptedNPC(b.entity, b.world.spec, b.seed, body=body, negotiator=negotiator,
                       negotiator_params=negotiator_params)


@register("idle")
def _idle(b: Build, **params: Any) -> Any:
    """Stays put; talks, trades and debates when addressed."""
    return _npc(b, None, **params)


@register("debater")
def _debater(b: Build, **params: Any) -> Any:
    """A council member: argues from its world-configured argument banks."""
    return _npc(b, None, **params)


@register("wanderer")
def _wanderer(b: Build, moves: list[str] | None = None, p: float = 0.3, **params: Any) -> Any:
    from agents.basic import Wanderer
    return _npc(b, Wanderer(b.entity, b.rng, moves=moves, p=p, exits=_exits(b.world)), **params)


@register("patrol")
def _patrol(b: Build, route: list[str], **params: Any) -> Any:
    from agents.basic import Patrol
    return _npc(b, Patrol(b.entity, route, _exits(b.world)), **params)


@register("llm")
def _llm(b: Build, body: str = "idle", body_params: dict[str, Any] | None = None, **params: Any) -> Any:
    """Speaks, haggles and debates through an LLM; moves like ``body``."""
    from agents.llm.npc import LLMNPC
    base = create(body, b.entity, rng=b.rng, world=b.world, params=body_params, seed=b.seed)
    return LLMNPC.wrap(base, b.llm, **params)


@register("llm_debater")
def _llm_debater(b: Build, **params: Any) -> Any:
    """A council member that argues through an LLM."""
    return _llm(b, **params)


def npc_agents(world: Any, seed: int, llm: Any = None, llm_npcs: Any = ()) -> dict[str, Any]:
    """One agent per NPC from its spec, each with its own RNG stream and voice seed derived
    from the game seed. ``llm_npcs``: NPC ids (or ``"all"``) to drive by the LLM ``llm``
    whatever their configured kind (their movement is kept)."""
    from agents.npc import voice_seed
    n = len(world.spec.npcs)
    streams = np.random.SeedSequence(seed).spawn(n)
    out = {}
    for i, ((nid, npc), ss) in enumerate(zip(world.spec.npcs.items(), streams)):
        kind, params = npc.agent.kind, dict(npc.agent.params)
        if llm is not None and (llm_npcs == "all" or nid in llm_npcs) and kind not in LLM_KINDS:
            params = {"body": kind, "body_params": params}
            kind = "llm"
        out[nid] = create(kind, nid, rng=np.random.default_rng(ss), world=world, params=params,
                          seed=voice_seed(seed, i, n), llm=llm)
    return out
