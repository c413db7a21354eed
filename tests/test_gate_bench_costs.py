"""The gate benchmark's measuring parts: the gate's lexicon comes from the world file only, the cost
function, tuning, the wording split, and an oracle bound that reads nothing hidden."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from benchmarks.gate import text
from benchmarks.gate.baselines import run_simple
from benchmarks.gate.costs import COSTS, best_decision, components, cost_of, expected, rates
from benchmarks.gate.oracle import OracleBound, features, observable
from benchmarks.gate.run import WORLD, build_gate, world_lexicon
from benchmarks.gate.stream import Observation, Source, generate
from benchmarks.gate.tradeoff import mark_frontier
from benchmarks.gate.tuning import BASELINES, pooled, tune
from benchmarks.gate.wording import declared
from game.play.worlds import load_world
from memory.lexicon import Lexicon

HALF = {"located_in": 30.0, "price": 40.0, "owned_by": 80.0}


# --- the lexicon comes from the world file -----------------------------------------------


def test_the_gate_reads_the_world_file_not_the_generators_tables():
    gate = build_gate(generate(3, 60))
    lex = gate.lexicon
    from_file = Lexicon.from_spec(load_world(WORLD).spec)
    assert lex.name_table() == from_file.name_table()
    assert lex.relation_table() == from_file.relation_table()
    assert lex.entity("red gem") == "gem" and lex.entity("Ada Finch") == "ada"
    # aliases and relation words the stream uses but the world file does not declare
    assert "ruby" in dict(text.ITEMS)["gem"] and lex.entity("ruby") is None
    assert "wharf" in dict(text.PLACES)["docks"] and lex.entity("wharf") is None
    assert "is hidden in" in text.RELATIONS["located_in"]["aliases"] and lex.relation("is hidden in") is None
    assert "is priced at" in text.RELATIONS["price"]["aliases"] and lex.relation("is priced at") is None
    undeclared = [a for _, names in text.ITEMS + text.PLACES for a in names if lex.entity(a) is None]
    assert len(undeclared) >= 15  # many surface forms of the stream are unknown to the gate
    assert lex.info("price").unit == "gold" and lex.info("price").half_life == 40


def test_changing_the_generators_tables_does_not_change_the_gates_lexicon(monkeypatch):
    before = world_lexicon().name_table()
    world_lexicon.cache_clear()
    monkeypatch.setitem(text.RELATIONS["located_in"], "aliases", ("is stashed in",))
    monkeypatch.setattr(text, "ITEMS", [("gem", ["bauble"])])
    try:
        lex = build_gate(generate(4, 40)).lexicon
        assert lex.name_table() == before and lex.relation("is stashed in") is None
    finally:
        world_lexicon.cache_clear()


def test_wording_split():
    lex = world_lexicon()
    assert declared(("red gem", "is in", "old well", True), lex)
    assert declared(("gem", "price", "twenty gold coins", True), lex)
    assert declared(("Ada", "knows", "Bram Hollow", True), lex)
    assert not declared(("ruby", "is in", "old well", True), lex)  # alias not declared
    assert not declared(("gem", "is hidden in", "well", True), lex)  # relation word not declared
    assert not declared(("gem", "'s down in", "well", True), lex)  # a paraphrase


# --- costs -----------------------------------------------------------------------------------


def test_cost_components_and_rates():
    outcomes = ["admit", "admit", "reject", "reject", "quarantine", "quarantine", "none", "none"]
    labels = [True, False, True, False, True, False, True, False]
    c = components(outcomes, labels)
    assert c == {"n": 8, "false_admitted": 1, "true_rejected": 2, "true_held": 1, "false_held": 1}
    r = rates(outcomes, labels)
    assert r["cost"] == pytest.approx((1.0 + 2 * 1.0 + 0.25 + 0.05) / 8)
    assert r["true_rejected"] == pytest.approx(2 / 8)
    arr = cost_of({k: np.array([v, 2 * v]) for k, v in c.items()})
    assert np.allclose(arr, r["cost"])
    with pytest.raises(ValueError):
        components(["admit"], [True, False])


def test_cost_optimal_decisions_follow_the_costs():
    p = np.array([0.0, 0.05, 0.07, 0.5, 0.78, 0.8, 1.0])
    assert best_decision(p).tolist() == ["reject", "reject", "quarantine", "quarantine", "quarantine", "admit", "admit"]
    e = expected(np.array([0.3]))
    assert e["admit"][0] == pytest.approx(0.7 * COSTS["false_admitted"])
    assert e["quarantine"][0] == pytest.approx(0.3 * COSTS["true_held"] + 0.7 * COSTS["false_held"])


# --- tuning and the trade-off -----------------------------------------------------------------


def test_tuned_parameters_are_the_least_cost_point_of_the_grid():
    streams = [generate(s, 150) for s in (0, 1)]
    tuned = tune(streams, None)
    labels = [[w.label for w in st.writes] for st in streams]
    for name in ("hold band (oracle ids)", "trust the source"):
        make, _ = BASELINES[name]
        runs = [run_simple(st.events, make(**tuned[name]["params"])) for st in streams]
        assert pooled(runs, labels)["cost"] == pytest.approx(tuned[name]["cost"])
        assert tuned[name]["cost"] == min(r["cost"] for r in tuned[name]["grid"])
    assert tuned["hold band (oracle ids)"]["cost"] <= tuned["hold all"]["cost"]


def test_frontier_marks_undominated_points():
    rows = [
        {"false_admitted": 0.1, "true_rejected": 0.1, "true_held": 0.1},
        {"false_admitted": 0.2, "true_rejected": 0.2, "true_held": 0.2},  # beaten by the first
        {"false_admitted": 0.0, "true_rejected": 0.5, "true_held": 0.1},
    ]
    assert [r["frontier"] for r in mark_frontier(rows)] == [True, False, True]


# --- the oracle bound reads nothing hidden ------------------------------------------------------


def _scrambled(stream):
    """The same stream with every hidden thing changed: labels, classes, bases, updates, bands,
    honesty and kinds of the sources, and the world's timeline."""
    events = [
        e
        if isinstance(e, Observation)
        else dataclasses.replace(e, label=not e.label, cls="x", base="y", update=not e.update, band="z")
        for e in stream.events
    ]
    sources = {k: Source(s.id, "honest", {t: 0.5 for t in s.honesty}, s.credibility) for k, s in stream.sources.items()}
    world = dataclasses.replace(stream.world, timeline={k: [(0, "nowhere")] for k in stream.world.timeline})
    return dataclasses.replace(stream, events=events, sources=sources, world=world)


