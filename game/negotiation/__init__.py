"""Negotiation mechanics: utilities, outcome metrics, the alternating-offers session.

Submodules (imported on first use, so ``import game.negotiation`` stays cheap):

* ``utility``  -- :class:`UtilityFunction`, :class:`OutcomeSpace`, ``outcome_space``,
  ``utilities_for`` (additive utilities precomputed with numpy);
* ``metrics``  -- Pareto frontier, Nash and Kalai-Smorodinsky points,
  :class:`OutcomeMetrics` and ``evaluate``;
* ``session``  -- :class:`Negotiation` (the protocol state machine) and
  :class:`NegotiationError`;
* ``runner``   -- the ``Negotiator`` protocol, :class:`Move` and ``run_negotiation``.
"""

from __future__ import annotations

from game.core.lazy import lazy_exports

_EXPORTS = {
    "UtilityFunction": ".utility",
    "OutcomeSpace": ".utility",
    "outcome_space": ".utility",
    "utilities_for": ".utility",
    "utility_matrix": ".utility",
    "NegotiationAnalysis": ".metrics",
    "OutcomeMetrics": ".metrics",
    "analyse": ".metrics",
    "evaluate": ".metrics",
    "pareto_frontier": ".metrics",
    "nash_point": ".metrics",
    "kalai_smorodinsky_point": ".metrics",
    "Negotiation": ".session",
    "NegotiationError": ".session",
    "Move": ".runner",
    "Negotiator": ".runner",
    "run_negotiation": ".runner",
    "apply_move": ".runner",
}

__all__ = sorted(_EXPORTS)


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
