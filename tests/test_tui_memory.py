"""The memory inspector (F3), the journal and trust screen (F2) and `parley inspect --tui`, under Pilot."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from game.core.types import PLAYER
from game.play.session import Game

pytest.importorskip("textual")

from textual.widgets import DataTable, Select, Static  # noqa: E402

from game.tui.app import ParleyApp  # noqa: E402
from game.tui.screens.journal import JournalScreen  # noqa: E402
from game.tui.screens.memory import InspectApp, MemoryScreen, clip, why  # noqa: E402

pytestmark = [pytest.mark.tui, pytest.mark.anyio]


@pytest.fixture
def anyio_backend():
    return "asyncio"


ROOT = Path(__file__).resolve().parent.parent
HARBOR = ROOT / "worlds" / "harbor"
MINI = ROOT / "tests" / "fixtures" / "mini"
SIZE = (120, 40)
ASK = ["ask jory about strongbox", "go east", "talk to ilse", "ask ilse about strongbox"]
# the harbor walkthrough up to opening the strongbox: the claims about it are verified there
WALK = [
    ln.strip()
    for ln in (ROOT / "tests" / "scripts" / "harbor_win.txt").read_text().splitlines()
    if ln.strip() and not ln.startswith("#")
]
TO_STRONGBOX = ["ask jory about strongbox", *WALK[: WALK.index("open strongbox") + 1]]


def harbor(memory: bool = False, played: tuple[str, ...] = ()) -> Game:
    game = Game(HARBOR, seed=0, memory={"embedder": "hash"} if memory else None)
    for line in played:
        game.submit(line)
    return game


async def ready(pilot) -> None:
    while pilot.app.game is None or pilot.app.busy:
        await pilot.pause(0.02)
    await pilot.pause()


async def play(pilot, lines) -> None:
    """Type each line as the player (through the app, a turn at a time)."""
    for line in lines:
        pilot.app.send(line)
        while pilot.app.busy:
            await pilot.pause(0.01)
        await pilot.pause()


def explained(game: Game, agent: str) -> tuple[dict, list[dict]]:
    """What `parley inspect` shows for ``agent`` now: its context's sections and explain() rows."""
    ctx = game.memory.context(agent, game.engine.observe(agent), touch=False)
    return copy.deepcopy(ctx.sections), copy.deepcopy(game.memory.optimizer.explain(agent, ctx.turn))


def cells(table: DataTable, column: int) -> list[str]:
    return [str(table.get_cell_at((k, column))) for k in range(table.row_count)]


# --- the memory inspector ------------------------------------------------------------------------
async def test_memory_inspector_lists_what_explain_reports():
    app = ParleyApp(lambda: harbor(memory=True))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await play(pilot, ASK)
        sections, rows = explained(app.game, PLAYER)
        await pilot.press("f3")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MemoryScreen) and screen.agent == PLAYER
        assert screen.listed() == [(r["id"], r["fate"]) for r in rows]
        assert screen.rows == rows and screen.context.sections == sections
        # the gate holds both strangers' claims (Jory's and Ilse's disagree): no fact record joins them
        assert {r["fate"] for r in rows} == {"selected"}
        jory = next(r for r in rows if "Jory Flint says" in str(r.get("text", "")))
        table = screen.query_one("#memory-candidates", DataTable)
        assert table.get_cell(jory["id"], "why") == clip(why(jory), 60)
        masked = {**jory, "fate": "masked", "reason": "redundant with 3", "stands_for": 3}
        assert "stands for 3" in why(masked)  # a collapsed cluster says how many
        assert not screen.query("#memory-agent")  # a person playing sees only their own memory
        bar = screen.query_one("#memory-budget")
        assert (bar.used, bar.budget) == (screen.context.tokens, screen.context.budget)
        await pilot.press("escape")
        assert not isinstance(app.screen, MemoryScreen)


async def test_memory_inspector_any_agent_in_a_select():
    game = harbor(memory=True, played=tuple(ASK))
    app = InspectApp(game)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MemoryScreen) and screen.agent == PLAYER
        select = screen.query_one("#memory-agent", Select)
        select.value = "jory"
        await pilot.pause()
        _, rows = explained(game, "jory")
        assert screen.agent == "jory" and rows
        assert screen.listed() == [(r["id"], r["fate"]) for r in rows]
        assert "Jory Flint" in str(screen.query_one("#memory-who", Static).render())


async def test_memory_off_is_said():
    app = ParleyApp(lambda: Game(MINI, seed=0))
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f3")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MemoryScreen)
        assert "Memory is off" in str(screen.query_one("#memory-context", Static).render())
        assert not screen.query_one("#memory-candidates").display


