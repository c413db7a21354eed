"""The hidden-profile task generator after Stasser and Titus (``game.council.hidden_profile``)."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from game.council.context import MaskingConfig
from game.council.hidden_profile import (
    ASIDE_WEIGHT,
    MARGIN,
    hidden_profile,
    hidden_profile_task,
    hidden_profile_tasks,
    problems,
)
from game.council.profile_texts import FRAMES, SETTINGS
from game.council.session import COORDINATOR, CouncilConfig
from game.council.tasks import CouncilTask
from game.play.debates import run_debate
from memory.embedder import get_embedder

MEMBER_COUNTS = range(3, 10)


def scores_of(task: CouncilTask, option_of: dict[str, str], valence_of: dict[str, int], held: set[str]) -> Counter:
    """Each option's signed weight over the items ``held``, summed here from the task's own weights."""
    out: Counter = Counter()
    for e in task.evidence:
        if e.id in held:
            out[option_of[e.id]] += valence_of[e.id] * e.weight
    return out


def best_of(scores: Counter, options) -> tuple[str, float]:
    ranked = sorted(((scores.get(o, 0.0), o) for o in options), reverse=True)
    return ranked[0][1], ranked[0][0] - ranked[1][0]


def test_same_seed_same_task():
    for seed, n in ((0, 3), (7, 4), (123, 9), (2**40, 6)):
        a, b = hidden_profile(seed, n), hidden_profile(seed, n)
        assert a == b
        assert hidden_profile_task(seed, n).model_dump() == a.task.model_dump()
    assert hidden_profile_tasks([5, 6], 5) == [hidden_profile_task(5, 5), hidden_profile_task(6, 5)]
    assert hidden_profile_task(3) == hidden_profile_task(3, 4)  # four members by default


def test_different_seeds_give_different_tasks():
    tasks = hidden_profile_tasks(range(60), 4)
    assert len({t.model_dump_json(exclude={"id"}) for t in tasks}) == 60
    assert len({t.motion for t in tasks}) >= 30
    assert len({e.text for t in tasks for e in t.evidence}) > 0.95 * sum(len(t.evidence) for t in tasks)
    # the member count changes the council, not the setting drawn for the seed (unless a redraw was needed)
    pairs = [(hidden_profile(s, 3), hidden_profile(s, 8)) for s in range(20)]
    first = [(a, b) for a, b in pairs if a.attempt == b.attempt == 0]
    assert len(first) >= 10 and all(a.task.motion == b.task.motion for a, b in first)


def test_the_global_random_state_is_left_alone():
    random.seed(1)
    np.random.seed(1)
    before = (random.getstate(), np.random.get_state()[1].copy())
    hidden_profile_tasks(range(5), 5)
    assert random.getstate() == before[0] and (np.random.get_state()[1] == before[1]).all()


@pytest.mark.parametrize("members", MEMBER_COUNTS)
def test_every_task_is_a_hidden_profile(members):
    """200 seeds: the shared items pick another option than the pooled ones, which pick one option
    by a clear lead; the motion's truth is the pooled answer; everyone starts on the wrong side."""
    for seed in range(200):
        p = hidden_profile(seed, members)
        task = p.task
        assert problems(p) == []
        option_of = {i.id: i.option for i in p.items}
        valence_of = {i.id: i.valence for i in p.items}
        everything = {e.id for e in task.evidence}
        pooled, lead = best_of(scores_of(task, option_of, valence_of, everything), p.options)
        shared, _ = best_of(scores_of(task, option_of, valence_of, set(task.shared)), p.options)
        assert lead >= MARGIN and pooled == p.pooled_choice
        assert shared != pooled and shared == p.shared_choice
        assert p.proposed in (shared, pooled)
        assert task.truth is (p.proposed == pooled)
        assert (task.pooled() > 0) is task.truth
        for m in task.members:
            own, _ = best_of(scores_of(task, option_of, valence_of, {*task.shared, *m.private}), p.options)
            assert own != pooled, (seed, m.id)
            assert (m.stance > 0.5) is not task.truth
        # an item's direction is its bearing on the motion: for the proposed option as its valence,
        # for a rival the other way round
        for i in p.items:
            sign = 1 if i.option == p.proposed else -1
            assert task.item(i.id).direction == i.valence * sign


