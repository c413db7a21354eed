"""Machine replies: a command is taken from where a model puts it, and a sentence is never a
command by accident (was: any reply starting with "I" was read as `inventory`, unpenalised)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.core.types import PLAYER, Action, Verb
from game.engine.parser import NO_COMMAND, SENTENCE, Command, Parser, Unknown, reply_candidates
from game.envs.textarena.agents import ParleyPlayer
from game.play.session import Game
from tests.test_parser import SCOPE, TRADING, act

MINI = "tests/fixtures/mini"


@pytest.mark.parametrize(
    "text", ["I will go north.", "I accept.", "I think I should take the lantern", "I go north", "i look around"]
)
def test_a_sentence_starting_with_i_is_not_inventory(text):
    got = Parser().parse(text, TRADING)
    assert isinstance(got, Unknown) and got.message == SENTENCE
    got = Parser().parse_reply(text, TRADING)
    assert isinstance(got, Unknown) and got.message.startswith(NO_COMMAND)


@pytest.mark.parametrize("text", ["i", "I", "i.", "inventory", "inv"])
def test_i_alone_is_still_the_inventory(text):
    assert Parser().parse(text, SCOPE) == act(Verb.INVENTORY)


@pytest.mark.parametrize(
    "reply, scope, want",
    [
        ("I accept. [Accept]", TRADING, act(Verb.ACCEPT)),
        ("Let me think. [go north]", SCOPE, act(Verb.GO, obj="north")),
        ("Action: go north", SCOPE, act(Verb.GO, obj="north")),
        ("I'll head out.\n**Action:** take lamp", SCOPE, act(Verb.TAKE, obj="lantern")),
        (
            "Reasoning: the gate is locked.\nCommand = unlock gate with iron key",
            SCOPE,
            act(Verb.UNLOCK, obj="exit:north", target="iron_key"),
        ),
        ("I should look around first.\n```\nlook\n```", SCOPE, act(Verb.LOOK)),
        ("The room is dark.\nI need light.\ntake the lantern.", SCOPE, act(Verb.TAKE, obj="lantern")),
        ('"go north"', SCOPE, act(Verb.GO, obj="north")),
        ("Final answer: n", SCOPE, act(Verb.GO, obj="north")),
        ("[Offer: price=12 quality=high]", TRADING, act(Verb.OFFER, terms=(("price", "12"), ("quality", "high")))),
        ("First [look], then [go north]", SCOPE, act(Verb.GO, obj="north")),  # the last bracket is the move
        ("I should look around… take lamp", SCOPE, act(Verb.TAKE, obj="lantern")),  # reasoning, then the move
        ("Nothing here... go north", SCOPE, act(Verb.GO, obj="north")),
        ("The lamp would help. Take the lantern.", SCOPE, act(Verb.TAKE, obj="lantern")),
        ("Dark in here — take lamp", SCOPE, act(Verb.TAKE, obj="lantern")),
    ],
)
def test_commands_are_taken_from_where_a_model_puts_them(reply, scope, want):
    assert Parser().parse_reply(reply, scope) == want


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "   ",
        "Hmm.",
        "I am not sure what to do.",
        "[???]",
        "Action: dance",
        "save game",
        "We should go north.",
        "You go north!",
    ],
)
def test_a_reply_without_a_command_says_so(reply):
    got = Parser().parse_reply(reply, SCOPE)
    assert isinstance(got, Unknown) and got.message.startswith(NO_COMMAND), got


def test_reply_candidates_order_most_explicit_first():
    assert reply_candidates("x [a] y\nAction: b\n```\nc\n```\nd") == ["a", "b", "c", "d"]
    assert reply_candidates('say "hello there"') == ['say "hello there"']


def test_a_reply_never_leaves_a_question_pending():
    """A machine's ambiguous candidate ("take key": brass or iron?) must not make its next reply an
    answer to a question it never saw."""
    p = Parser()
    got = p.parse_reply("Hmm. [take key]", SCOPE)
    assert isinstance(got, Unknown) and "Which" in got.message
    assert p.parse_reply("look", SCOPE) == act(Verb.LOOK)


PRONOUNS = ["I", "We", "You", "He", "She", "It", "They", "i", "we"]
WORDS = [
    "go",
    "north",
    "take",
    "lantern",
    "look",
    "accept",
    "the",
    "will",
    "should",
    "now",
    "inventory",
    "wait",
    "give",
    "coin",
    "to",
    "Old",
    "Tom",
    "offer",
    "12",
    "n",
    "i",
    "deal",
    "vote",
    "yes",
]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(PRONOUNS),
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=8),
    st.sampled_from(["", ".", "!", "?", ",", "..."]),
)
def test_no_sentence_that_starts_with_a_pronoun_is_a_command(pronoun, words, end):
    reply = " ".join([pronoun, *words]) + end
    for scope in (SCOPE, TRADING):
        assert not isinstance(Parser().parse_reply(reply, scope), Command), reply
        assert not isinstance(Parser().parse(reply, scope), Command), reply


COMMANDS = ["go north", "look", "take lantern", "inventory", "wait", "give coin to old tom", "examine lamp"]
PROSE = st.text(alphabet=st.characters(categories=("L", "Zs"), max_codepoint=0x24F), max_size=40)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(COMMANDS),
    PROSE,
    PROSE,
    st.sampled_from(
        ["{a} [{c}] {b}", "{a}\nAction: {c}", "{a}\n```\n{c}\n```\n", "{a}\n{b}\n{c}", "{a}\nCommand: {c}.", "{c}"]
    ),
)
def test_a_command_wrapped_in_prose_reads_as_the_command(cmd, a, b, template):
    want = Parser().parse(cmd, SCOPE)
    assert isinstance(want, Command)
    assert Parser().parse_reply(template.format(a=a, b=b, c=cmd), SCOPE) == want


def test_a_text_player_is_penalised_for_a_sentence_and_plays_a_bracketed_command():
    game = Game(MINI, seed=0)
    replies = iter(["I will take the iron key.", "Sure. [take the iron key]", "My move:\n```\nnorth\n```"])
    player = ParleyPlayer(lambda text: next(replies), game.engine)
    a, events = game.agent_turn(player)
    assert a.verb is Verb.WAIT and game.engine.state.invalid[PLAYER] == 1
    assert any(e.kind == "invalid" and "sentence" in e.text for e in events)
    a, _ = game.agent_turn(player)
    assert a == Action(PLAYER, Verb.TAKE, obj="iron_key")
    a, _ = game.agent_turn(player)
    assert a == Action(PLAYER, Verb.GO, obj="north") and game.engine.state.invalid[PLAYER] == 1
