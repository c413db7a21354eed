"""Metrics of one council debate, and the viewpoint-flow plot.

* ``decision`` / ``correct``: the vote, and whether it matches the task's truth (None if unknown);
* ``rounds``: rounds played before the vote (``stop_reason``: variance, majority, max_rounds);
* ``redundancy``: for each statement after the first, the mean cosine to every earlier one,
  averaged; ``redundancy_max`` the same with the most similar earlier one; ``self_redundancy``
  the mean cosine between a member's consecutive statements;
* ``effective_ratio``: the share of members' statements that bring something: the first
  statement of an evidence item, the first rebuttal of a statement, or a stance that moved by
  more than ``moved`` since the speaker last spoke;
* ``tokens_per_member_round``: context tokens a member reads per turn, averaged; ``tokens`` the
  total over the debate;
* ``turning_points``: the statements after which the stance variance changed most (a change of
  majority counts 1 extra), best first;
* ``flow``: each member's stance at the start and after every round;
* ``recall`` (set by ``run_debate``): the share of the stated evidence each member still knows
  of (its briefing, its context, the summary) when it votes, averaged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from game.council.session import COORDINATOR, CouncilSession, Statement


@dataclass
class DebateMetrics:
    decision: bool | None
    correct: bool | None
    yes_share: float
    rounds: int
    stop_reason: str | None
    statements: int
    redundancy: float
    redundancy_max: float
    self_redundancy: float
    effective_ratio: float
    tokens: int
    tokens_per_member_round: float
    turning_points: list[tuple[int, float]] = field(default_factory=list)
    flow: list[dict[str, float]] = field(default_factory=list)
    interventions: int = 0
    recall: float | None = None  # share of the stated evidence the members still know of at the vote

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def redundancy(vecs: np.ndarray) -> tuple[float, float]:
    """(mean cosine of each row to the earlier rows, mean of its highest cosine to an earlier row)."""
    if len(vecs) < 2:
        return 0.0, 0.0
    sim = vecs @ vecs.T
    means = [float(sim[i, :i].mean()) for i in range(1, len(vecs))]
    maxes = [float(sim[i, :i].max()) for i in range(1, len(vecs))]
    return float(np.mean(means)), float(np.mean(maxes))


def self_redundancy(history: Sequence[Statement], vecs: np.ndarray) -> float:
    last: dict[str, int] = {}
    sims = []
    for k, s in enumerate(history):
        if s.speaker in last:
            sims.append(float(vecs[k] @ vecs[last[s.speaker]]))
        last[s.speaker] = k
    return float(np.mean(sims)) if sims else 0.0


def effective(session: CouncilSession, moved: float = 0.05) -> list[bool]:
    """For each member statement (the chair's questions left out): does it bring something?"""
    prior = {m.id: m.stance for m in session.task.members}
    seen_targets: set[int] = set()
    out = []
    for s in session.history:
        if s.speaker == COORDINATOR:
            continue
        new_ev = s.evidence is not None and session.stated.get(s.evidence) == s.id
        new_reb = s.kind == "rebuttal" and s.target is not None and s.target not in seen_targets
        if s.target is not None:
            seen_targets.add(s.target)
        out.append(new_ev or new_reb or abs(s.stance - prior[s.speaker]) > moved)
        prior[s.speaker] = s.stance
    return out


def turning_points(session: CouncilSession, top: int = 3) -> list[tuple[int, float]]:
    """(statement id, score) of the statements after which variance or majority changed most."""
    members = [s for s in session.history if s.speaker in session.members]
    before = {m.id: m.stance for m in session.task.members}
    scored = []
    for s, after in zip(members, session.after):
        dv = abs(session.variance(after) - session.variance(before))
        flip = session.majority_yes(after) != session.majority_yes(before)
        scored.append((s.id, round(dv + (1.0 if flip else 0.0), 6)))
        before = after
    scored.sort(key=lambda x: (-x[1], x[0]))
    return [x for x in scored[:top] if x[1] > 0]


def evaluate(session: CouncilSession, vectors: Callable[[list[str]], np.ndarray]) -> DebateMetrics:
    """Metrics of a finished (voted) debate; ``vectors``: texts -> unit rows (an embedder, or a
    masker's cached ``vectors``) for the redundancy metrics."""
    said = [s for s in session.history if s.speaker != COORDINATOR]
    texts = [s.text for s in said]
    vecs = np.asarray(vectors(texts)) if texts else np.zeros((0, 1))
    red, red_max = redundancy(vecs)
    eff = effective(session)
    toks = [t for _, _, t in session.tokens]
    return DebateMetrics(
        decision=session.outcome.decision,
        correct=session.correct,
        yes_share=session.outcome.yes_share,
        rounds=session.round,
        stop_reason=session.stop_reason,
        statements=len(said),
        redundancy=red,
        redundancy_max=red_max,
        self_redundancy=self_redundancy(said, vecs),
        effective_ratio=float(np.mean(eff)) if eff else 0.0,
        tokens=int(sum(toks)),
        tokens_per_member_round=float(np.mean(toks)) if toks else 0.0,
        turning_points=turning_points(session),
        flow=[dict(f) for f in session.flow],
        interventions=len(session.interventions),
    )
