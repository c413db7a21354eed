"""What a tournament is, as pydantic models: the config read from TOML (``game.tournament.config``
reads and checks it) and a match (``game.tournament.matches`` plans them), with the content hashes
that give matches stable ids and seeds."""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from game.core.errors import InputError


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LLMEndpoint(_Model):
    """An OpenAI-compatible endpoint for an LLM competitor (the key comes from $OPENAI_API_KEY). A
    string is short for its ``endpoint``: ``llm = "local"`` is ``llm = {endpoint = "local"}``."""

    endpoint: str | None = Field(
        None,
        description="base URL, e.g. http://localhost:11434/v1; local: the bundled model (local:PATH.gguf: "
        "another GGUF file), served on this machine (None: $OPENAI_BASE_URL)",
    )
    model: str | None = Field(None, description="model name (None: $PARLEY_MODEL, else gpt-4o-mini)")
    timeout: float | None = Field(None, gt=0, le=3600, description="seconds per request")
    max_retries: int | None = Field(None, ge=0, le=50)
    cache_dir: str | None = Field(None, description="reply cache: a re-run with the same prompts makes no requests")
    usd_per_1k_tokens: float = Field(0.0, ge=0, description="price used for the spend limit and the cost column")

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: Any) -> Any:
        if isinstance(data, str):
            return {"endpoint": data}
        if not isinstance(data, (dict, LLMEndpoint)):
            raise ValueError(
                "llm is an endpoint (local, local:PATH.gguf or a URL) or a table {endpoint = ..., model = ..., ...}"
            )
        return data

    def settings(self) -> dict[str, Any]:
        """The fields given, as ``LLMConfig`` / ``LLMSettings`` name them (unset ones come from the environment)."""
        return {
            k: v
            for k, v in {
                "base_url": self.endpoint,
                "model": self.model,
                "timeout": self.timeout,
                "max_retries": self.max_retries,
                "cache_dir": self.cache_dir,
            }.items()
            if v is not None
        }


class Competitor(_Model):
    """One contestant: an agent kind with its parameters."""

    name: str = Field(min_length=1, max_length=60, description="shown in tables; unique in the tournament")
    agent: str = Field(
        description="negotiation: a negotiator kind (boulware, linear, conceder, hardliner, "
        "tit_for_tat, aspiration, random) or llm; adventure/council: the player's "
        "seat: autopilot, llm, script:FILE or module:function; debate: the council "
        "members: scripted or llm"
    )
    params: dict[str, Any] = Field(
        default_factory=dict,
        description="negotiation: the negotiator kind's "
        "parameters (e.g. exponent, opponent_model); debate: the masking mode's "
        "(budget, window, redundancy, ...: game.council.context.MaskingConfig)",
    )
    masking: str | None = Field(
        None,
        description="debate: the members' masking mode (none, window, dedupe, "
        "memo, objective; subjective for llm); unset: memo",
    )
    memory: bool = Field(
        False, description="adventure/council: agent memory (MEMO) on, so memory can be ablated as a competitor option"
    )
    embedder: Literal["minilm", "hash"] = Field("minilm", description="the memory's embedder (with memory)")
    llm: LLMEndpoint | None = Field(None, description="the endpoint an llm competitor (or its NPCs) uses")

    @field_validator("name")
    @classmethod
    def _printable(cls, v: str) -> str:
        if not v.strip() or any(not c.isprintable() for c in v):
            raise ValueError("a competitor name must be printable text")
        return v.strip()


class GeneratedScenarios(_Model):
    """Negotiation: random multi-issue scenes (``game.negotiation.generate.random_scenes``). Debate:
    hidden-profile tasks (``game.council.tasks.hidden_profile_task``) of seeds ``seed`` to
    ``seed + generate - 1``. Seeded, so reproducible."""

    generate: int = Field(ge=1, le=100_000, description="how many scenes (debate: hidden-profile tasks)")
    seed: int = Field(0, ge=0, description="the generator's seed (debate: the first task's seed)")
    deadline: int = Field(20, ge=1, le=1000, description="rounds before the talks fail")


