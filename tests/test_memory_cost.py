"""Memory's cost per turn: one embedder batch per round. Everything written since the last read and
every query and focus text of the round go through the embedder in one call
(``GameMemory.prepare_round``, which the engine calls once per round), and batching changes no
context: the same seed gives the same contexts and the same transcript with it on or off."""

from __future__ import annotations

from collections import Counter

import pytest

from game.play.config import GameConfig
from game.play.session import Game
from memory.embedder import get_embedder
from tests.conftest import WORLDS

pytestmark = pytest.mark.embeddings
ROUNDS = 24


class Counting:
    """The real MiniLM embedder, counting its calls per game turn."""

    def __init__(self):
        self.real = get_embedder("minilm")
        self.name, self.dim = "minilm", self.real.dim
        self.turn = lambda: -1
        self.calls: list[tuple[int, int]] = []  # (turn, texts)

    def __call__(self, texts):
        self.calls.append((self.turn(), len(texts)))
        return self.real(texts)


def play(batching: bool = True, rounds: int = ROUNDS, seed: int = 3):
    """Harbor with the autopilot and MiniLM memory (the embedder passed as a memory option, as
    ``game.play.compose`` takes it); the world-fact gate is off (it embeds claims on its own)."""
    emb = Counting()
    game = Game(
        WORLDS / "harbor",
        config=GameConfig(world=str(WORLDS / "harbor"), seed=seed, player="autopilot", facts=False),
        memory={"embedder": emb},
    )
    emb.turn = lambda: game.engine.state.turn
    game.memory.batching = batching
    contexts: list[tuple[int, str, str]] = []
    provider = game.engine.context_provider

    def recording(agent, obs):
        ctx = provider(agent, obs)
        contexts.append((obs.turn, agent, ctx.text()))
        return ctx

    recording.prepare_round = getattr(game.memory, "prepare_round", None)
    game.engine.context_provider = recording
    while not game.engine.done and game.engine.state.turn < rounds:
        game.play_turn()
    return game, emb, contexts


def test_one_embedder_call_per_round_and_the_same_contexts_as_without_batching():
    game, emb, contexts = play()
    per_round = Counter(t for t, _ in emb.calls)
    assert len(contexts) >= ROUNDS - 1 and per_round  # a context every round, and texts embedded
    assert max(per_round.values()) == 1, sorted(per_round.items())
    # without batching each context embeds its queries and the pending writes in separate calls
    plain, emb_plain, contexts_plain = play(batching=False)
    assert max(Counter(t for t, _ in emb_plain.calls).values()) >= 2
    assert contexts == contexts_plain
    assert game.transcript.records == plain.transcript.records


def test_round_batches_hold_the_writes_and_the_queries():
    """A round's one call embeds the writes since the last read and the round's query and focus."""
    game, emb, _ = play(rounds=8)
    assert emb.calls and all(n >= 2 for t, n in emb.calls if t > 0)  # the query and at least one new event
