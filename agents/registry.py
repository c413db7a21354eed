"""Agent kinds by name: worlds and tournaments create agents from config.

Every NPC kind builds an NPC agent (``agents.npc.ScriptedNPC`` or the LLM NPC)
with a body that moves it (idle, wanderer, patrol) and a voice that speaks; the
``negotiator`` and ``negotiator_params`` parameters pick how it trades. The
same factories serve the engine, the AEC environment and tournaments.

Each kind declares its parameters as a pydantic model (``IdleParams``,
``WandererParams``, ``PatrolParams``, ``LLMParams``...; unknown keys are
errors). The world loader checks ``npcs.<id>.agent.params`` against the same
model that ``create`` uses, and the JSON Schema for world files is generated
from it, so ``parley validate`` and ``parley run`` cannot disagree.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agents.negotiators import KINDS as NEGOTIATOR_KINDS
from game.core import seeds
from game.core.errors import InputError, did_you_mean
from game.negotiation.utility import UtilityFunction

Factory = Callable[..., Any]
_KINDS: dict[str, Factory] = {}
_PARAMS: dict[str, type[BaseModel]] = {}
LLM_KINDS = ("llm", "llm_debater")

Negotiator = Literal[(*NEGOTIATOR_KINDS, "llm")]  # type: ignore[valid-type]
RuleNegotiator = Literal[tuple(NEGOTIATOR_KINDS)]  # type: ignore[valid-type]


# --- parameters per kind ------------------------------------------------------------


def _negotiator_params_problem(kind: str, params: dict[str, Any]) -> str | None:
    """Why ``params`` cannot build a ``kind`` negotiator (tried on a toy utility), or None."""
    from agents.negotiators import from_kind

    toy = UtilityFunction("probe", {"x": ["a", "b"]}, {"x": 1.0}, {"x": {"a": 0.0, "b": 1.0}})
    try:
        from_kind(kind, toy, **params)
    except InputError as e:
        return e.message + (f" ({e.hint})" if e.hint else "")
    except (TypeError, ValueError) as e:
        return str(e)
    return None


class Params(BaseModel):
    """Parameters every NPC kind takes: how it trades, and an optional goal."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    negotiator: Negotiator = Field(
        "linear", description="how it haggles: " + ", ".join(NEGOTIATOR_KINDS) + " (rule-based), or llm"
    )
    negotiator_params: dict[str, Any] | None = Field(
        None,
        description="parameters of the negotiator kind, e.g. { exponent = 0.5 } for a time-based kind, "
        "{ epsilon = 0.1 } for hardliner, { rate = 0.9 } for aspiration",
    )
    goal: str | None = Field(None, description="a goal the NPC's memory context starts with")

    @field_validator("negotiator_params")
    @classmethod
    def _negotiator_params_fit(cls, v: dict[str, Any] | None, info: Any) -> dict[str, Any] | None:
        kind = info.data.get("negotiator")  # absent when it failed its own check
        if v and kind in NEGOTIATOR_KINDS:
            problem = _negotiator_params_problem(kind, dict(v))
            if problem:
                raise ValueError(problem)
        return v


class IdleParams(Params):
    """``idle``: stays put; talks, trades and debates when addressed."""


class DebaterParams(Params):
    """``debater``: a council member arguing from its world-configured argument banks."""


class WandererParams(Params):
    """``wanderer``: with probability ``p`` per turn, walks through a random exit."""

    moves: list[str] | None = Field(
        None, min_length=1, description="location ids it may walk to (leave it out to wander anywhere)"
    )
    p: float = Field(0.3, ge=0.0, le=1.0, description="chance of moving each turn, in [0, 1]")


class PatrolParams(Params):
    """``patrol``: walks a fixed route, one exit per turn, and loops."""

    route: list[str] = Field(
        min_length=1,
        description="location ids in walking order; each next to the one before (and the last next to the first)",
    )


class LLMParams(Params):
    """``llm`` / ``llm_debater``: speaks, haggles and debates through an LLM; moves like ``body``."""

    negotiator: Negotiator = Field("llm", description="how it haggles: llm (default) or a rule-based kind")
    body: str = Field("idle", description="the non-LLM kind whose movement it keeps: idle, wanderer, patrol...")
    body_params: dict[str, Any] = Field(default_factory=dict, description="parameters of the body kind")
    persona: str | None = Field(None, description="overrides the NPC's persona in the LLM's prompt")
    fallback_negotiator: RuleNegotiator | None = Field(
        None, description="rule-based negotiator used when the LLM's reply is unusable (default: linear)"
    )


