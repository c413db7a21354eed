"""MEMO configuration: weights and thresholds for scoring, masking, compression and budget.

One pydantic model, so a world or tournament file can set any of these and a
typo is an error, not a silent default.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class MaskConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    redundancy_drop: float = Field(
        0.95, ge=0, le=1, description="similarity to a selected memory that drops a candidate"
    )
    redundancy_soft: float = Field(0.85, ge=0, le=1, description="similarity above which a candidate is down-weighted")
    soft_penalty: float = Field(0.5, ge=0, le=1, description="score share removed when down-weighted")
    self_repeat: float = Field(
        0.9, ge=0, le=1, description="similarity to the agent's own recent statements that masks"
    )
    own_statement_turns: int = Field(3, ge=0, description="how far back 'recent statements' reach")
    controversy_weight: float = Field(0.15, ge=0, description="score added per unit of controversy")
    novelty_weight: float = Field(0.1, ge=0, description="score added per unit of novelty")
    resolved_factor: float = Field(0.3, ge=0, le=1, description="score kept by memories about resolved sub-goals")


class ReflectionConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    threshold: float = Field(6.0, gt=0, description="accumulated importance that triggers consolidation")
    working_turns: int = Field(6, ge=1, description="memories younger than this stay in working memory")
    cluster_similarity: float = Field(0.5, ge=0, le=1)
    max_lines: int = Field(3, ge=1, description="source lines quoted in a reflection")


class MemoConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    w_relevance: float = Field(0.6, ge=0)
    w_recency: float = Field(0.2, ge=0)
    w_importance: float = Field(0.2, ge=0)
    w_relevance_focus: float = Field(
        0.9,
        ge=0,
        le=1,
        description="relevance weight when the agent faces a decision (a focus); "
        "recency and importance share the rest in their usual ratio",
    )
    recency_decay: float = Field(
        0.99, gt=0, le=1, description="recency = decay ** turns since last access (0.99: half-life ~70 turns)"
    )
    candidates: int = Field(48, ge=1, description="distinct memories (near-duplicates collapsed) kept as candidates")
    rare_candidates: int = Field(
        16,
        ge=0,
        description="the most relevant memories said only once that are not "
        "among the `candidates` join them: news must not be cut behind refrains",
    )
    pool_factor: int = Field(
        4,
        ge=1,
        description="hits read per query vector = candidates x pool_factor; the pool "
        "widens x4 while near-duplicates collapse it below `candidates`",
    )
    collapse_similarity: float = Field(
        0.9, ge=0, le=1, description="differently worded memories this similar are one cluster before the candidate cut"
    )
    time_bands: int = Field(
        4,
        ge=1,
        description="the history is cut into this many bands; the best memory of each "
        "band and of each kind is always a candidate",
    )
    refresh_recency: bool = Field(
        False,
        description="a memory shown in a context counts as recent again (off: "
        "recency is the age of the newest statement of it, so what is "
        "shown every turn cannot keep itself on top)",
    )
    long_tier_recency: float = Field(
        0.5, ge=0, le=1, description="recency floor of the long-term tier (reflections and what they consolidated)"
    )
    repeat_penalty: float = Field(
        0.15,
        ge=0,
        description="a line said n times with nothing changing (chatter, "
        "a refrain) keeps score / (1 + repeat_penalty * ln n): what is said once "
        "carries more news than what is said every turn",
    )
    link_names: int = Field(
        2,
        ge=0,
        description="names a focus is about but does not say (the seller of the item "
        "it asks about, linked through memories naming both: memory.linking) spelled out in one "
        "more query; 0: off",
    )
    link_boost: float = Field(
        0.1,
        ge=0,
        le=1,
        description="relevance (as a share of the best) added to a memory "
        "that names one of the focus's linked names: the question is about that person",
    )
    lexical_weight: float = Field(
        0.35,
        ge=0,
        le=1,
        description="share of a memory's relevance to the focus (the decision at hand) that comes from shared "
        "rare words (BM25 over the memories, memory.lexical) rather than from meaning (embeddings); its best "
        "hits also join the candidates. 0: off",
    )
    contiguity: float = Field(
        0.5,
        ge=0,
        description="with a focus, a memory's relevance gains this share of how far the memory written just "
        "before or after it stands above half the best relevance, and those neighbours join the candidates "
        "(memories said together are recalled together: a question's answer is often the reply to the line "
        "that names it). 0: off",
    )
    context_weight: float = Field(
        0.75, ge=0, le=1, description="weight of the situation query against the focus (the decision at hand)"
    )
    recent_turns: int = Field(2, ge=0, description="turns counted as recent history")
    turn_window: int | None = Field(None, ge=1, description="only retrieve memories from the last N turns")
    kinds: list[str] | None = Field(None, description="only retrieve these kinds (anchors always come)")
    budget: int = Field(400, ge=16, description="context token budget")
    length_penalty: float = Field(
        0.0,
        ge=0,
        le=1,
        description="lines fill the budget by score / tokens**length_penalty (0: by score, so a line is "
        "never dropped to keep lower-scored ones)",
    )
    near_duplicate: float = Field(
        0.85,
        ge=0,
        le=1,
        description="similarity above which a line repeats one already placed in the context and gives up "
        "part of its score (duplicate_penalty)",
    )
    duplicate_penalty: float = Field(
        1.0,
        ge=0,
        description="score a line gives up for repeating a line already placed: duplicate_penalty x "
        "(similarity - near_duplicate) / (1 - near_duplicate); a near-identical flood costs one line. 0: off",
    )
    merge_similarity: float = Field(0.88, ge=0, le=1, description="near-duplicates merged into one line")
    summarise_after: int = Field(10, ge=0, description="memories older than this many turns may be summarised")
    keep_verbatim: int = Field(12, ge=0, description="the best-scored lines are never summarised")
    cluster_similarity: float = Field(0.6, ge=0, le=1)
    cluster_min: int = Field(3, ge=2, description="smallest cluster summarised")
    llm_cluster_min: int = Field(6, ge=2, description="smallest cluster given to an LLM summariser, when configured")
    mask: MaskConfig = Field(default_factory=MaskConfig)
    reflection: ReflectionConfig = Field(default_factory=ReflectionConfig)
