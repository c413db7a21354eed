"""Trading with a merchant: the negotiation scenes inside the adventure.

A session opens when the player trades; the merchant's negotiator answers each move; a deal is
carried out item for gold. Negotiation mechanics live in ``game.negotiation``; whether a buyer
can pay is ``game.engine.predicates.unaffordable_price``.

The negotiators come from the composition layer (this module imports neither ``agents`` nor
``memory``): an NPC trades through its voice's own ``negotiator``; a party without one through the
injected ``default_negotiator`` (``game.play.wiring.rule_negotiator`` when none was injected); a
``negotiator_factory``, when given, overrides both for every party.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from game.core.errors import NotInjected
from game.core.speech import in_own_voice
from game.core.types import PLAYER, Action, Request, Verb
from game.engine import predicates
from game.engine.rules import Refusal
from game.negotiation.runner import Move, Situation
from game.negotiation.session import Negotiation, NegotiationError
from game.negotiation.utility import utilities_for

if TYPE_CHECKING:
    from game.core.protocols import NegotiatorFactory
    from game.engine.loop import Engine


class TradeScenes:
    """The negotiation half of ``game.engine.scenes.SceneManager``."""

    eng: Engine
    factory: NegotiatorFactory | None
    default_factory: NegotiatorFactory | None
    _sessions: dict[str, Any]
    _negotiators: dict[tuple[str, str], Any]

    def session(self, sid: str) -> Any:
        s = self._sessions.get(sid)
        if s is None:
            s = Negotiation(self.eng.spec.scenes[sid])
            saved = self.eng.state.scenes.get(sid, {}).get("session")
            if saved is not None:
                s.set_state(saved)
            self._sessions[sid] = s
        return s

    def _negotiator(self, sid: str, party: str) -> Any:
        key = (sid, party)
        if key not in self._negotiators:
            scene = self.eng.spec.scenes[sid]
            utility = utilities_for(scene)[party]
            agent = self.eng.voice(party) if party in self.eng.spec.npcs else None
            if self.factory is None and agent is not None:
                neg = agent.negotiator(scene, party, utility)  # the NPC trades through its own negotiator
            else:
                params = self.eng.spec.npcs[party].agent.params if party in self.eng.spec.npcs else {}
                neg = (self.factory or self.default_negotiator())(scene, party, utility, params)
            self._negotiators[key] = neg
        return self._negotiators[key]

    def default_negotiator(self) -> NegotiatorFactory:
        """The injected factory for a party with no negotiator of its own."""
        if self.default_factory is None:
            raise NotInjected("default_negotiator", "a party with no negotiator of its own trades")
        return self.default_factory

    def _sync(self, sid: str) -> None:
        st = self.eng.state.scenes.setdefault(sid, {})
        st["session"] = self._sessions[sid].get_state()

    def trade_refusal(self, actor: str, npc: str | None) -> str | None:
        """Why ``actor`` cannot open a trade with ``npc`` now, or None if it can."""
        eng, st = self.eng, self.eng.state
        if not predicates.npc_present(eng.spec, st, actor, npc):
            return "There is nobody like that here to trade with."
        sid = eng.spec.npcs[npc].trade
        if sid is None:
            return f"{eng.name(npc)} has nothing to trade."
        if st.active_scene is not None:
            return "You are already negotiating. Accept, reject, offer or walk away first."
        prev = st.scenes.get(sid, {}).get("session")
        if prev is not None and prev.get("status") == "agreement":
            return f"You already struck a deal with {eng.name(npc)}."
        trade = eng.spec.scenes[sid].trade
        if trade is not None and st.item_at.get(trade.item) != trade.seller:
            return f"{eng.name(trade.seller)} has no {eng.name(trade.item)} left to sell."
        return None

    def open_trade(self, a: Action) -> None:
        eng, st = self.eng, self.eng.state
        reason = self.trade_refusal(a.actor, a.obj)
        if reason is not None:
            raise Refusal(reason)
        npc = a.obj
        sid = eng.spec.npcs[npc].trade  # type: ignore[index]
        scene = eng.spec.scenes[sid]
        self._sessions[sid] = Negotiation(scene)
        st.active_scene = sid
        issues = "; ".join(f"{k}: {', '.join(v)}" for k, v in scene.issues.items())
        eng.emit(
            "trade_open",
            a.actor,
            f"{eng.name(a.actor)} begins to haggle with {eng.name(npc)}.",
            listener=npc,
            view=f"You begin to haggle with {eng.name(npc)} over {scene.title}. "
            f"Issues: {issues}. Deadline: {scene.deadline} rounds.",
            data={"scene": sid, "with": npc},
        )
        self._sync(sid)
        self._npc_moves(sid)

    def player_move(self, a: Action) -> None:
        sid = self.eng.state.active_scene
        if sid is None:
            raise Refusal("You are not negotiating with anyone. Try 'trade with <merchant>'.")
        self.move(sid, a)
        self._npc_moves(sid)

    def leave_table(self, actor: str) -> None:
        """Walking out of the room ends the haggling: the player walks away."""
        sid = self.eng.state.active_scene
        if sid is None or actor != PLAYER:
            return
        s = self.session(sid)
        if s.status == "open" and s.turn == actor:
            self.move(sid, Action(actor=actor, verb=Verb.WALK_AWAY))
        else:  # not our move: the talks simply lapse
            self.eng.state.active_scene = None

    def move(self, sid: str, a: Action, line: str | None = None) -> None:
        """Apply one party's negotiation move, checking the buyer can pay. ``line``: what the
        party says with it (NPC haggling), quoted after the move."""
        eng, s = self.eng, self.session(sid)
        scene = eng.spec.scenes[sid]
        quote = f' {eng.name(a.actor)} says: "{in_own_voice(line, [eng.name(a.actor)])}"' if line else ""
        said = {"line": line} if line else {}
        try:
            if a.verb is Verb.OFFER:
                terms = dict(a.terms or ())
                standing = s.standing_offer
                for issue in scene.issues:
                    if issue not in terms and standing is not None:
                        terms[issue] = standing[issue]
                missing = [i for i in scene.issues if i not in terms]
                if missing:
                    raise Refusal(
                        f"Your offer must name {', '.join(missing)} "
                        f"(e.g. offer {' '.join(f'{i}={scene.issues[i][0]}' for i in missing)})."
                    )
                self._check_affordable(sid, a.actor, terms)
                s.offer(a.actor, terms)
                text = ", ".join(f"{k}={v}" for k, v in terms.items())
                eng.emit(
                    "offer",
                    a.actor,
                    f"{eng.name(a.actor)} offers {text}.{quote}",
                    listener=self._other(sid, a.actor),
                    view=f"You offer {text} (round {s.round} of {scene.deadline}).",
                    data={"scene": sid, "terms": terms, **said},
                )
            elif a.verb is Verb.ACCEPT:
                if s.standing_offer is not None:
                    self._check_affordable(sid, a.actor, s.standing_offer)
                s.accept(a.actor)
                eng.emit(
                    "accept",
                    a.actor,
                    f"{eng.name(a.actor)} accepts.{quote}",
                    listener=self._other(sid, a.actor),
                    view="You accept.",
                    data={"scene": sid, **said},
                )
            elif a.verb is Verb.REJECT:
                s.reject(a.actor)
                eng.emit(
                    "reject",
                    a.actor,
                    f"{eng.name(a.actor)} rejects the offer.{quote}",
                    listener=self._other(sid, a.actor),
                    view="You reject the offer.",
                    data={"scene": sid, **said},
                )
            else:
                s.walk_away(a.actor)
                eng.emit(
                    "walk_away",
                    a.actor,
                    f"{eng.name(a.actor)} walks away from the table.{quote}",
                    listener=self._other(sid, a.actor),
                    view="You walk away from the table.",
                    data={"scene": sid, **said},
                )
        except NegotiationError as e:  # said as a sentence, with what to do instead
            said = f"{e.message[:1].upper()}{e.message[1:]}"
            raise Refusal(f"{said}: {e.hint}." if e.hint else f"{said}.") from None
        self._sync(sid)
        if s.status != "open":
            self._close(sid)

    def _other(self, sid: str, party: str) -> str:
        return next(p.id for p in self.eng.spec.scenes[sid].parties if p.id != party)

    def _check_affordable(self, sid: str, actor: str, terms: dict[str, str]) -> None:
        """The buyer may not offer or accept a price they cannot pay (the seller may ask anything)."""
        price = predicates.unaffordable_price(self.eng.spec, self.eng.state, sid, actor, terms)
        if price is not None:
            raise Refusal(f"You cannot afford {price} gold (has {self.eng.state.gold.get(actor, 0)}).")

    def _npc_moves(self, sid: str) -> None:
        """Let NPC parties answer until it is the player's move or the talks close."""
        s = self.session(sid)
        eng = self.eng
        while s.status == "open" and s.turn != PLAYER:
            party = s.turn

            def choose(party: str = party) -> tuple[dict[str, Any], str | None]:
                neg = self._negotiator(sid, party)
                situation = Situation(context=eng.context_for(party, neg), turn=eng.state.turn)
                m: Move = neg.respond(s, party, situation)
                out: dict[str, Any] = {"kind": m.kind, "terms": m.terms_dict}
                if m.line:
                    out["line"] = m.line
                return out, m.fallback

            m = eng.decide("move", party, choose)
            verb = {"offer": Verb.OFFER, "accept": Verb.ACCEPT, "reject": Verb.REJECT, "walk_away": Verb.WALK_AWAY}[
                m["kind"]
            ]
            terms = tuple(sorted(m["terms"].items())) if m["terms"] else None
            line = m.get("line")
            if line is None and party in eng.spec.npcs:
                from game.engine.dialogue import utterances

                said = utterances(
                    eng,
                    party,
                    Request(
                        "haggle",
                        self._other(sid, party),
                        eng.state.turn,
                        eng.next_ask(),
                        data={"move": m["kind"], "terms": m["terms"]},
                    ),
                )
                line = said[0].text if said else None
            try:
                self.move(sid, Action(actor=party, verb=verb, terms=terms), line=line)
            except Refusal as e:  # a negotiator that cannot pay walks away rather than stall
                eng.emit("invalid", party, f"{eng.name(party)}: {e}", data={"scene": sid})
                self.move(sid, Action(actor=party, verb=Verb.WALK_AWAY))

    def _close(self, sid: str) -> None:
        eng, s = self.eng, self.session(sid)
        scene = eng.spec.scenes[sid]
        st = eng.state
        if st.active_scene == sid:
            st.active_scene = None
        metrics = s.outcome_metrics().to_dict()
        st.scenes[sid]["outcome"] = "agreement" if s.status == "agreement" else "no_agreement"
        st.scenes[sid]["metrics"] = metrics
        if s.status == "agreement" and scene.trade is not None:
            t = scene.trade
            buyer = predicates.buyer_of(scene)
            price = int(s.agreement[t.price_issue])
            st.gold[buyer] -= price
            st.gold[t.seller] = st.gold.get(t.seller, 0) + price
            if st.item_at.get(t.item) == t.seller:
                st.item_at[t.item] = buyer
            terms = ", ".join(f"{k}={v}" for k, v in s.agreement.items())
            you = (
                f"Deal: you buy the {eng.name(t.item)} from {eng.name(t.seller)} ({terms}) and pay {price} gold."
                if buyer == PLAYER
                else None
            )
            eng.emit(
                "agreement",
                t.seller,
                f"Deal: {eng.name(buyer)} buys the {eng.name(t.item)} from {eng.name(t.seller)} ({terms}).",
                listener=buyer,
                data={"scene": sid, "terms": dict(s.agreement), "metrics": metrics, **({"you": you} if you else {})},
            )
        elif s.status == "agreement":
            eng.emit(
                "agreement",
                scene.parties[0].id,
                f"Agreement reached: {dict(s.agreement)}.",
                data={"scene": sid, "terms": dict(s.agreement), "metrics": metrics},
            )
        else:
            eng.emit(
                "no_agreement",
                scene.parties[0].id,
                f"The talks over {scene.title} end without a deal.",
                listener=scene.parties[1].id,
                data={"scene": sid, "status": s.status, "metrics": metrics},
            )
