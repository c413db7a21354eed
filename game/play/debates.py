"""Run a council debate to its vote: the coordinator's rounds, each member's masked context (the
masker from ``memory.debate_masking``), its debater's statement, the final vote on the members'
final stances, and the debate's metrics."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from game.council.context import MaskingConfig
from game.council.debaters import Debater, DebaterConfig, View
from game.council.metrics import DebateMetrics, evaluate
from game.council.runner import scripted_council, view_for
from game.council.session import CouncilConfig, CouncilError, CouncilSession, Reply, Statement
from game.council.tasks import CouncilTask
from memory.debate_masking import Masker

if TYPE_CHECKING:
    from memory.embedder import Embedder


def run_debate(
    task: CouncilTask,
    config: CouncilConfig | None = None,
    masking: MaskingConfig | None = None,
    debaters: Mapping[str, Debater] | None = None,
    *,
    embedder: Embedder | None = None,
    debater_config: DebaterConfig | None = None,
    on_statement: Callable[[Statement, View], None] | None = None,
    metrics: bool = True,
) -> tuple[CouncilSession, DebateMetrics | None]:
    """Debate ``task`` to the vote; returns the session and (``metrics``) its metrics.

    ``debaters`` default to scripted ones seeded from ``config.seed``; ``embedder`` (default: the
    hash embedder) serves the memo masker and the redundancy metrics."""
    config = config or CouncilConfig()
    masking = masking or MaskingConfig()
    if embedder is None:
        from memory.embedder import get_embedder

        embedder = get_embedder("hash")
    session = CouncilSession(task, config)
    debaters = dict(debaters) if debaters is not None else scripted_council(task, config.seed, debater_config)
    missing = [m for m in session.members if m not in debaters]
    if missing:
        raise CouncilError(f"no debater for {', '.join(missing)}")
    masker = Masker(masking, embedder, labellers=debaters)
    while session.is_open:
        for member in session.speakers():
            view = view_for(session, member, masker)
            reply = debaters[member].respond(view)
            if not isinstance(reply, Reply):
                raise CouncilError(f"debater for {member!r} returned {reply!r}, not a Reply")
            st = session.say(member, reply, view.context.tokens)
            if on_statement is not None:
                on_statement(st, view)
        session.end_round()
    views = {m: view_for(session, m, masker) for m in session.members}
    session.vote({m: debaters[m].final_stance(v) for m, v in views.items()})
    if not metrics:
        return session, None
    out = evaluate(session, masker.vectors)
    stated = set(session.stated)
    if stated:
        out.recall = sum(len(stated & set(v.known())) / len(stated) for v in views.values()) / len(views)
    return session, out
