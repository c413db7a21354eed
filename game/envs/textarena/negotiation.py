"""Parley negotiators as TextArena agents for TextArena's negotiation games.

``NegotiatorAgent`` is a TextArena agent (``agent(observation: str) -> str``). On each call it
reads the observation text given to its player (``game.envs.textarena.games``: the game's
resources, values, role and the offers so far, as TextArena states them to that player, nothing
else), builds a one-issue Parley negotiation scene over the game's outcomes with this player's
utility (payoff scaled to [0, 1]; the reservation value is the least the game makes worth taking),
replays the talks into a :class:`~game.negotiation.session.Negotiation`, asks a Parley negotiator
for its move and writes the move as the game's action token, within the game's rules (who
proposes and who answers, budgets, one-cent concessions, deadlines). It keeps no state between
calls: the observation holds the whole history.

    import textarena as ta
    from game.envs.textarena.negotiation import NegotiatorAgent
    agents = {0: NegotiatorAgent.rule("boulware"), 1: NegotiatorAgent.rule("conceder")}
    env = ta.make("TwoDollar-v0"); env.reset(num_players=2, seed=0)
    done = False
    while not done:
        pid, obs = env.get_observation()
        done, _ = env.step(agents[pid](obs))
    rewards, info = env.close()

``floor`` (a share of the pot, default 0.5): the least share worth agreeing to in the split games;
their winner is the larger share, so less than half is worse than no deal (a draw). Role
thresholds raise it. In SimpleNegotiation a trade must raise the player's inventory value.
"""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from game.core.errors import InputError
from game.envs.textarena.games import Table, game_of
from game.negotiation.runner import Move
from game.negotiation.session import Negotiation, NegotiationError
from game.negotiation.utility import UtilityFunction

MakeNegotiator = Callable[[Any, str, UtilityFunction], Any]
"""``make(scene, party, utility) -> negotiator`` (anything with ``respond(session, party)``)."""


def party(pid: int) -> str:
    return f"player{pid}"


def scene_of(table: Table, title: str) -> tuple[Any, UtilityFunction]:
    """A one-issue negotiation scene over the table's outcomes (duck-typed like
    ``game.world.spec.NegotiationScene``) and this player's utility over it."""
    lo, hi = min(table.payoff.values()), max(max(table.payoff.values()), table.floor)
    span = (hi - lo) or 1.0
    values = {lab: (table.payoff[lab] - lo) / span for lab in table.labels}
    reservation = min(max((table.floor - lo) / span, 0.0), 1.0)
    issues = {table.issue: list(table.labels)}
    me = party(table.me)
    utility = UtilityFunction(me, issues, {table.issue: 1.0}, {table.issue: values}, reservation)
    scene = SimpleNamespace(
        title=title,
        issues=issues,
        deadline=table.deadline,
        first=party(table.first),
        parties=[SimpleNamespace(id=party(0)), SimpleNamespace(id=party(1))],
    )
    return scene, utility


def session_of(table: Table, scene: Any, utility: UtilityFunction) -> Negotiation:
    """The talks so far as a Parley session, with this player to move."""
    session = Negotiation(scene, utilities={utility.party: utility})
    for p, kind, label in table.records:
        try:
            if session.turn != party(p):
                break  # the game let someone move twice (a retried invalid move): keep what fits
            session.play(party(p), kind, {table.issue: label} if kind == "offer" else None)
        except NegotiationError:
            break
    if session.turn != party(table.me) or not session.is_open:
        # the replay does not end on this player's turn: start the talks afresh from the standing offer
        fresh = SimpleNamespace(**{**vars(scene), "first": party(table.me), "deadline": max(1, scene.deadline)})
        session = Negotiation(fresh, utilities={utility.party: utility})
    return session


