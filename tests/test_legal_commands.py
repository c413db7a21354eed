"""The commands open to the player (``Engine.legal_commands``, ``game.engine.commands``) and their place on
a seat's observation (``Observation.commands``, for seats that declare ``wants_commands``): every listed
line parses to a command under the current scope, none is refused by the rules, the list and the AEC
mask name the same actions, and a name two things share is typed by id or left out."""

from __future__ import annotations

import copy
import dataclasses
import random

import numpy as np
import pytest

from game.core.types import PLAYER, Action, Verb
from game.engine.parser import Command, Parser
from game.play.session import Game
from game.play.worlds import load_world
from game.testing import standard_engine
from tests.conftest import ROOT, SHIPPED, write_world
from tests.test_predicates import aec_walk

WORLD_IDS = [p.name for p in SHIPPED]
TURNS = 80
PROBES = 6  # listed lines played on a copy of the state each turn
MINI = ROOT / "tests" / "fixtures" / "mini"


def parsed(line: str, scope) -> Action:
    """The action ``line`` reads as under ``scope`` (a fresh parser: no question pending)."""
    got = Parser().parse(line, scope)
    assert isinstance(got, Command), f"{line!r} does not parse to a command: {got}"
    return got.action


def refusals(events, actor: str = PLAYER) -> list[str]:
    return [e.text for e in events if e.kind == "invalid" and e.actor == actor]


class Walker:
    """A text seat that asks for the commands open to it and answers one of them at random."""

    uses_context = False
    max_repairs = 0
    wants_commands = True

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.seen: list[tuple[str, ...]] = []

    def respond(self, observation, context=None, problem=None) -> str:
        self.seen.append(observation.commands)
        for line in observation.commands:
            parsed(line, observation.scope)
        return self.rng.choice(observation.commands)


@pytest.fixture(scope="module", params=WORLD_IDS)
def world(request):
    return load_world(SHIPPED[WORLD_IDS.index(request.param)])


def test_the_list_opens_with_what_is_always_possible(world):
    commands = standard_engine(world, 0).legal_commands()
    assert commands[:3] == ("wait", "look", "inventory")
    assert any(c.startswith("go ") for c in commands)


def test_a_random_walk_through_the_list_is_never_refused(world):
    """The seat picks from its own list; every line parses (checked in ``respond``) and is played as typed."""
    for seed in (0, 1):
        game, seat = Game(world, seed=seed, facts=False), Walker(seed)
        for _ in range(TURNS):
            if game.engine.done:
                break
            reply = game.play_turn(seat)
            assert reply.kind == "turn" and reply.fallback is None, reply
            assert reply.said in seat.seen[-1] and reply.command == reply.said  # shipped names need no ids
            assert not refusals(reply.events), f"{reply.said!r} refused: {refusals(reply.events)}"
        assert len(seat.seen) > 20


def test_under_the_autopilot_every_listed_command_parses_and_is_accepted(world):
    """At every turn of the autopilot's game, each listed line parses under the scope, and a few of
    them drawn at random are accepted by the rules when played on a copy of the state (a probe engine)."""
    game = Game(world, seed=2, player_kind="autopilot", facts=False)
    probe, rng = standard_engine(world, 2), random.Random(2)
    sizes = []
    for _ in range(TURNS):
        if game.engine.done:
            break
        commands = game.engine.legal_commands()
        sizes.append(len(commands))
        state, scope = game.engine.get_state(), game.engine.scope()
        actions = {line: parsed(line, scope) for line in commands}
        for line in rng.sample(commands, min(PROBES, len(commands))):
            probe.set_state(copy.deepcopy(state))  # set_state keeps references into its argument
            assert not refusals(probe.apply(actions[line])), line
        game.play_turn()
    assert min(sizes) >= 3 and len(sizes) > 20


def test_the_list_and_the_aec_mask_name_the_same_actions(world):
    """For every agent at every step of seeded random AEC walks: the masked-in catalogue entries are
    exactly the actions the listed lines read as."""
    for seed in (5, 6):
        for env, agent in aec_walk(world, seed, steps=120, every=1):
            masked = {env.catalogue(agent)[i] for i in np.flatnonzero(env.action_mask(agent))}
            scope = env.engine.scope(agent)
            listed = [parsed(line, scope) for line in env.engine.legal_commands(agent)]
            assert len(set(listed)) == len(listed) and set(listed) == masked, agent


