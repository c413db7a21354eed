"""Scenes inside the adventure: trading with a merchant, and the council vote.

``SceneManager`` is the engine's one handle on both: the trade half lives in
``game.engine.scenes_trade`` (sessions, the merchants' answers, the deal), the council half in
``game.engine.scenes_council`` (debate, persuasion, the vote).

The negotiators come from the composition layer (neither half imports ``agents`` or
``memory``): an NPC trades through its voice's own ``negotiator``; a party without one through the
injected ``default_negotiator`` (``game.play.wiring.rule_negotiator`` when none was injected); a
``negotiator_factory``, when given, overrides both for every party.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from game.engine.scenes_council import CouncilScenes
from game.engine.scenes_trade import TradeScenes

if TYPE_CHECKING:
    from game.core.protocols import NegotiatorFactory
    from game.engine.loop import Engine

__all__ = ["CouncilScenes", "SceneManager", "TradeScenes"]


class SceneManager(TradeScenes, CouncilScenes):
    def __init__(
        self,
        eng: Engine,
        negotiator_factory: NegotiatorFactory | None = None,
        default_negotiator: NegotiatorFactory | None = None,
    ):
        """``negotiator_factory``: every party trades through it (None: each NPC through its voice's
        own negotiator). ``default_negotiator``: for a party with no negotiator of its own."""
        self.eng = eng
        self.factory = negotiator_factory
        self.default_factory = default_negotiator
        self._sessions: dict[str, Any] = {}
        self._negotiators: dict[tuple[str, str], Any] = {}

    def reset(self) -> None:
        self._sessions.clear()
        self._negotiators.clear()
