"""What a member may know before it speaks (``view_for``) and the standard scripted council.
A whole debate to its vote is ``game.play.debates.run_debate``, which picks the masker."""

from __future__ import annotations

from game.core.seeds import seed_tree
from game.council.context import ContextBuilder
from game.council.debaters import DebaterConfig, ScriptedDebater, View
from game.council.session import CouncilSession
from game.council.tasks import CouncilTask


def view_for(session: CouncilSession, member: str, masker: ContextBuilder) -> View:
    """What ``member`` may know now: its briefing and its masked context."""
    task = session.task
    spec = task.member(member)
    by = task.by_id()
    ctx = masker.context(session, member)
    return View(
        member,
        spec.role,
        task.motion,
        session.round,
        spec.stance,
        session.stances[member],
        spec.persuadability,
        tuple(by[e] for e in spec.private),
        tuple(by[e] for e in task.shared),
        ctx,
        frozenset(s.evidence for s in session.history if s.speaker == member and s.evidence),
        declared(session),
        tuple(s.text for s in session.history if s.round == session.round),
    )


def declared(session: CouncilSession) -> dict[str, float]:
    """Each member's latest declared stance: what everyone in the room heard it say it stands."""
    return {s.speaker: s.stance for s in session.history if s.speaker in session.members and s.confidence > 0}


def scripted_council(
    task: CouncilTask, seed: int = 0, config: DebaterConfig | None = None
) -> dict[str, ScriptedDebater]:
    tree = seed_tree(seed).child("council", "debater")
    return {m.id: ScriptedDebater(config, seed=tree.child(m.id)) for m in task.members}
