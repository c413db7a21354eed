"""The context benchmark measures what it says: questions that do not quote the needed line, a hit
rule that rejects stale values and partial numbers, baselines that see the question, MEMO built
as a game builds it, seeded logs, and held-out phrasings (B, C, and the blind D) that share nothing with
the tune ones or each other. Family D and the ledger setting have more checks in test_context_family_d.py."""

from __future__ import annotations

import json
from dataclasses import replace
from itertools import combinations

import numpy as np
import pytest

from benchmarks.context import phrasing as phr
from benchmarks.context.baselines import BASELINES, Costs, Pool, mmr, top_k_collapse, top_k_collapse_newest
from benchmarks.context.logs import SETTINGS, VISIBLE, Decision, Line, check_log, content_words, hit, make_log

CASES = [
    (s, fam, seed, n, d)
    for s in SETTINGS
    for fam, seed in (("A", 0), ("A", 7), ("B", 100), ("B", 129), ("C", 100), ("C", 129), ("D", 100), ("D", 129))
    for n in (200, 1000)
    for d in ((1, 2) if s == "flood" else (1,))
]


@pytest.mark.parametrize("setting,family,seed,length,density", CASES)
def test_questions_share_no_word_with_the_needed_lines(setting, family, seed, length, density):
    log = make_log(setting, family, seed, length, density)
    assert log.decisions
    for d in log.decisions:
        allowed = content_words(d.asked)
        distinguishing = set().union(*(content_words(t) for t in d.fact_lines)) - allowed
        shared = content_words(d.question) & distinguishing
        assert not shared, f"{d.question!r} repeats {sorted(shared)} of {d.fact!r}"
        assert not hit(replace(d, stale=()), d.question), "the question states the answer"


def _decision(answer=("70",), stale=()) -> Decision:
    return Decision(10, "q", "s", answer, stale, "fact", ("fact",), "", "test", 1)


def test_hit_rule_needs_the_current_value_and_no_superseded_one():
    d = _decision(("dusk",), ("dawn",))
    assert hit(d, "- Change of plan: the ferry now sails at dusk.")
    assert not hit(d, "- The ferry leaves at dawn.\n- Change of plan: the ferry now sails at dusk.")
    assert not hit(d, "- The ferry leaves at dawn.")
    assert hit(d, "- DUSK it is.")  # case does not matter


def test_hit_rule_matches_whole_tokens_only():
    d = _decision(("70",))
    assert hit(d, "- Mara would take 70 gold.")
    assert hit(d, "- the least: 70, she says")
    for text in ("- Mara offers 170 gold.", "- 700 gold", "- 70s style", "- 1970"):
        assert not hit(d, text), text
    assert not hit(_decision(("Brig",)), "- You pass the Brigantine.")


def test_turn_references_are_not_stated_values():
    d = _decision(("70",))
    assert not hit(d, "- Heat shimmers over the roofs. (x8, turns 70-96)")
    assert not hit(d, "- Recalled from turns 12-70: a dog barks.")
    assert hit(d, "- Mara would take 70 gold. (superseded at turn 80)")


def test_answer_and_stale_tokens_occur_only_in_their_fact_lines():
    log = make_log("correction", "B", 100, 1000)
    check_log(log)
    d = next(d for d in log.decisions if d.stale)
    tampered = replace(log, lines=log.lines + [Line(999, f"A gossip mentions {d.stale[0]} again.", "utterance")])
    with pytest.raises(ValueError, match="outside its fact"):
        check_log(tampered)


def test_logs_are_deterministic_per_seed_and_differ_across_seeds():
    for s in SETTINGS:
        a, b = make_log(s, "B", 101, 500), make_log(s, "B", 101, 500)
        assert a.lines == b.lines and a.decisions == b.decisions
        c = make_log(s, "B", 102, 500)
        assert [ln.text for ln in c.lines] != [ln.text for ln in a.lines]
        assert {d.answer for d in c.decisions} != {d.answer for d in a.decisions} or c.lines != a.lines