class NegotiatorAgent:
    """A TextArena agent for SimpleNegotiation, IteratedUltimatumGame and TwoDollar (and their
    variants) that moves with a Parley negotiator built by ``make(scene, party, utility)``."""

    def __init__(self, make: MakeNegotiator, *, floor: float = 0.5, name: str = "negotiator"):
        if not 0.0 <= floor <= 1.0:
            raise InputError(f"floor must be a share in [0, 1], got {floor!r}")
        self.make, self.floor, self.name = make, floor, name
        self.last_move: Move | None = None

    @classmethod
    def rule(cls, kind: str, *, floor: float = 0.5, **params: Any) -> NegotiatorAgent:
        """A rule-based negotiator by kind (``agents.negotiators.KINDS``: boulware, linear,
        conceder, hardliner, tit_for_tat, aspiration, random)."""
        from agents.negotiators import from_kind, kind_params

        kind_params(kind)  # an unknown kind fails here, not on the first move
        return cls(lambda scene, p, u: from_kind(kind, u, **params), floor=floor, name=kind)

    @classmethod
    def llm(cls, client: Any, *, fallback: str = "linear", persona: str = "", floor: float = 0.5) -> NegotiatorAgent:
        """The LLM negotiator (``agents.llm.negotiator.LLMNegotiator``) over ``client``; the
        ``fallback`` kind moves when the model's reply is unusable or the endpoint is down."""
        from agents.llm.negotiator import LLMNegotiator
        from agents.negotiators import from_kind

        def make(scene: Any, p: str, u: UtilityFunction) -> Any:
            return LLMNegotiator(client, scene, p, u, fallback=from_kind(fallback, u), persona=persona)

        return cls(make, floor=floor, name="llm")

    @classmethod
    def from_negotiator(cls, negotiator: Any, *, floor: float = 0.5) -> NegotiatorAgent:
        """The same kind of negotiator, with the same parameters, rebuilt over each game's utility
        (a negotiator is made for one utility; a TextArena game brings its own)."""
        from agents.negotiators import _CLASSES, KINDS

        if type(negotiator).__name__ == "LLMNegotiator":
            fb = negotiator.fallback
            agent = cls.from_negotiator(fb, floor=floor)
            make_fb = agent.make
            from agents.llm.negotiator import LLMNegotiator

            def make(scene: Any, p: str, u: UtilityFunction) -> Any:
                return LLMNegotiator(
                    negotiator.client, scene, p, u, fallback=make_fb(scene, p, u), persona=negotiator.persona
                )

            return cls(make, floor=floor, name="llm")
        cls_ = type(negotiator)
        if cls_ not in _CLASSES.values():
            raise InputError(
                f"{cls_.__name__} is not a negotiator kind these adapters can rebuild",
                hint=f"use NegotiatorAgent(make) with make(scene, party, utility); kinds: {', '.join(KINDS)}",
            )
        params = {name: getattr(negotiator, name) for name in cls_.PARAMS}
        return cls(lambda scene, p, u: cls_(u, **params), floor=floor, name=cls_.__name__)

    def decide(self, observation: str) -> tuple[Table, Move]:
        """The table read from ``observation`` and the negotiator's move on it."""
        game = game_of(observation)
        table = game.read(observation, self.floor)
        scene, utility = scene_of(table, game.name)
        session = session_of(table, scene, utility)
        move = self.make(scene, utility.party, utility).respond(session, utility.party)
        return table, move

    def __call__(self, observation: str) -> str:
        if not isinstance(observation, str):
            raise TypeError(
                f"a TextArena agent reads the observation string, got {type(observation).__name__}: "
                "the '-raw' variants (e.g. TwoDollar-v0-raw) pass the raw list of messages and are "
                "not supported; use the default ids (TwoDollar-v0) or the '-train' ones"
            )
        table, move = self.decide(observation)
        self.last_move = move
        label = dict(move.terms).get(table.issue) if move.terms else None
        token = game_of(observation).token(table, move.kind, label)
        if move.line and table.game != "two_dollar":  # TwoDollar roles may limit the words said
            said = " ".join(move.line.replace("[", "(").replace("]", ")").split())
            return f"{said} {token}"
        return token

    def __repr__(self) -> str:
        return f"NegotiatorAgent({self.name}, floor={self.floor})"
