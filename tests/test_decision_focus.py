"""The decision at hand reaches MEMO as the context's focus, whatever the decision: a question put
to the agent (by an NPC, by the parser's clarify question, by the player asking an NPC about a
topic), the council motion, the offer to answer, the open negotiation. The engine names it in
``Observation.decision`` (what the agent could read for itself), and ``GameMemory.context`` hands it
to the optimizer as ``focus``; a memory that matters to the decision but not to the room then ranks
into the context."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import pytest

from game.core.types import PLAYER
from game.play.session import Game
from memory.config import MemoConfig
from memory.records import private
from tests.conftest import ROOT

MINI = ROOT / "tests" / "fixtures" / "mini"
MOTION = "Fill in the old well."


def game_with_spies(budget: int = 400, waits: int = 8, embedder: str = "hash"):
    """A mini game with memory, ``waits`` turns in; ``seen`` records every (agent, observation) the
    engine asks a context for and the focus the optimizer was given. The tests that rank memories
    by meaning use the real MiniLM embedder (hash embeddings only match shared words)."""
    game = Game(MINI, seed=0, memory={"embedder": embedder, "config": MemoConfig(budget=budget)})
    for _ in range(waits):
        game.submit("wait")
    seen: list[tuple[str, object, str | None]] = []
    provider, build = game.engine.context_provider, game.memory.optimizer.build

    def recording(agent, obs):
        seen.append((agent, obs, None))
        return provider(agent, obs)

    recording.prepare_round = getattr(game.memory, "prepare_round", None)

    def spy(agent, turn, query, **kw):
        a, obs, _ = seen[-1]
        assert a == agent
        seen[-1] = (agent, obs, kw.get("focus"))
        return build(agent, turn, query, **kw)

    game.engine.context_provider = recording
    game.memory.optimizer.build = spy
    return game, seen


def listening(game, npc):
    """``npc``'s voice reads a memory context (the scripted voice does not by default)."""
    voice = game.engine.voice(npc)
    voice.uses_context = True
    return voice


def focus_of(seen, agent):
    return [(obs.decision, focus) for a, obs, focus in seen if a == agent]


THINGS = ("cart", "gull", "barrel", "lantern", "rope", "crate", "goat", "bell", "net", "ladder", "sack", "drum")
DOINGS = ("creaks", "rattles", "sways", "rests", "tips over", "gleams", "waits", "rolls")
SHADES = ("red", "grey", "old", "new", "tarred", "wet", "small", "big", "green", "bent", "torn", "dusty")
SPOTS = ("door", "stairs", "window", "hearth", "wall", "bench", "post", "gate")


def ranks_in(game, agent, obs, planted: str) -> tuple[bool, bool]:
    """Plant ``planted`` in ``agent``'s private memory among older memories about the room (each its
    own sentence, two words apart from any other, so none merge or join), then build the context with the observation's decision and
    without it: is ``planted`` in each?"""
    bank, room, old = game.memory.bank, obs.text.split(".")[0], obs.turn - 6
    assert old >= 0, "play a few turns first: the planted memories must be older than 'just now'"
    for k, thing in enumerate(THINGS):
        for d, doing in enumerate(DOINGS[k % 3 : k % 3 + 4], k % 3):
            bank.add(
                private(agent),
                "observation",
                f"In the {room.lower()} a {SHADES[k]} {thing} {doing} by the {SPOTS[d]}.",
                old,
            )
    bank.add(private(agent), "observation", planted, old)
    focused = game.memory.context(agent, obs, touch=False).text()
    plain = game.memory.context(agent, dataclasses.replace(obs, decision=None), touch=False).text()
    return planted in focused, planted in plain


def relevance_of(game, agent, obs, line: str) -> float:
    """The relevance MEMO gives ``line`` in ``agent``'s context for ``obs``."""
    game.memory.context(agent, obs, touch=False)
    return next(r["relevance"] for r in game.memory.optimizer.explain(agent, obs.turn) if r["text"] == line)


@pytest.mark.embeddings
def test_a_question_put_to_an_npc_is_its_focus():
    game, seen = game_with_spies(budget=120, embedder="minilm")
    listening(game, "liar")
    game.submit("ask lou about weather")
    ((decision, focus),) = focus_of(seen, "liar")
    assert decision == focus == "Tester asks you: what do you know about weather?"
    obs = next(o for a, o, _ in seen if a == "liar")
    assert ranks_in(game, "liar", obs, "The almanac says the weather turns to storms by midsummer.") == (True, False)


