"""Agent memory on a real Chroma server (``chroma run``, the session's ``chroma_server``): one
collection per game, so two games on one server never read each other's memories; a saved game
reopens its own collection; ``GameMemory.drop`` removes it; the CLI names the server."""

from __future__ import annotations

import numpy as np
import pytest

from memory.embedder import get_embedder
from memory.store import ChromaStore, FlatStore, game_collection
from tests.conftest import free_port


@pytest.fixture(scope="module")
def server(chroma_server):
    """The ``chroma run`` server of the test session (``tests.conftest.chroma_server``)."""
    return chroma_server


def _play(world, seed: int, memory: dict, moves: list[str]):
    from game.play.session import Game

    game = Game(world, seed=seed, memory=memory)
    for m in moves:
        game.submit(m)
    return game


MOVES_A = ["look", "talk to mara", "ask mara about the spyglass", "north", "look", "south", "inventory"]
MOVES_B = ["inventory", "look", "east", "look", "west", "talk to mara", "look"]


def _top_k(game, agent: str, query: str, k: int = 8) -> list[str]:
    bank = game.memory.bank
    bank.flush()
    return [r.id for r, _ in bank.search(agent, bank.embed([query])[0], k)]


def test_two_games_on_one_server_keep_their_own_memories(server):
    """Two games of one world and seed played side by side on one server: each game's top-k equals
    what the same game gets from its own exact flat store (before, both wrote ids m1, m2, ... into
    the one collection ``parley``, so each game's rows overwrote the other's)."""
    from game.play.session import Game
    from game.play.worlds import load_world
    from memory.config import MemoConfig

    world = load_world("worlds/harbor")
    on_server = {"embedder": "hash", "store": "chroma", "config": MemoConfig(), "store_options": dict(server)}
    flat = {"embedder": "hash", "store": "flat", "config": MemoConfig()}
    games = [Game(world, seed=3, memory=on_server), Game(world, seed=3, memory=on_server)]
    alone = [_play(world, 3, flat, MOVES_A), _play(world, 3, flat, MOVES_B)]
    try:
        for a, b in zip(MOVES_A, MOVES_B):  # interleaved turns, each game writing as it goes
            for game, move in zip(games, (a, b)):
                game.submit(move)
                game.memory.bank.flush()
        for game, ref in zip(games, alone):
            ref.memory.bank.flush()
            assert game.memory.bank.store.count() == game.memory.bank.indexed() == ref.memory.bank.indexed()
            for query in (
                "the spyglass and its price",
                "what is north of here",
                "what am I carrying",
                "who is in the harbormaster's office",
            ):
                for agent in ("player", "dray", "jory"):
                    assert _top_k(game, agent, query) == _top_k(ref, agent, query), (agent, query)
        names = {g.memory.bank.store.name for g in games}
        assert len(names) == 2 and all(n.startswith("parley-harbor-v1-s3-") for n in names)
    finally:
        for g in games:
            g.memory.drop()


def test_saved_game_reopens_its_collection_and_drop_removes_it(server, tmp_path):
    import chromadb
    from chromadb.config import Settings

    from game.play.session import Game
    from game.play.worlds import load_world
    from memory.config import MemoConfig

    world = load_world("worlds/harbor")
    game = _play(
        world,
        5,
        {"embedder": "hash", "store": "chroma", "config": MemoConfig(), "store_options": dict(server)},
        MOVES_A,
    )
    game.memory.bank.flush()
    name, n = game.memory.bank.store.name, game.memory.bank.store.count()
    assert n == game.memory.bank.indexed() > 0
    game.save("on-server", base=tmp_path)
    loaded = Game.load("on-server", base=tmp_path)
    assert loaded.memory.bank.store.name == name
    assert loaded.memory.bank.store.options() == {**server, "collection": name}
    loaded.memory.bank.flush()
    assert loaded.memory.bank.store.count() == n
    client = chromadb.HttpClient(**server, settings=Settings(anonymized_telemetry=False))
    assert name in [c.name for c in client.list_collections()]
    loaded.memory.drop()
    assert name not in [c.name for c in client.list_collections()]


def test_store_level_isolation_and_cosine(server):
    """Two stores with the same ids on one server, each in its game's collection."""
    emb = get_embedder("hash")
    vecs = np.random.default_rng(0).normal(size=(20, emb.dim)).astype(np.float32)
    ids = [f"m{i}" for i in range(20)]
    a = ChromaStore(collection=game_collection("w", 1), embedder=emb, **server)
    b = ChromaStore(collection=game_collection("w", 1), embedder=emb, **server)
    try:
        assert a.name != b.name
        a.add(ids, vecs, [{"scope": "shared"}] * 20)
        b.add(ids, vecs[::-1], [{"scope": "shared"}] * 20)
        ref = FlatStore()
        ref.add(ids, vecs, [{"scope": "shared"}] * 20)
        q = vecs[4] + 0.8 * vecs[9]
        assert [i for i, _ in a.query(q, 5)] == [i for i, _ in ref.query(q, 5)]
        assert np.allclose([s for _, s in a.query(q, 5)], [s for _, s in ref.query(q, 5)], atol=1e-4)
        assert a.count() == b.count() == 20
    finally:
        a.drop()
        b.drop()


def test_collection_names_are_valid_and_unique():
    n1, n2 = game_collection("my world/é", 7), game_collection("my world/é", 7)
    assert n1 != n2 and n1.startswith("parley-my-world-s7-")
    assert game_collection("harbor", 2, "abc-123") == "parley-harbor-s2-abc123"


def test_cli_flags_name_the_server():
    from game.cli.commands import memory_options
    from game.cli.main import build_parser
    from game.core.errors import InputError

    p = build_parser()
    args = p.parse_args(["play", "worlds/harbor", "--chroma-host", "db.local", "--chroma-port", "9001"])
    opts = memory_options(args)
    assert opts["store"] == "chroma" and opts["store_options"] == {"host": "db.local", "port": 9001}
    for bad in (["--chroma-port", "9001"], ["--store", "flat", "--chroma-host", "db.local"]):
        with pytest.raises(InputError):
            memory_options(p.parse_args(["play", "worlds/harbor", *bad]))
    assert "store_options" not in memory_options(p.parse_args(["play", "worlds/harbor", "--store", "chroma"]))
    from game.cli.commands import episode_config
    from game.play.worlds import load_world

    run = p.parse_args(["run", "worlds/harbor", "--autopilot", "--chroma-host", "db.local"])
    mem = episode_config(run, load_world("worlds/harbor")).game.memory
    assert (mem.store, mem.chroma_host, mem.chroma_port) == ("chroma", "db.local", 8000)


def test_unreachable_server_is_an_input_error():
    from game.core.errors import InputError

    with pytest.raises(InputError, match="cannot reach a Chroma server"):
        ChromaStore(collection="parley-x-s0-abc", host="localhost", port=free_port(), embedder="hash")