def test_same_seed_same_lists():
    world = load_world(SHIPPED[WORLD_IDS.index("harbor")])
    runs = []
    for _ in range(2):
        game, seat = Game(world, seed=3, facts=False), Walker(3)
        for _ in range(40):
            game.play_turn(seat)
        runs.append(seat.seen)
    assert runs[0] == runs[1] and len(runs[0]) == 40


def test_lines_use_display_names():
    engine = standard_engine(load_world(SHIPPED[WORLD_IDS.index("harbor")]), 0)
    here = engine.legal_commands()
    npcs = [engine.name(n) for n in engine.spec.npcs if engine.state.where[n] == engine.state.where[PLAYER]]
    assert npcs and all(f"talk {n}" in here for n in npcs)
    assert any(c.startswith(f"ask {npcs[0]} about ") for c in here)


TWINS = """
id = "twins-v1"
title = "Twins"
intro = "Two of everything."
start = "hall"

[player]
name = "Traveller"

[locations.hall]
name = "Hall"
description = "A hall of look-alikes."
items = ["red_key", "blue_key", "lamp", "oil_lamp"]

[items.red_key]
name = "key"
description = "A key."

[items.blue_key]
name = "key"
description = "Another key."

[items.lamp]
name = "lamp"
description = "A lamp."

[items.oil_lamp]
name = "lamp"
description = "Another lamp."

[quests.keys]
title = "Keys"
goal = [{ kind = "has", item = "red_key" }]
"""


def test_a_shared_name_is_typed_by_id_and_an_untypeable_thing_is_left_out(tmp_path):
    """Two keys named "key": each by its id's words. The lamp answers to nothing the oil lamp does not
    also answer to, so no line can name it: it has none (the oil lamp has its id's)."""
    engine = standard_engine(load_world(write_world(tmp_path / "twins", TWINS)), 0)
    assert engine.legal_commands() == (
        "wait",
        "look",
        "inventory",
        "take red key",
        "take blue key",
        "take oil lamp",
        "examine red key",
        "examine blue key",
        "examine oil lamp",
    )
    assert Verb.TAKE in {t.verb for t in engine.catalogue.templates if t.obj == "lamp"}  # in the catalogue


class Plain:
    """A text seat that does not ask for the commands."""

    uses_context = False
    max_repairs = 1

    def __init__(self):
        self.seen: list[tuple[str, ...]] = []

    def respond(self, observation, context=None, problem=None) -> str:
        self.seen.append(observation.commands)
        return "look"


class Fumbler(Walker):
    """Asks for the commands, answers nonsense first, then one of them."""

    max_repairs = 1

    def respond(self, observation, context=None, problem=None) -> str:
        super().respond(observation, context, problem)
        return "xyzzy" if problem is None else "wait"


def test_only_seats_that_ask_get_the_commands(harbor):
    plain = Plain()
    Game(harbor, seed=0, facts=False).play_turn(plain)
    assert plain.seen == [()]
    fumbler = Fumbler(0)
    reply = Game(harbor, seed=0, facts=False).play_turn(fumbler)
    assert reply.said == "wait" and reply.fallback is None
    assert len(fumbler.seen) == 2 and all("wait" in c for c in fumbler.seen)  # the repair is asked with them too


def test_the_commands_leave_the_observation_dict_alone_when_empty(harbor):
    engine = standard_engine(harbor, 0)
    obs = engine.observe(PLAYER)
    assert "commands" not in obs.to_dict()
    filled = dataclasses.replace(obs, commands=engine.legal_commands())
    assert filled.to_dict()["commands"] == list(engine.legal_commands())


def test_a_retry_after_the_parsers_question_is_handed_the_commands_too():
    """With memory on, a reply the parser answers with a question is asked again on a fresh
    observation (focused on the question): that one carries the commands as well."""
    game = Game(MINI, seed=0, memory={"embedder": "hash"}, facts=False)
    replies = iter(["take key", "wait"])
    seen = []

    class Asker:
        uses_context, max_repairs, wants_commands = True, 2, True

        def respond(self, observation, context, problem):
            seen.append(observation)
            return next(replies)

    reply = game.play_turn(Asker())
    assert reply.said == "wait" and reply.fallback is None
    assert [o.decision for o in seen] == [None, "Which key: the iron key or the brass key?"]
    assert seen[1].commands == seen[0].commands and "wait" in seen[0].commands
    assert {"take iron key", "take brass key"} <= set(seen[1].commands)  # each key by a name of its own
