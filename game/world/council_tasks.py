"""A world's council scene as a debate task.

The scene's NPC participants become the members (the player does not debate headless): a
participant ``for`` the motion starts at stance 0.8, ``against`` at 0.2, ``undecided`` at 0.5.
Each argument in a participant's bank is evidence only they hold on one sub-question, the motion
itself, pointing their way (weight 1); an undecided member's arguments are doubts (weight 0.5,
against: an undecided member does not vote yes). Members who took a side are hard to move (persuadability 0.1), the undecided easy
(0.6). The items that would persuade them (``persuaded_by``) are not in the room, since the
player brings those. A world scene has no known right decision, so ``truth`` is None.
"""

from __future__ import annotations

from typing import Any

from game.core.errors import InputError, did_you_mean
from game.core.types import PLAYER
from game.council.tasks import CouncilTask, Evidence, MemberSpec

START = {"for": 0.8, "against": 0.2, "undecided": 0.5}
PERSUADABLE = {"for": 0.1, "against": 0.1, "undecided": 0.6}
DOUBT = 0.5  # weight of an undecided member's argument
ASPECT = "the motion"  # every argument bears on the motion itself: one disputed question


def council_scene_ids(spec: Any) -> list[str]:
    from game.world.spec import CouncilScene

    return [sid for sid, sc in spec.scenes.items() if isinstance(sc, CouncilScene)]


def task_from_scene(spec: Any, scene_id: str | None = None) -> CouncilTask:
    """The debate task of council scene ``scene_id`` (the world's only one when None)."""
    ids = council_scene_ids(spec)
    if not ids:
        raise InputError(f"world {spec.id!r} has no council scene", hint="try worlds/council")
    if scene_id is None:
        if len(ids) > 1:
            raise InputError(
                f"world {spec.id!r} has several council scenes: {', '.join(ids)}", hint="pick one with --scene ID"
            )
        scene_id = ids[0]
    if scene_id not in ids:
        raise InputError(
            f"no council scene {scene_id!r} in world {spec.id!r}",
            hint=did_you_mean(scene_id, ids) or f"council scenes: {', '.join(ids)}",
        )
    sc = spec.scenes[scene_id]
    evidence, members = [], []
    for p in sc.participants:
        if p.id == PLAYER:
            continue
        direction = 1 if p.stance == "for" else -1
        weight = DOUBT if p.stance == "undecided" else 1.0
        held = []
        for i, text in enumerate(p.arguments):
            eid = f"{p.id}_{i + 1}"
            evidence.append(
                Evidence(id=eid, aspect=ASPECT, direction=direction, weight=weight, text=text, gist=text[:60])
            )
            held.append(eid)
        members.append(
            MemberSpec(
                id=p.id, role=p.role, stance=START[p.stance], persuadability=PERSUADABLE[p.stance], private=tuple(held)
            )
        )
    if len(members) < 2:
        raise InputError(f"council scene {scene_id!r} has fewer than two NPC members to debate")
    constraints = (f"The motion passes with more than {sc.majority:.0%} of the votes.",)
    return CouncilTask(
        id=scene_id,
        motion=sc.motion,
        constraints=constraints,
        evidence=tuple(evidence),
        members=tuple(members),
        truth=None,
    )
