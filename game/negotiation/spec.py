"""A negotiation scene as config: the issues and their values, the two parties' weights, values
and reservation utilities, the deadline and, for a trade, what changes hands. Worlds embed these
scenes (``game.world.spec``); generated and imported scenes use them alone.

A trade's player party has a default (``trade_party_default``): leave it out, or give only
``id = "player"``, and the player prefers a lower price (or, as the seller, a higher one),
linearly from 1 to 0, with every other issue neutral.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from game.core.specs import Id, Name, Spec, Unit
from game.core.types import PLAYER

_DEFAULT_NOTE = (
    "; required, except for the player's party in a trade scene, where it defaults to preferring "
    "a lower price (linear utility from 1 at the lowest price to 0 at the highest; as the seller, "
    "the reverse) with every other issue neutral (0.5) and weight 0"
)


class PartySpec(Spec):
    id: str = Field(description="'player' or an NPC id")
    weights: dict[Id, Annotated[float, Field(ge=0)]] | None = Field(
        None, description="issue -> weight (normalised to sum 1)" + _DEFAULT_NOTE
    )
    values: dict[Id, dict[Name, Unit]] | None = Field(
        None, description="issue -> value -> utility of that value in [0, 1]" + _DEFAULT_NOTE
    )
    reservation: Unit = Field(0.0, description="utility of no agreement")


class TradeSpec(Spec):
    item: Id = Field(description="item the seller hands over on agreement")
    seller: str
    price_issue: Id = Field(description="issue whose agreed value is the price in gold")


def trade_party_default(issues: dict[str, list[str]], trade: TradeSpec, seller: bool = False) -> dict[str, Any]:
    """The player's weights and values in a trade scene that does not spell them out: the price
    issue has weight 1 and utility linear in the price, 1 at the lowest and 0 at the highest
    (reversed for a ``seller``); every other issue has weight 0 and utility 0.5 for each value."""
    weights = {i: 0.0 for i in issues}
    values = {i: {v: 0.5 for v in vals} for i, vals in issues.items()}
    prices: dict[str, float] = {}
    for v in issues.get(trade.price_issue, ()):
        try:
            prices[v] = float(v)
        except ValueError:
            pass
    if trade.price_issue not in issues:  # reported by the checks; keep the weights usable meanwhile
        weights = {i: 1.0 for i in issues}
    else:
        weights[trade.price_issue] = 1.0
        lo, hi = (min(prices.values()), max(prices.values())) if prices else (0.0, 0.0)
        for v, x in prices.items():
            u = 1.0 if hi == lo else (hi - x) / (hi - lo)
            values[trade.price_issue][v] = 1.0 - u if seller else u
    return {"weights": weights, "values": values}


class NegotiationScene(Spec):
    type: Literal["negotiation"]
    title: Name
    description: str = ""
    issues: dict[Id, list[Name]] = Field(min_length=1, description="issue -> possible values")
    parties: list[PartySpec] = Field(
        min_length=1,
        max_length=2,
        description="the two parties; in a trade scene the player's party may be left out (it is then added "
        "first, with the default weights and values)",
    )
    deadline: int = Field(10, ge=1, description="rounds before the talks fail")
    first: str | None = Field(None, description="party who opens; defaults to the first")
    trade: TradeSpec | None = None

    @model_validator(mode="after")
    def _player_default(self) -> NegotiationScene:
        """Fill in the player's party of a trade (see ``trade_party_default``). Parties still
        missing weights or values, and a lone party, are reported by the checks."""
        if self.trade is None:
            return self
        parties = list(self.parties)
        if len(parties) == 1 and parties[0].id != PLAYER:
            parties.insert(0, PartySpec(id=PLAYER))
        changed = len(parties) != len(self.parties)
        for i, p in enumerate(parties):
            if p.id == PLAYER and (p.weights is None or p.values is None):
                default = trade_party_default(self.issues, self.trade, seller=self.trade.seller == PLAYER)
                parties[i] = p.model_copy(update={k: v for k, v in default.items() if getattr(p, k) is None})
                changed = True
        return self.model_copy(update={"parties": parties}) if changed else self
