"""What a council member says agrees with where it stands and with whom it answers, in every
council scene of the shipped worlds and in the generated hidden-profile tasks, over seeds and
rounds: it disagrees only with a member declared on the other side, agrees only with one on its
own, states its position in words that match its stance label, quotes another member's words as
theirs, never repeats a statement already made that round, and (in a world, where items are the
members' own arguments) never argues against the side it has taken."""

from __future__ import annotations

import re

import pytest

from game.council import hidden_profile, tasks
from game.council.session import COORDINATOR, CouncilConfig, CouncilSession
from game.play.council_debate import SceneDebate, label
from game.play.debates import run_debate
from game.play.worlds import load_world
from game.world.council_tasks import council_scene_ids
from tests.conftest import WORLDS

POSITION = (("i support the motion", "for"), ("i oppose the motion", "against"), ("i lean ", "undecided"))


FIXTURES = WORLDS.parent / "tests" / "fixtures"


def council_worlds() -> list[tuple[str, str]]:
    """(world folder, scene) of every council scene of the shipped worlds and the test fixtures."""
    out = []
    for path in [*sorted(WORLDS.iterdir()), *sorted(FIXTURES.iterdir())]:
        if (path / "world.toml").exists() and "broken" not in path.name:
            spec = load_world(path).spec
            out += [(str(path.relative_to(WORLDS.parent)), sid) for sid in council_scene_ids(spec)]
    return out


def debating(spec, scene: str):
    """``spec`` with council ``scene`` debating (a scene that declares no debate gets the default one)."""
    sc = spec.scenes[scene]
    if sc.debate is not None:
        return spec
    from game.world.spec import CouncilDebateSpec

    scenes = {**spec.scenes, scene: sc.model_copy(update={"debate": CouncilDebateSpec()})}
    return spec.model_copy(update={"scenes": scenes})


def check(session: CouncilSession, names: dict[str, str], concede: bool) -> int:
    """Every rule over the whole transcript; returns how many statements were checked."""
    by = session.task.by_id()
    holder = {e: m.id for m in session.task.members for e in m.private}
    name_of = {m: names.get(m, m) for m in session.members}
    declared: dict[str, float] = {}
    rounds: dict[int, list[str]] = {}
    checked = 0
    for st in session.history:
        if st.speaker not in session.members:
            continue
        text, mine = st.text, label(st.stance)
        where = f"round {st.round}, {st.speaker} ({mine} {st.stance:.2f}): {text!r}"
        if st.kind != "evidence" or st.confidence < 1.0:  # (an item handed over is said out of turn)
            assert text not in rounds.setdefault(st.round, []), f"said twice in a round: {where}"
            rounds[st.round].append(text)
        for phrase, side in POSITION:
            if phrase in text.lower():
                assert side == mine, f"position words against its label: {where}"
        m = re.match(r"I disagree with (what )?(.+?)( said in round (\d+))?[.:] ", text)
        if m:
            tgt = session.history[st.target]
            assert name_of[tgt.speaker] == m.group(2), where
            theirs = declared[tgt.speaker]
            assert (theirs > 0.5) != (st.stance > 0.5) and label(theirs) != mine, f"disagrees with its side: {where}"
            assert (m.group(1) is None) == (tgt.round == st.round), where
        m = re.match(r"I agree with (.+?): '", text)
        if m:
            who = next(k for k, v in name_of.items() if v == m.group(1))
            assert label(declared[who]) == mine, f"agrees with the other side: {where}"
        ev = by.get(st.evidence) if st.evidence else None
        if ev is not None and holder.get(ev.id) not in (None, st.speaker) and ev.text.rstrip(".") in text:
            assert re.search(r"(said|agree with [^:]+): '", text), f"another's words in its own voice: {where}"
        if ev is not None and st.kind == "evidence" and mine != "undecided" and st.speaker == holder.get(ev.id):
            if ev.direction != (1 if st.stance > 0.5 else -1):  # a fact it owes the council, not its opinion
                assert concede, f"argues against its own side: {where}"
        declared[st.speaker] = st.stance
        checked += 1
    return checked


@pytest.mark.parametrize(("world", "scene"), council_worlds())
def test_world_council_speeches_agree_with_the_stances(world, scene):
    spec = debating(load_world(WORLDS.parent / world).spec, scene)
    sc = spec.scenes[scene]
    names = {p.id: spec.npcs[p.id].name for p in sc.participants if p.id in spec.npcs}
    won = [(p.id, item) for p in sc.participants for item in p.persuaded_by if item in spec.items]
    total = 0
    for seed in range(12):
        d = SceneDebate(spec, scene, seed, None, names=names)
        for r in range(sc.max_rounds):
            if seed % 3 == 1 and r < len(won):  # evidence handed over moves members mid-debate
                member, item = won[r]
                d.bring(member, item, spec.items[item].name, spec.items[item].description)
            d.play_round()
        total += check(d.session, names, concede=False)
    members = sum(p.id != "player" for p in sc.participants)
    assert total >= 12 * sc.max_rounds * members  # every member spoke in every round


@pytest.mark.parametrize("make", [tasks.hidden_profile_task, hidden_profile.hidden_profile_task])
def test_hidden_profile_speeches_agree_with_the_stances(make):
    total = 0
    for seed in range(10):
        session, _ = run_debate(make(seed), CouncilConfig(seed=seed, max_rounds=6), metrics=False)
        total += check(session, {}, concede=True)
        assert all(st.speaker in (*session.members, COORDINATOR) for st in session.history)
    assert total > 10 * 4
