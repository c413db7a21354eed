"""LLM council members: a :class:`Debater` (and a ``subjective``-mode :class:`Labeller`) that speaks
through any OpenAI-compatible endpoint.

:class:`LLMDebater` builds its prompt from its :class:`View` alone (its briefing, its stances and
its masked context), so it knows what a scripted member would know and nothing more: no other
member's unstated evidence, no truth. It asks for one structured reply (:class:`DebateReply`: the
statement, its kind, the evidence it raises, the statement it answers, its stance and confidence)
through ``client.structured``; a reply that names evidence the member does not know of, answers a
statement it cannot see or puts a stance outside [0, 1] goes back to the model with the reason (the
client's repair loop). When the repairs run out, or the endpoint fails, the member restates its
position at its last stance, and the reason is kept in ``LLMDebater.invalid``.

As a labeller it gets the others' statements numbered (a :class:`LabelRequest`) and answers keep
or mask for each (:class:`LabelReply`); a failure raises, and the masker falls back to recency.

``client`` is anything with ``LLMClient.structured``'s signature (``agents.llm.client.LLMClient``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from game.core import reply_schema as rs
from game.core.errors import ParleyError
from game.council.context import LabelRequest
from game.council.debaters import View
from game.council.session import Reply
from game.council.tasks import CouncilTask, Evidence

KIND = Literal["argument", "evidence", "rebuttal", "restate", "question"]


class DebateReply(BaseModel):
    """One statement in the debate, as the model gives it."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=1000, description="what you say to the council")
    kind: KIND
    evidence: str | None = Field(None, description="the id of the evidence item you raise, or null")
    target: int | None = Field(None, description="the # of the statement you rebut or question, or null")
    stance: float = Field(ge=0.0, le=1.0, description="the probability that you vote yes, now")
    confidence: float = Field(ge=0.0, le=1.0, description="how sure you are of that stance")


class Label(BaseModel):
    model_config = ConfigDict(extra="forbid")
    n: int = Field(ge=1)
    label: Literal["keep", "mask"]


class LabelReply(BaseModel):
    model_config = ConfigDict(extra="forbid")
    labels: list[Label]


SYSTEM = (
    "You are a member of a town council debating a motion; at the end every member votes yes or no. "
    "Argue from the evidence you hold and what you have heard. Evidence you hold privately counts only "
    "once you state it. Reply with one JSON object and nothing else."
)
LABEL_SYSTEM = (
    "You are a member of a town council. Your memory of the debate is limited: label each numbered "
    'statement of the other speakers "keep" (new evidence, a strong argument, an open dispute) or '
    '"mask" (a repeat, or settled). Reply with one JSON object and nothing else.'
)
REPLY_FORMAT = (
    '{"text": "...", "kind": "argument"|"evidence"|"rebuttal"|"restate"|"question", '
    '"evidence": "<id>"|null, "target": <statement #>|null, "stance": 0..1, "confidence": 0..1}'
)


@dataclass(frozen=True)
class Invalid:
    """A statement the model could not give: the round, and why."""

    round: int
    reason: str


def _side(stance: float) -> str:
    return "support" if stance > 0.5 else "oppose"


def _item(e: Evidence) -> str:
    return f"- [{e.id}] ({e.aspect}) {e.text}"