@dataclass(frozen=True)
class Build:
    """What a factory gets besides its parameters."""

    entity: str
    rng: np.random.Generator  # the agent's own stream (movement, choices)
    seed: int  # the game seed, which its voice draws from (stateless per reply)
    world: Any
    llm: Any = None  # an agents.llm.LLMClient for LLM kinds


@dataclass(frozen=True)
class ParamProblem:
    """One thing wrong with an agent's parameters; ``loc`` is relative to ``params``."""

    loc: tuple[str | int, ...]
    message: str
    hint: str | None = None

    @property
    def path(self) -> str:
        return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in self.loc)


def params_model(kind: str) -> type[BaseModel] | None:
    """The parameter model of a registered kind (None for an unknown kind)."""
    return _PARAMS.get(kind)


def param_models() -> dict[str, type[BaseModel]]:
    """Every registered kind's parameter model, by kind."""
    return {k: _PARAMS[k] for k in sorted(_PARAMS)}


def params_problems(kind: str, params: Any) -> list[ParamProblem]:
    """Everything wrong with ``params`` for an agent of ``kind`` (empty when they are fine).
    An LLM kind's ``body_params`` are checked against its body kind's model."""
    model = _PARAMS.get(kind)
    if model is None:
        return [
            ParamProblem(
                (), f"unknown agent kind {kind!r}", did_you_mean(kind, _KINDS) or f"known kinds: {', '.join(kinds())}"
            )
        ]
    if params is None:
        params = {}
    if not isinstance(params, dict):
        return [ParamProblem((), f"params must be a table, got {params!r}", "e.g. params = { p = 0.5 }")]
    out: list[ParamProblem] = []
    try:
        model.model_validate(params)
    except ValidationError as e:
        fields = list(model.model_fields)
        for err in e.errors(include_url=False):
            loc = tuple(err["loc"])
            key = loc[-1] if loc else ""
            if err["type"] == "extra_forbidden":
                out.append(
                    ParamProblem(
                        loc,
                        f"unknown parameter {key!r} for agent kind {kind!r}",
                        did_you_mean(key, fields) or f"{kind} takes {', '.join(fields)}",
                    )
                )
            elif err["type"] == "missing":
                out.append(ParamProblem(loc, f"missing parameter {key!r} (agent kind {kind!r} needs it)"))
            elif err["type"] == "literal_error":
                choices = re.findall(r"'([^']*)'", err.get("ctx", {}).get("expected", ""))
                out.append(
                    ParamProblem(
                        loc,
                        f"unknown {key} {err.get('input')!r}",
                        did_you_mean(err.get("input"), choices) or f"known: {', '.join(choices)}",
                    )
                )
            else:
                msg = err["msg"].removeprefix("Value error, ")
                if err["type"] != "value_error" and not isinstance(err.get("input"), dict | list):
                    msg += f", got {err.get('input')!r}"
                field = model.model_fields.get(loc[0]) if loc and isinstance(loc[0], str) else None
                out.append(ParamProblem(loc, msg, field.description if field is not None else None))
    if kind in LLM_KINDS and not any(p.loc[:1] in (("body",), ("body_params",)) for p in out):
        body = params.get("body", "idle")
        if body in LLM_KINDS or body not in _PARAMS:
            known = [k for k in kinds() if k not in LLM_KINDS]
            out.append(
                ParamProblem(
                    ("body",),
                    f"unknown body kind {body!r}",
                    did_you_mean(body, known) or f"an LLM NPC moves like one of: {', '.join(known)}",
                )
            )
        else:
            for p in params_problems(body, params.get("body_params") or {}):
                out.append(ParamProblem(("body_params", *p.loc), p.message, p.hint))
    return out


def register(kind: str, params: type[BaseModel] = IdleParams) -> Callable[[Factory], Factory]:
    """Register a factory ``fn(build, **params)`` for ``kind``; ``params`` declares what it takes."""

    def deco(fn: Factory) -> Factory:
        _KINDS[kind] = fn
        _PARAMS[kind] = params
        return fn

    return deco


def unregister(kind: str) -> None:
    """Forget a kind ``register`` added (a plugin unloaded); an unknown kind is ignored."""
    _KINDS.pop(kind, None)
    _PARAMS.pop(kind, None)


def kinds() -> list[str]:
    return sorted(_KINDS)


