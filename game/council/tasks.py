"""Council debate tasks, and a seeded generator of hidden-profile tasks.

A task is a motion, the evidence in the room, who holds what, and (when known) the right
decision. In a *hidden profile* the shared evidence (every member's briefing) points the wrong
way while the decisive evidence is spread over the members privately: each member's own view
favours the wrong decision, the pooled evidence the right one. A council decides well only if
the private evidence is stated and kept in mind, and not drowned by the shared points everyone
repeats.

``truth`` is the sign of the pooled evidence (the decision of a council that weighs every item
once); the generator only returns tasks where that sign and every member's own view disagree.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

from game.core import seeds

ASPECTS: dict[str, tuple[str, str]] = {  # aspect: (phrase when the evidence favours the motion, against it)
    "cost": ("comes in {n} percent under the estimate", "overruns the estimate by {n} percent"),
    "safety": ("cuts accidents by {n} in a year", "adds {n} injuries a year on the works"),
    "schedule": ("finishes {n} weeks ahead of the floods", "slips {n} weeks past the floods"),
    "trade": ("brings {n} more barges to market each month", "drives {n} merchants to the rival town"),
    "law": ("is cleared by {n} clauses of the old charter", "breaches {n} clauses of the old charter"),
    "upkeep": ("needs only {n} crowns of repairs a season", "needs {n} crowns of repairs a season"),
    "health": ("keeps {n} wells free of river fever", "fouls {n} wells with standing water"),
    "support": ("has {n} signatures from the lower wards", "drew {n} protesters to the square"),
}
SOURCES = (
    "the treasurer's audit",
    "a mason's survey",
    "the harbour master's log",
    "the guild ledger",
    "the physician's report",
    "a clerk's tally",
    "the engineer's study",
    "the archivist's record",
    "the ferryman's account",
    "the watch captain's note",
)
PLANS = (
    "the stone bridge",
    "the river dredging",
    "the grain levy",
    "the new sluice gates",
    "the toll road",
    "the east granary",
    "the flood wall",
    "the market charter",
)
ROLES = ("treasurer", "engineer", "elder", "merchant", "physician", "captain", "clerk")
CONSTRAINTS = (
    "Every item of evidence stated is a verified fact; the dispute is what it adds up to.",
    "The motion passes with a strict majority of yes votes.",
)


class Evidence(BaseModel):
    """One fact: which sub-question (``aspect``) it bears on, which way (+1 for the motion, -1
    against) and how much (``weight``). ``gist`` is its short form for summaries."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(min_length=1)
    aspect: str = Field(min_length=1)
    direction: int = Field(description="+1 favours the motion, -1 opposes it")
    weight: float = Field(gt=0, le=10)
    text: str = Field(min_length=1)
    gist: str = ""

    @model_validator(mode="after")
    def _check(self) -> Evidence:
        if self.direction not in (-1, 1):
            raise ValueError(f"evidence direction must be +1 or -1, got {self.direction}")
        return self


class MemberSpec(BaseModel):
    """A council member: ``stance`` is the probability of voting yes at the start (after their
    briefing), ``persuadability`` how much what others say moves them, ``private`` the evidence
    only they hold."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = Field(min_length=1)
    role: str = "member"
    stance: float = Field(0.5, ge=0.0, le=1.0)
    persuadability: float = Field(0.7, ge=0.0, le=1.0)
    private: tuple[str, ...] = ()


class CouncilTask(BaseModel):
    """A motion, its evidence, the members and (if known) whether the motion should pass."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str = "task"
    motion: str = Field(min_length=1)
    constraints: tuple[str, ...] = ()
    evidence: tuple[Evidence, ...] = ()
    shared: tuple[str, ...] = ()
    members: tuple[MemberSpec, ...] = Field(min_length=2)
    truth: bool | None = None

    @model_validator(mode="after")
    def _check(self) -> CouncilTask:
        ids = [e.id for e in self.evidence]
        if len(set(ids)) != len(ids):
            raise ValueError("evidence ids must be unique")
        mids = [m.id for m in self.members]
        if len(set(mids)) != len(mids) or "coordinator" in mids:
            raise ValueError("member ids must be unique and not 'coordinator'")
        known = set(ids)
        held = [*self.shared, *(e for m in self.members for e in m.private)]
        missing = sorted(set(held) - known)
        if missing:
            raise ValueError(f"unknown evidence ids {missing}")
        if len(held) != len(set(held)):
            raise ValueError("an evidence item is held twice (shared and private, or by two members)")
        return self

    def item(self, eid: str) -> Evidence:
        return self.by_id()[eid]

    def by_id(self) -> dict[str, Evidence]:
        return {e.id: e for e in self.evidence}

    def member(self, mid: str) -> MemberSpec:
        for m in self.members:
            if m.id == mid:
                return m
        raise KeyError(mid)

    def with_evidence(
        self, member: str, evidence: Evidence, stance: float, persuadability: float | None = None
    ) -> CouncilTask:
        """This task with ``evidence`` added as ``member``'s own and ``member``'s stance (and, if
        given, persuadability) set (new evidence that reached it from outside the debate)."""
        update: dict[str, object] = {"stance": stance}
        if persuadability is not None:
            update["persuadability"] = persuadability
        members = tuple(
            m.model_copy(update={"private": (*m.private, evidence.id), **update}) if m.id == member else m
            for m in self.members
        )
        return type(self).model_validate(
            {**self.model_dump(), "evidence": (*self.evidence, evidence), "members": members}
        )

    def pooled(self) -> float:
        """Signed weight of all evidence held in the room."""
        by = self.by_id()
        held = [*self.shared, *(e for m in self.members for e in m.private)]
        return float(sum(by[e].direction * by[e].weight for e in held))

    def crux_aspects(self) -> frozenset[str]:
        """Sub-questions with evidence both ways among what the members hold: where the decision
        is disputed. Computed from the holdings, never from ``truth``."""
        by = self.by_id()
        held = [*self.shared, *(e for m in self.members for e in m.private)]
        dirs: dict[str, set[int]] = {}
        for e in held:
            dirs.setdefault(by[e].aspect, set()).add(by[e].direction)
        return frozenset(a for a, d in dirs.items() if len(d) == 2)


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _evidence(
    rng: np.random.Generator, eid: str, aspect: str, direction: int, weight: float, plan: str, used: set[str]
) -> Evidence:
    src = str(rng.choice([s for s in SOURCES if s not in used] or list(SOURCES)))
    used.add(src)
    n = int(rng.integers(3, 90))
    phrase = ASPECTS[aspect][0 if direction > 0 else 1].format(n=n)
    text = f"{src[0].upper()}{src[1:]} shows {plan} {phrase}"
    return Evidence(
        id=eid,
        aspect=aspect,
        direction=direction,
        weight=round(weight, 3),
        text=text,
        gist=f"{aspect} {'for' if direction > 0 else 'against'} ({n})",
    )