class LLMDebater:
    """A council member played by an LLM (see the module doc)."""

    def __init__(self, client: Any, *, temperature: float | None = None, max_repairs: int | None = None):
        self.client = client
        self.params = {"temperature": temperature} if temperature is not None else None
        self.max_repairs = max_repairs
        self.invalid: list[Invalid] = []
        self._confidence = 0.5

    def __repr__(self) -> str:
        return f"LLMDebater({self.client!r})"

    # --- the prompt -----------------------------------------------------------------------------

    @staticmethod
    def prompt(view: View) -> str:
        """The user message for ``view``: built from the view alone."""
        ctx = view.context
        briefing = {e.id for e in (*view.own, *view.shared)}
        heard = [e for eid, e in sorted(ctx.evidence.items()) if eid not in briefing]
        memory = [*ctx.anchors, *ctx.summary]
        for s in ctx.statements:
            tags = ", ".join(
                x
                for x in (
                    s.kind,
                    f"cites {s.evidence}" if s.evidence else "",
                    f"answers #{s.target}" if s.target is not None else "",
                )
                if x
            )
            memory.append(f"#{s.id} [{s.speaker}] ({tags}) {s.text}")
        allowed = ", ".join(sorted(view.known()))
        parts = [
            f"You are council member {view.member} (the {view.role}). Round {view.round}.",
            f"Motion: {view.motion}",
            (
                f"Your stance before the debate: {view.prior:.2f}; when you last spoke: {view.stance:.2f} "
                "(the probability that you vote yes)."
            ),
            f"How open you are to persuasion: {view.persuadability:.2f} (0 closed, 1 open).",
            "Evidence only you hold (the council has not heard it unless your memory shows it):",
            *([_item(e) for e in view.own] or ["- (none)"]),
            "Evidence every member was briefed with:",
            *([_item(e) for e in view.shared] or ["- (none)"]),
            *(["Evidence others have stated:", *(_item(e) for e in heard)] if heard else []),
            "Your memory of the debate (parts may be masked):",
            *(memory if ctx.statements else [*memory, "(nothing has been said yet)"]),
            f"Give your next statement as {REPLY_FORMAT}.",
            f'"evidence" must be one of {allowed} or null; "target" one of the # above or null.',
        ]
        return "\n".join(parts)

    def messages(self, view: View) -> list[dict[str, str]]:
        return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": self.prompt(view)}]

    # --- speaking ---------------------------------------------------------------------------------

    @staticmethod
    def check(view: View) -> Callable[[DebateReply], DebateReply]:
        """The rules a reply must follow beyond the schema (their messages go back to the model)."""
        known = view.known()
        visible = {s.id for s in view.context.statements}

        def validate(r: DebateReply) -> DebateReply:
            if r.evidence is not None and r.evidence not in known:
                raise ValueError(
                    f"evidence {r.evidence!r} is not one you hold or have heard; "
                    f"use one of {', '.join(sorted(known))} or null"
                )
            if r.target is not None and r.target not in visible:
                raise ValueError(
                    f"statement #{r.target} is not in your memory of the debate; use one of {sorted(visible)} or null"
                )
            if r.kind == "evidence" and r.evidence is None:
                raise ValueError("a statement of kind 'evidence' must name the evidence id it raises")
            if not r.text.strip():
                raise ValueError("the statement text is empty")
            return r

        return validate

    @staticmethod
    def reply_schema(view: View) -> dict[str, Any]:
        """``DebateReply`` narrowed to this member now: evidence it holds or has heard, statements in
        its memory of the debate, stances and confidences in [0, 1]; kind 'evidence' names an item."""
        known = sorted(view.known())
        targets = sorted(s.id for s in view.context.statements)
        common = {
            "text": rs.text(240),
            "target": rs.one_of(targets, nullable=True),
            "stance": rs.number(0.0, 1.0),
            "confidence": rs.number(0.0, 1.0),
        }
        kinds = [k for k in get_args(KIND) if k != "evidence"]
        options = [rs.obj({"kind": rs.one_of(kinds), "evidence": rs.one_of(known, nullable=True), **common})]
        if known:
            options.insert(0, rs.obj({"kind": {"const": "evidence"}, "evidence": rs.one_of(known), **common}))
        return rs.variants(*options)

    def respond(self, view: View) -> Reply:
        try:
            r = self.client.structured(
                self.messages(view),
                DebateReply,
                agent=view.member,
                turn=view.round,
                validate=self.check(view),
                schema=self.reply_schema(view),
                max_repairs=self.max_repairs,
                params=self.params,
            )
        except ParleyError as exc:  # repairs ran out (LLMInvalidReply) or the endpoint failed (LLMError)
            why = getattr(exc, "error", None) or exc.message
            self.invalid.append(Invalid(view.round, f"{type(exc).__name__}: {why}"))
            return self.fallback(view)
        self._confidence = r.confidence
        known = view.known()
        aspect = (
            known[r.evidence].aspect
            if r.evidence is not None
            else next((s.aspect for s in view.context.statements if s.id == r.target), None)
        )
        return Reply(r.kind, r.text.strip(), r.stance, r.confidence, r.evidence, r.target, aspect)

    def fallback(self, view: View) -> Reply:
        """Restate its position at its last stance."""
        return Reply(
            "restate", f"I hold to my position: I {_side(view.stance)} the motion.", view.stance, self._confidence
        )

    def final_stance(self, view: View) -> float:
        """Its vote's stance: the one it stated last."""
        return view.stance

    # --- subjective masking ---------------------------------------------------------------------

    def label(self, request: LabelRequest) -> Sequence[int]:
        """The numbers of the candidates to keep; raises ``LLMError`` when no valid labels come."""
        n = len(request.candidates)

        def complete(r: LabelReply) -> LabelReply:
            got = sorted(x.n for x in r.labels)
            if got != list(range(1, n + 1)):
                raise ValueError(f"label each statement 1-{n} exactly once, got numbers {got}")
            return r

        listing = "\n".join(f"{i}. {c}" for i, c in enumerate(request.candidates, 1))
        user = (
            f"You are council member {request.member} (the {request.role}). Round {request.round}.\n"
            f"Motion: {request.motion}\nStatements to label:\n{listing}\n"
            'Reply {"labels": [{"n": 1, "label": "keep"|"mask"}, ...]}, one label per statement.'
        )
        schema = rs.obj({"labels": rs.numbered(n, "n", {"label": rs.one_of(["keep", "mask"])})})
        out = self.client.structured(
            [{"role": "system", "content": LABEL_SYSTEM}, {"role": "user", "content": user}],
            LabelReply,
            agent=request.member,
            turn=request.round,
            validate=complete,
            schema=schema,
            max_repairs=self.max_repairs,
            params=self.params,
        )
        return [x.n for x in sorted(out.labels, key=lambda x: x.n) if x.label == "keep"]


def llm_council(
    task: CouncilTask, client: Any, members: Sequence[str] | None = None, **kw: Any
) -> dict[str, LLMDebater]:
    """LLM debaters for ``members`` (default: all) of ``task``, sharing ``client``."""
    ids = [m.id for m in task.members] if members is None else list(members)
    return {m: LLMDebater(client, **kw) for m in ids}
