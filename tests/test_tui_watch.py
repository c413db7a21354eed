"""Watching in the terminal app (Pilot): ``parley watch`` plays an agent's game with pause, step
and speed; ``parley replay NAME --tui`` steps through a save's transcript and says whether the
replayed state matches; an LLM outage is a notification and an autosave; Esc discards the LLM
player's answer before its move is played. No timing goals here (see benchmarks/tui_bench.py)."""

from __future__ import annotations

import json
import math
import time

import pytest

from agents.llm.client import LLMClient
from agents.llm.config import LLMConfig
from game.play.persistence import replay
from game.play.session import Game
from game.tui.app import ParleyApp
from game.tui.screens.watch import ReplayApp, ReplayRun, WatchScreen
from tests.conftest import ROOT

pytestmark = [pytest.mark.tui, pytest.mark.anyio]
MINI = ROOT / "tests" / "fixtures" / "mini"
SIZE = (120, 40)


@pytest.fixture
def anyio_backend():
    return "asyncio"


def watch_app(tmp_path, seat="autopilot", speed=math.inf, **game_kw) -> ParleyApp:
    app = ParleyApp(lambda: Game(MINI, seed=0, player_kind=seat, **game_kw), saves_base=tmp_path, spectate=seat)
    app.speed = speed
    return app


async def until(pilot, condition, timeout: float = 20.0) -> None:
    """Let the app run until ``condition()`` holds (the timeout only keeps a broken test from hanging)."""
    end = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < end, "the app never got there"
        await pilot.pause(0.02)


def story(app) -> str:
    return "\n".join(line.text for line in app.screen.query_one("#watch-story").lines)


def watching(app) -> WatchScreen:
    screen = app.screen
    assert isinstance(screen, WatchScreen)
    return screen


async def test_watch_the_autopilot_win_mini(tmp_path):
    app = watch_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: watching(app).ended)
        state = app.game.engine.state
        assert state.won and state.done
        text = story(app)
        assert "Watching autopilot play." in text
        assert "Move   1  ▸ take iron key" in text and "Move  23  ▸ vote yes" in text  # each move, numbered
        # the final move does not advance the game's turn counter: the end line gives both
        assert state.turn == 22
        assert f"Won in 23 moves (turn 22): score {state.score}, quests 3/3." in text
        assert "move 23 · turn 22/" in str(app.screen.query_one("#watch-status").render())
        assert watching(app).turns == 23 and not app.busy
    assert not any(tmp_path.iterdir())  # a finished game leaves no autosave


async def test_the_memory_inspector_opens_while_the_game_plays_on(tmp_path):
    from game.tui.screens.memory import MemoryScreen

    app = watch_app(tmp_path, speed=16.0, memory={"embedder": "hash"})
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.game is not None and app.game.engine.state.turn >= 1)
        await pilot.press("f3")
        assert isinstance(app.screen, MemoryScreen)
        turn = app.game.engine.state.turn
        await until(pilot, lambda: app.game.engine.state.turn >= turn + 2)  # it plays on under the inspector
        await pilot.press("escape")
        screen = watching(app)
        await until(pilot, lambda: screen.ended)
        assert app.game.engine.state.won and screen.turns == app.game.engine.state.turn + 1  # every turn was shown


async def test_pause_stops_turns_and_space_resumes(tmp_path):
    app = watch_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.game is not None and app.game.engine.state.turn >= 2)
        await pilot.press("space")
        screen = watching(app)
        assert screen.paused
        await until(pilot, lambda: not app.busy)  # a turn already under way finishes
        turn = app.game.engine.state.turn
        await pilot.pause(0.5)
        assert app.game.engine.state.turn == turn and not app.busy
        await pilot.press("space")
        await until(pilot, lambda: app.game.engine.state.turn > turn)


async def test_step_plays_exactly_one_turn(tmp_path):
    app = watch_app(tmp_path, speed=0.5)  # the first turn would start two seconds in
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.game is not None and watching(app).seat is not None)
        await pilot.press("s")
        screen = watching(app)
        assert screen.paused
        await until(pilot, lambda: screen.turns == 1 and not app.busy)
        await pilot.press("right")
        await until(pilot, lambda: screen.turns == 2 and not app.busy)
        await pilot.pause(2.5)  # longer than the speed's delay: nothing more is played
        assert screen.turns == 2 and app.game.engine.state.turn == 2
        assert "Move   2  ▸ take brass key" in story(app)


