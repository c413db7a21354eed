"""The interactive-fiction meta commands of a played game (``game.play.meta``): undo, again (g),
oops and transcript on|off, through ``Game.submit`` and the line console."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.cli.console import run_console
from game.core.types import Decision
from game.play.meta import UNDO_DEPTH
from game.play.persistence import replay
from game.play.session import Game
from tests.conftest import ROOT
from tests.conftest import typed as typed_lines

HARBOR = ROOT / "worlds" / "harbor"
MINI = ROOT / "tests" / "fixtures" / "mini"
BEFORE = ["ask jory about treasure", "go east"]
TAKEN_BACK = ["ask ilse about treasure", "ask ilse about keys"]  # claims heard: the gate and Σ-Mem move
AFTER = ["ask ilse about weather", "go west", "wait", "look", "go north", "wait"]


def played(lines, embedder="hash"):
    game = Game(HARBOR, seed=0, memory={"embedder": embedder})
    replies = [game.submit(line) for line in lines]
    return game, replies


def saved_bytes(game, base):
    folder = game.save("here", base)
    return (folder / "save.json").read_bytes(), (folder / "transcript.jsonl").read_bytes()


@pytest.mark.parametrize("embedder", ["hash", pytest.param("minilm", marks=pytest.mark.embeddings)])
def test_undo_leaves_the_game_that_never_played_the_moves(tmp_path, embedder):
    undone, replies = played([*BEFORE, *TAKEN_BACK, "undo", "undo", *AFTER], embedder)
    never, same = played([*BEFORE, *AFTER], embedder)
    n = len(BEFORE) + len(TAKEN_BACK)
    assert replies[n].meta == "undo" and "Undone: 'ask ilse about keys'" in replies[n].text
    assert "Undone: 'ask ilse about treasure'" in replies[n + 1].text
    assert len(undone.facts.gate.facts) < len(played(BEFORE + TAKEN_BACK)[0].facts.gate.facts)
    assert undone.engine.state.turn == never.engine.state.turn == len(BEFORE) + len(AFTER)
    assert [r.lines for r in replies[n + 2 :]] == [r.lines for r in same[len(BEFORE) :]]  # the same story ahead
    assert undone.engine.rng.bit_generator.state == never.engine.rng.bit_generator.state
    assert undone.facts.get_state() == never.facts.get_state()  # the consistency gate and Σ-Mem
    assert saved_bytes(undone, tmp_path / "a") == saved_bytes(never, tmp_path / "b")  # the save, byte for byte
    ok, got, want = replay("here", tmp_path / "a")
    assert ok and got == want


def test_undo_after_the_end_and_as_far_back_as_it_keeps(tmp_path):
    game = Game(MINI, seed=0)
    assert game.submit("undo").text == "You haven't moved yet."
    for _ in range(UNDO_DEPTH + 2):
        game.submit("wait")
    for _ in range(UNDO_DEPTH):
        assert game.submit("undo").text.startswith("[Undone: 'wait'")
    assert game.engine.state.turn == 2
    assert game.submit("undo").text == "There is nothing to undo."
    script = (ROOT / "tests" / "fixtures" / "mini_win.txt").read_text().splitlines()
    moves = [line for line in script if line.strip() and not line.startswith("#")]
    fresh = Game(MINI, seed=0)
    for line in moves:
        fresh.submit(line)
    assert fresh.engine.state.done and fresh.engine.state.won
    assert fresh.submit("look").kind == "over"
    assert fresh.submit("undo").meta == "undo"  # the winning move taken back: the game goes on
    assert not fresh.engine.state.done and not fresh.engine.state.won
    assert fresh.submit("again").won  # the undone command played once more


def test_undo_refuses_at_the_trading_table():
    game = Game(MINI, seed=0)
    for line in ("n", "trade with mara"):
        game.submit(line)
    assert game.engine.state.active_scene is not None
    reply = game.submit("undo")
    assert reply.meta == "undo" and "can't be taken back" in reply.text
    assert game.engine.state.active_scene is not None  # nothing changed
    game.submit("walk away")
    assert "ended a trade" in game.submit("undo").text
    game.submit("s")
    assert "Undone: 's'" in game.submit("undo").text


def test_again_repeats_the_last_command_not_a_meta_one():
    game = Game(MINI, seed=0)
    assert "no command to repeat" in game.submit("g").text
    game.submit("wait")
    game.submit("help")
    reply = game.submit("g")
    assert reply.kind == "turn" and reply.said == "g" and reply.command == "wait"
    assert game.engine.state.turn == 2
    assert game.submit("take key").kind == "clarify"  # which key? the answer makes the command repeated
    assert game.submit("iron").command == "take iron key"
    assert game.submit("g").command == "take iron key"
    game.submit("drop iron key")
    assert game.submit("again").command == "drop iron key" and game.engine.state.item_at["iron_key"] == "yard"


def test_oops_corrects_the_unknown_word_and_plays_the_line():
    game = Game(MINI, seed=0)
    assert "nothing to correct" in game.submit("oops brass").text
    assert game.submit("take brss key").kind == "unknown"
    reply = game.submit("oops brass")
    assert reply.kind == "turn" and reply.command == "take brass key" and reply.said == "oops brass"
    assert game.submit("lok").kind == "unknown"
    assert game.submit("oops").text.startswith("Oops what?")
    assert game.submit("oops look").command == "look"
    assert game.engine.state.turn == 2
    assert "nothing to correct" in game.submit("oops look").text


def test_transcript_on_and_off_writes_a_readable_file(tmp_path):
    game = Game(MINI, seed=0)
    game.saves_base = tmp_path
    reply = game.submit("transcript on")
    path = tmp_path / "transcripts" / "mini-v1.txt"
    assert str(path) in reply.text and path.is_file()
    game.submit("take iron key")
    assert "> take iron key\nTaken: the iron key." in path.read_text()  # flushed at once
    assert game.submit("transcript off").text == f"Transcript ended: {path}"
    game.submit("wait")
    text = path.read_text()
    assert text.startswith("=== Mini (world mini-v1, seed 0), transcript from turn 0 ===\nYard.")
    assert "> transcript off" in text and "> wait" not in text
    assert game.engine.state.turn == 2  # the transcript commands took no turn
    outside = tmp_path.parent / "story.txt"
    assert "is a path" in game.submit(f"transcript on {outside}").text and not outside.exists()
    assert "is a path" in game.submit("transcript on ~/story.txt").text
    own = tmp_path / "transcripts" / "my-story.txt"
    assert str(own) in game.submit("transcript on My Story.txt").text and own.is_file()
    assert "already" in game.submit("transcript on").text


def test_meta_commands_in_the_line_console_and_help(tmp_path):
    typed = ["take iron key", "undo", "take brss key", "oops brass", "g", "help", "transcript on log"]
    read = typed_lines([*typed, "save here", "wait", "load here", "look"])
    out: list[str] = []

    game = Game(MINI, seed=0)
    run_console(game, saves_base=str(tmp_path), read=read, write=out.append)
    text = "\n".join(out)
    assert "[Undone: 'take iron key'; back to turn 0" in text
    assert "Taken: the brass key." in text and "You already have" in text
    assert "undo  (take back your last move" in text and "transcript on [FILE]" in text
    log = (tmp_path / "transcripts" / "log.txt").resolve()
    assert f"Writing a transcript to {log}" in text
    assert "Loaded. Turn 2." in text and "> load here\n\n> look\nYard. A yard." in log.read_text()  # it goes on
    assert game.engine.state.turn == 3  # the game the console started with played on to "wait"


def test_undo_in_and_into_a_council_leaves_the_same_game(tmp_path):
    script = (ROOT / "tests" / "fixtures" / "mini_win.txt").read_text().splitlines()
    moves = [line for line in script if line.strip() and not line.startswith("#")]
    assert moves[-3:] == ["w", "give gem to elder", "vote yes"]  # the council sits in the hall
    ways = {
        "never": moves,
        "in": [*moves[:-1], "say we need the gem", "wait", "undo", "undo", moves[-1]],
        "into": [*moves[:-2], "undo", *moves[-3:]],  # the move into the council chamber taken back
    }
    saves = {}
    for name, lines in ways.items():
        game = Game(MINI, seed=0, memory={"embedder": "hash"})
        replies = [game.submit(line) for line in lines]
        assert game.engine.state.won, name
        assert all("Undone" in r.text for r in replies if r.said == "undo"), name
        saves[name] = saved_bytes(game, tmp_path / name)
    assert saves["in"] == saves["never"] and saves["into"] == saves["never"]


META_GAME = Game(MINI, seed=0)
META_GAME.saves_base = ROOT / "tests" / "fixtures" / "no-such-saves"  # nothing typed here may write there


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(["undo", "again", "g", "oops", "G", "OOPS", "take", "xyzzy"]), st.text(max_size=40))
def test_any_line_with_a_meta_word_is_answered_and_never_raises(word, rest):
    for line in (f"{word} {rest}", rest, f"oops {rest}", "undo"):
        reply = META_GAME.submit(line)
        assert reply.kind in ("turn", "clarify", "unknown", "meta", "over") and isinstance(reply.text, str)
    assert not META_GAME.saves_base.exists()


def test_an_agent_without_state_plays_on_and_undo_says_why_it_is_unavailable():
    """An agent that keeps no state (no ``get_state``) still plays; undo says it cannot go back."""

    class Plain:
        passive, uses_context = False, False

        def act(self, observation, context=None):
            return Decision(None)

    game = Game(MINI, seed=0, agents={"liar": Plain()})
    assert game.submit("take iron key").kind == "turn"
    reply = game.submit("undo")
    text = " ".join(reply.lines)
    assert "not available" in text and "liar" in text
    assert game.engine.state.turn == 1
