"""Parley negotiators (rule-based and the LLM negotiator) as TextArena agents in TextArena's own
negotiation games: valid moves only, within each game's roles and limits."""

from __future__ import annotations

import json
import re

import pytest

ta = pytest.importorskip("textarena", reason="textarena is not installed (pip install 'textarena==0.7.4')")

from agents.negotiators import from_kind  # noqa: E402
from agents.textarena import TextAgent  # noqa: E402
from agents.textarena_baselines import AlwaysAccept, RandomValid, play  # noqa: E402
from agents.textarena_negotiation import NegotiatorAgent  # noqa: E402
from game.negotiation.generate import random_scenes  # noqa: E402
from game.negotiation.utility import utilities_for  # noqa: E402

GAMES = ["SimpleNegotiation-v0", "IteratedUltimatumGame-v0", "TwoDollar-v0"]


def record(game: str, agent, opponent, seeds) -> tuple[dict[str, int], int]:
    out, bad = {"W": 0, "D": 0, "L": 0}, 0
    for seed in seeds:
        me = seed % 2
        rewards, invalid = play(game, {me: agent(), 1 - me: opponent(seed)}, seed)
        out["W" if rewards[me] > rewards[1 - me] else "L" if rewards[me] < rewards[1 - me] else "D"] += 1
        bad += invalid[me]
    return out, bad


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("kind", ["boulware", "conceder", "tit_for_tat", "aspiration", "hardliner"])
def test_rule_negotiators_make_no_invalid_moves_and_beat_a_random_player(game, kind):
    wdl, bad = record(game, lambda: NegotiatorAgent.rule(kind), RandomValid, range(6))
    assert bad == 0 and wdl["L"] == 0 and wdl["W"] >= 3, wdl


@pytest.mark.parametrize("game", GAMES)
def test_negotiators_facing_each_other_stay_valid(game):
    wdl, bad = record(game, lambda: NegotiatorAgent.rule("boulware"), lambda s: NegotiatorAgent.rule("linear"), range(4))
    assert bad == 0 and sum(wdl.values()) == 4


@pytest.mark.parametrize("game", GAMES)
def test_the_simple_baselines_are_valid_too(game):
    wdl, bad = record(game, lambda: AlwaysAccept(7), RandomValid, range(4))
    assert bad == 0


def test_two_dollar_roles_are_respected():
    """high_tension concedes at most a cent per proposal; x_rounds never lets its own proposal be
    taken (only its acceptance counts) and say_little says nothing but the move."""
    for roles in (["high_tension", "x_rounds"], ["x_rounds", "high_tension"], ["say_little", "1_60_dollar"]):
        env = ta.make("TwoDollar-v0", player_roles=roles)
        env.reset(num_players=2, seed=0)
        agents = {0: NegotiatorAgent.rule("conceder"), 1: NegotiatorAgent.rule("conceder")}
        done, said = False, {0: [], 1: []}
        while not done:
            pid, obs = env.get_observation()
            action = agents[pid](obs)
            said[pid].append(action)
            before = env.state.error_count
            done, _ = env.step(action)
            assert env.state.error_count == before == 0, (roles, pid, action)
        for pid, role in enumerate(roles):
            asks = [float(m) for a in said[pid] for m in re.findall(r"\[Propose\] \$(\d+\.\d\d)", a)]
            if role == "high_tension":
                assert all(a - b <= 0.0100001 for a, b in zip(asks, asks[1:])), asks
            if role == "x_rounds":
                assert set(asks) <= {2.0}, asks
            if role == "say_little":
                assert all(a.startswith("[") for a in said[pid])


def test_the_adapter_reads_only_its_own_text():
    """The same observation text gives the same move: nothing but the string is read."""
    env = ta.make("SimpleNegotiation-v0")
    env.reset(num_players=2, seed=5)
    pid, obs = env.get_observation()
    agent = NegotiatorAgent.rule("boulware")
    table, move = agent.decide(obs)
    assert table.me == 0 and table.info["have"] == {
        r: int(q) for r, q in re.findall(r"\[(\w+)\]\s+Qty:\s*(\d+)", obs)}
    assert agent(obs) == agent(obs) and agent(obs).startswith("[Offer: ")
    with pytest.raises(ValueError, match="not an observation of a TextArena negotiation game"):
        agent("You are in a dark room.")


def test_text_agent_of_a_negotiator_plays_textarena_games():
    u = utilities_for(random_scenes(1, 0)[0])["a"]
    agent = TextAgent(from_kind("boulware", u))
    for game in GAMES:
        wdl, bad = record(game, lambda: agent, AlwaysAccept, range(2))
        assert bad == 0 and wdl["L"] == 0, (game, wdl)
    with pytest.raises(TypeError, match="Parley agent .* or a negotiator"):
        TextAgent(object())


def test_the_llm_negotiator_as_a_textarena_agent(serve):
    from agents.llm.client import LLMClient
    from agents.llm.config import LLMConfig

    def responder(body):
        user = body["messages"][-1]["content"]
        if "Legal moves now: offer, accept" in user:
            return json.dumps({"action": "accept", "offer": None, "message": "Deal [Reject] noise."})
        return json.dumps({"action": "offer", "offer": {"player0_share": "1.40"}, "message": "I need this."})
    server = serve(responder=responder)
    client = LLMClient(LLMConfig(base_url=server.base_url, model="test", max_retries=0, backoff_base=0.0,
                                 backoff_max=0.0, timeout=5.0))
    llm = NegotiatorAgent.llm(client)
    rewards, invalid = play("TwoDollar-v0", {0: llm, 1: AlwaysAccept(0)}, seed=2)
    assert invalid == {0: 0, 1: 0} and rewards[0] == 1 and len(server.requests) == 1
    assert "player0_share" in server.requests[0]["messages"][0]["content"]
    rewards, invalid = play("TwoDollar-v0", {0: NegotiatorAgent.rule("hardliner"), 1: llm}, seed=4)
    assert invalid[1] == 0
