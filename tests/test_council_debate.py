"""Council debates: the session's rules, the coordinator, scripted debaters, metrics, task generation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from game.cli.plots import plot_flow
from game.council.context import MaskingConfig
from game.council.debaters import DebaterConfig, ScriptedDebater
from game.council.metrics import effective, evaluate, redundancy, turning_points
from game.council.runner import view_for
from game.council.session import COORDINATOR, CouncilConfig, CouncilError, CouncilSession, Reply
from game.council.tasks import CouncilTask, Evidence, hidden_profile_task, hidden_profile_tasks, is_hidden_profile
from game.play.debates import run_debate
from memory.debate_masking import Masker
from memory.embedder import get_embedder

HASH = get_embedder("hash")


def ev(eid: str, aspect: str, direction: int, weight: float = 1.0, text: str | None = None) -> Evidence:
    return Evidence(
        id=eid,
        aspect=aspect,
        direction=direction,
        weight=weight,
        text=text or f"The {eid} report shows {aspect} is {'good' if direction > 0 else 'bad'}",
        gist=f"{aspect} {direction}",
    )


def small_task(stances=(0.3, 0.35, 0.4), private=((), (), ("p1",)), truth=None) -> CouncilTask:
    """Three members; p0/p1 on 'cost' (a crux: shared s0 points the other way), d0 on 'law'."""
    evidence = (ev("s0", "cost", -1), ev("p0", "cost", 1), ev("p1", "cost", 1), ev("d0", "law", 1, 0.3))
    members = [
        {"id": f"m{i}", "role": "elder", "stance": s, "persuadability": 0.8, "private": list(p)}
        for i, (s, p) in enumerate(zip(stances, private))
    ]
    return CouncilTask(
        motion="The council should build the bridge.", evidence=evidence, shared=("s0",), members=members, truth=truth
    )


def play_round(s: CouncilSession, stance_of=None, evidence_of=None) -> str:
    for m in s.speakers():
        e = (evidence_of or {}).get(m)
        stance = (stance_of or {}).get(m, s.stances[m])
        s.say(m, Reply("evidence" if e else "restate", f"{m} speaks {e or ''}", stance, 0.5, evidence=e))
    return s.end_round()


# --- the session ------------------------------------------------------------------------------


def test_variance_consensus_stops_when_nothing_crux_is_hidden():
    s = CouncilSession(small_task(private=((), (), ())), CouncilConfig(consensus="variance", chair="oracle"))
    assert s.crux == frozenset() and play_round(s) == "consensus" and s.stop_reason == "variance"
    assert s.round == 1 and len(s.flow) == 2


def test_the_oracle_chair_holds_the_vote_until_crux_evidence_is_stated():
    """The ablation, when named: it reads who holds what."""
    task = small_task(private=(("p0",), (), ("d0",)))
    assert task.crux_aspects() == {"cost"}
    s = CouncilSession(task, CouncilConfig(consensus="variance", stalemate_breaker=False, chair="oracle"))
    assert s.crux == {"cost"}
    assert play_round(s) == "open"  # m0 still holds p0 (cost), unstated
    assert s.unstated(crux_only=True) == [("m0", "p0")]
    assert play_round(s, evidence_of={"m0": "p0"}) == "consensus"  # d0 (law) is no crux
    off = CouncilSession(task, CouncilConfig(consensus="variance", crux_guard=False, chair="oracle"))
    assert play_round(off) == "consensus"
    assert CouncilSession(task).crux == frozenset()  # the default chair never computes it


def test_stable_majority_needs_k_rounds():
    task = small_task(stances=(0.2, 0.3, 0.9), private=((), (), ()))
    s = CouncilSession(
        task, CouncilConfig(consensus="majority", stable_rounds=3, stalemate_breaker=False, crux_guard=False)
    )
    assert [play_round(s) for _ in range(3)] == ["open", "open", "consensus"]
    assert s.stop_reason == "majority"


def test_majority_flip_restarts_the_count_and_max_rounds_ends_it():
    s = CouncilSession(
        small_task(private=((), (), ())),
        CouncilConfig(consensus="majority", stable_rounds=2, max_rounds=3, stalemate_breaker=False),
    )
    play_round(s)
    play_round(s, stance_of={"m0": 0.9, "m1": 0.9})
    assert play_round(s, stance_of={"m0": 0.1, "m1": 0.1}) == "max_rounds"


def test_the_oracle_stalemate_breaker_names_the_holders_then_puts_a_neutral_question():
    task = small_task(private=(("p0",), (), ()))
    cfg = CouncilConfig(consensus="variance", variance_threshold=0.0, stalemate_rounds=2, max_rounds=8, chair="oracle")
    s = CouncilSession(task, cfg)
    play_round(s)
    play_round(s)
    q = s.history[-1]
    assert q.speaker == COORDINATOR and q.kind == "question" and q.aspect == "cost"
    assert "has not heard" in q.text and s.interventions == [q.id]
    assert s.speakers()[0] == "m0"  # the holder is given the floor first
    play_round(s, evidence_of={"m0": "p0"})
    play_round(s)  # two quiet rounds after the question, nothing left unstated
    assert s.history[-1].speaker == COORDINATOR and "change your mind" in s.history[-1].text


@pytest.mark.parametrize(
    "policy,stances,first",
    [
        ("fixed", (0.2, 0.5, 0.9), "m0"),
        ("most-uncertain", (0.2, 0.52, 0.9), "m1"),
        ("most-controversial", (0.3, 0.35, 0.95), "m2"),
    ],
)
def test_speaker_policies(policy, stances, first):
    s = CouncilSession(small_task(stances=stances), CouncilConfig(speaker_policy=policy))
    assert s.speakers()[0] == first and sorted(s.speakers()) == ["m0", "m1", "m2"]


def test_random_policy_is_seeded_and_speakers_per_round_limits():
    orders = []
    for _ in range(2):
        s = CouncilSession(
            small_task(),
            CouncilConfig(
                speaker_policy="random",
                seed=5,
                speakers_per_round=2,
                max_rounds=6,
                stalemate_breaker=False,
                consensus="majority",
                stable_rounds=9,
            ),
        )
        got = []
        while s.is_open:
            got.append(tuple(s.speakers()))
            play_round(s)
        orders.append(got)
    assert orders[0] == orders[1] and all(len(o) == 2 for o in orders[0])
    assert len(set(orders[0])) > 1


def test_turn_order_kinds_and_closed_sessions_are_enforced():
    s = CouncilSession(small_task())
    with pytest.raises(CouncilError, match="not 'm1'"):
        s.say("m1", Reply("restate", "x", 0.5, 0.5))
    with pytest.raises(CouncilError, match="unknown statement kind"):
        s.say("m0", Reply("shout", "x", 0.5, 0.5))
    with pytest.raises(CouncilError, match="unknown evidence"):
        s.say("m0", Reply("evidence", "x", 0.5, 0.5, evidence="zz"))
    with pytest.raises(CouncilError, match="not finished"):
        s.end_round()
    out = s.vote({"m0": 0.9, "m1": 0.8, "m2": 0.1})
    assert out.decision is True and out.votes == {"m0": True, "m1": True, "m2": False}
    with pytest.raises(CouncilError, match="over"):
        s.say("m0", Reply("restate", "x", 0.5, 0.5))


def test_sampled_vote_is_seeded():
    a = CouncilSession(small_task(), CouncilConfig(vote="sample", seed=3)).vote({"m0": 0.5, "m1": 0.5, "m2": 0.5})
    b = CouncilSession(small_task(), CouncilConfig(vote="sample", seed=3)).vote({"m0": 0.5, "m1": 0.5, "m2": 0.5})
    assert a.votes == b.votes


# --- debaters see only their view ---------------------------------------------------------------


def _views(task: CouncilTask, mode: str = "memo"):
    seen = []
    run_debate(
        task,
        CouncilConfig(seed=1),
        MaskingConfig(mode=mode),
        embedder=HASH,
        on_statement=lambda st, view: seen.append((st, view)),
    )
    return seen


@pytest.mark.parametrize("mode", ["none", "memo"])
def test_a_view_never_holds_another_members_unstated_evidence(mode):
    task = hidden_profile_task(7)
    said: set[str] = set()
    for said_now, view in _views(task, mode):
        own = set(task.member(view.member).private)
        assert set(view.known()) <= own | set(task.shared) | said
        assert not hasattr(view, "task") and not hasattr(view, "session")
        if said_now.evidence:
            said.add(said_now.evidence)


def test_a_scripted_debater_answers_the_same_whatever_it_cannot_see():
    """Other members' private evidence and the truth do not reach its choice."""
    task = hidden_profile_task(3)
    masker = Masker(MaskingConfig(mode="none"))
    s = CouncilSession(task)
    view = view_for(s, "m0", masker)
    other = task.model_copy(
        update={
            "truth": not task.truth,
            "members": (
                task.members[0],
                *(m.model_copy(update={"stance": 0.99, "private": ()}) for m in task.members[1:]),
            ),
        }
    )
    view2 = view_for(CouncilSession(other), "m0", masker)
    assert view == view2
    assert ScriptedDebater(seed=4).respond(view) == ScriptedDebater(seed=4).respond(view2)


