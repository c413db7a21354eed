"""The held-out gate stream: its world loads, the generator is deterministic and labels by the hidden
truth, its wording covers what it claims to, and the runner feeds the real gate end to end (the
figures are checked for structure and range only: this is not a test of how well the gate does)."""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.gate_blind import phrasing as P
from benchmarks.gate_blind.report import markdown
from benchmarks.gate_blind.run import THRESHOLDS, WINDOWS, oracle_readings, run_gate, tune, tune_threshold
from benchmarks.gate_blind.score import FIGURES, KEYS, canon, counts, figures
from benchmarks.gate_blind.situations import CLASSES
from benchmarks.gate_blind.stream import NUMBERS, Observation, generate, same_value
from benchmarks.gate_blind.world import RELATIONS, Town, load_spec
from benchmarks.gate_blind_bench import evaluate, main


@pytest.fixture(scope="module")
def streams():
    return [generate(seed, 400) for seed in (0, 1, 2)]


def test_the_world_loads_and_validates():
    spec = load_spec()
    assert spec.id == "sallowford-v1"
    assert set(RELATIONS) <= set(spec.relations)
    town = Town.load()
    assert town.relation_unit == {"toll": "mark", "sill_depth": "foot"}
    assert town.units["penny"].base == "mark" and math.isclose(12 * town.units["penny"].factor, 1.0)
    assert town.clock["dusk"] == "19:00"
    assert spec.units["penny"].base == "mark" and spec.clock["dusk"] == "19:00"  # the whole file validates
    assert spec.relations["opens_at"].kind == "time"
    assert set(spec.units) == set(town.units)


def test_the_generator_is_deterministic_per_seed():
    a, b, c = generate(7, 150), generate(7, 150), generate(8, 150)
    assert a.events == b.events
    assert a.truth.timeline == b.truth.timeline
    assert [w.text for w in a.writes] != [w.text for w in c.writes]
    assert len(a.writes) == 150


def test_labels_follow_the_hidden_truth(streams):
    for stream in streams:
        truth = stream.truth
        turns = [e.turn for e in stream.events]
        assert turns == sorted(turns)
        for e in stream.events:
            if isinstance(e, Observation):
                assert truth.holds(e.claim, e.turn)
                continue
            for c, label in zip(e.claims, e.labels, strict=True):
                now = truth.value(c.subject, c.relation, e.turn)
                assert label == (same_value(c.relation, now, c.object) == c.truth), e
            if e.trap is not None:
                s, r, v = e.trap
                assert same_value(r, truth.value(s, r, e.turn), v)
            fixed = {"true-update": True, "correction": True, "restatement": True, "new-true": True}
            fixed.update({"stale": False, "false-claim": False, "new-false": False, "collusion": False})
            fixed["unit-trap"] = False
            if e.cls in fixed:
                assert e.label is fixed[e.cls], e
            assert (e.cls == "no-claim") == (not e.claims)
            assert 0.0 <= e.cred <= 1.0 and e.cred == stream.credibility(e.source, e.topic)


def test_unit_traps_use_the_true_number_in_another_unit(streams):
    town = Town.load()
    traps = [w for s in streams for w in s.writes if w.cls == "unit-trap"]
    assert traps
    for w in traps:
        true = float(w.trap[2])
        claimed = float(w.claims[0].object)
        assert not math.isclose(true, claimed)
        factors = [u.factor for u in town.other_units(w.claims[0].relation)]
        assert any(math.isclose(true * f, claimed, rel_tol=1e-5) for f in factors)


def test_every_class_and_the_promised_wording_appear(streams):
    writes = [w for s in streams for w in s.writes]
    seen = Counter(w.cls for w in writes)
    assert set(CLASSES) <= set(seen), set(CLASSES) - set(seen)
    text = " ".join(w.text for w in writes)
    negations = " ".join(w.text for w in writes if w.cls == "negation")
    for word in ("doesn't", "isn't", "hasn't", "nowhere near", "no longer"):
        assert word in negations, word
    for abbreviation in ("St. ", "Mr. ", "No. ", "Dr. "):
        assert re.search(re.escape(abbreviation) + r"\w", text), abbreviation
    assert re.search(r"\b[XVI]{2,}\b marks|\b[XVI]{2,}\b feet", text)
    assert "dozen" in text and ("½" in text or "1/2" in text or "and a half" in text)
    assert any(x in text for x in ("half past", "a quarter to", "noon", "dusk", "dawn"))
    declared = [w.declared for w in writes if w.claims]
    assert 0.2 < np.mean(declared) < 0.8  # the world's aliases are a part of the wording, not all of it
    for relation in RELATIONS:
        used = {w.text for w in writes if w.claims and w.claims[0].relation == relation}
        assert len(used) > 10


def test_phrasing_writes_numbers_and_times_as_people_do():
    clock = Town.load().clock
    assert P.clock("18:30", "past", clock) == "half past six"
    assert P.clock("07:45", "past", clock) == "a quarter to eight"
    assert P.clock("07:15", "past", clock) == "a quarter past seven"
    assert P.clock("19:00", "named", clock) == "dusk"
    assert P.clock("12:00", "words", clock) == "midday"
    assert P.clock("21:00", "ampm", clock) == "9 pm"
    assert P.roman(24) == "XXIV" and P.roman(9) == "IX"
    assert P.in_words(4.5) == "four and a half" and P.in_words(108) == "one hundred and eight"
    assert P.DOZENS[18] == "a dozen and a half"
    assert P.digits(6.0) == "6" and P.digits(0.75) == "0.75"


