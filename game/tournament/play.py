"""One match played to a result row (the schema ``game.tournament.rows`` checks and
``game.tournament.stats`` reads).

``run_batch(payload)`` is what every backend runs: a list of matches with the scenarios and
competitors they need, as plain JSON-able data, so the same call runs in-process, in a process
pool or on a Ray worker. A worker keeps each tournament's ``MatchContext`` between batches (the
negotiation kind keeps its analysed scenes there). The match's kind (``game.tournament.kinds``)
plays it; everything in a row but ``wall_time`` and ``llm_seconds`` (time spent waiting for an
LLM) is determined by the match alone.
"""

from __future__ import annotations

import time
from typing import Any

from game.tournament.kind_base import MatchContext
from game.tournament.kinds import kind_for
from game.tournament.model import Match, TournamentConfig, digest

_CONTEXTS: dict[str, MatchContext] = {}


def run_batch(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows for ``payload["matches"]`` in order (payload: ``config``, ``scenarios``, ``matches``).
    A worker keeps each tournament's parsed config and what its kind made for the scenarios between batches."""
    key = digest(payload["config"])
    ctx = _CONTEXTS.get(key)
    if ctx is None:
        if len(_CONTEXTS) >= 4:
            _CONTEXTS.clear()
        ctx = _CONTEXTS[key] = MatchContext(TournamentConfig.model_validate(payload["config"]), {})
    ctx.add_scenarios(payload["scenarios"])
    return [play_match(Match.model_validate(m), ctx) for m in payload["matches"]]


def play_match(m: Match, ctx: MatchContext) -> dict[str, Any]:
    start = time.perf_counter()
    row = kind_for(m.kind).play(m, ctx)
    base = {
        "id": m.id,
        "kind": m.kind,
        "scenario": m.scenario,
        "rep": m.rep,
        "seed": m.seed,
        "group": m.group,
        "opener": m.opener,
    }
    out = {**base, **row}
    out["wall_time"] = round(time.perf_counter() - start, 6)
    return out