# --- the journal, trust and the gate's audit ------------------------------------------------------
async def test_journal_shows_what_jory_said():
    app = ParleyApp(lambda: harbor())
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await play(pilot, ["ask jory about strongbox"])
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, JournalScreen)
        text = str(app.screen.query_one("#journal-text", Static).render())
        assert "not yet confirmed" in text and "crypt" in text and "Jory Flint" in text  # a stranger's news is held
        await pilot.press("escape")
        await pilot.pause()
        await play(pilot, ["journal"])  # typed, it opens the same screen
        assert isinstance(app.screen, JournalScreen)


async def test_trust_heat_table_and_audit_filters():
    app = ParleyApp(lambda: harbor(played=tuple(TO_STRONGBOX[:-3])))  # the walk, up to the cleft above it
    async with app.run_test(size=SIZE) as pilot:
        await ready(pilot)
        await pilot.press("f2", "t")
        await pilot.pause()
        screen = app.screen
        table = screen.query_one("#trust-table", DataTable)
        assert table.get_cell("jory", "treasure").plain.strip() == "·"  # nothing verified yet
        await play(pilot, TO_STRONGBOX[-3:])  # down beside it (the claims about where it is are settled); open it
        assert app.screen is screen
        trust = app.game.facts.trust_table()
        assert trust["jory"]["treasure"] < 0 < trust["ilse"]["treasure"]  # the box was in the sea cave
        liar = table.get_cell("jory", "treasure")
        assert liar.plain.strip() == f"{trust['jory']['treasure']:+.2f}" and "on rgb(" in str(liar.style)
        assert table.get_cell("ilse", "treasure").plain.strip() == f"{trust['ilse']['treasure']:+.2f}"
        assert table.get_cell("mara", "treasure").plain.strip() == "·"
        journal = str(screen.query_one("#journal-text", Static).render())
        assert "Proved false" in journal and "caught lying" in journal

        await pilot.press("a")
        audit, gate = screen.query_one("#audit-table", DataTable), app.game.facts.gate
        every = len(gate.audit())
        assert audit.row_count == every >= 3
        screen.query_one("#audit-source", Select).value = "jory"
        await pilot.pause()
        assert 0 < audit.row_count == len(gate.audit(source="jory")) < every
        assert set(cells(audit, 2)) == {"Jory Flint (jory)"}
        screen.query_one("#audit-source", Select).clear()
        screen.query_one("#audit-outcome", Select).value = "quarantine"
        await pilot.pause()
        assert 0 < audit.row_count == len(gate.audit(outcome="quarantine")) < every
        assert set(cells(audit, 3)) == {"quarantine"}
        assert str(screen.query_one("#audit-count", Static).render()).startswith(f"{audit.row_count} of {every}")


# --- parley inspect SAVE --tui -------------------------------------------------------------------
async def test_parley_inspect_tui_builds_the_inspector(tmp_path, monkeypatch):
    import sys

    from game.cli.main import main

    harbor(memory=True, played=tuple(ASK)).save("dock", base=tmp_path)
    argv = ["inspect", "dock", "--agent", "ilse", "--saves-dir", str(tmp_path), "--tui"]
    assert main(argv) == 2  # piped, not a terminal: an error, and no app
    built = []
    monkeypatch.setattr(InspectApp, "run", lambda self, *a, **k: built.append(self) or 0)

    class Terminal:
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(sys, "stdin", Terminal())
    monkeypatch.setattr(sys, "stdout", Terminal())
    assert main(argv) == 0
    monkeypatch.undo()
    (app,) = built
    assert app.game.engine.state.turn == len(ASK) and app.start_agent == "ilse"
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MemoryScreen) and screen.agent == "ilse"
        _, rows = explained(app.game, "ilse")
        assert screen.listed() == [(r["id"], r["fate"]) for r in rows]
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, JournalScreen)


# --- snapshots -----------------------------------------------------------------------------------
async def _open(pilot, *keys: str) -> None:
    await ready(pilot)
    await pilot.press(*keys)
    await pilot.pause()


def test_memory_screen_snapshot(snap_compare):
    app = ParleyApp(lambda: harbor(memory=True, played=tuple(ASK)))
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: _open(pilot, "f3"))


def test_journal_screen_snapshot(snap_compare):
    app = ParleyApp(lambda: harbor(played=tuple(TO_STRONGBOX)))
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: _open(pilot, "f2"))


def test_trust_tab_snapshot(snap_compare):
    app = ParleyApp(lambda: harbor(played=tuple(TO_STRONGBOX)))
    assert snap_compare(app, terminal_size=SIZE, run_before=lambda pilot: _open(pilot, "f2", "t"))