@pytest.mark.parametrize("members", MEMBER_COUNTS)
def test_members_hold_the_shared_items_and_their_own(members):
    for seed in range(30):
        p = hidden_profile(seed, members)
        task = p.task
        holder = {i.id: i.holder for i in p.items}
        assert set(task.shared) == {eid for eid, h in holder.items() if h is None}
        assert len(task.members) == members
        for m in task.members:
            assert set(m.private) == {eid for eid, h in holder.items() if h == m.id}
            assert m.private, "every member holds some unshared item"
        unshared = [e for m in task.members for e in m.private]
        assert len(unshared) == len(set(unshared)) == len(task.evidence) - len(task.shared)


def test_items_have_tiers_and_asides():
    roles = Counter()
    for seed in range(50):
        p = hidden_profile(seed, 5)
        mine = Counter(i.role for i in p.items)
        assert mine["aside"] >= 1 and mine["decisive"] >= 1
        for i in p.items:
            e = p.task.item(i.id)
            assert e.weight == i.weight
            assert (e.weight == ASIDE_WEIGHT) is (i.role == "aside")
            assert e.aspect == (f"hearsay about {i.option}" if i.role == "aside" else i.option)
        roles.update(mine)
    assert set(roles) == {"decisive", "standard", "minor", "aside"}
    assert {len(hidden_profile(s, 4).options) for s in range(50)} == {3, 4}


def test_wording_varies_across_settings_and_templates():
    profiles = [hidden_profile(seed, 3 + seed % 7) for seed in range(50)]
    assert {p.setting for p in profiles} == set(SETTINGS)
    templates = {i.template for p in profiles for i in p.items}
    assert len(templates) >= 100, len(templates)
    for name, setting in SETTINGS.items():  # every cue of every setting is worded at least once
        assert {t.split("/")[1] for t in templates if t.startswith(f"{name}/")} >= set(setting.cues)
    texts = [e.text for p in profiles for e in p.task.evidence]
    frames = Counter(
        "report"
        if " reports that " in t
        else "according"
        if t.startswith("According")
        else "word"
        if ", on the word of " in t
        else "bare"
        for t in texts
    )
    assert len(frames) == len(FRAMES) and min(frames.values()) > len(texts) / 10
    for p in profiles:  # one option is never worded from the same template twice
        keys = [(i.option, i.template) for i in p.items]
        assert len(keys) == len(set(keys))


def test_bad_member_counts_are_refused():
    for n in (0, 2, 10):
        with pytest.raises(ValueError, match="members"):
            hidden_profile_task(0, n)


@pytest.mark.parametrize("members", MEMBER_COUNTS)
def test_tasks_debate_to_a_vote_with_the_council_machinery(members):
    """The real session, masker (hash embedder), scripted debaters and metrics; each member's view
    holds exactly its briefing: the shared items and its own."""
    hashed = get_embedder("hash")
    task = hidden_profile_task(500 + members, members)
    shared = set(task.shared)
    seen: Counter = Counter()

    def check(statement, view):
        spec = task.member(view.member)
        assert {e.id for e in view.own} == set(spec.private)
        assert {e.id for e in view.shared} == shared
        if statement.evidence is not None:
            assert statement.evidence in view.known()
        seen[statement.kind] += 1

    for mode in ("none", "memo"):
        session, metrics = run_debate(
            task,
            CouncilConfig(max_rounds=8, seed=members),
            MaskingConfig(mode=mode, budget=200),
            embedder=hashed,
            on_statement=check,
        )
        assert not session.is_open and session.outcome.votes.keys() == {m.id for m in task.members}
        assert metrics is not None and metrics.correct is (session.outcome.decision == task.truth)
        assert 1 <= metrics.rounds <= 8 and metrics.statements >= members
        assert session.stated, "members put evidence on the table"
        assert all(s.speaker in (*session.members, COORDINATOR) for s in session.history)
    assert seen["evidence"] > 0


def test_the_wording_ships_with_the_package():
    import tomllib

    from game.council import profile_texts
    from tests.conftest import ROOT

    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["game"]
    here = profile_texts.PATH.relative_to(ROOT / "game").as_posix()
    assert any(Path(here).match(g) for g in globs), (here, globs)
    for setting in SETTINGS.values():  # enough to draw from: nine roles for nine members, two wordings a cue
        assert len(setting.roles) >= 9 and len(setting.options) >= 4 and len(setting.cues) >= 8
        assert all(len(c.pro) >= 2 and len(c.con) >= 2 for c in setting.cues.values())