class WorldScenario(_Model):
    """A world: its adventure, or one of its scenes (a negotiation or a council)."""

    world: str = Field(description="a world folder (relative to this file) or a world id under ./worlds")
    scene: str | None = Field(None, description="the scene's id (negotiation / council tournaments)")


class ImportedScenarios(_Model):
    """A scenario set written by ``parley import`` (Deal or No Deal, CaSiNo, GENIUS)."""

    imported: str = Field(description="the set's JSON file (relative to this file)")
    limit: int | None = Field(None, ge=1, description="use only the first N scenarios")


Scenario = GeneratedScenarios | WorldScenario | ImportedScenarios


class Limits(_Model):
    """When to stop starting matches."""

    llm_tokens: int | None = Field(None, ge=0, description="stop once the LLM competitors used this many tokens")
    cost: float | None = Field(None, ge=0, description="stop once their spend (usd_per_1k_tokens) reaches this")


class TournamentConfig(_Model):
    """A round robin: every competitor in every role (and both opening positions), on every scenario,
    for every seed and repetition."""

    name: str = Field("tournament", min_length=1, max_length=120)
    kind: str = Field(
        description="what is played: a kind of game.tournament.kinds (negotiation, adventure, council, debate)"
    )
    competitors: list[Competitor] = Field(min_length=1)
    scenarios: list[Scenario] = Field(min_length=1)
    seeds: list[int] = Field(default_factory=lambda: [0], min_length=1, description="base seeds (each >= 0)")
    repetitions: int = Field(1, ge=1, le=10_000, description="plays of each pairing per scenario and seed")
    openers: Literal["both", "scene"] = Field(
        "both",
        description="negotiation: both: each pairing also plays "
        "with the other party opening; scene: the "
        "scene's opener only",
    )
    self_play: bool = Field(False, description="negotiation: a competitor also meets itself")
    deadline: int | None = Field(None, ge=1, le=1000, description="negotiation: override every scene's deadline")
    turns: int | None = Field(
        None,
        ge=1,
        description="adventure/council: stop each game after this many turns; "
        "debate: the council's max_rounds (default 10, at most 200)",
    )
    limits: Limits = Field(default_factory=Limits)

    @field_validator("seeds")
    @classmethod
    def _seeds(cls, v: list[int]) -> list[int]:
        if any(s < 0 for s in v):
            raise ValueError("seeds must be 0 or more")
        if len(set(v)) != len(v):
            raise ValueError("seeds repeat")
        return v

    @model_validator(mode="after")
    def _unique_names(self) -> TournamentConfig:
        names = [c.name for c in self.competitors]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise ValueError(f"competitor names repeat: {', '.join(dup)}")
        return self

    def competitor(self, name: str) -> Competitor:
        return next(c for c in self.competitors if c.name == name)


class Match(BaseModel):
    """One game of the round robin: a scenario, who holds which seat, who opens, a seed and a repetition."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    kind: str
    scenario: str
    seats: dict[str, str]  # role (party id, or "player") -> competitor name, in role order
    opener: str | None = None
    seed: int
    rep: int
    group: str  # the rows that form one rated game: this match alone, or every competitor's on one instance


def digest(obj: Any, n: int = 16) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:n]


def derived_seed(*parts: Any) -> int:
    """A seed in [0, 2**31) from any JSON-able parts: the same on every machine and backend."""
    return int(digest(list(parts), 8), 16) & 0x7FFFFFFF


def endpoint(c: Competitor) -> dict[str, Any]:
    """The LLM endpoint and model a competitor's config resolves to here (unset fields come from the
    environment), as its match ids see them; a bad setting is an ``InputError`` naming it."""
    from agents.llm.config import LLMConfig

    try:
        llm = LLMConfig.from_env(**(c.llm.settings() if c.llm else {}))
    except InputError as err:
        raise InputError(f"competitor {c.name!r}: {err.message}", hint=err.hint) from None
    except ValueError as err:
        raise InputError(f"competitor {c.name!r}: {err}") from None
    return {"base_url": llm.base_url, "model": llm.model}
