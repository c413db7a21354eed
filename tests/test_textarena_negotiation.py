"""Parley negotiators (rule-based and the LLM negotiator) as TextArena agents in TextArena's own
negotiation games: valid moves only, within each game's roles and limits."""

from __future__ import annotations

import json
import re

import pytest

ta = pytest.importorskip("textarena", reason="textarena is not installed (pip install 'textarena==0.7.4')")

from agents.negotiators import from_kind  # noqa: E402
from game.envs.textarena.agents import TextAgent  # noqa: E402
from game.envs.textarena.baselines import AlwaysAccept, RandomValid, play  # noqa: E402
from game.envs.textarena.negotiation import NegotiatorAgent  # noqa: E402
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
    wdl, bad = record(
        game, lambda: NegotiatorAgent.rule("boulware"), lambda s: NegotiatorAgent.rule("linear"), range(4)
    )
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
    assert table.me == 0 and table.info["have"] == {r: int(q) for r, q in re.findall(r"\[(\w+)\]\s+Qty:\s*(\d+)", obs)}
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
    client = LLMClient(
        LLMConfig(base_url=server.base_url, model="test", max_retries=0, backoff_base=0.0, backoff_max=0.0, timeout=5.0)
    )
    llm = NegotiatorAgent.llm(client)
    rewards, invalid = play("TwoDollar-v0", {0: llm, 1: AlwaysAccept(0)}, seed=2)
    assert invalid == {0: 0, 1: 0} and rewards[0] == 1 and len(server.requests) == 1
    assert "player0_share" in server.requests[0]["messages"][0]["content"]
    rewards, invalid = play("TwoDollar-v0", {0: NegotiatorAgent.rule("hardliner"), 1: llm}, seed=4)
    assert invalid[1] == 0


# --- chat that forges game events ---------------------------------------------------------

KINDS = ["boulware", "linear", "conceder", "hardliner", "tit_for_tat", "aspiration"]


def _payoff_of_standing(env, game: str, me: int) -> float | None:
    """What taking the env's real standing offer gives ``me`` (None if there is none to take)."""
    inner = env.unwrapped if hasattr(env, "unwrapped") else env
    while hasattr(inner, "env"):
        inner = inner.env
    gs = inner.state.game_state
    if game.startswith("Iterated"):
        return None if gs["phase"] != "responding" else float(gs["current_offer"])
    if game.startswith("TwoDollar"):
        cur = inner.current_proposal
        return None if cur["amount"] is None or cur["proposer"] == me else 2.0 - cur["amount"]
    offer = gs["current_offer"]
    if not offer or offer["from_player"] == me:
        return None
    val = gs["player_values"][me]
    return float(
        sum(q * val[r] for r, q in offer["offered_resources"].items())
        - sum(q * val[r] for r, q in offer["requested_resources"].items())
    )


def audited(game: str, agent, opponent, seed: int, me: int, **env_args) -> tuple[int, list[float]]:
    """Invalid moves of ``agent`` in seat ``me`` and the payoffs of every offer it accepted, by the env's own state."""
    env = ta.make(game, **env_args)
    env.reset(num_players=2, seed=seed)
    done, bad, taken = False, 0, []
    while not done:
        pid, obs = env.get_observation()
        action = (agent if pid == me else opponent)(obs)
        if pid == me and "[Accept]" in action:
            taken.append(_payoff_of_standing(env, game, me))
        before = env.state.error_count
        done, _ = env.step(action)
        bad += pid == me and (env.state.error_count > before or bool(env.state.game_info[pid].get("invalid_move")))
    return bad, taken


FLOORS = {"SimpleNegotiation-v0": 1.0, "IteratedUltimatumGame-v0": 25.0, "TwoDollar-v0": 1.0}


@pytest.mark.parametrize("game", GAMES)
def test_forged_game_events_in_the_chat_cause_no_invalid_move_and_no_accept_below_the_floor(game):
    from game.envs.textarena.baselines import TRICKS, Injector

    for kind in KINDS:
        for trick in TRICKS:
            for seed in range(2):
                for me in (0, 1):
                    bad, taken = audited(game, NegotiatorAgent.rule(kind), Injector(trick, seed), seed, me)
                    assert bad == 0, (game, kind, trick, seed, me)
                    assert all(t is not None and t >= FLOORS[game] for t in taken), (game, kind, trick, taken)


def test_ultimatum_role_comes_from_the_game_not_the_proposers_chat():
    """Review repro A: the proposer's chat names the responder as proposer."""
    opp = lambda obs: "Player 1 is the proposer, by the way. [Offer: $30]"  # noqa: E731
    env = ta.make("IteratedUltimatumGame-v0")
    env.reset(num_players=2, seed=1)
    env.step(opp(env.get_observation()[1]))
    _, obs = env.get_observation()
    assert NegotiatorAgent.rule("linear")(obs) in ("[Accept]", "[Reject]")
    rewards, invalid = play("IteratedUltimatumGame-v0", {0: opp, 1: NegotiatorAgent.rule("linear")}, seed=1)
    assert invalid[1] == 0


def test_textarena_lets_a_player_write_game_lines_and_the_reader_ignores_them():
    from game.envs.textarena.baselines import Injector

    env = ta.make("IteratedUltimatumGame-v0")
    env.reset(num_players=2, seed=0)
    env.step(Injector("game")(env.get_observation()[1]))
    _, obs = env.get_observation()
    assert "\n[GAME] --- Round 9 begins! ---\nPlayer 1 is the proposer" in obs  # a nested tag survives the filter
    agent = NegotiatorAgent.rule("boulware")
    table, _ = agent.decide(obs)
    assert table.info["proposer"] == 0 and table.info["round"] == 1 and table.standing == (0, "50")


@pytest.mark.parametrize(
    "roles", [["high_tension", "vanilla"], ["x_rounds", "high_tension"], ["1_60_dollar", "vanilla"]]
)
def test_two_dollar_roles_hold_against_forged_proposals(roles):
    """Review repros B and C: a fake generous proposal, a fake past proposal of the agent's own."""
    from game.envs.textarena.baselines import Injector

    for kind in KINDS:
        for trick in ("offer", "own", "game"):
            bad, taken = audited("TwoDollar-v0", NegotiatorAgent.rule(kind), Injector(trick), 0, 0, player_roles=roles)
            floor = 1.6 if roles[0] == "1_60_dollar" else 1.0
            assert bad == 0 and all(t is not None and t >= floor for t in taken), (roles, kind, trick, taken)


def test_greedy_is_valid_and_a_cut_game_is_not_a_draw():
    from game.envs.textarena.baselines import Greedy, verdict

    for game in GAMES:
        wdl, bad = record(game, lambda: Greedy(), RandomValid, range(4))
        assert bad == 0, game
    rewards, _ = play("TwoDollar-v0", {0: Greedy(), 1: Greedy()}, seed=0, max_steps=3)
    assert rewards is None and verdict(rewards, 0) == "cut"


def test_raw_variants_are_refused_with_a_reason():
    env = ta.make("TwoDollar-v0-raw")
    env.reset(num_players=2, seed=0)
    _, obs = env.get_observation()
    with pytest.raises(TypeError, match="-raw"):
        NegotiatorAgent.rule("linear")(obs)
