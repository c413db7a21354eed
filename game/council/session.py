"""The council debate as a state machine: rounds, a coordinator, consensus, stalemates, a vote.

A *round* gives the floor to the members the coordinator picks (all of them unless
``speakers_per_round`` says fewer), in the order of its ``speaker_policy``:

* ``fixed``              -- the members' order in the task;
* ``random``             -- a fresh permutation each round (the session's seeded generator);
* ``most-controversial`` -- the member furthest from the council's mean stance first (ties: the
  one whose statements drew the most rebuttals and questions);
* ``most-uncertain``     -- the member whose stance is closest to 0.5 first.

Members the chair has just asked for evidence speak first in the next round.

After each round the coordinator checks, from ``min_rounds`` on, for consensus: the stance
variance below ``variance_threshold``, or the same majority for ``stable_rounds`` rounds in a row
(``consensus`` picks which rule applies). With ``crux_guard`` it does not stop while evidence may
still be unheard, and when no stance moved more than ``stalemate_delta`` for ``stalemate_rounds``
rounds it breaks the stalemate. What the chair knows for both is its ``chair``:

* ``transcript`` (the default) -- only what was said. It does not stop after a round that
  brought evidence nobody had stated before; to break a stalemate it asks the whole council for
  evidence it has not heard (on the sub-question the transcript shows disputed, if any), and
  when its last such request brought nothing new, a neutral question.
* ``declared`` -- what was said, and what each member declares of itself: a statement may carry
  how many of the speaker's own items it has not stated yet (``Reply.unstated``). It does not
  stop while a member's latest declaration is above zero, and to break a stalemate it gives
  those members the floor first.
* ``oracle`` -- an ablation that reads who holds what: it does not stop while any member holds
  unstated evidence on a crux (a sub-question with evidence both ways among the holdings,
  ``CouncilTask.crux_aspects``), and its stalemate breaker names the holders and their
  sub-question. Never the default.

No chair but ``oracle`` reads the members' private holdings or the task's truth; the session
reads ``truth`` only to score the vote (``correct``). At ``max_rounds`` the debate ends without
consensus; then the members vote.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from game.core import seeds
from game.core.errors import ActionError
from game.council.tasks import CouncilTask, Evidence

COORDINATOR = "coordinator"
MAX_ROUNDS = 200  # the most rounds a debate holds (a world's debating council, a debate tournament)
KINDS = ("argument", "evidence", "rebuttal", "restate", "question")
POLICIES = ("fixed", "random", "most-controversial", "most-uncertain")
CHAIRS = ("transcript", "declared", "oracle")
ASK_UNHEARD = "The chair asks: does anyone hold evidence{on} that the council has not heard?"


class CouncilError(ActionError):
    """A move the council's rules do not allow."""


class CouncilConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    max_rounds: int = Field(10, ge=1, le=MAX_ROUNDS)
    min_rounds: int = Field(1, ge=1, le=MAX_ROUNDS)
    speaker_policy: Literal["fixed", "random", "most-controversial", "most-uncertain"] = "fixed"
    speakers_per_round: int | None = Field(None, ge=1, description="None: every member speaks each round")
    consensus: Literal["variance", "majority", "either"] = "either"
    variance_threshold: float = Field(0.01, ge=0.0, le=0.25)
    stable_rounds: int = Field(3, ge=1)
    chair: Literal["transcript", "declared", "oracle"] = Field(
        "transcript",
        description="what the chair knows: the transcript; also the members' declarations of their "
        "own unstated items; or (oracle, an ablation) who holds what",
    )
    crux_guard: bool = Field(True, description="do not stop while evidence may be unheard (as the chair knows it)")
    stalemate_breaker: bool = True
    stalemate_rounds: int = Field(2, ge=1)
    stalemate_delta: float = Field(0.03, ge=0.0, le=1.0)
    majority: float = Field(0.5, gt=0.0, lt=1.0, description="share of yes votes needed (strictly more)")
    vote: Literal["threshold", "sample"] = "threshold"
    seed: int = Field(0, ge=0)


@dataclass(frozen=True, slots=True)
class Reply:
    """What a debater says: the text and its structured reading."""

    kind: str
    text: str
    stance: float
    confidence: float
    evidence: str | None = None
    target: int | None = None
    aspect: str | None = None
    side: int | None = None  # the speaker's reading of the item it cites: +1 for the motion, -1 against
    unstated: int | None = None  # the speaker's own declaration: how many of its items it has not stated