async def test_speed_keys(tmp_path):
    app = watch_app(tmp_path, speed=2.0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("plus", "plus")
        assert watching(app).speed == 8.0
        await pilot.press("minus", "minus", "minus", "minus", "minus")
        assert watching(app).speed == 0.5


def scripted_save(tmp_path, lines: int) -> str:
    """A save of a game played by typed commands (the first ``lines`` of mini's winning script)."""
    game = Game(MINI, seed=0)
    script = [
        s
        for s in (ROOT / "tests" / "fixtures" / "mini_win.txt").read_text().splitlines()
        if s.strip() and not s.startswith("#")
    ]
    for line in script[:lines]:
        assert game.submit(line).kind == "turn", line
    game.save("scripted", base=tmp_path)
    return "scripted"


async def test_replay_tui_reaches_the_end_and_reports_a_match(tmp_path):
    name = scripted_save(tmp_path, 9)
    run = ReplayRun(name, tmp_path)
    app = ReplayApp(run, speed=math.inf)
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: watching(app).ended)
        text = story(app)
        assert "Move   1  ▸ take iron key" in text and "Move   9  ▸ go north" in text
        assert "Replay complete: the replayed state matches the save" in text
    ok, got, want = run.verdict
    assert ok and (ok, got, want) == replay(name, base=tmp_path)  # the same verdict as `parley replay`
    assert run.engine.state.turn == 9


async def test_replay_tui_steps_one_round_at_a_time(tmp_path):
    name = scripted_save(tmp_path, 4)
    app = ReplayApp(ReplayRun(name, tmp_path), speed=0.5)
    async with app.run_test(size=SIZE) as pilot:
        screen = watching(app)
        await pilot.press("s")
        await until(pilot, lambda: screen.turns == 1 and not app.busy)
        assert app.replay.engine.state.turn == 1 and app.replay.verdict is None
        for _ in range(3):
            await pilot.press("s")
        await until(pilot, lambda: screen.ended)
        assert screen.turns == 4 and app.replay.verdict[0]
        await pilot.press("f3")  # no live game in a replay: a note, not a crash
        assert isinstance(app.screen, WatchScreen)


def fast_client(server) -> LLMClient:
    return LLMClient(
        LLMConfig(base_url=server.base_url, model="test", max_retries=0, backoff_base=0.0, backoff_max=0.0, timeout=2.0)
    )


def npc_reply(text: str) -> str:
    return json.dumps({"text": text, "claims": []})


async def test_an_llm_outage_is_a_notification_and_autosaves(serve, tmp_path):
    s = serve([npc_reply("In the oak chest, friend."), {"die": True}])
    script = tmp_path / "ask.txt"
    script.write_text("ask lou about gem\nask lou about weather\nlook\n")
    saves = tmp_path / "saves"
    app = watch_app(saves, seat=f"script:{script}", llm=fast_client(s), llm_npcs={"liar"})
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: any(n.title == "LLM outage" for n in app._notifications))
        note = next(n for n in app._notifications if n.title == "LLM outage")
        assert "scripted fallbacks" in note.message and "Progress saved to" in note.message
        screen = watching(app)
        await until(pilot, lambda: screen.paused and not app.busy)
        assert app.game.engine.state.turn == 2  # the failed turn was finished by scripted voices
        assert 'Lou says: "The sky is blue."' in story(app)
    save = json.loads((saves / "watch-mini-v1" / "save.json").read_text())  # a watched game's own slot
    assert save["turn"] == 2 and save["llm"]["base_url"] == s.base_url
    assert replay("watch-mini-v1", base=saves)[0]


async def test_escape_discards_the_llm_players_answer_before_its_move(serve, tmp_path):
    answer = json.dumps({"command": "take iron key", "reason": "keys open things"})
    s = serve([{"delay": 0.6, "content": answer}, answer])
    app = watch_app(tmp_path, seat="llm", speed=math.inf, llm=fast_client(s), llm_npcs=set())
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: len(s.requests) == 1)  # the model is thinking
        await until(pilot, lambda: "working…" in app.sub_title)  # the spinner in the header
        await pilot.press("escape")
        screen = watching(app)
        await until(pilot, lambda: not app.busy and screen.state == "stopped")
        assert "the model's answer was discarded; nothing was played" in story(app)
        assert app.game.engine.state.turn == 0 and screen.turns == 0
        assert len(app.game.transcript.records) == 1  # only the start record: nothing was played
        await pilot.press("s")
        await until(pilot, lambda: screen.turns == 1 and not app.busy)
        assert app.game.engine.state.turn == 1 and "▸ take iron key" in story(app)
        await until(pilot, lambda: app.sub_title == "Mini")  # idle: the plain title again


def test_watch_screen_snapshot(snap_compare, tmp_path):
    async def three_steps(pilot):
        app = pilot.app
        await until(pilot, lambda: app.game is not None and watching(app).seat is not None)
        for n in (1, 2, 3):
            await pilot.press("s")
            await until(pilot, lambda: watching(app).turns == n and not app.busy)
        await pilot.pause(0.2)  # the spinner's next tick puts the plain title back

    assert snap_compare(watch_app(tmp_path, speed=0.5), terminal_size=SIZE, run_before=three_steps)
