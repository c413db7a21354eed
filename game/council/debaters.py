"""Debaters: anything that turns what a member sees into its next statement.

A debater gets a :class:`View` and nothing else: its own briefing (its private evidence and the
shared evidence), its starting stance and persuadability, and its masked :class:`Context`. It
never sees the session, another member's unstated evidence or the task's truth.

:class:`ScriptedDebater` is a plausible, not an ideal, council member:

* its stance is recomputed each turn from its starting stance and what its context shows it:
  evidence beyond its briefing counts (discounted by its persuadability), and every repeat of an
  item in view adds weight (``repetition_gain * ln(mentions)``: what is said often feels truer);
  the visible stances of others pull it a little (``conformity``). What falls out of its context
  it has forgotten.
* it speaks by scoring its options: answer the chair's question with evidence it holds on that
  sub-question (any it holds, when the question names none); raise shared evidence its context does not show yet (the hidden-profile bias:
  shared points that back its view come first); raise its own evidence the context does not
  show (less eagerly when it cuts against its view); rebut the most controversial opposing
  claim in view (citing its best supporting item); or restate its position. A little seeded
  noise breaks ties. Each statement says which way it reads the item it cites (``side``) and
  how many of its own items it has not stated yet (``unstated``).

What it says always agrees with where it stands (``label``: for, against or undecided) and with
whom it answers, whatever option wins:

* it disagrees only with a member whose latest declared stance (``View.declared``: what everyone
  in the room heard) is on the other side; an item another member stated first is quoted as
  theirs ("I agree with X: '…'" when X is on its side, "As X said: '…'" else), never in its own
  voice;
* an item that cuts against a decided member's side is a fact it owes the council, said plainly
  (its position words, when it says any, are its own); when its config does not ``concede`` (a
  world's council, whose items are its members' own arguments, not facts) it is not said at all;
* it never repeats word for word a statement already made this round (``View.heard``): the next
  best option speaks, and at worst a plain statement of its position in words of its own.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from game.core.seeds import SeedTree, rng
from game.council.context import Context
from game.council.session import COORDINATOR, Reply, Statement
from game.council.tasks import Evidence


@dataclass(frozen=True)
class View:
    """Everything a member may know when it speaks."""

    member: str
    role: str
    motion: str
    round: int
    prior: float  # its stance after its briefing, before the debate
    stance: float  # its stance when it last spoke
    persuadability: float
    own: tuple[Evidence, ...]  # its private evidence
    shared: tuple[Evidence, ...]  # everyone's briefing
    context: Context
    said: frozenset[str] = frozenset()  # the evidence ids this member has stated itself
    declared: Mapping[str, float] = field(default_factory=dict)  # each member's latest declared stance
    heard: tuple[str, ...] = ()  # the words already said this round

    def known(self) -> dict[str, Evidence]:
        """The items it knows of: its briefing and what its context names."""
        out = {e.id: e for e in (*self.own, *self.shared)}
        out.update(self.context.evidence)
        return out


@runtime_checkable
class Debater(Protocol):
    """Picks a member's next statement from its view; ``final_stance`` is its vote's stance."""

    def respond(self, view: View) -> Reply: ...

    def final_stance(self, view: View) -> float: ...


class DebaterConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    repetition_gain: float = Field(0.5, ge=0.0, le=5.0)
    conformity: float = Field(0.15, ge=0.0, le=5.0)
    shared_bias: float = Field(1.2, ge=0.0, le=10.0, description="eagerness to raise shared points backing its view")
    contrary_shared: float = Field(0.3, ge=0.0, le=10.0)
    own_supporting: float = Field(1.0, ge=0.0, le=10.0)
    own_contrary: float = Field(0.6, ge=0.0, le=10.0, description="eagerness to raise its evidence against its view")
    rebut: float = Field(0.6, ge=0.0, le=10.0)
    rebut_controversy: float = Field(0.3, ge=0.0, le=10.0)
    restate: float = Field(0.4, ge=0.0, le=10.0)
    answer: float = Field(3.0, ge=0.0, le=10.0)
    noise: float = Field(0.15, ge=0.0, le=5.0)
    concede: bool = Field(
        True,
        description="a decided member states its items against its side (as concessions); False: it argues its side",
    )


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def _sentence(text: str) -> str:
    """``text`` ending as a sentence: a full stop unless it already ends in one, ! or ?."""
    text = text.rstrip()
    return text if text.endswith((".", "!", "?")) else f"{text}."


FOR, AGAINST = 0.55, 0.45  # a stance above FOR reads "for", below AGAINST "against", else "undecided"


def label(stance: float) -> str:
    """A stance as the council names it (an undecided member does not vote yes)."""
    return "for" if stance > FOR else "against" if stance < AGAINST else "undecided"


def opposed(a: float, b: float) -> bool:
    """Are stances ``a`` and ``b`` on different sides (of 0.5, and by their labels)?"""
    return (a > 0.5) != (b > 0.5) and label(a) != label(b)


def position(stance: float) -> str:
    """Where a member with ``stance`` stands, in words that match its label."""
    lab = label(stance)
    if lab != "undecided":
        return f"I {'support' if lab == 'for' else 'oppose'} the motion"
    return f"I lean {'towards' if stance > 0.5 else 'against'} the motion, but I have not made up my mind"


def _quote(text: str) -> str:
    return f"'{_sentence(text)}'"


class ScriptedDebater:
    """A rule-based member (see the module doc); seeded, so a debate replays exactly."""

    def __init__(
        self, config: DebaterConfig | None = None, seed: int | SeedTree = 0, names: Mapping[str, str] | None = None
    ):
        """``seed``: a node of a seed tree to draw from, or a plain seed (its child ``council, debater``);
        ``names``: how to call the other members in its words (their ids when missing)."""
        self.config = config or DebaterConfig()
        self.names = dict(names or {})
        self.rng = seed.rng() if isinstance(seed, SeedTree) else rng(seed, "council", "debater")

    # --- belief -------------------------------------------------------------------------------

    def stance(self, view: View) -> float:
        cfg = self.config
        ctx = view.context
        briefing = {e.id for e in (*view.own, *view.shared)}
        known = view.known()
        mentions = Counter(s.evidence for s in ctx.statements if s.evidence)
        for e in ctx.agreed:
            mentions[e] = max(mentions[e], 1)
        delta = 0.0
        for eid, n in mentions.items():
            e = known[eid]
            rep = cfg.repetition_gain * math.log(n)
            delta += e.direction * e.weight * (rep if eid in briefing else 1.0 + rep)
        social = sum(
            (2 * s.stance - 1) * s.confidence for s in ctx.statements if s.speaker not in (view.member, COORDINATOR)
        )
        x = _logit(view.prior) + view.persuadability * (delta + cfg.conformity * social)
        return float(min(max(1.0 / (1.0 + math.exp(-x)), 0.01), 0.99))

    def final_stance(self, view: View) -> float:
        return self.stance(view)

    # --- speech -------------------------------------------------------------------------------

    def respond(self, view: View) -> Reply:
        cfg = self.config
        stance = self.stance(view)
        sign = 1 if stance > 0.5 else -1
        decided = label(stance) != "undecided"
        conf = 0.3 + 0.7 * abs(2 * stance - 1)
        ctx = view.context
        seen = {s.evidence for s in ctx.statements if s.evidence} | set(ctx.agreed)
        options: list[tuple[float, str, Evidence | None, Statement | None]] = []
        question = next(
            (s for s in reversed(ctx.statements) if s.speaker == COORDINATOR and s.round >= view.round - 1), None
        )

        def speakable(e: Evidence) -> bool:  # not an item against its side, when it does not concede
            return cfg.concede or not decided or e.direction == sign

        for e in view.own:
            if e.id in seen or not speakable(e):
                continue
            if question is not None and question.aspect in (None, e.aspect):
                options.append((cfg.answer * e.weight, "answer", e, question))
            w = cfg.own_supporting if e.direction == sign else cfg.own_contrary
            options.append((w * e.weight, "evidence", e, None))
        for e in view.shared:
            if e.id not in seen and speakable(e):
                w = cfg.shared_bias if e.direction == sign else cfg.contrary_shared
                options.append((w * e.weight, "evidence", e, None))
        best = self._best_support(view, sign)
        target = self._controversial(view, stance)
        if target is not None:
            drew = sum(1 for s in ctx.statements if s.target == target.id)
            options.append((cfg.rebut + cfg.rebut_controversy * min(drew, 3), "rebuttal", best, target))
        options.append((cfg.restate, "restate", best, None))
        noise = self.rng.normal(0.0, cfg.noise, len(options)) if cfg.noise else np.zeros(len(options))
        order = np.argsort([-(o[0] + n) for o, n in zip(options, noise)], kind="stable")
        heard = set(view.heard)
        for k in order:  # the best option whose words were not said already this round
            _, kind, ev, tgt = options[int(k)]
            reply = self._say(view, kind, ev, tgt, stance, conf)
            if reply.text not in heard:
                break
        else:
            ev = None
            reply = self._plain(view, stance, conf, heard)
        said = view.said | ({reply.evidence} if reply.evidence else set())
        return replace(
            reply, side=None if ev is None else ev.direction, unstated=sum(e.id not in said for e in view.own)
        )

    def _best_support(self, view: View, sign: int) -> Evidence | None:
        items = [e for e in view.known().values() if e.direction == sign]
        return max(items, key=lambda e: (e.weight, e.id)) if items else None

    def _controversial(self, view: View, stance: float) -> Statement | None:
        """The opposing claim in view that drew the most rebuttals and questions (latest on ties),
        made by a member who still stands on the other side; words from outside the council (no
        declared confidence) are not claims to rebut."""
        known = view.known()
        sign = 1 if stance > 0.5 else -1
        opposing = [
            s
            for s in view.context.statements
            if s.speaker not in (view.member, COORDINATOR)
            and s.confidence > 0
            and opposed(stance, view.declared.get(s.speaker, s.stance))
            and (
                (known[s.evidence].direction != sign)
                if s.evidence and s.kind == "evidence"
                else (s.stance > 0.5) != (sign > 0)
            )
        ]
        if not opposing:
            return None
        drew = Counter(s.target for s in view.context.statements if s.target is not None)
        return max(opposing, key=lambda s: (drew[s.id], s.id))

    def name(self, member: str) -> str:
        return self.names.get(member, member)

    def _against(self, view: View, tgt: Statement) -> str:
        """Whom it answers: the member, or what the member said in an earlier round (who may
        have changed sides since)."""
        who = self.name(tgt.speaker)
        return (
            f"I disagree with {who}"
            if tgt.round == view.round
            else f"I disagree with what {who} said in round {tgt.round}"
        )

    def _cite(self, view: View, ev: Evidence, stance: float, agree: bool) -> str:
        """Item ``ev`` in the speaker's words: its own or the room's as they are; one another
        member stated first, quoted as theirs (agreed with when ``agree`` and on the same side)."""
        if ev in view.own or ev in view.shared:
            return _sentence(ev.text)
        first = next(
            (s for s in view.context.statements if s.evidence == ev.id and s.speaker not in (view.member, COORDINATOR)),
            None,
        )
        if first is None:
            return f"As was said: {_quote(ev.text)}"
        who = first.speaker
        theirs = view.declared.get(who, first.stance)
        if agree and label(theirs) == label(stance):
            return f"I agree with {self.name(who)}: {_quote(ev.text)}"
        return f"As {self.name(who)} said: {_quote(ev.text)}"

    def _say(
        self, view: View, kind: str, ev: Evidence | None, tgt: Statement | None, stance: float, conf: float
    ) -> Reply:
        where = position(stance)
        if kind in ("evidence", "answer"):
            assert ev is not None
            lead = "To the chair's question: " if kind == "answer" else ""
            text = _sentence(ev.text)
            return Reply(
                "evidence", f"{lead}{text}", stance, conf, ev.id, tgt.id if tgt is not None else None, ev.aspect
            )
        if ev is None:
            aspect = tgt.aspect if tgt is not None else None
            text = f"{where}; the case on {aspect or 'the whole'} is not made."
            if kind == "rebuttal" and tgt is not None:
                text = f"{self._against(view, tgt)}. {text}"
            return Reply(
                "argument" if kind == "restate" else kind,
                text,
                stance,
                conf,
                target=tgt.id if tgt is not None else None,
                aspect=aspect,
            )
        if kind == "rebuttal":
            assert tgt is not None
            cite = self._cite(view, ev, stance, agree=False)
            sep = ". " if cite.startswith("As ") else ": "
            return Reply("rebuttal", f"{self._against(view, tgt)}{sep}{cite}", stance, conf, ev.id, tgt.id, ev.aspect)
        cite = f"Again: {_sentence(ev.text)}" if ev in view.own else self._cite(view, ev, stance, agree=True)
        if ev in view.shared:
            cite = f"As was said: {_sentence(ev.text)}"
        return Reply("restate", f"{cite} {where}.", stance, conf, ev.id, aspect=ev.aspect)

    def _plain(self, view: View, stance: float, conf: float, heard: set[str]) -> Reply:
        """Its position in words not said yet this round (its own name in them, at worst)."""
        where = position(stance)
        lower = where[0].lower() + where[1:]
        variants = (
            f"{where}.",
            f"{where}, and I have said why.",
            f"My view stands: {lower}.",
            f"I have heard nothing to change my mind: {lower}.",
            f"Speaking as {view.role}, {lower}.",
            f"For my part, {lower}.",
        )
        text = next((t for t in variants if t not in heard), f"I, {self.name(view.member)}, say it plainly: {lower}.")
        return Reply("argument", text, stance, conf)
