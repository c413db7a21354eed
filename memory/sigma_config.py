"""Σ-Mem's parameters (:class:`SigmaConfig`) and their validation (:func:`make_config`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from game.core.errors import InputError, did_you_mean


class SigmaConfig(BaseModel):
    """Σ-Mem parameters. ``eta`` defaults to ``1 − gamma``; ``gamma_g`` to ``gamma``; ``eta_g`` to ``1 − gamma_g``."""

    model_config = ConfigDict(extra="forbid")

    r: int = Field(
        16,
        ge=1,
        le=4096,
        description="dimension of φ (projection mode; one-hot uses the topic count, "
        "topics mode the declared topics plus spare)",
    )
    gamma: float = Field(0.95, gt=0, lt=1, description="per-event decay of every M_p")
    eta: float | None = Field(None, gt=0, description="learning rate of M_p (default 1 − gamma)")
    gamma_g: float | None = Field(None, gt=0, lt=1, description="per-event decay of S (default gamma)")
    eta_g: float | None = Field(None, gt=0, description="learning rate of S (default 1 − gamma_g)")
    decay: Literal["event", "judged", "topic"] = Field(
        "event",
        description="event: every verified event decays every peer by gamma (the analysed model); "
        "judged: a write decays only the peers it judges, the others by gamma_idle, so "
        "trust builds for an NPC who is judged rarely; topic (the game's setting): a "
        "write decays the peers it judges only along the event's φ (their evidence on "
        "orthogonal topics is kept), every peer by gamma_idle, so trust on one topic "
        "does not fade while an NPC is judged on many others",
    )
    gamma_idle: float = Field(
        1.0,
        gt=0,
        le=1,
        description="decay: judged / topic: per-event decay of what an event does not judge, and of a tick (1: none)",
    )
    phi: Literal["projection", "onehot", "topics"] = Field(
        "projection",
        description="how a topic becomes φ: projection (seeded projection of its embedding to r "
        "dims), onehot (registered topics only), topics (declared topics one-hot, "
        "unseen ones mixed from the declared by name similarity plus an own direction "
        "in spare dims; see memory.sigma_topics)",
    )
    embedder: Literal["hash", "minilm"] = Field("hash", description="topic embedder (projection, topics modes)")
    seed: int = Field(0, ge=0, description="seed of the projection matrix")
    spare: int = Field(
        16,
        ge=0,
        le=4096,
        description="topics mode: dims beyond the declared topics, for the "
        "unseen topics' own directions (r = declared + spare)",
    )
    transfer: float = Field(
        0.5, ge=0, le=1, description="topics mode: least share of an unseen topic's φ taken from the declared topics"
    )
    transfer_temp: float | None = Field(
        None,
        gt=0,
        description="topics mode: softmax temperature over the name "
        "similarities of an unseen topic to the declared "
        "ones (default 0.1 with MiniLM; 1.0 otherwise, "
        "where word overlap is weak evidence)",
    )
    transfer_pool: float = Field(
        0.5,
        ge=0,
        le=1,
        description="topics mode: share of an unseen topic's "
        "transfer spread evenly over the declared topics "
        "(the peer's pooled score), against names that mislead",
    )
    shared: float = Field(
        0.0,
        ge=0,
        lt=1,
        description="topics mode: share ρ of every topic's φ on one dimension all topics share (the "
        "NPC's overall record; r grows by 1): φ = √(1 − ρ) φ₀ + √ρ e_g, so a score mixes the "
        "topic's own evidence with the NPC's record on every topic; 0 keeps declared topics apart",
    )
    vote_evidence: Literal["score", "topic"] = Field(
        "score",
        description="what M-Vote weighs claimants by: score (the score every read gives) or topic (only "
        "the evidence on the claim's own topic, without the shared part; the same unless shared > 0)",
    )
    eps: float = Field(1e-3, gt=0, description="ridge added to G in the posterior prior covariance")
    clip: float = Field(0.99, gt=0, lt=1, description="|normalised score| cap before artanh in vote weights")
    allow_new_peers: bool = Field(True, description="add unknown peers on their first write (else an error)")

    def rates(self) -> tuple[float, float, float, float]:
        """``(gamma, eta, gamma_g, eta_g)`` with the defaults resolved."""
        eta = 1.0 - self.gamma if self.eta is None else self.eta
        gamma_g = self.gamma if self.gamma_g is None else self.gamma_g
        eta_g = 1.0 - gamma_g if self.eta_g is None else self.eta_g
        return float(self.gamma), float(eta), float(gamma_g), float(eta_g)


def make_config(config: SigmaConfig | Mapping[str, Any] | None = None, **overrides: Any) -> SigmaConfig:
    """A validated :class:`SigmaConfig` from a config, a mapping and/or keyword overrides."""
    if isinstance(config, SigmaConfig):
        if not overrides:
            return config
        base = config.model_dump(exclude_unset=True)
    elif config is None:
        base = {}
    elif isinstance(config, Mapping):
        base = dict(config)
    else:
        raise InputError(f"Σ-Mem config must be a SigmaConfig or a mapping, got {type(config).__name__}")
    base.update(overrides)
    try:
        return SigmaConfig(**base)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err.get("loc", ())) or "config"
        raise InputError(
            f"Σ-Mem config {where}: {err['msg']} (got {err.get('input')!r})",
            hint=did_you_mean(where, SigmaConfig.model_fields),
        ) from None
