"""Former name of ``game.protocols`` (kept while modules move over)."""

from game.protocols import *  # noqa: F401,F403
from game.protocols import AgentKinds, NegotiatorFactory, ParamProblemLike, VoiceFactory  # noqa: F401
