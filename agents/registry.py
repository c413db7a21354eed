"""Agent kinds by name: worlds and tournaments create agents from config."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from game.errors import InputError, did_you_mean

Factory = Callable[..., Any]
_KINDS: dict[str, Factory] = {}


def register(kind: str) -> Callable[[Factory], Factory]:
    def deco(fn: Factory) -> Factory:
        _KINDS[kind] = fn
        return fn
    return deco


def kinds() -> list[str]:
    return sorted(_KINDS)


def create(kind: str, entity: str, *, rng: np.random.Generator, world: Any,
           params: dict[str, Any] | None = None) -> Any:
    """Build an agent of ``kind`` for ``entity``; unknown kinds get a did-you-mean hint."""
    fn = _KINDS.get(kind)
    if fn is None:
        raise InputError(f"unknown agent kind {kind!r} for {entity!r}",
                         hint=did_you_mean(kind, _KINDS) or f"known kinds: {', '.join(kinds())}")
    try:
        return fn(entity, rng=rng, world=world, **(params or {}))
    except (TypeError, ValueError) as e:
        raise InputError(f"bad parameters for agent kind {kind!r} of {entity!r}: {e}") from None


def _exits(world: Any) -> dict[str, dict[str, str]]:
    return {lid: dict(loc.exits) for lid, loc in world.spec.locations.items()}


@register("idle")
def _idle(entity: str, *, rng: Any, world: Any, **params: Any) -> Any:
    from agents.basic import Idle
    return Idle(entity)


@register("wanderer")
def _wanderer(entity: str, *, rng: Any, world: Any, moves: list[str] | None = None,
              p: float = 0.3) -> Any:
    from agents.basic import Wanderer
    return Wanderer(entity, rng, moves=moves, p=p, exits=_exits(world))


@register("patrol")
def _patrol(entity: str, *, rng: Any, world: Any, route: list[str]) -> Any:
    from agents.basic import Patrol
    return Patrol(entity, route, _exits(world))