def test_scripted_debater_prefers_unseen_shared_points_then_its_own_evidence_then_answers_questions():
    task = small_task(stances=(0.3, 0.35, 0.4), private=(("p0",), (), ()))
    d = ScriptedDebater(DebaterConfig(noise=0.0))
    s = CouncilSession(task, CouncilConfig(stalemate_breaker=False))
    masker = Masker(MaskingConfig(mode="none"))
    first = d.respond(view_for(s, "m0", masker))
    assert first.kind == "evidence" and first.evidence == "s0"  # the shared point backing its 'no'
    s.say("m0", first)
    s.say("m1", Reply("restate", "I oppose.", 0.3, 0.5))
    s.say("m2", Reply("restate", "I oppose.", 0.3, 0.5))
    s.end_round()
    second = d.respond(view_for(s, "m0", masker))
    assert second.kind == "evidence" and second.evidence == "p0"  # s0 is in view: its own item next


def test_stance_moves_with_the_evidence_in_view_and_repeats_weigh_more():
    task = small_task(stances=(0.3, 0.35, 0.4), private=(("p0",), ("p1",), ()))
    d = ScriptedDebater(DebaterConfig(noise=0.0, conformity=0.0))
    s = CouncilSession(task, CouncilConfig(stalemate_breaker=False))
    masker = Masker(MaskingConfig(mode="none", budget=2000))
    base = d.stance(view_for(s, "m2", masker))
    assert base == pytest.approx(0.4, abs=1e-6)
    s.say("m0", Reply("evidence", "p1 text", 0.3, 0.5, evidence="p1"))  # m0 quoting p1 (+1, cost)
    after = d.stance(view_for(s, "m2", masker))
    s.say("m1", Reply("restate", "p1 again", 0.3, 0.5, evidence="p1"))
    again = d.stance(view_for(s, "m2", masker))
    assert base < after < again


