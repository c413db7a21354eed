"""MEMO as a library (issue 12, finding 9): memory and contexts for any agent loop, with no world,
and a token budget and a focus per build that leave the shared config alone."""

from __future__ import annotations

import contextlib
import io
import random
import re

import pytest

from tests.conftest import ROOT

GOODS = ("spyglass", "lantern", "rope", "compass", "map", "barrel of salt")
FACT = "Overheard: Mara would let the spyglass go for 70 gold at the least."
FOCUS = "the least price Mara would take for the spyglass"


def fill(memo, turns: int = 200) -> None:
    """A harbor market, one event a turn (about 200), with one private fact overheard at turn 20."""
    rng = random.Random(7)
    for t in range(1, turns + 1):
        g = rng.choice(GOODS)
        if t % 4 == 0:
            memo.add(f"Mara offers the {g} for {rng.randint(40, 120)} gold.", speaker="mara", kind="offer", turn=t)
        elif t % 4 == 1:
            memo.add(f"The tide turns at the harbor; gulls circle the {g} stall.", turn=t)
        elif t % 4 == 2:
            memo.add(f"Bob walks past the {g} and counts his coins.", scope="private:bob", speaker="bob", turn=t)
        else:
            memo.add(f"Ilse says the {g} came from the north on ship {t}.", speaker="ilse", kind="utterance", turn=t)
        if t == 20:
            memo.add(FACT, speaker="mara", scope="private:bob", kind="claim", turn=t)


def market():
    from memory.memo import Memo

    memo = Memo(embedder="hash")
    fill(memo)
    return memo


def test_memory_only_use_needs_no_world():
    """Add events, build a context, explain it: no world spec, engine or observation anywhere."""
    from memory.memo import Memo
    from memory.optimizer import Context

    memo = Memo(embedder="hash", store="flat")
    fill(memo)
    assert len(memo) >= 201  # the events, and any reflections consolidated from Bob's private ones
    ctx = memo.context("bob", turn=200, budget=300, focus=FOCUS)
    assert isinstance(ctx, Context) and ctx.budget == 300 and 0 < ctx.tokens <= 300
    assert FACT in ctx.text()
    assert memo.explain("bob", 200)


def test_a_larger_budget_keeps_the_smaller_selection_and_more():
    small, large = market(), market()  # two identical memories: a build refreshes recency
    a = small.context("bob", 200, budget=150, focus=FOCUS, query="Bob at the harbor market")
    b = large.context("bob", 200, budget=400, focus=FOCUS, query="Bob at the harbor market")
    assert (a.budget, b.budget) == (150, 400)
    assert a.tokens <= 150 and b.tokens <= 400
    assert set(a.ids) < set(b.ids) and len(b) > len(a)
    assert b.tokens > 150  # the larger budget was used, not only allowed


def test_focus_changes_what_is_selected():
    plain, focused = market(), market()
    a = plain.context("bob", 200, budget=200, touch=False)
    b = focused.context("bob", 200, budget=200, focus=FOCUS, touch=False)
    assert FACT not in a.text() and FACT in b.text()
    fact_row = next(r for r in focused.explain("bob", 200) if r["text"] == FACT)
    assert fact_row["fate"] == "selected"


def test_explain_matches_the_context():
    memo = market()
    ctx = memo.context("bob", 200, budget=150, focus=FOCUS)
    rows = memo.explain("bob", 200)
    shown = {r["id"] for r in rows if r["section"]}
    assert shown == set(ctx.ids)
    text = ctx.text()
    for r in rows:
        if r["fate"] == "selected":
            assert (r["line"] or r["text"]) in text
        elif r["fate"] in ("masked", "dropped"):
            assert r["id"] not in ctx.ids
    assert any(r["fate"] == "dropped" and "budget" in r["reason"] for r in rows)  # 150 tokens do not fit all
    with pytest.raises(KeyError, match="no context was built"):
        memo.explain("bob", 199)


def test_a_per_call_budget_leaves_the_shared_config_alone():
    from memory.config import MemoConfig
    from memory.memo import Memo

    cfg = MemoConfig(budget=300)
    memo = Memo(embedder="hash", config=cfg)
    fill(memo)
    small = memo.context("bob", 200, budget=60, focus=FOCUS, touch=False)
    assert small.budget == 60 and small.tokens <= 60
    assert cfg.budget == 300 and memo.config.budget == 300 and memo.optimizer.cfg.budget == 300
    again = memo.context("bob", 200, focus=FOCUS, touch=False)
    assert again.budget == 300 and again.tokens > 60


def test_optimizer_build_takes_a_budget_for_one_call():
    """The optimizer itself: ``budget`` overrides the config for that call; without it, the config's."""
    memo = market()
    opt = memo.optimizer
    one = opt.build("bob", 200, "Bob at the harbor market", focus=FOCUS, budget=80, touch=False)
    two = opt.build("bob", 200, "Bob at the harbor market", focus=FOCUS, touch=False)
    assert (one.budget, two.budget) == (80, opt.cfg.budget) and one.tokens <= 80 < two.tokens


def test_scopes_stay_private():
    from memory.memo import Memo

    memo = Memo(embedder="hash")
    memo.add("Bob hides the key under the third barrel.", scope="private:bob", speaker="bob", turn=1)
    memo.add("The harbor bell rings.", turn=2)
    assert "third barrel" in memo.context("bob", 3, focus="where is the key?").text()
    assert "third barrel" not in memo.context("ilse", 3, focus="where is the key?").text()


@pytest.mark.parametrize(
    "kw, message",
    [
        (dict(scope="privat:bob"), "unknown memory scope"),
        (dict(scope="private:"), "unknown memory scope"),
        (dict(kind="offr"), "did you mean 'offer'"),
        (dict(importance=2.0), "outside"),
        (dict(turn=1), "before turn 5"),
    ],
)
def test_bad_input_is_an_input_error(kw, message):
    from game.core.errors import InputError
    from memory.memo import Memo

    memo = Memo(embedder="hash")
    memo.add("The harbor bell rings.", turn=5)
    with pytest.raises(InputError) as err:
        memo.add("Mara offers the rope for 12 gold.", **{"turn": 6, **kw})
    assert message in f"{err.value} {getattr(err.value, 'hint', '')}"
    with pytest.raises(InputError, match="too small"):
        memo.context("bob", 6, budget=3)


def readme_snippet() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### MEMO as a library", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_readme_example_runs():
    code = readme_snippet()
    assert len(code.strip().splitlines()) <= 10
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    printed = out.getvalue()
    assert "70 gold is the least she would take" in printed
    assert re.search(r"\((\d+) of 120 tokens\)", printed) and int(re.search(r"\((\d+) of", printed).group(1)) <= 120


@pytest.mark.embeddings
def test_focus_finds_a_fact_by_meaning():
    """With MiniLM, a focus that shares no names with the fact still brings it in."""
    from memory.memo import Memo

    memo = Memo(embedder="minilm")
    fill(memo, turns=60)
    question = "What would the seller accept?"
    plain = memo.context("bob", 60, budget=200, touch=False)
    focused = memo.context("bob", 60, budget=200, focus=question, touch=False)
    assert FACT not in plain.text() and FACT in focused.text()
