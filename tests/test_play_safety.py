"""A player's game stays theirs and stays quick: the first typed move never waits for the warming
model, undo after a load, keys typed ahead never answer a question, a watched game never writes
the person's autosave."""

from __future__ import annotations

import threading

import pytest

from game.play.session import Game
from game.play.warmup import background_memory
from tests.conftest import ROOT

HARBOR = ROOT / "worlds" / "harbor"
MINILM = {"embedder": "minilm"}


def returns_within(seconds: float, fn, *args) -> bool:
    worker = threading.Thread(target=fn, args=args, daemon=True)
    worker.start()
    worker.join(seconds)
    return not worker.is_alive()


@pytest.mark.embeddings
def test_first_typed_move_does_not_wait_for_the_model_through_the_undo_snapshot():
    """Undo's snapshot before the first typed move reads ``Game.components``, which settles the
    memory queue: the move waits until the model has loaded."""
    hold = threading.Event()
    with background_memory(until=hold.wait):
        game = Game(HARBOR, seed=0, memory=MINILM)
    try:
        assert returns_within(15, game.submit, "n"), "the first typed move waited for the memory model"
    finally:
        hold.set()


@pytest.mark.embeddings
def test_undo_after_load_saves_the_loaded_game_byte_for_byte(tmp_path):
    game = Game(HARBOR, seed=0, memory=MINILM)
    for line in ["ask jory about treasure", "go east", "ask ilse about keys"]:
        game.submit(line)
    game.save("start", tmp_path)
    loaded = Game.load("start", tmp_path)
    loaded.submit("ask ilse about treasure")
    assert loaded.submit("undo").meta == "undo"
    again = Game.load("start", tmp_path)
    a, b = loaded.save("a", tmp_path), again.save("b", tmp_path)
    assert (a / "save.json").read_bytes() == (b / "save.json").read_bytes()
    assert (a / "transcript.jsonl").read_bytes() == (b / "transcript.jsonl").read_bytes()


@pytest.fixture
def anyio_backend():
    return "asyncio"


@pytest.mark.tui
@pytest.mark.anyio
async def test_keys_typed_after_save_never_answer_the_overwrite_question(tmp_path):
    """``save foo`` over another game's save asks "Overwrite?" in a modal; the player, not
    looking, goes on typing ``say yes``: the ``y`` of ``say`` answers the modal's Yes binding
    and the other game's save is overwritten without the player having read the question."""
    import json

    from textual import events

    from game.tui.app import ParleyApp

    other = Game(HARBOR, seed=5)
    other.submit("n")
    other.save("foo", tmp_path)
    theirs = json.loads((tmp_path / "foo" / "save.json").read_text())["state_hash"]

    app = ParleyApp(lambda: Game(HARBOR, seed=0), saves_base=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(500):
            if app.game is not None and not app.busy:
                break
            await pilot.pause(0.02)
        for ch in "save foo\n":
            app.post_message(events.Key({"\n": "enter", " ": "space"}.get(ch, ch), "\r" if ch == "\n" else ch))
        for _ in range(500):  # the question is up
            if type(app.screen).__name__ == "ConfirmScreen":
                break
            await pilot.pause(0.01)
        for ch in "say yes":  # the player keeps typing the next command
            app.post_message(events.Key({" ": "space"}.get(ch, ch), ch))
        for _ in range(200):
            await pilot.pause(0.02)
            if not app.busy and type(app.screen).__name__ != "ConfirmScreen":
                break
        await pilot.pause(0.2)
    now = json.loads((tmp_path / "foo" / "save.json").read_text())["state_hash"]
    assert now == theirs, "a key typed for the command line answered Yes and overwrote another game's save"


@pytest.mark.tui
@pytest.mark.anyio
async def test_a_watched_game_that_loads_a_save_never_writes_the_persons_autosave(tmp_path):
    """In ``parley watch``, F4 opens the saves screen and Enter loads the person's autosave into
    the watched app; the seat plays on in it, and leaving writes ``autosave-<world>``."""
    import json

    from game.play.autosave import farewell
    from game.tui.app import ParleyApp

    person = Game(HARBOR, seed=0)
    for line in ("n", "s", "e"):
        person.submit(line)
    farewell(person, tmp_path, lambda _t: None)
    slot = tmp_path / "autosave-harbor-v1" / "save.json"
    before = slot.read_bytes()

    app = ParleyApp(lambda: Game(HARBOR, seed=1, player_kind="autopilot"), saves_base=tmp_path, spectate="autopilot")
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(500):
            if app.game is not None and not app.busy:
                break
            await pilot.pause(0.02)
        await pilot.press("f4")
        await pilot.pause(0.3)
        if type(app.screen).__name__ == "SavesScreen":
            app.screen.action_load()  # Enter on the only row: the person's autosave
            await pilot.pause(0.3)
            if type(app.screen).__name__ == "ConfirmScreen":  # the watched game has unsaved moves
                await pilot.press("y")
            for _ in range(300):
                await pilot.pause(0.02)
                if not app.busy and app.game.engine.state.turn == 3:
                    break
            for _ in range(300):  # the watch screen plays on
                await pilot.pause(0.02)
                if app.game.engine.state.turn > 4:
                    break
        app.exit(0)
    farewell(app.game, tmp_path, lambda _t: None)  # what `parley watch` does on leaving
    assert slot.read_bytes() == before, (
        f"the watched game (turn {app.game.engine.state.turn}, player {app.game.player_kind}) "
        f"overwrote the person's autosave: {json.loads(slot.read_text())['turn']}"
    )


@pytest.mark.tui
@pytest.mark.anyio
async def test_north_typed_ahead_at_start_does_not_answer_the_resume_question(tmp_path):
    """``parley play`` with an autosave: the player types ``n⏎`` (go north) as the app starts, as
    typing ahead while the world loads is kept; the ``n`` must not answer the resume question's
    "New game" (which would move the autosave aside): the question waits for the person."""
    from test_tui_input import an_autosave, start_like_parley_play, type_fast

    an_autosave(tmp_path)
    app = start_like_parley_play(tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        type_fast(app, "n\n")  # typed before the first frame, as a terminal buffers it
        await pilot.pause(0.8)  # the question is still up: the typed line waits on the command line
        assert type(app.screen).__name__ == "ResumeScreen" and app.game is None
        await pilot.press("enter")  # the person reads it and continues
        for _ in range(500):
            if app.game is not None and not app.busy and not app.pending:
                break
            await pilot.pause(0.02)
        await pilot.pause(0.2)
        turn, loaded = app.game.engine.state.turn, app.game.loaded_from
        app.exit(0)
    assert loaded is not None, f"the typed-ahead 'n' started a new game (turn {turn}); the autosave was moved aside"