def _draw(rng: np.random.Generator, index: int, members: int | None = None) -> CouncilTask:
    """One candidate task (may fail the hidden-profile check); ``members``: how many (default 4 or 5)."""
    n_members = int(rng.integers(4, 6))
    if members is not None:
        n_members = members
    plan = str(rng.choice(PLANS))
    aspects = [str(a) for a in rng.permutation(list(ASPECTS))]
    crux, others = aspects[:2], aspects[2:]
    right = 1 if rng.random() < 0.5 else -1
    used: set[str] = set()
    ev: list[Evidence] = []
    shared: list[str] = []
    for k in range(3):  # shared: the wrong way, on the crux and on side issues
        aspect = crux[k % 2] if k < 2 else others[0]
        ev.append(_evidence(rng, f"s{k}", aspect, -right, float(rng.uniform(0.8, 1.2)), plan, used))
        shared.append(ev[-1].id)
    privates: list[list[str]] = [[] for _ in range(n_members)]
    for i in range(n_members):  # the decisive items: one per member, on the crux
        e = _evidence(rng, f"p{i}", crux[i % 2], right, float(rng.uniform(0.9, 1.4)), plan, used)
        ev.append(e)
        privates[i].append(e.id)
    for j in range(int(rng.integers(1, 3))):  # side items held by someone, small, either way
        i = int(rng.integers(0, n_members))
        e = _evidence(rng, f"d{j}", others[1 + j], int(rng.choice([-1, 1])), float(rng.uniform(0.2, 0.5)), plan, used)
        ev.append(e)
        privates[i].append(e.id)
    by = {e.id: e for e in ev}
    order = [str(r) for r in rng.permutation(list(ROLES))]
    roles = [f"{order[i % len(order)]}{'' if i < len(order) else i // len(order) + 1}" for i in range(n_members)]
    members = []
    for i in range(n_members):
        own = sum(by[e].direction * by[e].weight for e in [*shared, *privates[i]])
        bias = float(rng.normal(0.0, 0.25))
        members.append(
            MemberSpec(
                id=f"m{i}",
                role=str(roles[i]),
                stance=round(_sigmoid(bias + own), 4),
                persuadability=round(float(rng.uniform(0.5, 1.0)), 3),
                private=tuple(privates[i]),
            )
        )
    verb = "adopt" if rng.random() < 0.5 else "fund"
    return CouncilTask(
        id=f"hp{index}",
        motion=f"The council should {verb} {plan}.",
        constraints=CONSTRAINTS,
        evidence=tuple(ev),
        shared=tuple(shared),
        members=tuple(members),
        truth=None,
    )


def is_hidden_profile(task: CouncilTask) -> bool:
    """Every member's starting stance leans against the pooled evidence."""
    pooled = task.pooled()
    return pooled != 0 and all((m.stance - 0.5) * pooled < 0 for m in task.members)


def hidden_profile_task(seed: int, members: int | None = None) -> CouncilTask:
    """The hidden-profile task of ``seed`` (same seed, same task); ``members``: how many (at least
    2; default 4 or 5, drawn)."""
    if members is not None and members < 2:
        raise ValueError(f"a council needs at least 2 members, not {members}")
    rng = seeds.rng(seed, "council", "task")
    for _ in range(100):
        task = _draw(rng, seed, members)
        if is_hidden_profile(task) and abs(task.pooled()) >= 0.5:
            return task.model_copy(update={"truth": task.pooled() > 0})
    raise RuntimeError(f"no hidden-profile task found for seed {seed}")  # pragma: no cover


def hidden_profile_tasks(seeds: Iterable[int], members: int | None = None) -> list[CouncilTask]:
    return [hidden_profile_task(int(s), members) for s in seeds]