def test_a_greeting_is_the_npcs_focus():
    game, seen = game_with_spies()
    listening(game, "liar")
    game.submit("talk to lou")
    assert focus_of(seen, "liar") == [("Tester comes to talk with you.",) * 2]


@pytest.mark.embeddings
def test_the_council_motion_is_the_players_focus_and_the_speakers():
    game, seen = game_with_spies(budget=120, embedder="minilm")
    for npc in ("elder", "clerk"):
        listening(game, npc)
    game.submit("west")  # into the hall: the council sits; its members speak at the end of the round
    for npc in ("elder", "clerk"):
        assert focus_of(seen, npc) == [(f"Council debate on the motion: {MOTION}",) * 2]
    obs, ctx = game.engine.turn_inputs(PLAYER)
    assert obs.decision == f"Council vote on the motion: {MOTION}"
    assert seen[-1][2] == obs.decision
    assert ranks_in(game, PLAYER, obs, "Votes on filling the well: the miller will vote against the motion.") == (
        True,
        False,
    )


def test_the_offer_to_answer_is_each_partys_focus():
    game, seen = game_with_spies()
    listening(game, "mara")
    for line in ("north", "trade with mara", "offer 10"):
        game.submit(line)
    haggles = focus_of(seen, "mara")
    assert haggles and all(
        d == f and d.startswith("Negotiating the lamp: standing offer ") and "your move:" in d for d, f in haggles
    )
    obs, _ = game.engine.turn_inputs(PLAYER)
    standing = game.engine.scenes.session("buy_lamp").standing_offer
    assert obs.decision == seen[-1][2] == f"Negotiating the lamp: standing offer {standing}"
    # the merchant's negotiator reads the same offer (engine.context_for, as the scene asks it)
    game.engine.context_for("mara", SimpleNamespace(uses_context=True))
    assert focus_of(seen, "mara")[-1] == (f"Negotiating the lamp: standing offer {standing}",) * 2


@pytest.mark.embeddings
def test_a_question_an_npc_puts_to_the_player_is_its_focus():
    game, seen = game_with_spies(budget=120, embedder="minilm")
    question = 'Lou says: "Have you seen my brass compass anywhere?"'
    game.engine.emit("say", "liar", question, listener=PLAYER, data={"intent": "answer", "claims": []})
    obs, _ = game.engine.turn_inputs(PLAYER)
    assert obs.decision == seen[-1][2] == question
    planted = "A brass compass glinted under the shop counter."
    # the question is also in the situation ("just now"), so the line may rank in without the focus
    # too; with the question as the focus it counts for more
    assert ranks_in(game, PLAYER, obs, planted)[0]
    assert (
        relevance_of(game, PLAYER, obs, planted)
        > relevance_of(game, PLAYER, dataclasses.replace(obs, decision=None), planted) + 0.05
    )


def test_the_parsers_clarify_question_is_the_focus():
    game, seen = game_with_spies()
    question = "Which key do you mean: the iron key or the brass key?"
    obs, _ = game.engine.turn_inputs(PLAYER, question=question)
    assert obs.decision == seen[-1][2] == question


def test_with_nothing_to_decide_there_is_no_focus():
    game, seen = game_with_spies()
    obs, _ = game.engine.turn_inputs(PLAYER)
    assert obs.decision is None and seen[-1][2] is None
    assert "decision" not in obs.to_dict()


@pytest.mark.parametrize("leak", ["reservation", "honesty", "utility", "true", "weights"])
def test_a_decision_names_nothing_hidden(leak):
    """The decision is words the agent could read: never a party's reservation, weights or a truth."""
    game, seen = game_with_spies()
    listening(game, "mara")
    for npc in ("elder", "clerk", "liar"):
        listening(game, npc)
    for line in ("ask lou about gem", "west", "east", "north", "trade with mara", "offer 10", "offer 15"):
        game.submit(line)
    decisions = [obs.decision for _, obs, _ in seen if obs.decision]
    assert len(decisions) >= 4
    assert not any(leak in d.lower() for d in decisions)


def test_a_text_seats_retry_is_focused_on_the_parsers_question():
    """A text seat (an LLM player) whose reply leaves the parser asking gets its retry's memory
    context focused on that question."""
    game, seen = game_with_spies()
    replies = iter(["take key", "wait"])

    class Seat:
        uses_context, max_repairs = True, 2

        def respond(self, observation, context, problem):
            return next(replies)

    game.read_reply(Seat(), *game.engine.turn_inputs(PLAYER))
    assert seen[-1][1].decision == seen[-1][2] == "Which key: the iron key or the brass key?"
