"""Council working memory: every masking mode under one token budget, anchors, memo's rules, the
long-term summary."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from game.council.context import MODES, MaskingConfig, line, settled
from game.council.session import CouncilConfig, CouncilSession, Reply
from game.council.tasks import CouncilTask, Evidence, hidden_profile_task
from memory.debate_masking import Masker
from memory.embedder import get_embedder

HASH = get_embedder("hash")


def words(text: str) -> int:
    return len(text.split())


def task() -> CouncilTask:
    ev = [
        Evidence(
            id=f"e{i}", aspect=a, direction=d, weight=1.0, gist=f"{a} {d}", text=f"The {src} shows the bridge {what}"
        )
        for i, (a, d, src, what) in enumerate(
            [
                ("cost", -1, "treasurer's audit", "overruns the estimate by 40 percent"),
                ("cost", 1, "mason's survey", "saves 12 crowns on every cart of stone"),
                ("safety", 1, "physician's report", "cuts drownings at the ford by 9 a year"),
                ("law", 1, "archivist's record", "is allowed by 3 clauses of the charter"),
                ("trade", 1, "guild ledger", "brings 30 more barges each month"),
            ]
        )
    ]
    members = [
        {"id": "m0", "stance": 0.3, "private": ["e1"]},
        {"id": "m1", "stance": 0.4, "private": ["e2"]},
        {"id": "m2", "stance": 0.6, "private": ["e3", "e4"]},
    ]
    return CouncilTask(
        motion="The council should build the bridge.",
        constraints=("Evidence is fact.",),
        evidence=ev,
        shared=("e0",),
        members=members,
    )


def session(rounds: list[list[tuple[str, Reply]]], **cfg) -> CouncilSession:
    s = CouncilSession(
        task(), CouncilConfig(max_rounds=50, stalemate_breaker=False, consensus="majority", stable_rounds=50, **cfg)
    )
    for r in rounds:
        for m, reply in r:
            s.say(m, reply)
        s.end_round()
    return s


def R(kind, text, stance=0.5, conf=0.5, evidence=None, target=None, aspect=None, side=None) -> Reply:
    return Reply(kind, text, stance, conf, evidence, target, aspect, side)


E0 = "The treasurer's audit shows the bridge overruns the estimate by 40 percent."
E1 = "The mason's survey shows the bridge saves 12 crowns on every cart of stone."
E2 = "The physician's report shows the bridge cuts drownings at the ford by 9 a year."


def busy() -> CouncilSession:
    """Six rounds: the shared point said again and again, private items, a rebuttal."""
    rounds = []
    for r in range(6):
        rounds.append(
            [
                ("m0", R("evidence", E0, 0.3, 0.9 - r * 0.1, "e0", aspect="cost")),
                (
                    "m1",
                    R(
                        "evidence",
                        E2 if r == 1 else f"Again, {E0.lower()}",
                        0.4,
                        0.3 + r * 0.1,
                        "e2" if r == 1 else "e0",
                        aspect="safety" if r == 1 else "cost",
                    ),
                ),
                (
                    "m2",
                    R("rebuttal", f"I disagree with m0: {E1}", 0.6, 0.6, "e1", target=3 * r, aspect="cost")
                    if r == 2
                    else R("evidence", E1, 0.6, 0.5, "e1", aspect="cost"),
                ),
            ]
        )
    return session(rounds)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("budget", [60, 120, 400])
def test_every_mode_fits_the_budget_and_keeps_the_anchors(mode, budget):
    s = busy()
    ctx = Masker(MaskingConfig(mode=mode, budget=budget), HASH, count=words).context(s, "m1")
    assert ctx.anchors == ("Motion: The council should build the bridge.", "Constraint: Evidence is fact.")
    assert ctx.lines()[:2] == list(ctx.anchors)
    assert ctx.tokens == sum(words(x) for x in ctx.lines()) <= budget
    assert [x.id for x in ctx.statements] == sorted(x.id for x in ctx.statements)
    assert set(ctx.masked) | {x.id for x in ctx.statements} == {x.id for x in s.history}
    assert not set(ctx.masked) & {x.id for x in ctx.statements}


def test_anchors_survive_a_budget_smaller_than_themselves():
    for mode in MODES:
        ctx = Masker(MaskingConfig(mode=mode, budget=16), HASH, count=words).context(busy(), "m0")
        assert len(ctx.anchors) == 2 and ctx.statements == ()


def test_none_keeps_the_newest_run_window_the_last_k():
    s = busy()
    none = Masker(MaskingConfig(mode="none", budget=120), count=words).context(s, "m0")
    ids = [x.id for x in none.statements]
    assert ids == list(range(ids[0], len(s.history)))
    win = Masker(MaskingConfig(mode="window", window=3, budget=4000), count=words).context(s, "m0")
    assert [x.id for x in win.statements] == [len(s.history) - 3 + k for k in range(3)]


def test_objective_keeps_only_the_most_confident_half():
    s = busy()
    ctx = Masker(MaskingConfig(mode="objective", budget=4000), count=words).context(s, "m0")
    confs = sorted(x.confidence for x in s.history)
    median = (confs[len(confs) // 2 - 1] + confs[len(confs) // 2]) / 2
    assert ctx.statements and all(x.confidence >= median for x in ctx.statements)
    assert all(x.id in ctx.masked for x in s.history if x.confidence < median)


def test_memo_drops_repeats_and_keeps_each_item_once():
    s = busy()
    ctx = Masker(
        MaskingConfig(mode="memo", budget=4000, long_term=False, same_evidence=True), HASH, count=words
    ).context(s, "m2")
    texts = [x.text for x in ctx.statements]
    assert len(set(texts)) == len(texts)
    assert {x.evidence for x in ctx.statements} == {"e0", "e1", "e2"}
    assert any(r.startswith("restates evidence first stated in") for r in ctx.masked.values())
    by_words = Masker(
        MaskingConfig(mode="memo", budget=4000, long_term=False, same_evidence=False), HASH, count=words
    ).context(s, "m2")  # without the identity rule, the cosine catches repeats
    assert any(r.startswith("redundant with") for r in by_words.masked.values())
    m1 = Masker(
        MaskingConfig(mode="memo", budget=4000, long_term=False, same_evidence=False), HASH, count=words
    ).context(s, "m1")
    assert any(r.startswith("repeats the agent's own") for r in m1.masked.values())  # m0 echoing what m1 just said
    none = Masker(MaskingConfig(mode="none", budget=4000), count=words).context(s, "m2")
    assert len(none.statements) == len(s.history) > len(ctx.statements)


def test_memo_keeps_the_new_and_the_disputed_first_under_a_tight_budget():
    s = busy()
    tight = Masker(MaskingConfig(mode="memo", budget=70, long_term=False), HASH, count=words).context(s, "m1")
    kept = {x.id for x in tight.statements}
    assert 4 in kept  # the physician's report: said once (novelty), in round 2
    none = Masker(MaskingConfig(mode="none", budget=70), count=words).context(s, "m1")
    assert 4 not in {x.id for x in none.statements}  # recency alone lost it


def test_memo_max_items_caps_the_statements():
    ctx = Masker(MaskingConfig(mode="memo", budget=4000, max_items=2), HASH, count=words).context(busy(), "m0")
    assert len(ctx.statements) == 2 and any("beyond the 2 kept" in r for r in ctx.masked.values())


def test_long_term_summary_lists_settled_sub_questions_and_fades_them():
    s = session(
        [
            [
                ("m0", R("evidence", E2, 0.5, 0.5, "e2", aspect="safety", side=1)),
                ("m1", R("evidence", E0, 0.5, 0.5, "e0", aspect="cost", side=-1)),
                ("m2", R("evidence", E1, 0.5, 0.5, "e1", aspect="cost", side=1)),
            ],
            [
                ("m0", R("restate", "I hold my view.", 0.5, 0.5)),
                ("m1", R("restate", "So do I.", 0.5, 0.5)),
                ("m2", R("restate", "And I.", 0.5, 0.5)),
            ],
        ]
    )
    agreed, lines = settled(s)
    assert agreed == ("e2",) and lines == ("Settled, safety: for the motion (#0)",)  # cost: read both ways
    ctx = Masker(MaskingConfig(mode="memo", budget=4000), HASH, count=words).context(s, "m1")
    assert ctx.summary == lines and ctx.agreed == ("e2",) and "e2" in ctx.evidence
    assert ctx.tokens == sum(words(x) for x in ctx.lines())
    off = Masker(MaskingConfig(mode="none", budget=4000), count=words).context(s, "m1")
    assert off.summary == () and off.agreed == ()
    rebutted = session(
        [
            [
                ("m0", R("evidence", E2, 0.5, 0.5, "e2", aspect="safety")),
                ("m1", R("restate", "x", 0.5, 0.5)),
                ("m2", R("restate", "y", 0.5, 0.5)),
            ],
            [
                ("m0", R("restate", "z", 0.5, 0.5)),
                ("m1", R("rebuttal", "Not so.", 0.5, 0.5, target=0, aspect="safety")),
                ("m2", R("restate", "w", 0.5, 0.5)),
            ],
        ]
    )
    assert settled(rebutted) == ((), ())


def test_the_default_counter_and_real_transcripts_stay_in_budget():
    t = hidden_profile_task(21)
    s = CouncilSession(t)
    masker = Masker(MaskingConfig(mode="memo", budget=200), HASH)
    from game.council.runner import scripted_council, view_for

    deb = scripted_council(t, 0)
    for _ in range(3):
        for m in s.speakers():
            v = view_for(s, m, masker)
            assert v.context.tokens <= 200
            assert v.context.tokens == sum(masker.tokens(x) for x in v.context.lines())
            s.say(m, deb[m].respond(v), v.context.tokens)
        if s.end_round() != "open":
            break
    assert line(s.history[0]).startswith(f"[{s.history[0].speaker}] ")


def test_masking_config_is_validated():
    with pytest.raises(ValidationError):
        MaskingConfig(mode="subjective")
    with pytest.raises(ValidationError):
        MaskingConfig(budget=3)
    with pytest.raises(ValidationError):
        MaskingConfig(redundancy=1.5)
    assert MaskingConfig(mode="memo").uses_long_term and not MaskingConfig(mode="none").uses_long_term
    assert MaskingConfig(mode="window", long_term=True).uses_long_term


def test_dedupe_keeps_only_the_first_mention_of_each_evidence_item():
    s = busy()
    ctx = Masker(MaskingConfig(mode="dedupe", budget=4000), count=words).context(s, "m0")
    assert [x.id for x in ctx.statements] == sorted(s.stated.values())
    assert all(x.evidence for x in ctx.statements)