def create(
    kind: str,
    entity: str,
    *,
    rng: np.random.Generator,
    world: Any,
    params: dict[str, Any] | None = None,
    seed: int = 0,
    llm: Any = None,
) -> Any:
    """Build an agent of ``kind`` for ``entity``; unknown kinds get a did-you-mean hint, and
    ``params`` are checked against the kind's parameter model (the one the loader uses)."""
    fn = _KINDS.get(kind)
    if fn is None:
        raise InputError(
            f"unknown agent kind {kind!r} for {entity!r}",
            hint=did_you_mean(kind, _KINDS) or f"known kinds: {', '.join(kinds())}",
        )
    if kind in LLM_KINDS and llm is None:
        raise InputError(
            f"{entity!r} is an LLM agent ({kind!r}) but no LLM endpoint is configured",
            hint="pass --llm URL (e.g. http://localhost:11434/v1 for Ollama) or set OPENAI_BASE_URL / OPENAI_API_KEY",
        )
    problems = params_problems(kind, params or {})
    if problems:
        raise InputError(
            f"bad parameters for agent kind {kind!r} of {entity!r}: "
            + "; ".join(f"params{p.path}: {p.message}" for p in problems),
            hint=next((p.hint for p in problems if p.hint), None),
        )
    values = _PARAMS[kind].model_validate(params or {}).model_dump(exclude_unset=True)
    values.pop("goal", None)  # read by the memory context, not by the factory
    try:
        return fn(Build(entity, rng, int(seed), world, llm), **values)
    except (TypeError, ValueError) as e:
        raise InputError(f"bad parameters for agent kind {kind!r} of {entity!r}: {e}") from None


def _npc(b: Build, body: Any, negotiator: str = "linear", negotiator_params: dict[str, Any] | None = None) -> Any:
    from agents.npc import ScriptedNPC

    return ScriptedNPC(
        b.entity, b.world.spec, b.seed, body=body, negotiator=negotiator, negotiator_params=negotiator_params
    )


@register("idle")
def _idle(b: Build, **params: Any) -> Any:
    """Stays put; talks, trades and debates when addressed."""
    return _npc(b, None, **params)


@register("debater", DebaterParams)
def _debater(b: Build, **params: Any) -> Any:
    """A council member: argues from its world-configured argument banks."""
    return _npc(b, None, **params)


@register("wanderer", WandererParams)
def _wanderer(b: Build, moves: list[str] | None = None, p: float = 0.3, **params: Any) -> Any:
    from agents.basic import Wanderer

    return _npc(b, Wanderer(b.entity, b.rng, moves=moves, p=p, exits=b.world.exits), **params)


@register("patrol", PatrolParams)
def _patrol(b: Build, route: list[str], **params: Any) -> Any:
    from agents.basic import Patrol

    return _npc(b, Patrol(b.entity, route, b.world.exits), **params)


@register("llm", LLMParams)
def _llm(b: Build, body: str = "idle", body_params: dict[str, Any] | None = None, **params: Any) -> Any:
    """Speaks, haggles and debates through an LLM; moves like ``body``."""
    from agents.llm.npc import LLMNPC

    base = create(body, b.entity, rng=b.rng, world=b.world, params=body_params, seed=b.seed)
    return LLMNPC.wrap(base, b.llm, **params)


@register("llm_debater", LLMParams)
def _llm_debater(b: Build, **params: Any) -> Any:
    """A council member that argues through an LLM."""
    return _llm(b, **params)


def npc_agents(world: Any, seed: int, llm: Any = None, llm_npcs: Any = ()) -> dict[str, Any]:
    """One agent per NPC from its spec; its body draws from the game seed's child
    ``npc, <id>, body``, its voice from ``npc, <id>, voice``. ``llm_npcs``: NPC ids (or ``"all"``)
    to drive by the LLM ``llm`` whatever their configured kind (their movement is kept)."""
    tree = seeds.seed_tree(seed)
    out = {}
    for nid, npc in world.spec.npcs.items():
        kind, params = npc.agent.kind, dict(npc.agent.params)
        if llm is not None and (llm_npcs == "all" or nid in llm_npcs) and kind not in LLM_KINDS:
            params = {"body": kind, "body_params": params}
            kind = "llm"
        out[nid] = create(
            kind, nid, rng=tree.child("npc", nid, "body").rng(), world=world, params=params, seed=seed, llm=llm
        )
    return out