def test_logs_mix_kinds_and_scopes_one_to_three_lines_a_turn():
    log = make_log("flood", "B", 100, 1000, 2)
    per_turn = np.bincount([ln.turn for ln in log.lines], minlength=log.length)
    assert per_turn.min() >= 1 and per_turn.max() <= 3
    assert {ln.kind for ln in log.lines} >= {"offer", "utterance", "observation", "claim"}
    assert {ln.scope for ln in log.lines} - set(VISIBLE), "other agents' private lines are in the log"


def test_families_share_no_template_or_name():
    assert set(phr.FAMILIES) == {"A", "B", "C", "D"}
    for f, g in combinations(phr.FAMILIES, 2):
        a, b = set(phr.templates(f)), set(phr.templates(g))
        assert a and b and not a & b, (f, g, sorted(a & b)[:3])
        for table, keys in (
            (phr.FLOOD, ("sellers", "items")),
            (phr.COUNCIL, ("members", "outsiders", "conds")),
            (phr.RUMOURS, ("items", "places", "tellers", "locs")),
        ):
            for k in keys:
                assert not set(table[f][k]) & set(table[g][k]), (f, g, k)
        assert not set(phr.CORRECTION[f]) & set(phr.CORRECTION[g]), (f, g)


def _shape(x):
    if isinstance(x, dict):
        return {k: _shape(v) for k, v in x.items()}
    return type(x).__name__


def test_every_family_has_the_same_keys():
    for table in (phr.AMBIENT, phr.FLOOD, phr.COUNCIL, phr.RUMOURS):
        assert _shape(table["D"]) == _shape(table["C"]) == _shape(table["B"]) == _shape(table["A"])
    roles = {fam: {tuple(sorted(v)) for v in phr.CORRECTION[fam].values()} for fam in phr.FAMILIES}
    assert len(set().union(*roles.values())) == 1, roles  # every subject of every family has the same roles
    assert {len(phr.CORRECTION[f]) for f in phr.FAMILIES} == {4}


@pytest.mark.parametrize("setting", SETTINGS)
def test_family_c_logs_pass_check_log_over_many_seeds(setting):
    for seed in range(100, 112):
        for d in (1, 2) if setting == "flood" else (1,):
            log = make_log(setting, "C", seed, 300, d)  # make_log runs check_log
            assert log.decisions and log.family == "C"


def _unit(*xs: float) -> np.ndarray:
    v = np.zeros(8, dtype=np.float32)
    v[: len(xs)] = xs
    return v / np.linalg.norm(v)


def _pool(texts: list[str], vecs: list[np.ndarray], costs: Costs) -> Pool:
    return Pool(texts, np.arange(len(texts)), np.stack(vecs), costs.of(texts))


def test_collapse_newest_keeps_the_newest_of_near_duplicates():
    costs = Costs()
    old, other, new = "The hatch code is 1111.", "Snow falls on the yard.", "The hatch code is 2222."
    q = _unit(1, 0, 0)
    pool = _pool([old, other, new], [_unit(1, 0.1, 0), _unit(0, 1, 0), _unit(1, 0.3, 0)], costs)
    assert float(pool.vecs[0] @ pool.vecs[2]) >= 0.9 and float(pool.vecs[0] @ q) > float(pool.vecs[2] @ q)
    plain = top_k_collapse(pool, "q", "s", q, q, 400, costs)
    newest = top_k_collapse_newest(pool, "q", "s", q, q, 400, costs)
    assert "1111" in plain.text and "2222" not in plain.text  # the most relevant of the pair
    assert "2222" in newest.text and "1111" not in newest.text  # the newest of the pair
    assert other in newest.text and newest.lines == 2
    assert "top-k+collapse (newest)" in BASELINES


