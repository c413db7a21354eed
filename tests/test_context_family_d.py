"""Family D (the blind held-out phrasing family) and the ledger setting of the context benchmark: D is
complete and shares no template or name with A-C, every question of every family avoids the words of
the lines it asks about (checked on the templates themselves, not only on sampled logs), ledger logs
are valid, about 2.2 lines a turn, deterministic per seed and quick to make at 5,000 turns.

The tests read the tables only through code; they quote no family D wording."""

from __future__ import annotations

import re
import time
from dataclasses import replace
from itertools import combinations

import numpy as np
import pytest

from benchmarks import context_bench as cb
from benchmarks.context import family_d
from benchmarks.context import phrasing as phr
from benchmarks.context.ledger import LEDGER, SUBJECTS
from benchmarks.context.logs import VISIBLE, check_log, content_words, hit, make_log

PLACEHOLDER = re.compile(r"\{\w+\}")
NUMBER_WORDS = frozenset(
    """two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen
    eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand""".split()
)


def words(template: str) -> set[str]:
    """The content words of a template without its placeholders."""
    return content_words(PLACEHOLDER.sub(" ", template))


def shared(questions, lines, allowed: set[str]) -> set[str]:
    """Words any question shares with any of the lines, beyond ``allowed``."""
    return set().union(*(words(q) for q in questions)) & (set().union(*(words(t) for t in lines)) - allowed)


def test_family_d_is_registered_with_every_key_of_family_a():
    assert phr.FAMILIES[-1] == "D" and cb.build_parser().parse_args([]).held_out_family == "D"
    for table, own in (
        (phr.AMBIENT, family_d.AMBIENT),
        (phr.FLOOD, family_d.FLOOD),
        (phr.CORRECTION, family_d.CORRECTION),
        (phr.COUNCIL, family_d.COUNCIL),
        (phr.RUMOURS, family_d.RUMOURS),
    ):
        assert table["D"] is own
    for table in (phr.AMBIENT, phr.FLOOD, phr.COUNCIL, phr.RUMOURS):
        assert set(table["D"]) == set(table["A"])
    roles = {k for subject in phr.CORRECTION["A"].values() for k in subject}
    assert len(phr.CORRECTION["D"]) == 4 and all(set(s) == roles for s in phr.CORRECTION["D"].values())
    for table, counts in ((phr.FLOOD, ("sellers", "items")), (phr.RUMOURS, ("items", "places", "locs", "tellers"))):
        for k in counts:
            assert len(table["D"][k]) >= len(table["A"][k]), k


def test_every_family_has_a_complete_ledger_table():
    assert set(LEDGER) == set(phr.FAMILIES)
    keys = {"values", "asked", "state", "correct", "echo", "near", "chatter", "question"}
    for fam, t in LEDGER.items():
        assert set(t) == {"people", "ambient", *SUBJECTS}, fam
        assert set(t["ambient"]) == set(phr.AMBIENT["A"]) and len(t["people"]) >= 8
        for s in SUBJECTS:
            assert set(t[s]) == keys, (fam, s)
            assert t[s]["values"] == "price" or len(t[s]["values"]) >= 7, (fam, s)


def test_family_d_and_the_ledgers_share_no_template_or_name_with_other_families():
    for f in "ABC":
        same = set(phr.templates("D")) & set(phr.templates(f))
        assert not same, (f, sorted(same))
    for f, g in combinations(phr.FAMILIES, 2):
        a, b = LEDGER[f], LEDGER[g]
        assert not set(a["people"]) & set(b["people"]), (f, g)
        for s in ("allergy", "promise", "countersign"):
            assert not set(a[s]["values"]) & set(b[s]["values"]), (f, g, s)


def test_every_question_template_avoids_the_words_of_its_fact_templates():
    """Stricter than the log check: every question wording against every wording of the fact, in every
    family (a pair that a sampled log happens not to draw is still checked)."""
    for fam in phr.FAMILIES:
        for name, s in [*phr.CORRECTION[fam].items(), *LEDGER[fam].items()]:
            if not isinstance(s, dict) or "question" not in s:
                continue
            vals = () if isinstance(s["values"], str) else s["values"]
            facts = (*s["state"], *s["correct"], *s["echo"], *vals)
            asked = words(s["asked"]) if isinstance(s["asked"], str) else set()  # a ledger's asks name people
            assert not shared(s["question"], facts, asked), (fam, name)
        F, C, R = phr.FLOOD[fam], phr.COUNCIL[fam], phr.RUMOURS[fam]
        assert not shared(F["question"], (*F["fact"], F["cur"], *F["sellers"]), set()), fam
        paras = [p for _, p in C["proposals"]]
        props = [p for p, _ in C["proposals"]]
        conditions = (*C["condition"], *props, *C["conds"])
        assert not shared(C["ask_condition"] + tuple(paras), conditions, set()), fam
        assert not shared(C["ask_opposed"] + tuple(paras), (*C["opposed"], *props, *C["outsiders"]), set()), fam
        assert not shared(R["question"], (*R["fact"], *R["tellers"], *R["places"]), set()), fam