# --- metrics ---------------------------------------------------------------------------------------


def test_metrics_on_a_hand_built_transcript():
    task = small_task(stances=(0.3, 0.35, 0.4), private=(("p0",), ("p1",), ()), truth=True)
    s = CouncilSession(task, CouncilConfig(consensus="majority", stable_rounds=1, crux_guard=False))
    s.say("m0", Reply("evidence", "The bridge costs less than feared", 0.3, 0.5, evidence="p0"))
    s.say("m1", Reply("evidence", "The bridge costs less than feared", 0.35, 0.5, evidence="p0"))
    s.say("m2", Reply("rebuttal", "Tolls will pay for it", 0.8, 0.6, target=0))
    s.end_round()
    out = s.vote({"m0": 0.7, "m1": 0.7, "m2": 0.8})
    assert out.decision is True and s.correct is True
    assert effective(s) == [True, False, True]  # first p0; a repeat; a first rebuttal (and m2 moved)
    m = evaluate(s, HASH)
    vecs = HASH(["The bridge costs less than feared", "The bridge costs less than feared", "Tolls will pay for it"])
    mean, mx = redundancy(vecs)  # row 1 repeats row 0 exactly: cosine 1
    assert mx == pytest.approx((1.0 + max(vecs[2] @ vecs[0], vecs[2] @ vecs[1])) / 2, abs=1e-5)
    assert m.redundancy == pytest.approx(mean) and m.self_redundancy == 0.0
    assert m.effective_ratio == pytest.approx(2 / 3) and m.rounds == 1 and m.correct is True
    tp = turning_points(s)
    assert tp[0][0] == 2  # m2 jumping to 0.8 flips nothing but moves the variance most
    assert m.flow == [{"m0": 0.3, "m1": 0.35, "m2": 0.4}, {"m0": 0.3, "m1": 0.35, "m2": 0.8}]