def test_mmr_considers_lines_beyond_the_most_relevant_hundreds():
    costs = Costs()
    texts = [f"Echo line number {k}." for k in range(250)] + ["A different line."]
    vecs = [_unit(0.6, 0, 0.8)] * 250 + [_unit(0.55, 0.835, 0)]  # the distinct line ranks last
    pool = _pool(texts, vecs, costs)
    q = _unit(1, 0, 0)
    two = int(pool.costs[0] + pool.costs[-1]) + 6
    shown = mmr(pool, "q", "s", q, q, two, costs)
    assert "A different line." in shown.text, shown.text


@pytest.fixture(scope="module")
def minilm():
    from memory.embedder import get_embedder

    return get_embedder("minilm")


@pytest.mark.embeddings
def test_every_baseline_changes_its_selection_when_the_question_changes(minilm):
    log = make_log("flood", "B", 100, 300, 2)
    seen = log.visible(log.length)
    texts = [ln.text for ln in seen]
    d1, d2 = log.decisions[0], log.decisions[1]
    vecs = minilm(texts + [d1.question, d2.question, d1.situation])
    costs = Costs()
    pool = Pool(texts, np.array([ln.turn for ln in seen]), vecs[: len(texts)], costs.of(texts))
    q1, q2, sv = vecs[len(texts)], vecs[len(texts) + 1], vecs[len(texts) + 2]
    for name, fn in BASELINES.items():
        a = fn(pool, d1.question, d1.situation, q1, sv, 200, costs)
        b = fn(pool, d2.question, d1.situation, q2, sv, 200, costs)
        assert a.text != b.text, f"{name} ignores the question"
        assert a.tokens <= 200 and b.tokens <= 200


@pytest.mark.embeddings
def test_memo_builds_contexts_as_a_game_does(monkeypatch):
    from benchmarks import context_bench as cb
    from memory.memo import Memo

    calls = []
    original = Memo.context

    def spy(self, agent, turn, **kw):
        calls.append((turn, kw.get("focus"), kw.get("touch")))
        return original(self, agent, turn, **kw)

    monkeypatch.setattr(Memo, "context", spy)
    runner = cb.Runner([400], builds=8)
    runner.run_log("rumours", "B", 100, 200)
    assert calls and all(touch is True for _, _, touch in calls)
    periodic = [c for c in calls if c[1] is None]
    assert len(periodic) >= 6, "MEMO also builds contexts between decisions"
    methods = {r["method"] for r in runner.rows}
    assert methods == set(cb.METHODS)
    assert all(r["tokens"] <= r["budget"] for r in runner.rows)


@pytest.mark.embeddings
@pytest.mark.slow
def test_quick_run_prints_every_method(tmp_path, capsys, monkeypatch):
    from benchmarks import context_bench as cb

    monkeypatch.setenv("COLUMNS", "400")  # wide enough that no method's header wraps inside its cell
    out = tmp_path / "r.json"
    assert cb.main(["--quick", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    for m in cb.METHODS:
        assert m in printed, m
    assert "Goals" in printed and "Where MEMO loses" in printed
    data = json.loads(out.read_text())
    assert {r["method"] for r in data["rows"]} == set(cb.METHODS)
    assert data["latency"] and data["latency"][0]["memo_p95"] > 0
    assert {r["store"] for r in data["latency"]} == {"template-heavy", "distinct"}
    assert {r["family"] for r in data["rows"]} == {"D"}


def test_latency_cli_times_both_stores_and_refuses_bad_sizes(tmp_path):
    from benchmarks import context_latency

    with pytest.raises(SystemExit) as bad:
        context_latency.main(["--sizes", "lots:minilm"])
    assert bad.value.code == 2
    out = tmp_path / "lat.json"
    assert context_latency.main(["--sizes", "400:hash", "--queries", "3", "--seeds", "100", "--out", str(out)]) == 0
    rows = json.loads(out.read_text())
    assert [r["store"] for r in rows] == ["template-heavy", "distinct"]
    assert all(r["memories"] >= 400 and r["memo_p95"] > 0 and r["topk_p95"] > 0 for r in rows)