@dataclass(frozen=True, slots=True, kw_only=True)
class Statement(Reply):
    """One statement of the transcript: a reply, stamped with its position (``id``), round and speaker."""

    id: int
    round: int
    speaker: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Outcome:
    votes: dict[str, bool] = field(default_factory=dict)
    decision: bool | None = None
    yes_share: float = 0.0


class CouncilSession:
    """State of one council debate over ``task``."""

    def __init__(self, task: CouncilTask, config: CouncilConfig | None = None):
        self.task = task
        self.config = config or CouncilConfig()
        if self.config.min_rounds > self.config.max_rounds:
            raise CouncilError(f"min_rounds {self.config.min_rounds} exceeds max_rounds {self.config.max_rounds}")
        self.members: tuple[str, ...] = tuple(m.id for m in task.members)
        self.rng = seeds.rng(self.config.seed, "council", "session")
        self.crux = task.crux_aspects() if self.config.chair == "oracle" else frozenset()
        self.declared: dict[str, int] = {}  # member -> its latest declaration of its own unstated items
        self.stances: dict[str, float] = {m.id: m.stance for m in task.members}
        self.history: list[Statement] = []
        self.flow: list[dict[str, float]] = [dict(self.stances)]  # stances at the start and after each round
        self.after: list[dict[str, float]] = []  # stances after each statement
        self.stated: dict[str, int] = {}  # evidence id -> first statement stating it
        self.round = 1
        self.status = "open"
        self.stop_reason: str | None = None
        self.interventions: list[int] = []
        self.tokens: list[tuple[int, str, int]] = []  # (round, member, context tokens)
        self.outcome = Outcome()
        self._asked: list[str] = []
        self._asked_unheard: set[int] = set()  # the chair's requests for unheard evidence (statement ids)
        self._majorities: list[bool] = []
        self._order: list[str] = []
        self._spoken: list[str] = []

    # --- reading ------------------------------------------------------------------------------

    @property
    def is_open(self) -> bool:
        return self.status == "open"

    def targets(self, sid: int) -> int:
        """How many statements rebut or question statement ``sid``."""
        return sum(1 for s in self.history if s.target == sid)

    def unstated(self, crux_only: bool = False) -> list[tuple[str, str]]:
        """(member, evidence id) of privately held evidence nobody has stated yet. Reads the
        holdings: only the ``oracle`` chair decides with it."""
        by = self.task.by_id()
        return [
            (m.id, e)
            for m in self.task.members
            for e in m.private
            if e not in self.stated and (not crux_only or by[e].aspect in self.crux)
        ]

    def majority_yes(self, stances: Mapping[str, float] | None = None) -> bool:
        st = self.stances if stances is None else stances
        return sum(v > 0.5 for v in st.values()) / len(st) > self.config.majority

    def variance(self, stances: Mapping[str, float] | None = None) -> float:
        st = self.stances if stances is None else stances
        return float(np.var(list(st.values())))

    # --- the coordinator ------------------------------------------------------------------------

    def speakers(self) -> list[str]:
        """Who speaks this round, in order (computed once per round)."""
        if self._order:
            return list(self._order)
        pol = self.config.speaker_policy
        ms = list(self.members)
        if pol == "random":
            ms = [ms[i] for i in self.rng.permutation(len(ms))]
        elif pol == "most-controversial":
            mean = float(np.mean(list(self.stances.values())))
            drawn = Counter(self.history[s.target].speaker for s in self.history if s.target is not None)
            ms.sort(key=lambda m: (-round(abs(self.stances[m] - mean), 6), -drawn[m]))
        elif pol == "most-uncertain":
            ms.sort(key=lambda m: round(abs(self.stances[m] - 0.5), 6))
        asked = [m for m in self._asked if m in ms]
        ms = asked + [m for m in ms if m not in asked]
        k = self.config.speakers_per_round or len(ms)
        self._order = ms[: max(k, len(asked))]
        return list(self._order)

    def say(self, member: str, reply: Reply, context_tokens: int = 0) -> Statement:
        """``member`` takes the floor with ``reply``."""
        if not self.is_open:
            raise CouncilError(f"the debate is over ({self.status})")
        order = self.speakers()
        due = [m for m in order if m not in self._spoken]
        if not due or member != due[0]:
            raise CouncilError(f"it is not {member!r}'s turn (next: {due[0] if due else 'nobody'})")
        if reply.kind not in KINDS:
            raise CouncilError(f"unknown statement kind {reply.kind!r}; kinds are {', '.join(KINDS)}")
        st = self._append(member, reply)
        self.stances[member] = st.stance
        self.after.append(dict(self.stances))
        self.tokens.append((self.round, member, int(context_tokens)))
        self._spoken.append(member)
        return st

    def _append(self, speaker: str, reply: Reply) -> Statement:
        if reply.evidence is not None and reply.evidence not in self.task.by_id():
            raise CouncilError(f"unknown evidence {reply.evidence!r}")
        if reply.target is not None and not 0 <= reply.target < len(self.history):
            raise CouncilError(f"statement {reply.target} does not exist")
        st = Statement(
            id=len(self.history),
            round=self.round,
            speaker=speaker,
            kind=reply.kind,
            text=reply.text,
            stance=float(np.clip(reply.stance, 0.0, 1.0)),
            confidence=float(np.clip(reply.confidence, 0.0, 1.0)),
            evidence=reply.evidence,
            target=reply.target,
            aspect=reply.aspect,
            side=None if reply.side is None else (1 if reply.side > 0 else -1),
            unstated=None if reply.unstated is None else max(0, int(reply.unstated)),
        )
        self.history.append(st)
        if st.unstated is not None and speaker in self.members:
            self.declared[speaker] = st.unstated
        if st.evidence is not None:
            self.stated.setdefault(st.evidence, st.id)
        return st

    def hear(self, speaker: str, text: str) -> Statement:
        """Someone outside the council (a player in the gallery) speaks: an argument with no
        declared stance or evidence, in the transcript for every member's context to weigh."""
        if not self.is_open:
            raise CouncilError(f"the debate is over ({self.status})")
        if speaker in self.members or speaker == COORDINATOR:
            raise CouncilError(f"{speaker!r} speaks in turn, not from the gallery")
        return self._append(speaker, Reply("argument", text, 0.5, 0.0))

    def bring(
        self,
        member: str,
        evidence: Evidence,
        stance: float,
        text: str | None = None,
        persuadability: float | None = None,
    ) -> Statement:
        """New evidence reaches ``member`` from outside the debate (an item the player hands over):
        it joins the task as ``member``'s own, the member's stance becomes ``stance``, and the
        member states it out of turn (in ``text``, else the evidence's words), so it is in the
        transcript for every context. ``persuadability``: how movable the member is from now on."""
        if not self.is_open:
            raise CouncilError(f"the debate is over ({self.status})")
        if member not in self.members:
            raise CouncilError(f"{member!r} is not a member of this council")
        if evidence.id in self.task.by_id():
            raise CouncilError(f"evidence {evidence.id!r} is already in the debate")
        self.task = self.task.with_evidence(member, evidence, stance, persuadability)
        if self.config.chair == "oracle":
            self.crux = self.task.crux_aspects()
        said = text or f"{evidence.text.rstrip('.')}."
        st = self._append(
            member, Reply("evidence", said, stance, 1.0, evidence.id, aspect=evidence.aspect, side=evidence.direction)
        )
        self.stances[member] = st.stance
        self.after.append(dict(self.stances))
        return st

    def round_done(self) -> bool:
        return set(self.speakers()) <= set(self._spoken)

    def end_round(self) -> str:
        """Close the round: consensus check, stalemate breaker; returns the status."""
        if not self.is_open:
            raise CouncilError(f"the debate is over ({self.status})")
        if not self.round_done():
            raise CouncilError(f"round {self.round} is not finished: {', '.join(self.speakers())} must speak")
        self.flow.append(dict(self.stances))
        self._majorities.append(self.majority_yes())
        self._asked = []
        reason = self._consensus()
        last_call = False
        if reason is not None and self.config.crux_guard and self._unheard():
            reason, last_call = None, self.config.chair == "transcript"
        if reason is not None:
            self.status, self.stop_reason = "consensus", reason
        elif self.round >= self.config.max_rounds:
            self.status, self.stop_reason = "max_rounds", "max_rounds"
        else:
            if last_call:
                self._ask_unheard(None, [])
            elif self.config.stalemate_breaker and self._stalled():
                self._break_stalemate()
            self.round += 1
        self._order, self._spoken = [], []
        return self.status

    def _consensus(self) -> str | None:
        cfg = self.config
        if self.round < cfg.min_rounds:
            return None
        if cfg.consensus in ("variance", "either") and self.variance() < cfg.variance_threshold:
            return "variance"
        k = cfg.stable_rounds
        if (
            cfg.consensus in ("majority", "either")
            and len(self._majorities) >= k
            and len(set(self._majorities[-k:])) == 1
        ):
            return "majority"
        return None

    def _stalled(self) -> bool:
        k = self.config.stalemate_rounds
        if len(self.flow) < k + 1 or (
            self.interventions and self.history[self.interventions[-1]].round > self.round - k
        ):
            return False
        moves = [max(abs(b[m] - a[m]) for m in self.members) for a, b in zip(self.flow[-k - 1 :], self.flow[-k:])]
        return max(moves) < self.config.stalemate_delta

    def _unheard(self) -> bool:
        """Whether, as far as the chair knows, evidence is still to come (the stop guard)."""
        chair = self.config.chair
        if chair == "oracle":
            return bool(self.unstated(crux_only=True))
        if chair == "declared":
            return any(n > 0 for n in self.declared.values())
        # transcript: no stop until the chair asked the whole council for evidence it has not
        # heard and a full round after that request brought none
        ask = max(self._asked_unheard, default=None)
        newest = max(self.stated.values(), default=-1)
        return ask is None or newest > ask or self.history[ask].round >= self.round

    def sides(self) -> dict[str, set[int]]:
        """Sub-question -> the sides its stated items were read as, by their speakers (the
        transcript's labels: ``Reply.side``, else the speaker's stance when it stated the item)."""
        out: dict[str, set[int]] = {}
        for sid in self.stated.values():
            s = self.history[sid]
            if s.aspect:
                side = s.side if s.side is not None else (1 if s.stance > 0.5 else -1)
                out.setdefault(s.aspect, set()).add(side)
        return out

    def disputed(self) -> str | None:
        """The sub-question the transcript shows most disputed: stated items read both ways, the
        most statements on it (ties: the first raised)."""
        both = {a for a, d in self.sides().items() if len(d) == 2}
        talk = Counter(s.aspect for s in self.history if s.aspect in both and s.speaker != COORDINATOR)
        return talk.most_common(1)[0][0] if talk else None

    def _break_stalemate(self) -> None:
        if self.config.chair == "oracle":
            self._break_as_oracle()
            return
        last = self.interventions[-1] if self.interventions else None
        asked_unheard = last is not None and last in self._asked_unheard
        came = asked_unheard and any(sid > last for sid in self.stated.values())  # type: ignore[operator]
        declared = [m for m in self.members if self.declared.get(m, 0) > 0] if self.config.chair == "declared" else []
        if declared or not asked_unheard or came:
            self._ask_unheard(None if declared else self.disputed(), declared)
        else:
            self._neutral()

    def _ask_unheard(self, aspect: str | None, asked: list[str]) -> None:
        """Ask for evidence the council has not heard (on ``aspect``, or any); ``asked`` speak first."""
        self._asked = asked
        self._asked_unheard.add(len(self.history))
        self._question(ASK_UNHEARD.format(on=f" on {aspect}" if aspect else ""), aspect)

    def _neutral(self) -> None:
        """A neutral question on the most debated sub-question."""
        talk = Counter(s.aspect for s in self.history if s.aspect)
        aspect = talk.most_common(1)[0][0] if talk else "the motion"
        self._question(f"The chair asks: what would change your mind on {aspect}?", aspect)

    def _question(self, text: str, aspect: str | None) -> None:
        mean = float(np.mean(list(self.stances.values())))
        st = self._append(COORDINATOR, Reply("question", text, mean, 0.0, aspect=aspect))
        self.interventions.append(st.id)

    def _break_as_oracle(self) -> None:
        by = self.task.by_id()
        hidden = sorted(self.unstated(), key=lambda me: (by[me[1]].aspect not in self.crux, me[1]))
        if hidden:
            aspect = by[hidden[0][1]].aspect
            self._asked = sorted({m for m, e in hidden if by[e].aspect == aspect}, key=self.members.index)
            self._question(ASK_UNHEARD.format(on=f" on {aspect}"), aspect)
        else:
            self._neutral()

    # --- the vote ---------------------------------------------------------------------------------

    def vote(self, stances: Mapping[str, float] | None = None) -> Outcome:
        """The final vote on the members' final stances (``threshold``: yes above 0.5; ``sample``:
        yes with probability = stance, from the session's generator)."""
        if self.is_open:
            self.status, self.stop_reason = "closed", "vote called"
        st = dict(self.stances if stances is None else stances)
        self.stances.update(st)
        if self.config.vote == "sample":
            votes = {m: bool(self.rng.random() < st[m]) for m in self.members}
        else:
            votes = {m: st[m] > 0.5 for m in self.members}
        share = sum(votes.values()) / len(votes)
        self.outcome = Outcome(votes, share > self.config.majority, share)
        return self.outcome

    @property
    def correct(self) -> bool | None:
        if self.task.truth is None or self.outcome.decision is None:
            return None
        return self.outcome.decision == self.task.truth

    def __repr__(self) -> str:
        return (
            f"CouncilSession({self.task.id!r}, {self.status}, round {self.round}/{self.config.max_rounds}, "
            f"{len(self.history)} statements)"
        )
