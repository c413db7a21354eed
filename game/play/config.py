"""What a game and an episode are made of, as plain data (pydantic, JSON- and pickle-safe).

``GameConfig`` says which world, seed, player seat, memory, world-fact gate, LLM and insight bank
a game uses; ``game.play.compose`` turns it into the live parts of a ``game.play.session.Game``.
``EpisodeConfig`` adds what a headless run needs (``game.play.episode.play_episode``). Both cross
process and machine boundaries unchanged: an API key is never part of them (it is read from the
environment where the game runs).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from game.core.errors import did_you_mean

MEMO_LLM_PATHS = ("summarise", "reflect", "importance", "insights")  # see agents.memo_llm


def memo_llm_paths(value: Any) -> list[str]:
    """The MEMO paths an LLM drives, from a comma list (``"summarise,reflect"``), ``"all"``, ``"none"``
    or a list of names; in the order of ``MEMO_LLM_PATHS``. An unknown name is a ``ValueError``
    that names the paths (and the one meant, when it is close)."""
    if value is None:
        return []
    names = value.split(",") if isinstance(value, str) else list(value)
    wanted: set[str] = set()
    for raw in names:
        name = raw.strip().lower() if isinstance(raw, str) else raw
        if name in ("", "none"):
            continue
        if name == "all":
            wanted.update(MEMO_LLM_PATHS)
        elif name in MEMO_LLM_PATHS:
            wanted.add(name)
        else:
            hint = did_you_mean(name, [*MEMO_LLM_PATHS, "all"])
            raise ValueError(
                f"unknown MEMO LLM path {name!r}"
                + (f" ({hint})" if hint else "")
                + f"; the paths are {', '.join(MEMO_LLM_PATHS)} (or all)"
            )
    return [p for p in MEMO_LLM_PATHS if p in wanted]


class _Config(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MemorySettings(_Config):
    """Agent memory (MEMO): which embedder, which vector store, the optimizer's settings."""

    embedder: str = Field("minilm", description="minilm (the bundled MiniLM) or hash (fast, for tests)")
    store: Literal["flat", "chroma"] = "flat"
    chroma_host: str | None = Field(
        None, min_length=1, description="a Chroma server (store chroma; None: an embedded in-memory collection)"
    )
    chroma_port: int = Field(8000, ge=1, le=65535, description="the Chroma server's port")
    memo: dict[str, Any] | None = Field(None, description="memory.config.MemoConfig fields (None: defaults)")

    @model_validator(mode="after")
    def _server_needs_chroma(self) -> MemorySettings:
        if self.chroma_host is not None and self.store != "chroma":
            raise ValueError("chroma_host needs store 'chroma'")
        return self


class LLMSettings(_Config):
    """An OpenAI-compatible endpoint (``agents.llm.config.LLMConfig`` without the API key)."""

    base_url: str | None = Field(
        None, description='None: OPENAI_BASE_URL from the environment; "local": the bundled model'
    )
    model: str | None = None
    timeout: float | None = Field(None, gt=0, le=3600)
    max_retries: int | None = Field(None, ge=0, le=50)
    cache_dir: str | None = None


class GameConfig(_Config):
    """One game: a world, a seed and who plays what."""

    world: str = Field(description="a world folder, its world.toml, or a world id under ./worlds")
    seed: int = Field(0, ge=0)
    player: str = Field(
        "human",
        description="the player's seat: human, autopilot, llm, script:FILE, or module:function (a str -> str callable)",
    )
    memory: MemorySettings | None = None
    facts: bool = Field(True, description="NPC claims go through the consistency gate; Σ-Mem learns trust")
    jury: bool = Field(False, description="the gate also asks the LLM (needs llm)")
    llm: LLMSettings | None = Field(
        None, description='the LLM endpoint: settings, or "local" (the bundled model), "local:PATH.gguf" or a URL'
    )
    llm_npcs: Literal["all"] | list[str] = Field("all", description="NPCs the LLM drives (when llm is set)")
    memo_llm: list[str] = Field(
        default_factory=list,
        description="MEMO paths the LLM drives (needs an LLM and memory): summarise, "
        "reflect, importance, insights; a comma list or 'all' is accepted",
    )
    insights: str | None = Field(None, description="path of the cross-game insight bank (needs memory)")
    trust: bool = Field(True, description="the autopilot reads the game's Σ-Mem")

    @field_validator("world", mode="before")
    @classmethod
    def _path_text(cls, v: Any) -> Any:
        return str(v) if hasattr(v, "__fspath__") else v

    @field_validator("memo_llm", mode="before")
    @classmethod
    def _memo_paths(cls, v: Any) -> Any:
        return memo_llm_paths(v)

    @field_validator("llm", mode="before")
    @classmethod
    def _llm_shorthand(cls, v: Any) -> Any:
        """``llm = "local"`` (the bundled model), ``"local:PATH.gguf"`` or a URL: the endpoint alone."""
        return {"base_url": v} if isinstance(v, str) else v

    @model_validator(mode="after")
    def _needs(self) -> GameConfig:
        if self.insights is not None and self.memory is None:
            raise ValueError("insights needs memory (the lessons become priors in the agents' memory)")
        return self


class EpisodeConfig(_Config):
    """A headless run: an adventure played from the player's seat, or one scene played alone
    (a negotiation between two NPCs, or a council debate)."""

    game: GameConfig
    kind: Literal["adventure", "negotiation", "council"] = "adventure"
    scene: str | None = Field(None, description="the scene to play (negotiation / council episodes)")
    negotiators: list[str] | None = Field(None, description="negotiation: a kind per party (None: the NPCs' own)")
    turns: int | None = Field(None, ge=0, description="stop after this many turns (None: the world's limit)")
    transcript: bool = Field(False, description="keep the transcript text in the result")
    keep_memory: bool = Field(
        False,
        description="keep the game's Chroma server collection after the episode "
        "(by default an episode drops the collection it made)",
    )

    @model_validator(mode="after")
    def _fits_kind(self) -> EpisodeConfig:
        if self.kind == "adventure" and (self.scene is not None or self.negotiators is not None):
            raise ValueError("scene and negotiators are for negotiation or council episodes")
        if self.kind != "adventure" and not self.scene:
            raise ValueError(f"a {self.kind} episode needs scene (the id of the scene to play)")
        if self.kind != "negotiation" and self.negotiators is not None:
            raise ValueError("negotiators are for negotiation episodes")
        if self.kind == "negotiation" and (self.turns is not None or self.transcript or self.keep_memory):
            raise ValueError("turns, transcript and keep_memory are for adventure and council episodes")
        return self