@pytest.fixture(scope="module")
def oracle():
    return OracleBound(HALF).fit([generate(s, 200) for s in (1000, 1001, 1002)])


def test_the_oracle_reads_no_label_or_hidden_state(oracle):
    stream = generate(105, 200)
    twin = _scrambled(stream)
    assert [w.label for w in twin.writes] != [w.label for w in stream.writes]
    assert observable(twin) == observable(stream)
    a, b = features(observable(stream), HALF), features(observable(twin), HALF)
    assert np.array_equal(a, b)
    assert np.array_equal(oracle.posterior(observable(stream)), oracle.posterior(observable(twin)))
    with pytest.raises(TypeError):
        features(stream.events, HALF)  # raw events carry labels: refused


def test_the_oracle_beats_holding_everything_out_of_sample(oracle):
    streams = [generate(s, 200) for s in (110, 111)]
    labels = [[w.label for w in st.writes] for st in streams]
    ours = pooled([oracle.decide(observable(st)) for st in streams], labels)
    hold = pooled([["quarantine"] * len(ls) for ls in labels], labels)
    assert ours["cost"] < hold["cost"]
    p = np.concatenate([oracle.posterior(observable(st)) for st in streams])
    y = np.concatenate(labels)
    assert p[y].mean() > p[~y].mean() + 0.2  # it separates true from false claims


# --- the whole script, small -------------------------------------------------------------------


def test_the_script_writes_page_plot_and_json(tmp_path):
    from benchmarks.gate_bench import main

    args = ["--seeds", "100-101", "--tune-seeds", "0-1", "--oracle-seeds", "1000-1002", "--curve-seeds", "0"]
    args += ["--writes", "120", "--boot", "50", "--examples", "0"]
    page, plot, out = tmp_path / "p.md", tmp_path / "t.png", tmp_path / "r.json"
    assert main([*args, "--page", str(page), "--plot", str(plot), "--json", str(out)]) == 0
    md = page.read_text(encoding="utf-8")
    for needle in ("oracle bound (observable evidence, generative model)", "| **gate** |", "gate minus", "tuned"):
        assert needle in md
    assert plot.stat().st_size > 10_000
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["differences"]["best_baseline"] in data["tuned"]
    gate = data["methods"]["gate"]["metrics"]
    assert 0 < gate["cost"][0] < 1 and gate["cost"][1] <= gate["cost"][0] <= gate["cost"][2]