def test_plot_flow_writes_a_file(tmp_path):
    out = plot_flow([{"a": 0.2, "b": 0.7}, {"a": 0.5, "b": 0.8}], tmp_path / "flow.png")
    assert out.stat().st_size > 1000


# --- tasks -------------------------------------------------------------------------------------------


def test_task_generator_is_deterministic_and_builds_hidden_profiles():
    a, b = hidden_profile_tasks(range(20)), hidden_profile_tasks(range(20))
    assert a == b and len({t.motion + str(t.pooled()) for t in a}) > 10
    for t in a:
        assert is_hidden_profile(t) and t.truth == (t.pooled() > 0)
        by = t.by_id()
        assert all(by[e].direction != (1 if t.truth else -1) for e in t.shared)  # shared: the wrong way
        assert t.crux_aspects()
    assert hidden_profile_task(5) != hidden_profile_task(6)


def test_task_validation():
    with pytest.raises(ValidationError, match="unknown evidence"):
        small_task(private=(("zz",), (), ()))
    with pytest.raises(ValidationError, match="held twice"):
        small_task(private=(("s0",), (), ()))
    with pytest.raises(ValidationError, match="direction"):
        ev("x", "cost", 0)


def test_a_full_debate_is_deterministic_and_reaches_a_vote():
    task = hidden_profile_task(11)
    runs = [run_debate(task, CouncilConfig(seed=2), MaskingConfig(mode="memo"), embedder=HASH) for _ in range(2)]
    (s1, m1), (s2, m2) = runs
    assert [x.text for x in s1.history] == [x.text for x in s2.history] and m1 == m2
    assert s1.outcome.decision is not None and m1.recall is not None and 0 < m1.recall <= 1
    assert s1.status in ("consensus", "max_rounds") and len(m1.flow) == m1.rounds + 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "max_rounds",
                "min_rounds",
                "speakers_per_round",
                "variance_threshold",
                "stable_rounds",
                "stalemate_delta",
                "majority",
                "speaker_policy",
                "consensus",
                "vote",
            ]
        ),
        st.one_of(st.integers(-5, 300), st.floats(-1, 2), st.just(float("nan")), st.text(max_size=12), st.none()),
        max_size=4,
    )
)
def test_config_validation_fuzz(over):
    """Any config either validates into a usable session or fails with a ValidationError/CouncilError."""
    try:
        cfg = CouncilConfig(**over)
    except ValidationError:
        return
    assert (
        1 <= cfg.max_rounds
        and 0 < cfg.majority < 1
        and cfg.speaker_policy in ("fixed", "random", "most-controversial", "most-uncertain")
    )
    try:
        s = CouncilSession(small_task(), cfg)
    except CouncilError:
        assert cfg.min_rounds > cfg.max_rounds
        return
    assert set(s.speakers()) <= set(s.members) and s.speakers()
    assert np.isfinite(s.variance())
