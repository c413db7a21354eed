"""The gate benchmark's stream is honest: labels replay the hidden truth, the sources' credibility is
imperfect in both directions, and the hard classes are really there. Nothing here runs the gate."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

import pytest

from benchmarks.gate.baselines import ContestDict, run_simple
from benchmarks.gate.metrics import strict_f1
from benchmarks.gate.stream import CLASSES, Observation, generate
from benchmarks.gate.text import FUNCTIONAL, RELATIONS

SEEDS = (100, 101, 102)


@pytest.fixture(scope="module")
def streams():
    return [generate(s, 600) for s in SEEDS]


def _value(timeline, turn):
    """The hidden value at a turn, read straight off the timeline (not through World)."""
    current = None
    for start, v in timeline:
        if start <= turn:
            current = v
    return current


def _true(world, s, r, o, truth, turn) -> bool:
    if r in FUNCTIONAL:
        fact = _value(world.timeline[(s, r)], turn) == o
    elif r == "knows":
        fact = (s, o) in world.knows
    else:
        before = world.rank[s] < world.rank[o]
        fact = before if r == "arrives_before" else not before and s != o
    return fact == truth


def test_same_seed_same_stream():
    a, b, c = generate(7, 200), generate(7, 200), generate(8, 200)
    assert a.events == b.events and a.sources == b.sources
    assert a.events != c.events


def test_labels_replay_the_hidden_truth(streams):
    for st in streams:
        w = st.world
        assert any(len(line) > 3 for line in w.timeline.values()), "the world must change over time"
        for e in st.events:
            if isinstance(e, Observation):
                assert _true(w, e.subject, e.relation, e.object, e.truth, e.turn), e
            else:
                assert e.label == _true(w, e.subject, e.relation, e.object, e.truth, e.turn), e
        turns = [e.turn for e in st.events]
        assert turns == sorted(turns)


def test_every_class_is_present_and_labels_are_mixed(streams):
    writes = [w for st in streams for w in st.writes]
    by = Counter(w.cls for w in writes)
    assert set(by) == set(CLASSES), set(CLASSES) - set(by)
    assert all(n >= 20 for n in by.values()), by
    share = sum(not w.label for w in writes) / len(writes)
    assert 0.3 < share < 0.65
    for cls in ("alias", "synonym", "paraphrase", "units", "number-words", "negation", "chain", "repeat"):
        labels = Counter(w.label for w in writes if w.cls == cls)
        assert labels[True] >= 10 and labels[False] >= 10, (cls, labels)


def test_trusted_liars_and_untrusted_truth_tellers(streams):
    for st in streams:
        kinds = {s.id: s.kind for s in st.sources.values()}
        trusted_lies = [
            w
            for w in st.writes
            if w.band == "trusted" and not w.label and kinds.get(w.source) in ("liar-on-topic", "sometimes-liar")
        ]
        untrusted_truth = [w for w in st.writes if w.band == "untrusted" and w.label]
        assert len(trusted_lies) >= 10 and len(untrusted_truth) >= 30
        assert any(w.update for w in untrusted_truth)
        liar = next(s for s in st.sources.values() if s.kind == "liar-on-topic")
        topic = min(liar.honesty, key=liar.honesty.get)
        assert liar.honesty[topic] < 0.3 and liar.credibility[topic] >= 0.65  # trusted, and lying on it
        assert all(
            s.credibility.get("trade", 0.5) <= 0.35 for s in st.sources.values() if s.kind == "untrusted-truthful"
        )


def test_true_updates_come_from_every_credibility_band(streams):
    for st in streams:
        bands = Counter(w.band for w in st.writes if w.update and w.label)
        assert all(bands[b] >= 5 for b in ("trusted", "stranger", "untrusted")), bands
        cls_bands = Counter(w.band for w in st.writes if w.cls == "true-update")
        assert all(cls_bands[b] >= 3 for b in ("trusted", "stranger", "untrusted")), cls_bands


def test_about_half_of_each_class_is_text(streams):
    writes = [w for st in streams for w in st.writes]
    for cls in CLASSES:
        modes = Counter(w.mode for w in writes if w.cls == cls)
        share = modes["text"] / sum(modes.values())
        assert share == 1.0 if cls == "paraphrase" else 0.3 <= share <= 0.7, (cls, modes)
        assert all(w.text for w in writes if w.mode == "text")


ARTICLES = {"the", "a", "an"}


def _norm(text: str) -> str:
    words = re.findall(r"[a-z0-9']+", text.lower().replace("_", " ").replace("-", " "))
    return " ".join(w for w in words if w not in ARTICLES)


def _vocabulary(st, w) -> set[str]:
    """Every word a normaliser could know for this claim: names, aliases, relation phrasings, units."""
    names = [w.subject, w.object, *st.world.names.get(w.subject, []), *st.world.names.get(w.object, [])]
    phrases = [w.relation, *RELATIONS[w.relation]["aliases"], "gold", "coins", "not", "does", "is", w.object]
    return {t for x in names + phrases for t in _norm(x).split()}


def test_paraphrases_are_written_text_not_normaliser_variants(streams):
    extra = []
    for st in streams:
        for w in (w for w in st.writes if w.cls == "paraphrase"):
            vocab = _vocabulary(st, w)
            words = _norm(w.text).split()
            assert _norm(w.text) != _norm(f"{w.subject} {w.relation} {w.object}")
            extra.append(len([t for t in words if t not in vocab and not t.isdigit()]))
    assert min(extra) >= 1
    assert sum(e >= 2 for e in extra) / len(extra) > 0.75
    assert len({t for st in streams for t in (w.text for w in st.writes if w.cls == "paraphrase")}) > 100


def test_surface_classes_really_change_the_surface(streams):
    for st in streams:
        for w in st.writes:
            s, r, o, _ = w.form
            if w.cls == "alias":
                assert s.lower() != w.subject or o.lower() != w.object.replace("_", " ")
            elif w.cls == "synonym":
                assert r not in (w.relation, w.relation.replace("_", " "))
            elif w.cls == "units":
                assert re.search(r"gold|coins|gp", o)
            elif w.cls == "number-words":
                assert not re.search(r"\d", o) and not re.search(r"\d", w.text)


def test_collusion_and_sybils_are_bursts(streams):
    for st in streams:
        groups = defaultdict(list)
        for w in st.writes:
            if w.cls in ("collusion", "sybil"):
                groups[(w.cls, w.subject, w.relation, w.object)].append(w)
        sybils = [g for k, g in groups.items() if k[0] == "sybil"]
        assert sybils and all(len({w.source for w in g}) >= 4 for g in sybils)
        assert all(w.source not in st.sources and w.cred == 0.5 for g in sybils for w in g)
        colluders = [g for k, g in groups.items() if k[0] == "collusion"]
        assert colluders and all(w.band in ("stranger", "untrusted") for g in colluders for w in g)
        assert max(len({w.source for w in g}) for g in colluders) >= 3


def test_chains_close_over_stated_premises(streams):
    def before(w):  # a temporal claim as an ordered pair (earlier, later)
        return (w.subject, w.object) if w.relation == "arrives_before" else (w.object, w.subject)

    for st in streams:
        closures = [w for w in st.writes if w.cls == "chain"]
        assert closures
        for c in closures:
            said = {before(w) for w in st.writes if w.cls == "temporal" and w.turn < c.turn}
            a, b = sorted(before(c), key=st.world.rank.get)  # the chain's ends, in true order
            assert any((a, y) in said and (y, b) in said for y in st.world.people), c


def test_the_credibility_contest_dict_does_not_solve_the_stream():
    quick = [generate(s, 300) for s in (100, 101, 102, 103, 104)]
    for canonical in (False, True):
        pos, pred = [], []
        for st in quick:
            outs = run_simple(st.events, ContestDict(canonical=canonical))
            pos += [not w.label for w in st.writes]
            pred += [o == "reject" for o in outs]
        assert strict_f1(pos, pred) < 0.95