def test_family_d_corrections_restate_without_cues_in_about_half_the_wordings():
    """About half of each subject's corrections carry no cue; one repeats a statement's wording verbatim,
    so only the order tells which value is current."""
    for table in [*family_d.CORRECTION.values(), *(family_d.LEDGER[s] for s in SUBJECTS)]:
        assert set(table["correct"]) & set(table["state"])
        assert len(table["correct"]) >= 4


def test_ambient_lines_hold_no_digits_and_no_number_words():
    pools = [family_d.AMBIENT, *(t["ambient"] for t in LEDGER.values())]
    for amb in pools:
        for line in (x for v in amb.values() for x in v):
            assert not re.search(r"\d", line) and not content_words(line) & NUMBER_WORDS, line


def test_family_d_writes_numbers_in_words_as_well_as_digits():
    """Some of D's values are number words (a correction subject, the ledger's time and debt), and the
    hit rule still needs the whole word: a longer number word does not show a shorter one."""
    word_values = [v for s in family_d.CORRECTION.values() if not isinstance(s["values"], str) for v in s["values"]]
    assert set(word_values) & NUMBER_WORDS
    ledger_words = {v for s in SUBJECTS for v in family_d.LEDGER[s]["values"]} & NUMBER_WORDS
    assert len(ledger_words) >= 8
    log = make_log("ledger", "D", 100, 1000)
    d = next(d for d in log.decisions if d.answer[0] in NUMBER_WORDS)
    assert hit(d, d.fact) and not hit(d, d.fact.replace(d.answer[0], d.answer[0] + "ty"))


LEDGER_CASES = [(fam, seed) for fam in ("A", "B", "D") for seed in (100, 101, 102, 103)]


@pytest.mark.parametrize("family,seed", LEDGER_CASES)
def test_ledger_logs_are_valid_and_ask_about_each_subject_once(family, seed):
    log = make_log("ledger", family, seed, 1000)
    check_log(log)  # make_log checks too; the rule is the point of the test
    assert sorted(d.label.split(",")[0] for d in log.decisions) == sorted(SUBJECTS)
    per_turn = np.bincount([ln.turn for ln in log.lines], minlength=log.length)
    assert per_turn.min() >= 1 and 2.0 <= len(log.lines) / log.length <= 2.4
    assert {ln.scope for ln in log.lines} - set(VISIBLE), "other agents' private lines are in the log"
    last_fix = max(d.planted for d in log.decisions)
    for d in log.decisions:
        assert d.turn >= 0.94 * log.length > last_fix
        assert not content_words(d.question) & (set().union(*map(content_words, d.fact_lines)) - content_words(d.asked))
        assert not hit(replace(d, stale=()), d.question)
        visible = "\n".join(ln.text for ln in log.visible(d.turn))
        assert not hit(d, visible) if d.stale else hit(d, visible)  # the full log shows stale values
        assert hit(d, d.fact)
        assert len(d.stale) == int(d.label.split("after ")[-1][0]) if d.stale else "never" in d.label
    near = [ln for ln in log.lines if ln.kind == "fact" and not any(ln.text in d.fact_lines for d in log.decisions)]
    assert len(near) >= 5 * 0.02 * log.length * 0.9, "near-duplicates of every subject"


def test_ledger_corrects_some_subjects_once_and_some_twice_across_seeds():
    labels = {d.label.split(", ")[1] for seed in range(100, 110) for d in make_log("ledger", "D", seed, 300).decisions}
    assert labels == {"never corrected", "after 1 correction", "after 2 corrections"}


@pytest.mark.parametrize("setting", phr.SETTINGS)
def test_family_d_logs_are_deterministic_per_seed(setting):
    a, b = make_log(setting, "D", 104, 600), make_log(setting, "D", 104, 600)
    assert a.lines == b.lines and a.decisions == b.decisions
    c = make_log(setting, "D", 105, 600)
    assert [ln.text for ln in c.lines] != [ln.text for ln in a.lines]


@pytest.mark.parametrize("setting", phr.SETTINGS)
def test_family_d_logs_pass_check_log_over_many_seeds(setting):
    for seed in range(100, 112):
        for d in (1, 2) if setting == "flood" else (1,):
            log = make_log(setting, "D", seed, 300, d)
            assert log.decisions and log.family == "D"


def test_long_ledgers_are_made_in_seconds():
    t0 = time.perf_counter()
    log = make_log("ledger", "D", 100, 5000)
    assert time.perf_counter() - t0 < 10 and len(log.lines) > 10_000


def test_the_bench_runs_the_ledger_with_the_chosen_embedder_and_settings():
    args = cb.build_parser().parse_args(["--settings", "ledger", "correction", "--embedder", "hash"])
    assert args.settings == ["ledger", "correction"] and args.embedder == "hash"
    assert args.held_out_family == "D" and "ledger" in cb.SETTINGS
    runner = cb.Runner([400], builds=4, embedder="hash")
    runner.run_log("ledger", "D", 100, 200)
    assert {r["method"] for r in runner.rows} == set(cb.METHODS)
    assert len(runner.rows) == 5 * len(cb.METHODS)
    assert all(r["tokens"] <= r["budget"] and r["family"] == "D" for r in runner.rows)
    with pytest.raises(SystemExit):
        cb.build_parser().parse_args(["--embedder", "word2vec"])
