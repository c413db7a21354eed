"""How the autopilot haggles, from what it has seen of the merchant (mixed into ``Autopilot``).

The autopilot remembers every trade session it saw (``neg[scene]["log"]``: each
move, as the player saw it) and, at each of its moves, builds a
:class:`agents.autopilot_merchant.MerchantModel` from them: an estimate of the
merchant's utility and a posterior over its concession curve. It never reads the
merchant's weights, values, reservation or negotiator.

``plan_move`` then compares, in the player's own utility less ``turn_cost`` for
every extra move:

* accepting the standing offer now;
* *holding* an outcome ``X``: offering it at every move while a refusal still
  leaves the player a move to accept the merchant's counter, until the merchant
  accepts it (the model's chance at each of those times), else falling back at
  the last move;
* at the last move, when the merchant answers it (the player opened the talks),
  *gambling* on an offer instead of accepting the counter on the table. A refused
  gamble ends the talks: it costs a new session (``retry``: the counter the model
  expects then, less the moves of a new session) or, in the last session the
  autopilot allows itself (``MAX_TRADE_TRIES``), the deal. In that session it never
  gambles while it can accept an offer. When the player has the last word, it
  accepts the merchant's last counter if it can pay for it.

With fewer than ``HASTE_TURNS`` game turns left, every extra move costs as much as
a deal, so it closes at once. Only outcomes it can pay for count (keeping back what
the other needed trades are expected to cost, if it can). Nothing here is random:
ties go to accepting, then to the outcome the player likes more, then to the earlier
one in enumeration order.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np

from agents.autopilot_merchant import MerchantModel, SceneTerms, TradeTerms, talk_observations
from game.core.types import PLAYER, Action, Verb
from game.negotiation.utility import UtilityFunction

LOST = -1.0  # value of a needed deal that can no longer be struck
MAX_TRADE_TRIES = 3  # re-open a failed negotiation at most this many times
HASTE_TURNS = 30  # with fewer game turns left than this, every extra move costs as much as a deal


def plan_move(
    sim: Any, model: MerchantModel, me: np.ndarray, ok: np.ndarray, tries_left: int, turn_cost: float
) -> tuple[str, int | None]:
    """The player's move now: ``("accept", None)``, ``("offer", outcome index)`` or
    ``("walk_away", None)``. ``me``: the player's utility per outcome; ``ok``: which outcomes
    it can pay for; ``tries_left``: sessions it may still open after this one."""
    total, m, d = 2 * sim.deadline, sim.moves_made, sim.deadline
    judged = [((x + 1) // 2 + 1) / d for x in range(m, total, 2) if x + 2 < total]  # safe offers
    final = m + 2 * len(judged)  # the player's last move
    answered = final + 1 < total  # the merchant answers the last move (gamble)
    standing = sim.standing_offer if sim.standing_party not in (None, PLAYER) else None
    s_idx = model.space.index(standing) if standing is not None else None
    s_val = float(me[s_idx]) if s_idx is not None and ok[s_idx] else None
    w = model.weights
    counter_t = ((final - 1) // 2 + 1) / d  # when the merchant makes its last counter
    fc = model.offer_value(counter_t, me, ok, LOST)
    retry = float(w @ fc) - turn_cost * (d + 1) if tries_left > 0 else LOST
    gamble = np.full(me.size, -np.inf)
    if answered:
        p_last = model.accept_prob(((final + 1) // 2 + 1) / d)
        gamble = np.where(ok, p_last * me + (1.0 - p_last) * retry, -np.inf)
    if m == final:
        if tries_left <= 0 and s_val is not None:
            return "accept", None  # the last allowed session: a model can be wrong, the deal cannot be lost
        return _pick(s_val, gamble, me)
    # each hypothesis's value of reaching the last move: accept the counter expected then, or gamble
    best_gamble = float(gamble.max()) if answered else -np.inf
    end = np.maximum(np.where(fc <= LOST + 1e-9, retry, fc), max(best_gamble, retry))
    hold = _hold_matrix(model, judged, me, end, turn_cost)  # (hypotheses, outcomes)
    return _pick(s_val, _weighted(w, hold, ok), me)


def _weighted(w: np.ndarray, hold: np.ndarray, ok: np.ndarray) -> np.ndarray:
    """Expected hold values under the posterior; -inf for outcomes the player cannot pay for."""
    values = w @ np.where(ok[None, :], hold, 0.0)
    return np.where(ok, values, -np.inf)


def _hold_matrix(
    model: MerchantModel, judged: list[float], me: np.ndarray, end: np.ndarray, turn_cost: float
) -> np.ndarray:
    """Per hypothesis and outcome, the value of offering the outcome at every safe move until it is
    accepted, else ``end`` (per hypothesis) at the last move."""
    surv = np.ones((model.weights.size, me.size))
    value = np.zeros_like(surv)
    for j, t in enumerate(judged):
        p = model.accept_matrix(t)
        value += surv * p * (me[None, :] - turn_cost * j)
        surv = surv * (1.0 - p)
    return value + surv * (end - turn_cost * len(judged))[:, None]


def _pick(s_val: float | None, values: np.ndarray, me: np.ndarray) -> tuple[str, int | None]:
    """Accept (worth ``s_val``) or offer the outcome of the highest value; ties: accept, then the
    outcome the player likes more, then the earlier one."""
    if not np.isfinite(values).any():
        return ("accept", None) if s_val is not None else ("walk_away", None)
    top = float(values.max())
    if s_val is not None and s_val >= top - 1e-9:
        return "accept", None
    cands = np.flatnonzero(values >= top - 1e-9)
    k = int(cands[np.argmax(me[cands])])  # first maximum: earliest among equals
    return "offer", k


class Table:
    """The open negotiation as the player is shown it (``Observation.scene``): who moves, how many
    moves were made, the offer on the table and who made it."""

    def __init__(self, scene: Mapping[str, Any]):
        self.deadline = int(scene.get("deadline", 1))
        history = list(scene.get("history", ()))
        self.moves_made = len(history)
        self.turn = scene.get("turn")
        self.standing_offer: dict[str, str] | None = None
        self.standing_party: str | None = None
        for rec in history:
            if rec.get("kind") == "offer" and rec.get("terms"):
                self.standing_party, self.standing_offer = rec.get("party"), dict(rec["terms"])
            elif rec.get("kind") == "reject":
                self.standing_party, self.standing_offer = None, None
        if scene.get("standing_offer") is not None:
            self.standing_offer = dict(scene["standing_offer"])


class HaggleMixin:
    """The autopilot's negotiation moves (mixed into ``Autopilot``): it remembers every session it
    saw with each merchant (``neg[scene]["log"]``) and plays ``plan_move`` on a ``MerchantModel``."""

    trades: dict[str, dict[str, Any]]
    neg: dict[str, dict[str, Any]]
    turn_cost: float
    turn: int

    def _terms(self, sid: str) -> SceneTerms:
        t = self.trades[sid]
        trade = TradeTerms(t.get("item"), t.get("seller"), t.get("price_issue")) if t.get("price_issue") else None
        return SceneTerms(int(t["deadline"]), trade)

    def _me(self, sid: str) -> UtilityFunction:
        t = self.trades[sid]
        you = t["you"]
        return UtilityFunction(PLAYER, t["issues"], you["weights"], you["values"], you["reservation"])

    def _outcomes(self, sid: str) -> list[dict[str, str]]:
        issues = self.trades[sid]["issues"]
        names = list(issues)
        return [dict(zip(names, vals)) for vals in itertools.product(*(issues[i] for i in names))]

    def _price(self, sid: str, terms: Mapping[str, str]) -> int:
        issue = self.trades[sid].get("price_issue")
        return int(float(terms[issue])) if issue else 0

    def _pays(self, sid: str) -> bool:
        """Whether the player is the buyer in this trade (only a buyer needs the gold)."""
        t = self.trades[sid]
        return bool(t.get("price_issue")) and t.get("seller") != PLAYER

    def _merchant_model(self, sid: str) -> MerchantModel:
        sessions = [s["history"] for s in self.neg.get(sid, {}).get("log", ())]
        return MerchantModel(self._terms(sid), self._me(sid), self.trades[sid]["other"], sessions)

    def _expected_price(self, sid: str) -> int:
        """What the player expects to pay in a trade not yet made: the lowest price the merchant has
        offered or accepted in the talks seen so far, else the dearest price on the table (0 for a
        trade whose terms it has not seen)."""
        if sid not in self.trades:
            return 0
        t = self.trades[sid]
        seen = [
            self._price(sid, terms)
            for h in self.neg.get(sid, {}).get("log", ())
            for kind, _, terms in talk_observations(h["history"], t["other"], int(t["deadline"]))
            if kind in ("offer", "yes")
        ]
        return min(seen) if seen else max(self._price(sid, o) for o in self._outcomes(sid))

    def _reserve(self, sid: str, g: dict[str, Any]) -> int:
        """Gold to keep back for the other trades still needed."""
        return sum(self._expected_price(o) for o in g["trade"] if o != sid and o in self.trades and self._pays(o))

    def _affordable_min(self, sid: str) -> int | None:
        """The lowest price the player might have to pay (None: terms not seen yet)."""
        if sid not in self.trades:
            return None
        if not self._pays(sid):
            return 0
        return min(self._price(sid, o) for o in self._outcomes(sid))

    def _negotiate(self, sid: str, scene: Mapping[str, Any], g: dict[str, Any]) -> Action:
        sim = Table(scene)
        if sim.turn != PLAYER:
            return Action(PLAYER, Verb.WAIT)
        if sid not in self.trades or g["trade"].get(sid) != "agreement":
            return Action(PLAYER, Verb.WALK_AWAY)  # not a trade it needs
        info = self.neg.setdefault(sid, {"tries": 1})
        info["tries"] = max(int(info.get("tries", 1)), 1)
        gold = int(g["gold"])
        model = self._merchant_model(sid)
        me = self._me(sid).vector
        prices = np.array([self._price(sid, o) for o in self._outcomes(sid)])
        tries_left = MAX_TRADE_TRIES - int(info["tries"])
        left = int(g.get("max_turns", 0)) - self.turn
        cost = self.turn_cost if left >= HASTE_TURNS else 1.0
        for budget in (gold - self._reserve(sid, g), gold):
            ok = prices <= budget if self._pays(sid) else np.ones(me.size, dtype=bool)
            if not ok.any():
                continue
            kind, k = plan_move(sim, model, me, ok, tries_left, cost)
            if kind == "accept":
                return Action(PLAYER, Verb.ACCEPT)
            if kind == "offer" and k is not None:
                terms = tuple(sorted(model.space.terms(k).items()))
                return Action(PLAYER, Verb.OFFER, terms=terms)
        return Action(PLAYER, Verb.WALK_AWAY)
