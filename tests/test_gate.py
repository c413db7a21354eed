"""The consistency gate: related facts, judges, credibility, tiers, verification, audit,
failure modes, persistence; and the gate in a played game."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.gate import ClaimCandidate, ConsistencyGate, GateConfig, RelationRule
from memory.gate_posterior import Costs, Posterior, cut_points, sigmoid

RELATIONS = {
    "located_in": RelationRule(functional=True),
    "price": RelationRule(functional=True, range=(0, 100)),
    "knows": RelationRule(),
    "arrives_before": RelationRule(temporal="before"),
    "arrives_after": RelationRule(temporal="after"),
    "strict": RelationRule(functional=True, thresholds=(0.6, 0.95)),
}
CRED = {"trusted": 0.9, "stale": 0.3, "liar": 0.1}
# round weights for the mechanics (the fitted defaults are checked on the benchmark's stream in
# tests/test_gate_posterior.py): a trusted source's news is admitted, a stranger's held
ROUND = Posterior(
    prior=0.0,
    weights={
        "trust": 1.0,
        "distrust": 1.0,
        "newcomer": 0.0,
        "track": 1.0,
        "verified_support": 3.0,
        "verified_conflict": -4.0,
        "admitted_support": 2.0,
        "admitted_conflict": -1.0,
        "news": 0.5,
        "burst": -2.0,
        "jury": 1.0,
    },
)


def gate(config: GateConfig | None = None, **kw) -> ConsistencyGate:
    config = config or GateConfig(posterior=ROUND)
    if "posterior" not in config.model_fields_set:
        config = config.model_copy(update={"posterior": ROUND})
    return ConsistencyGate(RELATIONS, config, credibility=lambda s, t: CRED.get(s, 0.5), **kw)


def cand(s, r, o, source="trusted", topic="t", turn=0, text="") -> ClaimCandidate:
    return ClaimCandidate(s, r, o, topic, source, turn, text)


def told_before(g: ConsistencyGate, c: ClaimCandidate):
    """Submit ``c`` as if its source were trusted then (it was found out later): a stale fact."""
    judge = g.credibility
    g.credibility = lambda s, t: 0.9
    try:
        d = g.submit(c)
    finally:
        g.credibility = judge
    g.invalidate()
    assert d.outcome == "admit"
    return d


def test_new_consistent_facts_are_admitted_and_repeats_corroborate():
    g = gate()
    d = g.submit(cand("gem", "located_in", "chest", source="trusted"))
    assert d.outcome == "admit" and d.reason == "consistent with what is known"
    again = g.submit(cand("Gem", "located-in", "Chest", source="anon"))
    assert again.outcome == "admit" and again.fact == d.fact and "corroborates" in again.reason
    assert g.facts[d.fact].sources == ["trusted", "anon"] and len(g.live()) == 1
    # news is as good as its backers: a stranger's is held (p about 0.6 is below the admit cut point)
    stranger = g.submit(cand("boat", "located_in", "dock", source="anon"))
    assert stranger.outcome == "quarantine" and 0.5 < stranger.p < 0.79
    held = g.submit(cand("mask", "located_in", "attic", source="stale"))
    assert held.outcome == "quarantine" and held.p < stranger.p
    liar = g.submit(cand("lamp", "located_in", "cellar", source="liar"))  # held, not rejected:
    assert liar.outcome == "quarantine" and "poor record" in liar.reason  # nothing known says it is false


def test_trusted_update_supersedes_a_stale_fact_and_untrusted_contradiction_is_rejected():
    g = gate()
    old = told_before(g, cand("gem", "located_in", "chest", source="stale"))
    upd = g.submit(cand("gem", "located_in", "well", source="trusted"))
    assert upd.outcome == "admit" and upd.superseded == [old.fact]
    assert g.facts[old.fact].status == "superseded"
    # the stale fact weighs what its discredited source lends it (0.3); the update's source outweighs it
    (vote,) = [v for v in upd.votes if v["about"] == old.fact]
    assert vote["strength"] == pytest.approx(0.3) and upd.score == upd.p and upd.p > 0.79
    terms = {e["term"]: e["log_odds"] for e in upd.evidence}
    assert terms["trust"] > 0 > terms["admitted_conflict"]
    bad = g.submit(cand("gem", "located_in", "cave", source="liar"))  # a liar against a trusted source
    assert bad.outcome in ("reject", "quarantine") and bad.p < 0.1
    assert g.status_of("gem", "located_in", "cave") in (None, "quarantined")
    assert [f.object for f in g.live()] == ["well"]


def test_a_stranger_contradicting_a_trusted_source_is_refused_and_trusted_updates_of_strangers_pass():
    g = gate()
    g.submit(cand("mask", "price", "48", source="trusted"))
    d = g.submit(cand("mask", "price", "13", source="anon"))
    assert d.outcome != "admit" and d.p < 0.2 and g.status_of("mask", "price", "48") == "admitted"
    told_before(g, cand("mill", "located_in", "river", source="anon"))
    up = g.submit(cand("mill", "located_in", "hill", source="trusted"))
    assert up.outcome == "admit" and up.superseded


def test_numbers_are_compared_as_numbers():
    g = gate()
    first = g.submit(cand("lamp", "price", "12"))
    same = g.submit(cand("lamp", "price", "12.0", source="anon"))  # corroborated by a trusted source
    assert same.outcome == "admit" and same.fact == first.fact


def test_the_cache_notices_credibility_changes():
    cred = {"src": 0.15, "old": 0.95}
    g = ConsistencyGate(RELATIONS, GateConfig(posterior=ROUND), credibility=lambda s, t: cred[s])
    g.submit(cand("gem", "located_in", "chest", source="old"))
    assert g.submit(cand("gem", "located_in", "well", source="src")).outcome == "reject"
    cred["src"] = 0.95
    d = g.submit(cand("gem", "located_in", "well", source="src"))
    assert not d.cached and d.outcome != "reject"  # now a dispute between equals


def test_equal_credibility_disputes_are_quarantined_and_kept_out_of_evidence():
    g = gate()
    told_before(g, cand("gem", "located_in", "chest", source="ann"))
    d = g.submit(cand("gem", "located_in", "well", source="bob"))
    assert d.outcome == "quarantine" and g.facts[d.fact].status == "quarantined"
    assert all(f.status in ("admitted", "verified") for f in g.live())
    assert d.fact not in {f.id for f, _ in g.related(cand("gem", "located_in", "barn"))}
    # a second source for the same held claim joins the held entry instead of a new one
    d2 = g.submit(cand("gem", "located_in", "well", source="cy"))
    assert d2.outcome == "quarantine" and d2.fact == d.fact and g.facts[d.fact].sources == ["bob", "cy"]


def test_verification_purges_a_poisoned_fact_and_resolves_the_quarantine():
    g = gate()
    poison = g.submit(cand("gem", "located_in", "cave", source="trusted"))  # admitted early
    held = g.submit(cand("gem", "located_in", "well", source="ann"))  # disputed, held
    assert poison.outcome == "admit" and held.outcome in ("quarantine", "reject")
    out = g.observe("gem", "located_in", "well", True, turn=5, topic="t")
    assert out[0].reason.startswith("verified observation; purges")
    assert g.facts[poison.fact].status == "purged"
    assert g.status_of("gem", "located_in", "well") == "verified"
    # the liar repeating the purged claim is now rejected outright: a verified fact wins any contest
    d = g.submit(cand("gem", "located_in", "cave", source="trusted"))
    assert d.outcome == "reject" and d.p == 0.0 and d.evidence[0]["term"] == "hard"


def test_recheck_admits_a_held_claim_once_its_source_proves_reliable():
    cred = {"ann": 0.9, "bob": 0.9}
    g = ConsistencyGate(RELATIONS, credibility=lambda s, t: cred[s])
    first = g.submit(cand("key", "located_in", "desk", source="ann"))
    held = g.submit(cand("key", "located_in", "shelf", source="bob"))
    assert held.outcome == "quarantine"
    cred.update(bob=0.95, ann=0.1)  # bob proved right elsewhere, ann caught lying
    (d,) = g.recheck(turn=9)
    assert d.outcome == "admit" and d.reason.startswith("re-checked:") and d.fact == held.fact
    assert g.facts[held.fact].status == "admitted" and g.facts[first.fact].status == "superseded"


def test_verified_negative_rejects_later_claims_of_it():
    g = gate()
    g.observe("gem", "located_in", "well", False, turn=1, topic="t")
    d = g.submit(cand("gem", "located_in", "well", source="trusted"))
    assert d.outcome == "reject" and "verified to be false" in d.votes[0]["reason"]


def test_numeric_range_and_temporal_order_are_contradictions():
    g = gate()
    d = g.submit(cand("lamp", "price", "500"))
    assert d.outcome == "reject" and "outside the range" in d.reason
    assert g.submit(cand("lamp", "price", "cheap")).outcome == "reject"
    told_before(g, cand("lamp", "price", "40", source="stale"))
    weak = g.submit(cand("lamp", "price", "45", source="liar"))  # a liar against a weakly held value
    assert weak.outcome in ("quarantine", "reject") and "f" in weak.reason and weak.p < 0.1
    g.observe("ship", "arrives_before", "storm", True, turn=1)
    rev = g.submit(cand("storm", "arrives_before", "ship", source="liar"))
    assert rev.outcome == "reject" and "temporal order" in rev.votes[0]["reason"]
    opp = g.submit(cand("ship", "arrives_after", "storm", source="trusted"))  # a verified order is hard
    assert opp.outcome == "reject"
    g.submit(cand("bell", "arrives_before", "mill"))
    weak = g.submit(cand("mill", "arrives_before", "bell", source="liar"))  # against a trusted source's order
    assert weak.outcome in ("reject", "quarantine") and weak.p < 0.1
    # non-functional relations take several objects
    g.submit(cand("ann", "knows", "bob"))
    assert g.submit(cand("ann", "knows", "cy")).outcome == "admit"
    assert g.submit(cand("ann", "knows", "dee", source="liar")).outcome == "quarantine"  # a liar's news


def test_per_relation_thresholds():
    g = gate()
    assert g.thresholds("located_in") == pytest.approx(cut_points(Costs()))
    assert g.thresholds("strict") == (0.6, 0.95)
    strict = g.submit(cand("y", "strict", "a"))  # p 0.94: below the relation's own admit point
    loose = g.submit(cand("y", "located_in", "a"))
    assert strict.p == pytest.approx(loose.p) and strict.outcome == "quarantine" and loose.outcome == "admit"
    d = g.submit(cand("x", "strict", "a", source="stale"))  # p 0.41: rejected below 0.6, held by the costs
    e = g.submit(cand("x", "located_in", "a", source="stale"))
    assert d.outcome == "reject" and e.outcome == "quarantine"


def test_related_facts_by_structure_meaning_and_keywords():
    from memory.embedder import get_embedder

    g = gate(embedder=get_embedder("hash"), config=GateConfig(k=3, similarity_floor=0.2))
    g.submit(cand("gem", "located_in", "chest", text="The red gem lies in the oak chest."))
    g.submit(cand("Captain Vane", "knows", "Mara", text="Captain Vane knows Mara of the harbour."))
    g.submit(cand("bell", "rings_at", "noon", text="The bell rings at 12 sharp."))
    rel = {
        f.text: why for f, why in g.related(cand("gem", "located_in", "well", text="The red gem lies in the old well."))
    }
    assert rel["The red gem lies in the oak chest."] == "structured"
    kw = {f.text: why for f, why in g.related(cand("Mara", "owns", "boat", text="Mara owns a boat."))}
    assert kw.get("Captain Vane knows Mara of the harbour.") in ("keyword", "semantic")
    num = {f.text: why for f, why in g.related(cand("clock", "strikes", "12", text="The clock strikes 12."))}
    assert "The bell rings at 12 sharp." in num


class Boom:
    def judge(self, items):
        raise RuntimeError("endpoint down")


class Fixed:
    def __init__(self, score):
        self.score, self.calls = score, []

    def judge(self, items):
        self.calls.append(len(items))
        return [self.score] * len(items)


def test_a_failing_judge_degrades_to_quarantine_or_to_the_rule_judge():
    g = gate(jury=Boom())
    d = g.submit(cand("gem", "located_in", "chest"))
    assert d.outcome == "quarantine" and "jury failed" in d.reason
    g = gate(jury=Boom(), config=GateConfig(on_judge_error="rule_only"))
    assert g.submit(cand("gem", "located_in", "chest")).outcome == "admit"


def test_jury_votes_enter_the_score_and_candidates_are_batched():
    jury = Fixed(0.0)
    g = gate(jury=jury)
    ds = g.submit_many([cand("a", "knows", "b"), cand("c", "knows", "d"), cand("e", "knows", "f")])
    assert jury.calls == [3] and g.judge_calls == 1
    # the jury's "no" (logit 0.05 = -2.94) outweighs a trusted source's news (+2.70): held
    assert [d.outcome for d in ds] == ["quarantine"] * 3 and ds[0].p == pytest.approx(sigmoid(2.697225 - 2.944439))
    assert {e["term"]: e["log_odds"] for e in ds[0].evidence}["jury"] == pytest.approx(-2.944439)
    assert any(v["judge"] == "jury" for v in ds[0].votes)


def test_identical_candidates_reuse_the_cached_decision():
    jury = Fixed(1.0)
    g = gate(jury=jury)
    g.submit(cand("a", "knows", "b", source="x"))
    g.submit(cand("q", "located_in", "r", source="y"))  # changes memory: the next is judged afresh
    held = g.submit(cand("q", "located_in", "s", source="z"))
    again = g.submit(cand("q", "located_in", "s", source="z"))
    assert again.cached and again.outcome == held.outcome and jury.calls == [1, 1, 1]


def test_audit_is_queryable_and_state_round_trips():
    g = gate()
    told_before(g, cand("gem", "located_in", "chest", source="stale", topic="gem", turn=1))
    g.submit(cand("gem", "located_in", "cave", source="anon", topic="gem", turn=2))
    g.submit(cand("ann", "knows", "bob", source="trusted", topic="people", turn=3))
    g.observe("gem", "located_in", "chest", True, turn=4, topic="gem")
    assert [d.candidate["object"] for d in g.audit(source="anon")] == ["cave"]
    assert [d.outcome for d in g.audit(subject="GEM")] == ["admit", "quarantine", "admit"]  # the truth purges it
    assert g.status_of("gem", "located_in", "cave") == "purged"
    assert len(g.audit(topic="people")) == 1 and len(g.audit(since=3)) == 2
    assert g.audit(outcome="reject") == [] and len(g.audit(outcome="quarantine")) == 1
    d = g.audit(source="anon")[0]
    assert d.related and d.votes and d.credibility == pytest.approx(0.5) and d.reason and d.evidence
    state = json.loads(json.dumps(g.get_state()))
    h = gate()
    h.set_state(state)
    assert h.get_state() == g.get_state()
    assert h.submit(cand("gem", "located_in", "cave", source="liar")).outcome == "reject"
    new = h.submit(cand("boat", "located_in", "dock"))
    assert new.fact not in g.facts  # fact ids continue after a load


def test_bad_config_is_refused():
    with pytest.raises(ValueError):
        GateConfig(t_low=0.8, t_high=0.5)
    with pytest.raises(ValueError):
        GateConfig(k=9)


words = st.sampled_from(["gem", "chest", "well", "Mara", "12", "40", "ship", "storm", "a b", "x-y"])


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            words,
            st.sampled_from(sorted(RELATIONS) + ["other"]),
            words,
            st.sampled_from(["trusted", "stale", "liar", "anon", "observation"]),
            st.booleans(),
        ),
        max_size=25,
    )
)
def test_fuzz_any_stream_of_writes_keeps_the_memory_consistent(stream):
    g = gate()
    for s, r, o, src, verify in stream:
        if src == "observation":
            g.observe(s, r, o, verify, turn=0)
        else:
            d = g.submit(cand(s, r, o, source=src))
            assert d.outcome in ("admit", "quarantine", "reject") and 0.0 <= d.score <= 1.0
    # invariant: no two live facts contradict on a functional relation
    live = [f for f in g.live() if f.truth]
    for a in live:
        for b in live:
            if a.key == b.key and g.rules.rule(a.relation).functional:
                assert a.triple == b.triple
    # a verified negative never coexists with the same live positive
    for f in g.live():
        if not f.truth:
            assert not any(x.truth and x.triple == f.triple for x in live)
    assert len(g.decisions) >= len(stream)


# --- the gate in a game --------------------------------------------------------------------


def test_claims_in_a_played_game_are_gated_and_trust_moves_when_a_liar_is_caught(tmp_path):
    from game.core.types import PLAYER, Action, Verb
    from game.play.session import Game

    game = Game("tests/fixtures/mini", seed=0)
    act = lambda *a, **k: game.act(Action(PLAYER, *a, **k))  # noqa: E731
    act(Verb.ASK, obj="liar", target="gem")  # Lou lies: the gem is in the well
    act(Verb.TAKE, obj="brass_key")
    act(Verb.ASK, obj="liar", target="sky")  # true, and unrelated
    g, facts = game.facts.gate, game.facts
    # a stranger's news (p about 0.6) is held: below the admit cut point the costs fix
    assert [d.outcome for d in g.decisions] == ["quarantine", "quarantine"]
    assert g.status_of("gem", "located_in", "well") == "quarantined"  # consistent is not true...
    before = facts.trust_table()["liar"]["gem"]
    act(Verb.GO, obj="west")  # (the chest is east, behind the iron gate)
    act(Verb.GO, obj="east")
    act(Verb.TAKE, obj="iron_key")
    act(Verb.UNLOCK, obj="exit:east", target="iron_key")
    act(Verb.GO, obj="east")
    act(Verb.UNLOCK, obj="chest", target="brass_key")
    act(Verb.OPEN, obj="chest")  # ...the truth is verified and purges the lie
    assert g.status_of("gem", "located_in", "well") == "purged"
    assert g.status_of("gem", "located_in", "well", truth=False) == "verified"  # known to be false now
    assert g.status_of("gem", "located_in", "chest") == "verified"
    after = facts.trust_table()["liar"]["gem"]
    assert after < before == 0.0 and facts.credibility("liar", "gem") < 0.5
    assert facts.trust_table()["liar"]["weather"] == 0.0  # per topic: the sky claim is unjudged
    # the audit is saved with the game
    game.save("gated", tmp_path)
    loaded = Game.load("gated", tmp_path)
    assert loaded.facts.get_state() == facts.get_state()
    again = loaded.facts.gate.submit(cand("gem", "located_in", "well", source="liar", topic="gem"))
    assert again.outcome == "reject"


def test_held_claims_reach_agent_memory_as_disputed_and_purged_ones_leave_it():
    from game.core.types import PLAYER, Action, Verb
    from game.play.session import Game
    from memory.records import FACTS

    game = Game("tests/fixtures/mini", seed=0, memory={"embedder": "hash"})
    game.act(Action(PLAYER, Verb.ASK, obj="liar", target="gem"))
    bank = game.memory.bank
    rid = game.facts.records[next(iter(game.facts.records))]
    rec = bank.records[rid]
    assert rec.scope == FACTS and rec.kind == "fact" and rec.status == "quarantined" and rec.speaker == "liar"
    game.facts.gate.observe("gem", "located_in", "chest", True, turn=1, topic="gem")
    game.facts._mirror(game.facts.gate.decisions[-1:])
    assert bank.records[rid].status == "rejected"


def test_a_lie_about_something_already_verified_costs_trust_at_once():
    from game.core.types import PLAYER, Action, Verb
    from game.play.session import Game

    game = Game("tests/fixtures/mini", seed=0)
    game.facts.gate.observe("gem", "located_in", "chest", True, turn=0, topic="gem")
    game.act(Action(PLAYER, Verb.ASK, obj="liar", target="gem"))
    assert game.facts.gate.decisions[-1].outcome == "reject"
    assert game.facts.trust_table()["liar"]["gem"] < 0


# --- the LLM jury over real HTTP --------------------------------------------------------------


def test_llm_jury_votes_in_samples_batches_candidates_and_a_dead_jury_quarantines(serve):
    from agents.llm.client import LLMClient
    from agents.llm.config import LLMConfig
    from memory.jury import LLMJury

    answers = iter([["yes", "no"], ["yes", "unsure"], ["yes", "no"]])

    def respond(body):
        return json.dumps({"verdicts": [{"id": i + 1, "answer": a} for i, a in enumerate(next(answers))]})

    s = serve(responder=respond)
    client = LLMClient(LLMConfig(base_url=s.base_url, model="judge", max_retries=0, timeout=5))
    g = gate(jury=LLMJury(client, samples=3))
    a, b = g.submit_many([cand("ann", "knows", "bob", text="Ann knows Bob."), cand("cy", "knows", "dee")])
    assert len(s.requests) == 3 and g.judge_calls == 1  # one request per sample, both candidates in it
    assert {r["temperature"] for r in s.requests} == {0.2}
    assert "sample 1 of 3" in s.requests[0]["messages"][-1]["content"]
    assert "Ann knows Bob." in s.requests[0]["messages"][-1]["content"]
    jury_a = next(v["vote"] for v in a.votes if v["judge"] == "jury")
    jury_b = next(v["vote"] for v in b.votes if v["judge"] == "jury")
    assert jury_a == pytest.approx(1.0) and jury_b == pytest.approx(0.5 / 3, abs=1e-5)
    assert a.outcome == "admit" and b.outcome == "quarantine"
    s.close()
    dead = gate(jury=LLMJury(client, samples=1))
    d = dead.submit(cand("eve", "knows", "fay"))
    assert d.outcome == "quarantine" and "jury failed" in d.reason


def test_cli_trust_prints_the_table_and_the_audit(tmp_path):
    from tests.conftest import parley

    env = {"PARLEY_SAVES": str(tmp_path)}
    script = (
        "ask lou about gem\ntake brass key\ntake iron key\nunlock gate with iron key\ne\n"
        "unlock chest with brass key\nopen chest\nsave t1\nquit\n"
    )
    r = parley("play", "tests/fixtures/mini", "--no-memory", input=script, env=env)
    assert r.returncode == 0, r.stderr
    r = parley("trust", "t1", "--audit", env=env)
    assert r.returncode == 0, r.stderr
    row = next(ln for ln in r.stdout.splitlines() if ln.startswith("liar"))
    assert float(row.split()[1]) < 0  # caught lying about the gem
    assert "gem located_in well -- uncertain; held until more evidence" in r.stdout
    assert "verified observation; purges" in r.stdout
    r = parley("trust", "t1", "--json", env=env)
    data = json.loads(r.stdout)
    assert data["trust"]["liar"]["gem"] < 0 and data["credibility"]["liar"]["gem"] < 0.5
    assert {d["outcome"] for d in data["audit"]} == {"admit", "quarantine"}  # the stranger's news was held
    r = parley("trust", "t1", "--audit", "--source", "lu", env=env)
    assert r.returncode == 2 and "no NPC 'lu'" in r.stderr


def test_bad_relation_ranges_and_thresholds_are_reported_at_load(tmp_path):
    import shutil
    from pathlib import Path

    from game.play.worlds import collect_problems

    dst = tmp_path / "mini"
    shutil.copytree(Path("tests/fixtures/mini"), dst)
    text = (dst / "world.toml").read_text()
    text = text.replace(
        "[relations.located_in]\nfunctional = true",
        "[relations.located_in]\nfunctional = true\nrange = [10, 1]\nthresholds = [0.9, 0.2]",
    )
    (dst / "world.toml").write_text(text)
    problems = "\n".join(str(p) for p in collect_problems(dst))
    assert "relations.located_in.range" in problems and "relations.located_in.thresholds" in problems


def test_a_loaded_game_continues_exactly_like_an_uninterrupted_one(tmp_path):
    """Gate, caches and Σ-Mem are saved whole: save at turn 30, continue, and every component matches."""
    from agents.autopilot import make_autopilot
    from game.play.persistence import save_hash
    from game.play.session import Game

    def play_to(game, pilot, turn):
        while not game.engine.done and game.engine.state.turn < turn:
            game.agent_turn(pilot)

    a = Game("worlds/harbor", seed=3)
    pa = make_autopilot(3, trust=a.facts.sigma)
    play_to(a, pa, 30)
    a.save("mid", tmp_path)
    pilot_state = pa.get_state()
    play_to(a, pa, 300)
    b = Game.load("mid", tmp_path)
    pb = make_autopilot(3, trust=b.facts.sigma)
    pb.set_state(pilot_state)
    play_to(b, pb, 300)
    assert b.engine.state_hash() == a.engine.state_hash()
    assert b.facts.get_state() == a.facts.get_state()
    assert save_hash(b.engine.get_state(), b.components()) == save_hash(a.engine.get_state(), a.components())


def test_a_save_without_world_fact_memory_is_rebuilt_from_its_transcript(tmp_path):
    import json as _json

    from game.core.types import PLAYER, Action, Verb
    from game.play.session import Game

    game = Game("tests/fixtures/mini", seed=0)
    game.act(Action(PLAYER, Verb.ASK, obj="liar", target="gem"))
    folder = game.save("old", tmp_path)
    data = _json.loads((folder / "save.json").read_text())
    del data["components"]["facts"]
    from game.play.persistence import save_hash

    data["state_hash"] = save_hash(data["engine"], data["components"])
    (folder / "save.json").write_text(_json.dumps(data))
    loaded = Game.load("old", tmp_path)
    assert loaded.facts.claims == game.facts.claims
    assert loaded.facts.gate.status_of("gem", "located_in", "well") == "quarantined"


def test_observations_purge_temporal_and_numeric_contradictions():
    g = gate()
    told_before(g, cand("storm", "arrives_before", "ship", source="stale"))
    told_before(g, cand("lamp", "price", "40", source="stale"))
    g.observe("ship", "arrives_before", "storm", True, turn=1)
    g.observe("lamp", "price", "12", True, turn=1)
    assert g.status_of("storm", "arrives_before", "ship") == "purged"
    assert g.status_of("lamp", "price", "40") == "purged"


def test_a_batch_is_decided_in_order_and_keywords_ignore_common_words():
    from memory.gate import keywords

    g = gate()
    a, b = g.submit_many(
        [cand("gem", "located_in", "chest", source="trusted"), cand("gem", "located_in", "well", source="bob")]
    )
    assert a.outcome == "admit" and b.outcome != "admit" and b.related[0]["id"] == a.fact  # b saw a
    assert keywords("The gem is in the oak chest. There Mara waits at -5.") == ["-5", "mara"]


def test_a_held_claim_keeps_the_jurys_verdict_on_recheck():
    jury = Fixed(0.0)
    g = gate(jury=jury)
    d = g.submit(cand("ann", "knows", "bob", source="anon"))  # rule 1.0, jury 0.0: held
    assert d.outcome == "quarantine"
    g.observe("sky", "has_colour", "blue", True, turn=3)  # unrelated evidence
    assert g.facts[d.fact].status == "quarantined"
    dead = gate(jury=Boom())
    held = dead.submit(cand("ann", "knows", "bob"))
    dead.observe("sky", "has_colour", "blue", True, turn=3)
    assert dead.facts[held.fact].status == "quarantined"  # waits for a working jury


def test_the_journal_shows_the_player_what_is_disputed_and_whom_to_trust(tmp_path):
    from game.cli.console import run_console
    from game.play.session import Game

    game = Game("tests/fixtures/mini", seed=0)
    lines = iter(
        [
            "journal",
            "ask lou about gem",
            "journal",
            "take brass key",
            "take iron key",
            "unlock gate with iron key",
            "e",
            "unlock chest with brass key",
            "open chest",
            "notes",
            "quit",
        ]
    )
    out: list[str] = []
    run_console(game, saves_base=str(tmp_path), read=lambda _: next(lines), write=out.append)
    journals = [o for o in out if o.startswith(("Your journal", "Told", "Seen", "Heard", "Disputed", "Proved"))]
    assert journals[0].startswith("Your journal is empty")
    assert "Heard, not yet confirmed" in journals[1] and "(Lou)" in journals[1]  # a stranger's news is held
    assert "Proved false:" in journals[2] and "The gem lies at the bottom of the well.  (Lou)" in journals[2]
    assert (
        "Seen with your own eyes:" in journals[2] and "The red gem is in the oak chest." in journals[2]
    )  # what was seen, in its words
    assert "Lou: gem caught lying" in journals[2]
