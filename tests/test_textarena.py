"""TextArena-style adapters: Parley agents as str -> str, and str -> str functions as players."""

from __future__ import annotations

from agents.basic import Scripted
from game.core.types import PLAYER, Action, Verb
from game.engine.parser import Command, Parser
from game.envs.textarena.agents import ParleyPlayer, TextAgent
from game.play.session import Game


def test_a_parley_agent_answers_text_with_commands_the_parser_reads_back():
    game = Game("tests/fixtures/mini", seed=0)
    actions = [
        Action(PLAYER, Verb.ASK, obj="liar", target="gem"),
        Action(PLAYER, Verb.TAKE, obj="iron_key"),
        Action(PLAYER, Verb.GO, obj="north"),
        None,
    ]
    agent = TextAgent(
        Scripted(PLAYER, [a for a in actions if a is not None]), observe=lambda: game.engine.observe(PLAYER)
    )
    parser = Parser()
    for want in actions[:3]:
        line = agent("You are in the yard.")
        assert isinstance(line, str)
        parsed = parser.parse(line, game.engine.scope())
        assert isinstance(parsed, Command) and parsed.action == want, line
        game.act(parsed.action)
    assert agent("anything") == "wait"  # the scripted agent has run out


def test_without_an_engine_the_text_is_the_observation():
    seen = []

    class Echo(Scripted):
        def act(self, observation, context=None):
            seen.append(observation.text)
            return Action(PLAYER, Verb.OFFER, terms=(("price", "12"),))

    agent = TextAgent(Echo(PLAYER, []))
    assert agent("Mara asks 15 gold.") == "offer price=12"
    assert seen == ["Mara asks 15 gold."]


def test_a_text_function_plays_the_player_seat_and_bad_replies_are_penalised():
    game = Game("tests/fixtures/mini", seed=0)
    replies = iter(["take the iron key", "dance wildly", "north"])
    prompts = []

    def fn(text: str) -> str:
        prompts.append(text)
        return next(replies)

    player = ParleyPlayer(fn, game.engine)
    a, _ = game.agent_turn(player)
    assert a == Action(PLAYER, Verb.TAKE, obj="iron_key")
    a, events = game.agent_turn(player)
    assert a.verb is Verb.WAIT
    bad = [e for e in events if e.kind == "invalid" and e.actor == PLAYER]
    assert bad and "dance wildly" in bad[0].text and game.engine.state.invalid[PLAYER] == 1
    a, _ = game.agent_turn(player)
    assert a == Action(PLAYER, Verb.GO, obj="north")
    assert "Yard" in prompts[0] and "You carry: copper coin, iron key" in prompts[1]  # it read the room and its pockets


def test_a_text_players_penalty_survives_save_and_replay(tmp_path):
    from game.play.persistence import replay

    game = Game("tests/fixtures/mini", seed=0)
    player = ParleyPlayer(lambda text: "dance wildly", game.engine)
    game.agent_turn(player)
    game.agent_turn(player)
    assert game.engine.state.invalid[PLAYER] == 2
    game.save("dancer", tmp_path)
    ok, got, want = replay("dancer", tmp_path)
    assert ok, (got, want)
