"""World-fact memory behind the consistency gate: the entries, their indexes, the audit trail.

:class:`FactMemory` keeps the facts (admitted, verified, quarantined, and the
gone ones with their status), finds the facts related to a candidate
(structured, semantic, keyword), answers audit queries and saves and restores
itself. The deciding is in ``memory.gate``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from memory.gate_evidence import Bursts
from memory.gate_posterior import Costs, Posterior, cut_points
from memory.rule_judge import ClaimCandidate, Fact, RuleJudge, keywords, norm

LIVE = ("admitted", "verified")  # statuses that count as evidence and are retrievable
KEYWORD_FACTS = 8  # at most this many facts per shared keyword (the most recent)


class GateConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    k: int = Field(5, ge=3, le=7, description="semantic neighbours considered")
    similarity_floor: float = Field(0.35, ge=-1.0, le=1.0)
    posterior: Posterior = Field(default_factory=Posterior, description="prior and evidence weights (fitted)")
    costs: Costs = Field(default_factory=Costs, description="the cost of each error; fixes the cut points")
    t_low: float | None = Field(None, ge=0.0, le=1.0, description="reject below this p (default: from the costs)")
    t_high: float | None = Field(None, ge=0.0, le=1.0, description="admit from this p (default: from the costs)")
    on_judge_error: Literal["quarantine", "rule_only"] = "quarantine"
    cache: bool = True
    burst_size: int = Field(3, ge=2, description="agreeing strangers about something new that make a full burst")
    burst_window: int = Field(10, ge=0, description="turns within which agreeing strangers count as a burst")
    stranger_band: float = Field(
        0.1, ge=0.0, le=0.5, description="a source within this of credibility 0.5 has no trust evidence"
    )

    @model_validator(mode="after")
    def _order(self) -> GateConfig:
        if self.t_low is not None and self.t_high is not None and self.t_low > self.t_high:
            raise ValueError(f"t_low ({self.t_low}) must not exceed t_high ({self.t_high})")
        return self

    def cut_points(self) -> tuple[float, float]:
        """(reject below, admit from) on the posterior: the cost-derived ones unless set."""
        lo, hi = cut_points(self.costs)
        return (lo if self.t_low is None else self.t_low, hi if self.t_high is None else self.t_high)


@dataclass
class Decision:
    seq: int
    turn: int
    candidate: dict[str, Any]
    related: list[dict[str, Any]]
    votes: list[dict[str, Any]]
    score: float  # p for a decision by the posterior
    credibility: float
    outcome: str  # admit | quarantine | reject
    reason: str
    fact: str | None = None  # the entry it created or confirmed
    superseded: list[str] = field(default_factory=list)
    cached: bool = False
    p: float | None = None  # the posterior probability that the claim is true (None: decided before it existed)
    evidence: list[dict[str, Any]] = field(default_factory=list)  # terms: term, x, weight, log_odds

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class FactMemory:
    """The facts a gate holds and how they are found (see the module's doc)."""

    cfg: GateConfig
    rules: RuleJudge
    embedder: Any

    def _init_memory(self) -> None:
        self.facts: dict[str, Fact] = {}
        self.decisions: list[Decision] = []
        self._by_key: dict[tuple[str, str], list[str]] = {}
        self._by_word: dict[str, list[str]] = {}
        self._vec_ids: list[str] = []
        self._vecs: np.ndarray | None = None
        self._version = 0
        self._cache: dict[tuple, int] = {}
        self._next = 0
        self.judge_calls = 0
        self.bursts = Bursts()
        self._heard_memo: tuple[tuple | None, set[str]] = (None, set())  # (version, relation) -> heard values

    def _new_id(self) -> str:
        self._next += 1
        return f"f{self._next}"

    def _index(self, f: Fact) -> None:
        self._by_key.setdefault(f.key, []).append(f.id)
        for w in sorted(set(keywords(f.text)) | set(keywords(f.object))):
            self._by_word.setdefault(w, []).append(f.id)

    def _add(self, c: ClaimCandidate, status: str, truth: bool | None = None) -> Fact:
        f = Fact(
            self._new_id(),
            c.subject,
            c.relation,
            c.object,
            c.topic,
            c.source,
            c.turn,
            c.sentence(),
            status=status,
            truth=c.truth if truth is None else truth,
            sources=[c.source],
        )
        self.facts[f.id] = f
        self._index(f)
        if self.embedder is not None:
            v = self._embed([f.text])
            n = len(self._vec_ids)
            if self._vecs is None or n >= self._vecs.shape[0]:  # grow by doubling
                grown = np.zeros((max(16, 2 * n), v.shape[1]), dtype=np.float32)
                if self._vecs is not None:
                    grown[:n] = self._vecs[:n]
                self._vecs = grown
            self._vecs[n] = v[0]
            self._vec_ids.append(f.id)
        self._version += 1
        return f

    def _embed(self, texts: list[str]) -> np.ndarray:
        v = np.asarray(self.embedder(texts), dtype=np.float32)
        n = np.linalg.norm(v, axis=1, keepdims=True)
        return v / np.where(n == 0, 1.0, n)

    def _set_status(self, f: Fact, status: str) -> None:
        if f.status != status:
            f.status = status
            self._version += 1

    def live(self) -> list[Fact]:
        """Facts that count: admitted and verified (what retrieval may show)."""
        return [f for f in self.facts.values() if f.status in LIVE]

    def related(self, c: ClaimCandidate) -> list[tuple[Fact, str]]:
        """Evidence for a candidate: structured, semantic and keyword matches (live facts only)."""
        found: dict[str, str] = {}
        for fid in self._by_key.get(c.key, ()):
            found.setdefault(fid, "structured")
        r = self.rules.rule(c.relation)
        if r.temporal:  # the reverse order, and the opposite temporal relation on the same pair
            ends = (norm(c.subject), norm(c.object))
            for (s, rel), ids in self._by_key.items():
                if s in ends and self.rules.rule(rel).temporal:
                    for fid in ids:
                        found.setdefault(fid, "structured")
        if self.embedder is not None and self._vecs is not None and len(self._vec_ids):
            q = self._embed([c.sentence()])[0]
            sims = self._vecs[: len(self._vec_ids)] @ q
            order = np.argsort(-sims, kind="stable")
            taken = 0
            for i in order:
                if sims[i] < self.cfg.similarity_floor or taken >= self.cfg.k:
                    break
                fid = self._vec_ids[int(i)]
                if self.facts[fid].status in LIVE:
                    found.setdefault(fid, "semantic")
                    taken += 1
        for w in sorted(set(keywords(c.sentence())) | set(keywords(c.object))):
            hits = [fid for fid in self._by_word.get(w, ()) if self.facts[fid].status in LIVE]
            for fid in hits[-KEYWORD_FACTS:]:
                found.setdefault(fid, "keyword")
        return [(self.facts[fid], why) for fid, why in found.items() if self.facts[fid].status in LIVE]

    def ordered(self) -> list[tuple[str, str, Fact]]:
        """(earlier, later, fact) for every live positive fact of an ordered relation."""
        out = []
        for f in self.facts.values():
            if f.status in LIVE:
                pair = self.rules.order(f)
                if pair is not None:
                    out.append((*pair, f))
        return out

    # --- reading ----------------------------------------------------------------------
    def audit(
        self,
        *,
        source: str | None = None,
        outcome: str | None = None,
        subject: str | None = None,
        topic: str | None = None,
        since: int | None = None,
    ) -> list[Decision]:
        """The decisions matching every given filter, oldest first."""
        out = []
        for d in self.decisions:
            c = d.candidate
            if source is not None and c["source"] != source:
                continue
            if outcome is not None and d.outcome != outcome:
                continue
            if subject is not None and norm(c["subject"]) != norm(subject):
                continue
            if topic is not None and norm(c["topic"]) != norm(topic):
                continue
            if since is not None and d.turn < since:
                continue
            out.append(d)
        return out

    def status_of(self, subject: str, relation: str, obj: str, truth: bool = True) -> str | None:
        """The status of the latest entry asserting (``truth``) or denying a triple; None if never seen."""
        key = (norm(subject), norm(relation), norm(obj))
        for f in reversed(list(self.facts.values())):
            if f.triple == key and f.truth == truth:
                return f.status
        return None

    # --- persistence ------------------------------------------------------------------
    def get_state(self) -> dict[str, Any]:
        return {
            "facts": [asdict(f) for f in self.facts.values()],
            "next": self._next,
            "version": self._version,
            "cache": [[list(k[0]), k[1], k[2], k[3], k[4], v, k[5], k[6]] for k, v in self._cache.items()],
            "decisions": [d.to_dict() for d in self.decisions],
            "judge_calls": self.judge_calls,
            "heard": self.bursts.get_state(),
        }

    def set_state(self, state: Mapping[str, Any]) -> None:
        self._init_memory()
        for d in state.get("facts", ()):
            f = Fact(**d)
            self.facts[f.id] = f
            self._index(f)
        if self.embedder is not None and self.facts:
            self._vec_ids = list(self.facts)
            self._vecs = self._embed([self.facts[i].text for i in self._vec_ids])
        self.decisions = [Decision(**d) for d in state.get("decisions", ())]
        self.judge_calls = int(state.get("judge_calls", 0))
        self._next = int(state.get("next", len(self.facts)))
        self._version = int(state.get("version", len(self.decisions) + len(self.facts)))
        self._cache = {
            (
                tuple(row[0]),
                row[1],
                row[2],
                row[3],
                row[4],
                bool(row[6]) if len(row) > 6 else True,
                row[7] if len(row) > 7 else None,
            ): row[5]
            for row in state.get("cache", ())
        }
        self.bursts.set_state(state.get("heard", {}))
