"""The cross-game insight bank: distillation from real games, bank semantics, persistence."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.core.errors import SaveError
from game.play.episode import run_script, script_lines
from game.play.session import Game
from memory.insights import MAX_TEXT, MAX_WEIGHT, Insight, InsightBank, as_context_lines
from memory.lessons import distill, distill_with_sources, game_summary, update_from_game
from tests.conftest import ROOT, SCRIPTS

MINI = ROOT / "tests" / "fixtures" / "mini"
MINI_KEY = "mini-v1/player/script"
HARBOR_KEY = "harbor-v1/player/script"


def play(world: Path, lines: list[tuple[int, str]], seed: int = 0) -> tuple[Game, list]:
    game = Game(world, seed=seed)
    events: list = []
    game.engine.listeners.append(events.append)
    run_script(game, lines, str(world))
    return game, events


def mini_lines() -> list[tuple[int, str]]:
    """Ask the liar and the honest merchant about the gem, walk into the locked gate twice, then win."""
    extra = ["ask lou about gem", "n", "ask mara about gem", "s", "e", "e"]
    return [(0, line) for line in extra] + script_lines(str(ROOT / "tests" / "fixtures" / "mini_win.txt"))


def harbor_lines() -> list[tuple[int, str]]:
    """Ask Jory (who lies about treasure) before he wanders off, then the winning walkthrough."""
    return [(0, "ask jory about strongbox")] + script_lines(str(SCRIPTS / "harbor_win.txt"))


@pytest.fixture(scope="module")
def mini_game():
    return play(MINI, mini_lines())


@pytest.fixture(scope="module")
def harbor_game():
    return play(ROOT / "worlds" / "harbor", harbor_lines())


def texts(lessons, topic=None):
    return [t for top, t, _ in lessons if topic is None or top == topic]


# --- distillation from real games -------------------------------------------------


def test_mini_game_is_won_and_the_liar_lied(mini_game):
    game, events = mini_game
    assert game.engine.state.won
    says = [e for e in events if e.kind == "say" and e.actor == "liar"]
    assert says and says[0].data["claims"][0]["object"] == "well"  # honesty 0 on gem: the lie


def test_mini_trust_insights_name_the_liar_and_the_honest_npc(mini_game):
    game, events = mini_game
    trust = texts(distill(game.spec, game.engine.state, events, MINI_KEY, "player"), "trust")
    lou = [t for t in trust if t.startswith("Lou's")]
    mara = [t for t in trust if t.startswith("Mara's")]
    assert len(lou) == 1 and "claims about gem proved false" in lou[0] and "well" in lou[0]
    assert mara == ["Mara's claims about gem proved true (1 claim checked)"]


def test_mini_trade_quest_council_and_refusals(mini_game):
    game, events = mini_game
    lessons = distill(game.spec, game.engine.state, events, MINI_KEY, "player")
    neg = texts(lessons, "negotiation")
    assert any("with Mara" in t and "opening at price=20 closed the deal in 1 round" in t for t in neg)
    assert any("Nash point (price=15)" in t for t in neg)
    quests = texts(lessons, "quest")
    assert quests[0].startswith("Won in ") and "(3/3 quests)" in quests[0]
    assert any(
        t.startswith("Quest 'Find the gem' was completed by getting the red gem and opening the oak chest")
        for t in quests
    )
    assert any(t.startswith("Quest 'Buy the lamp' was completed by striking a deal for the lamp") for t in quests)
    council = texts(lessons, "council")
    assert "Council 'The well motion': giving the red gem to Elder won their support" in council
    assert "Council 'The well motion': the motion passed 3 to 0" in council
    moves = texts(lessons, "moves")
    assert len(moves) == 1 and moves[0].startswith("2 moves were refused") and "go" in moves[0]
    assert "The oak chest opens with the brass key" in texts(lessons, "exploration")


def test_harbor_insights(harbor_game):
    game, events = harbor_game
    assert game.engine.state.won
    lessons = distill(game.spec, game.engine.state, events, HARBOR_KEY, "player")
    trust = texts(lessons, "trust")
    assert "Ilse Quarrow's claims about treasure proved true (1 claim checked)" in trust
    # Jory's crypt story is never opened directly: it is refuted by the strongbox found in the cave
    # (located_in is functional).
    assert any(t.startswith("Jory Flint's claims about treasure proved false") and "crypt" in t for t in trust)
    neg = texts(lessons, "negotiation")
    assert (
        "Trade for a storm lantern with Mara Voss: opening at price=22 closed the deal in 1 round; own utility 0.00"
    ) in neg
    quests = texts(lessons, "quest")
    assert any(
        t.startswith("Quest 'A Promise Kept' was completed by giving Widow's Pearl to Orla Gannet") for t in quests
    )
    assert any(t.startswith("Quest 'The Gannet's Strongbox' was completed by opening the strongbox") for t in quests)
    assert "The lighthouse door at Shingle Beach opens with the lighthouse key" in texts(lessons, "exploration")
    assert not texts(lessons, "moves")


def test_distill_is_short_deterministic_and_accepts_saved_forms(harbor_game):
    game, events = harbor_game
    first = distill(game.spec, game.engine.state, events, HARBOR_KEY, "player")
    assert all(len(t) <= MAX_TEXT for t in texts(first))
    assert len(set(texts(first))) == len(first)
    again_game, again_events = play(ROOT / "worlds" / "harbor", harbor_lines())
    assert distill(again_game.spec, again_game.engine.state, again_events, HARBOR_KEY, "player") == first
    # the same game from its save forms: a World, the state dict and the transcript's records
    records = [json.loads(line) for line in game.transcript.records]
    assert distill(game.world, game.engine.state.to_dict(), records, HARBOR_KEY, "player") == first
    assert distill(game.world, game.engine.get_state(), records, HARBOR_KEY, "player") == first


def test_unfinished_game_and_walking_away():
    game, events = play(MINI, [(1, "n"), (2, "trade with mara"), (3, "offer 5"), (4, "walk away"), (5, "s")])
    lessons = distill(game.spec, game.engine.state, events, MINI_KEY, "player")
    assert texts(lessons, "quest")[0] == "Not won: 0/3 quests, score 0 after 5 turns (game unfinished)"
    assert "Quest 'Buy the lamp' was not completed in 5 turns" in texts(lessons, "quest")
    neg = texts(lessons, "negotiation")
    assert neg == [
        "Trade for the lamp with Mara: no deal after opening at price=5; you walked away in round 2 "
        "(Mara last offered price=20), reservation utility 0.00"
    ]
    assert not texts(lessons, "trust")


def test_npc_agent_sees_its_own_negotiation():
    game, events = play(ROOT / "worlds" / "bazaar", script_lines(str(SCRIPTS / "bazaar_win.txt")))
    lessons = distill(game.spec, game.engine.state, events, "bazaar-v1/ozra/boulware", "ozra")
    assert {top for top, _, _ in lessons} == {"negotiation"}  # quests belong to the player
    assert any(
        t.startswith("Trade for a pouch of saffron with Traveller: accepting Traveller's offer")
        and "own utility 1.00" in t
        for t in texts(lessons)
    )


# --- the summariser path (a plain function standing in for the configured LLM) -----


def test_summarise_lines_are_added_as_llm_insights(mini_game):
    game, events = mini_game
    seen: list[str] = []

    def summarise(summary: str) -> list[str]:
        seen.append(summary)
        liars = [line for line in summary.splitlines() if "proved false" in line]
        return [
            "- trust: Ask Lou nothing about gems; check the chest instead",
            "1. Buy early, haggle later",
            liars[0].split("] ", 1)[1],  # repeats a rule line: dropped
            "   ",  # blank: dropped
            "x" * 400,
        ]  # clipped to MAX_TEXT

    lessons = distill_with_sources(game.spec, game.engine.state, events, MINI_KEY, "player", summarise)
    assert len(seen) == 1
    summary = seen[0]
    assert summary == game_summary(game.spec, game.engine.state, events, MINI_KEY, "player")
    assert MINI_KEY in summary and "Lou's claims about gem proved false" in summary
    llm = [(t, x, w) for t, x, w, s in lessons if s == "llm"]
    assert [(t, x) for t, x, _ in llm][:2] == [
        ("trust", "Ask Lou nothing about gems; check the chest instead"),
        ("general", "Buy early, haggle later"),
    ]
    assert len(llm) == 3 and len(llm[2][1]) <= MAX_TEXT
    rules = [x for _, x, _, s in lessons if s == "rule"]
    assert rules == texts(distill(game.spec, game.engine.state, events, MINI_KEY, "player"))
    assert [x for _, x, _ in distill(game.spec, game.engine.state, events, MINI_KEY, "player", summarise)] == [
        x for _, x, _, _ in lessons
    ]

    bank = InsightBank(cap=40)
    update_from_game(bank, game.spec, game.engine.state, events, MINI_KEY, "player", summarise)
    sources = {i.text: i.source for i in bank.insights(MINI_KEY)}
    assert sources["Buy early, haggle later"] == "llm"
    assert sources["Mara's claims about gem proved true (1 claim checked)"] == "rule"


def test_summarise_must_return_strings(mini_game):
    game, events = mini_game
    with pytest.raises(TypeError, match="list of strings"):
        distill(game.spec, game.engine.state, events, MINI_KEY, "player", lambda s: "one string")
    with pytest.raises(TypeError, match="expected strings"):
        distill(game.spec, game.engine.state, events, MINI_KEY, "player", lambda s: [1])


# --- update_from_game across games ------------------------------------------------


def test_update_from_game_reinforces_decays_and_saves(tmp_path, mini_game, harbor_game):
    path = tmp_path / "bank" / "insights.json"
    bank = InsightBank(path, cap=30)
    game, events = mini_game
    first = update_from_game(bank, game.spec, game.engine.state, events, MINI_KEY, "player")
    assert bank.game == 1 and path.is_file()
    assert {i.text for i in first} == set(texts(distill(game.spec, game.engine.state, events, MINI_KEY, "player")))
    assert all(i.support == 1 and i.created_game == 0 for i in bank.insights(MINI_KEY))
    other = bank.add(MINI_KEY, "Try the hall before the vault", "exploration", weight=1.0)

    update_from_game(bank, game.spec, game.engine.state, events, MINI_KEY, "player")
    lou = next(i for i in bank.insights(MINI_KEY) if i.text.startswith("Lou's"))
    assert lou.support == 2 and lou.weight == 1.75 and lou.updated_game == 1  # max(1.25, 1.25) + 0.5
    assert bank.get(MINI_KEY, other.id).weight == 1.0  # added during game 1, so confirmed by it
    update_from_game(bank, game.spec, game.engine.state, events, MINI_KEY, "player")
    assert bank.get(MINI_KEY, other.id).weight == 0.9  # not reinforced by game 2: decayed
    assert bank.game == 3

    hgame, hevents = harbor_game
    update_from_game(bank, hgame.spec, hgame.engine.state, hevents, HARBOR_KEY, "player")
    assert bank.get(MINI_KEY, other.id).weight == 0.9  # another key's game leaves this key alone
    reloaded = InsightBank(path, cap=30)
    assert reloaded.get_state() == bank.get_state()
    lines = reloaded.context_lines(HARBOR_KEY, limit=3)
    assert len(lines) == 3 and all(line.startswith("[insight x1] ") for line in lines)


def test_as_context_lines():
    bank = InsightBank()
    a = bank.add("k", "ilse's claims about treasure proved true", "trust")
    bank.add("k", "Ilse's claims about treasure proved true!", "trust")
    bank.add("k", "ilse's claims about treasure proved true", "trust")
    assert a.support == 3
    assert as_context_lines(bank.for_agent("k")) == ["[insight x3] ilse's claims about treasure proved true"]
    assert as_context_lines([]) == []


# --- bank operations ------------------------------------------------------------


def test_add_edit_remove():
    bank = InsightBank()
    a = bank.add("harbor-v1/player/autopilot", "Jory lies about treasure", "Trust", weight=1.5)
    assert (a.topic, a.weight, a.support, a.source, a.created_game) == ("trust", 1.5, 1, "rule", 0)
    assert len(a.id) == 10 and a.id == InsightBank().add(a.key, "jory LIES about treasure.", "trust").id
    assert a.id != InsightBank().add("bazaar-v1/player/autopilot", a.text, "trust").id  # key is in the hash
    b = bank.add(a.key, "Mara's best price is 22", "negotiation", source="llm")
    assert bank.for_agent(a.key) == [a, b]

    bank.record_game()
    e = bank.edit(a.key, b.id, text="Mara accepts 22 at once", weight=2.0)
    assert e is b and (b.text, b.weight, b.updated_game, b.id) == ("Mara accepts 22 at once", 2.0, 1, e.id)
    assert bank.for_agent(a.key) == [b, a]
    with pytest.raises(ValueError, match="near-duplicates"):
        bank.edit(a.key, b.id, text="Jory lies about the treasure")
    with pytest.raises(ValueError, match="out of range"):
        bank.edit(a.key, b.id, weight=-1)
    with pytest.raises(KeyError, match="no insight 'nope' for key 'harbor-v1/player/autopilot'.*known ids"):
        bank.edit(a.key, "nope", weight=1.0)
    with pytest.raises(KeyError, match="no insights for that key"):
        bank.remove("other/key", a.id)

    assert bank.remove(a.key, a.id) is a
    assert bank.for_agent(a.key) == [b]
    with pytest.raises(KeyError):
        bank.remove(a.key, a.id)
    # the original text of an edited insight can come back as a new one without an id clash
    back = bank.add(a.key, "Mara's best price is 22", "negotiation")
    assert back.id != b.id and len(bank) == 2


def test_add_rejects_bad_input():
    bank = InsightBank()
    with pytest.raises(ValueError, match="no words"):
        bank.add("k", " ... ", "trust")
    with pytest.raises(ValueError, match="source"):
        bank.add("k", "text", "trust", source="oracle")
    with pytest.raises(ValueError, match="key"):
        bank.add("", "text", "trust")
    with pytest.raises(ValueError, match="out of range"):
        bank.add("k", "text", "trust", weight=float("nan"))
    with pytest.raises(ValueError, match="cap"):
        InsightBank(cap=0)
    long = bank.add("k", "word " * 100, "general")
    assert len(long.text) <= MAX_TEXT and long.text.endswith("...")


def test_near_duplicates_reinforce_instead_of_duplicating():
    bank = InsightBank()
    a = bank.add("k", "Lou's claims about gem proved false in the yard today", "trust", weight=1.0)
    bank.record_game()
    # 9 shared words of 11 in all: Jaccard 0.82
    same = bank.add("k", "Lou's claims about gem proved false in the yard yesterday", "trust", weight=0.5)
    assert same is a and a.support == 2 and a.weight == 1.5 and a.updated_game == 1 and a.created_game == 0
    assert a.text == "Lou's claims about gem proved false in the yard today"
    other = bank.add("k", "Lou's claims about weather proved true", "trust")
    assert other is not a and len(bank) == 2
    bank.add("k", "Lou's claims about gem proved false in the yard today", "trust", weight=MAX_WEIGHT)
    assert a.weight == MAX_WEIGHT and a.support == 3  # bounded
    bank.add("k", "lou's claims about gem proved false in the yard today", "trust")
    assert a.weight == MAX_WEIGHT and a.support == 4


def test_cap_evicts_the_weakest_with_a_deterministic_tie_break():
    bank = InsightBank(cap=3)
    made = [
        bank.add("k", f"lesson number {n} about {w}", "general", weight=w) for n, w in enumerate([1.0, 2.0, 1.0, 3.0])
    ]
    kept = bank.for_agent("k", limit=None)
    assert len(kept) == 3
    ties = sorted([made[0], made[2]], key=lambda i: i.id)
    assert kept == [made[3], made[1], ties[0]]  # of the two 1.0s, the larger id went
    low = bank.add("k", "a weak lesson", "general", weight=0.1)
    assert low.id not in {i.id for i in bank.insights("k")}  # the newcomer itself was the weakest
    bank.add("other", "unrelated", "general")
    assert len(bank.insights("k")) == 3 and len(bank.insights("other")) == 1


def test_decay_only_touches_insights_not_reinforced_this_game():
    bank = InsightBank()
    old = bank.add("k", "old lesson", "general", weight=1.0)
    tiny = bank.add("k", "nearly forgotten", "general", weight=0.05)
    other = bank.add("j", "another agent", "general", weight=1.0)
    bank.record_game()
    fresh = bank.add("k", "fresh lesson", "general", weight=1.0)
    dropped = bank.decay(0.5, key="k")
    assert (old.weight, fresh.weight, other.weight) == (0.5, 1.0, 1.0)
    assert dropped == [tiny] and tiny.id not in {i.id for i in bank.insights("k")}
    bank.decay()
    assert (old.weight, other.weight, fresh.weight) == (0.45, 0.9, 1.0)
    with pytest.raises(ValueError, match="decay factor"):
        bank.decay(1.5)


def test_for_agent_order_and_limit():
    bank = InsightBank()
    a = bank.add("k", "alpha lesson", "general", weight=1.0)
    b = bank.add("k", "beta lesson", "general", weight=1.0)
    c = bank.add("k", "gamma lesson", "general", weight=2.0)
    bank.add("k", "beta lesson", "general", weight=0.0)  # reinforce: support 2, weight 1.5
    assert b.weight == 1.5 and b.support == 2
    bank.edit("k", b.id, weight=1.0)
    assert bank.for_agent("k") == [c, b, a]  # same weight: more support first
    assert bank.for_agent("k", limit=1) == [c]
    assert bank.for_agent("k", limit=0) == []
    assert bank.for_agent("missing") == []
    with pytest.raises(ValueError):
        bank.for_agent("k", limit=-1)


# --- persistence ------------------------------------------------------------------


def test_persistence_round_trip(tmp_path):
    path = tmp_path / "insights.json"
    bank = InsightBank(path, cap=5)
    assert bank.save() == path
    a = bank.add("harbor-v1/player/autopilot", "Ilse tells the truth about treasure", "trust", weight=1.25)
    bank.add("bazaar-v1/ozra/boulware", "Hold price=24 until round 5", "negotiation", source="llm")
    bank.record_game()
    bank.add(a.key, "Ilse tells the truth about treasure", "trust")
    bank.save()
    assert not list(tmp_path.glob(".*.tmp"))
    loaded = InsightBank(path, cap=5)
    assert loaded.get_state() == bank.get_state()
    assert loaded.game == 1 and loaded.get(a.key, a.id) == a
    assert Insight.from_dict(a.to_dict()) == a
    mem = InsightBank()
    mem.set_state(bank.get_state())
    assert mem.get_state() == bank.get_state() and mem.save() is None
    # a smaller cap applies on load, keeping the best
    small = InsightBank(cap=1)
    small.set_state(
        {
            **bank.get_state(),
            "insights": {
                "k": [
                    {**a.to_dict(), "key": "k", "id": "x1", "weight": 1.0},
                    {**a.to_dict(), "key": "k", "id": "x2", "weight": 2.0},
                ]
            },
        }
    )
    assert [i.id for i in small.insights("k")] == ["x2"]


@pytest.mark.parametrize(
    "content, message",
    [
        ("{not json", "corrupt insight bank"),
        ("", "empty file"),
        ('{"format": "parley-insights", "version": 1, "game": 0, "insi', "corrupt insight bank"),
        ("[]", "expected a JSON object"),
        ('{"format": "other", "version": 1, "game": 0, "insights": {}}', "not an insight bank"),
        ('{"format": "parley-insights", "version": 9, "game": 0, "insights": {}}', "version 9"),
        ('{"format": "parley-insights", "version": 1, "game": -1, "insights": {}}', "'game'"),
        (
            '{"format": "parley-insights", "version": 1, "game": 0, "insights": {"k": [{"id": "a"}]}}',
            r"insights\['k'\]\[0\]",
        ),
        (
            '{"format": "parley-insights", "version": 1, "game": 0, "insights": {"k": [{"id": "a", "text": "t", '
            '"key": "k", "topic": "x", "weight": 99}]}}',
            "out of range",
        ),
    ],
)
def test_corrupt_file_raises_save_error_and_is_left_untouched(tmp_path, content, message):
    path = tmp_path / "insights.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SaveError, match=message) as err:
        InsightBank(path)
    assert str(path) in err.value.message and "left as it is" in err.value.hint
    assert path.read_text(encoding="utf-8") == content
    assert sorted(p.name for p in tmp_path.iterdir()) == ["insights.json"]


def test_binary_file_and_bad_state(tmp_path):
    path = tmp_path / "insights.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SaveError, match="not UTF-8"):
        InsightBank(path)
    assert path.read_bytes() == b"\xff\xfe\x00garbage"
    bank = InsightBank()
    bank.add("k", "keep me", "general")
    before = bank.get_state()
    with pytest.raises(SaveError, match="insight bank state"):
        bank.set_state({"format": "parley-insights", "version": 1, "game": 0, "insights": {"k": "nope"}})
    assert bank.get_state() == before


def test_importing_the_module_loads_no_heavy_library():
    heavy = ["torch", "chromadb", "openai", "textual", "pygame"]
    code = f"import sys, memory.insights, memory.lessons; print(','.join(h for h in {heavy!r} if h in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


# --- property: the cap and the order hold after any sequence of operations -------

TEXTS = [f"lesson {w} {x}" for w in ("alpha", "beta", "gamma", "delta") for x in ("one", "two", "three")]
op = st.one_of(
    st.tuples(
        st.just("add"),
        st.sampled_from(["a", "b"]),
        st.sampled_from(TEXTS),
        st.floats(min_value=0.0, max_value=MAX_WEIGHT, allow_nan=False),
    ),
    st.tuples(st.just("remove"), st.sampled_from(["a", "b"]), st.integers(0, 10), st.just(0.0)),
    st.tuples(st.just("decay"), st.just(""), st.just(""), st.floats(min_value=0.1, max_value=1.0)),
    st.tuples(st.just("game"), st.just(""), st.just(""), st.just(0.0)),
)


@settings(max_examples=150, deadline=None)
@given(cap=st.integers(1, 4), ops=st.lists(op, max_size=40))
def test_cap_and_order_hold_after_any_operations(cap, ops):
    bank = InsightBank(cap=cap)
    for kind, key, arg, w in ops:
        if kind == "add":
            bank.add(key, arg, "general", weight=w)
        elif kind == "remove":
            held = bank.insights(key)
            if held:
                bank.remove(key, held[arg % len(held)].id)
        elif kind == "decay":
            bank.decay(w)
        else:
            bank.record_game()
        for k in ("a", "b"):
            ranked = bank.for_agent(k, limit=None)
            assert len(ranked) <= cap
            assert [(-i.weight, -i.support, i.id) for i in ranked] == sorted(
                (-i.weight, -i.support, i.id) for i in ranked
            )
            assert len({i.id for i in ranked}) == len(ranked)
            assert bank.for_agent(k) == ranked[:5]
    state = bank.get_state()
    again = InsightBank(cap=cap)
    again.set_state(json.loads(json.dumps(state)))
    assert again.get_state() == state
