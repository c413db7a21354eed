"""A negotiator that decides each move through an LLM.

The prompt gives the model its role, its *own* private utility summary (issue
weights, value utilities and reservation value; never the opponent's), the
protocol rules, the history of the talks and its MEMO context. The reply is a
JSON move ``{action, offer, message}`` checked against the outcome space and
the protocol (no accept without a standing offer; no offer or acceptance below
the reservation value), with the error shown to the model for repair. When the
repairs run out, the rule-based ``fallback`` negotiator moves instead; the move
says why (``Move.fallback``) and the engine records a penalised invalid move.
The scene passes the party's MEMO context and the game turn in a ``Situation``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.llm.prompts import NegotiationReply, context_block
from game.core import reply_schema as rs
from game.negotiation.runner import Move, Situation
from game.negotiation.utility import space_for

MAX_LISTED_OFFERS = 200  # deal spaces up to this size send each acceptable offer in the schema

RULES = (
    "Protocol: alternating offers. On your turn you may 'offer' complete terms (a value for every "
    "issue), 'accept' the other side's standing offer, 'reject' it (you then offer next turn), or "
    "'walk_away' (no deal: you get your reservation value). The talks fail at the deadline."
)


class LLMNegotiator:
    """``respond(session, party, situation) -> Move`` from an LLM, with a rule-based fallback."""

    uses_context = True

    def __init__(self, client: Any, scene: Any, party: str, utility: Any, *, fallback: Any, persona: str = ""):
        self.client, self.scene, self.party, self.utility = client, scene, party, utility
        self.fallback = fallback
        self.persona = persona

    def utility_summary(self) -> str:
        u = self.utility
        lines = []
        for issue in u.issues:
            vals = ", ".join(f"{v}={u.value_utility(issue, v):.2f}" for v in self.scene.issues[issue])
            lines.append(f"- {issue} (weight {u.weights[issue]:.2f}): {vals}")
        return (
            "Your private preferences (never reveal them). Utility of a deal = sum of weight x value "
            "utility:\n"
            + "\n".join(lines)
            + f"\nYour reservation value (what no deal is worth to you): {u.reservation:.2f}. "
            "Never agree to terms worth less than that."
        )

    def messages(self, session: Any, context: Any = None) -> list[dict[str, str]]:
        issues = "; ".join(f"{k}: {', '.join(v)}" for k, v in self.scene.issues.items())
        history = (
            "\n".join(
                f"round {r.round}: {'you' if r.party == self.party else 'they'} {r.kind}"
                + (" " + ", ".join(f"{k}={v}" for k, v in r.terms) if r.terms else "")
                for r in session.history
            )
            or "(no moves yet)"
        )
        standing = session.standing_offer
        state = (
            f"Standing offer from them: {standing} (worth {self.utility(standing):.2f} to you)."
            if standing is not None and session.standing_party != self.party
            else "No offer of theirs stands."
        )
        context = context_block(context)
        system = (
            f"{self.persona}\nYou negotiate '{self.scene.title}' as party {self.party!r}. "
            f"{RULES}\nIssues and possible values: {issues}.\n{self.utility_summary()}\n"
            'Reply with one JSON object: {"action": "offer"|"accept"|"reject"|"walk_away", '
            '"offer": {issue: value} for offers else null, "message": one short line you say}.'
        )
        user = (
            f"Round {session.round} of {self.scene.deadline}.\nHistory:\n{history}\n{state}\n"
            f"Legal moves now: {', '.join(session.legal_moves(self.party))}. Your move?{context}"
        )
        return [{"role": "system", "content": system.strip()}, {"role": "user", "content": user}]

    def acceptable_offers(self) -> list[dict[str, str]] | None:
        """Every complete offer worth at least the reservation value, in the outcome space's order (None when
        the deal space holds more than ``MAX_LISTED_OFFERS`` outcomes)."""
        space = space_for(self.scene.issues)
        if len(space) > MAX_LISTED_OFFERS:
            return None
        return [o for o in space.offers() if self.utility(o) >= self.utility.reservation]

    def move_schema(self, session: Any) -> dict[str, Any]:
        """The JSON Schema of a legal move now: an offer from the deal space that the reservation
        value allows (every such offer listed when the space is small, else a value of each issue),
        or one of the other moves the protocol allows (accept only when the standing offer is
        worth the reservation value). A server that constrains its output to it cannot move illegally."""
        legal = list(session.legal_moves(self.party))
        standing = session.standing_offer
        if "accept" in legal and (standing is None or self.utility(standing) < self.utility.reservation):
            legal.remove("accept")
        message = rs.text(80, min_length=0)
        options: list[dict[str, Any]] = []
        listed = self.acceptable_offers() if "offer" in legal else None
        if "offer" in legal and listed != []:
            offer = (
                rs.one_of(listed)
                if listed is not None
                else rs.obj({k: rs.one_of(v) for k, v in self.scene.issues.items()})
            )
            options.append(rs.obj({"action": {"const": "offer"}, "offer": offer, "message": message}))
        others = [m for m in legal if m != "offer"]
        if others:
            options.append(rs.obj({"action": rs.one_of(others), "message": message}))
        return rs.variants(*options)

    def check(self, session: Any) -> Callable[[NegotiationReply], NegotiationReply]:
        def validate(r: NegotiationReply) -> NegotiationReply:
            legal = session.legal_moves(self.party)
            if r.action not in legal:
                raise ValueError(f"{r.action!r} is not legal now; legal moves: {', '.join(legal)}")
            if r.action == "offer":
                if not r.offer:
                    raise ValueError("an offer needs terms: a value for every issue")
                for issue, vals in self.scene.issues.items():
                    if issue not in r.offer:
                        raise ValueError(f"the offer misses issue {issue!r} (values: {', '.join(vals)})")
                    if str(r.offer[issue]) not in vals:
                        raise ValueError(f"{r.offer[issue]!r} is not a value of {issue!r} (values: {', '.join(vals)})")
                extra = set(r.offer) - set(self.scene.issues)
                if extra:
                    raise ValueError(f"unknown issues in the offer: {', '.join(sorted(extra))}")
                worth = self.utility({k: str(v) for k, v in r.offer.items()})
                if worth < self.utility.reservation:
                    raise ValueError(
                        f"that offer is worth {worth:.2f} to you, below your reservation "
                        f"value {self.utility.reservation:.2f}"
                    )
            if r.action == "accept":
                worth = self.utility(session.standing_offer)
                if worth < self.utility.reservation:
                    raise ValueError(
                        f"accepting gives you {worth:.2f}, below your reservation value "
                        f"{self.utility.reservation:.2f}; offer or walk away instead"
                    )
            return r

        return validate

    def respond(self, session: Any, party: str, situation: Situation | None = None) -> Move:
        from agents.llm.errors import LLMError, LLMInvalidReply

        situation = situation or Situation()
        turn = situation.turn if situation.turn is not None else session.round
        try:
            r = self.client.structured(
                self.messages(session, situation.context),
                NegotiationReply,
                agent=party,
                turn=turn,
                validate=self.check(session),
                schema=self.move_schema(session),
            )
        except LLMInvalidReply as e:
            move = self.fallback.respond(session, party)
            return Move(move.kind, move.terms, fallback=f"unusable negotiation move ({e.error})")
        except LLMError:  # the endpoint is down or refuses: the rule-based fallback moves; the caller reports it
            return self.fallback.respond(session, party)
        line = r.message.strip() or None
        if r.action == "offer":
            return Move("offer", tuple((k, str(r.offer[k])) for k in self.scene.issues), line=line)  # type: ignore[index]
        return Move(r.action, line=line)

    def __repr__(self) -> str:
        return f"LLMNegotiator({self.party!r}, fallback={self.fallback!r})"