def test_canonical_claims_compare_numbers_and_times():
    assert canon("heron_lock", "toll", "6.0") == canon("Heron_Lock", "toll", "6")
    assert canon("heron_lock", "opens_at", "6:00") == canon("heron_lock", "opens_at", "06:00")
    assert canon("a", "toll", "6") != canon("a", "toll", "6", truth=False)
    assert set(NUMBERS) <= set(RELATIONS)


def test_the_runner_feeds_the_gate_end_to_end():
    stream = generate(5, 80)
    run = run_gate(stream)
    assert len(run.readings) == len(stream.writes)
    assert not run.errors, run.errors[:3]
    for reading in run.readings:
        for s, r, o, t, outcome in reading:
            assert outcome in ("admit", "quarantine", "reject")
    c = counts(stream.writes, run.readings)
    assert c.shape == (len(KEYS),) and (c >= 0).all()
    figs = figures(c[None])
    assert set(figs) == set(FIGURES)
    for name, v in figs.items():
        assert np.isnan(v) or (0 <= v <= (len(stream.writes) if name == "traps_corroborated" else 1)), name
    everything = figures(counts(stream.writes, oracle_readings(stream, None))[None])
    assert everything["poison_admitted"] == 1.0 and everything["misread"] == 0.0


def test_the_threshold_is_tuned_on_the_tune_seeds_only():
    th = tune_threshold([generate(0, 80), generate(1, 80)])
    assert th in THRESHOLDS
    th, window = tune([generate(0, 80)], WINDOWS)
    assert th in THRESHOLDS and window in WINDOWS


def test_the_observation_baseline_judges_by_a_recent_observation(streams):
    stream = streams[0]
    readings = oracle_readings(stream, 1.01, window=1e9)  # no source is believed; observations decide
    observed: dict = {}
    judged = 0
    for e in stream.events:
        if isinstance(e, Observation):
            observed[(e.claim.subject, e.claim.relation)] = e.claim.object
            continue
        reading = readings[stream.writes.index(e)]
        for c, (*_, outcome) in zip(e.claims, reading, strict=True):
            if (c.subject, c.relation) in observed:
                judged += 1
                agrees = same_value(c.relation, observed[(c.subject, c.relation)], c.object) == c.truth
                assert outcome == ("admit" if agrees else "reject")
            else:
                assert outcome == "reject"
    assert judged > 50


def test_evaluate_and_the_page_have_every_figure_with_an_interval():
    result = evaluate([100, 101], [0], 60, embedder=None, n_boot=50, progress=lambda m: None)
    assert set(result["methods"]) == {"gate", "admit everything", "credibility threshold", "threshold + observations"}
    for summary in result["methods"].values():
        for name, (v, lo, hi) in summary.items():
            if not np.isnan(v):
                assert lo <= v + 1e-9 and v <= hi + 1e-9, name
    page = markdown(result)
    assert page.startswith("# Consistency gate: held-out stream")
    assert "kept-out F1" in page and "| class |" in page


def test_the_cli_writes_the_page_and_refuses_bad_input(tmp_path, capsys):
    page = tmp_path / "page.md"
    args = ["--seeds", "100", "--tune-seeds", "0", "--writes", "40", "--boot", "20", "--embedder", "none"]
    assert main([*args, "--markdown", str(page)]) == 0
    assert "poison admitted" in capsys.readouterr().out
    assert page.read_text(encoding="utf-8").startswith("# Consistency gate")
    with pytest.raises(SystemExit) as err:
        main(["--writes", "5"])
    assert err.value.code == 2


def test_scores_count_corroborated_traps_misreads_and_kept_out_claims(streams):
    writes = streams[0].writes
    trap = next(w for w in writes if w.cls == "unit-trap")
    s, r, v = trap.trap
    admitted_trap = [(s, r, v, True, "admit")]
    c = dict(zip(KEYS, counts([trap], [admitted_trap]), strict=True))
    assert c["trap_corrob"] == 1 and c["misread"] == 1 and c["false_admit"] == 1 and c["fn"] == 1
    meant = trap.claims[0]
    held = [(meant.subject, meant.relation, meant.object, meant.truth, "quarantine")]
    c = dict(zip(KEYS, counts([trap], [held]), strict=True))
    assert c["trap_corrob"] == 0 and c["misread"] == 0 and c["tp"] == 1 and c["tp_read"] == 1
    question = next(w for w in writes if not w.claims)
    c = dict(zip(KEYS, counts([question], [[]]), strict=True))
    assert c["n_noclaim"] == 1 and c["noclaim_read"] == 0 and c["n_claims"] == 0


@given(st.text(max_size=30), st.sampled_from([*RELATIONS, "other"]), st.booleans())
def test_canon_takes_any_object_text(obj, relation, truth):
    key = canon("x", relation, obj, truth)
    assert key[3] is truth
    assert canon(*key) == key  # a canonical claim stays as it is
