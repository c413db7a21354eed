"""Parley worlds and scenes as TextArena environments, played through TextArena's own API."""

from __future__ import annotations

import subprocess
import sys

import pytest

ta = pytest.importorskip("textarena", reason="textarena is not installed (pip install 'textarena==0.7.4')")

from game.play.episode import script_lines  # noqa: E402
from tests.conftest import ROOT, SCRIPTS  # noqa: E402


@pytest.fixture(scope="module")
def ids():
    import game.envs.textarena.worlds

    return game.envs.textarena.worlds.ENV_IDS


def play(env_id: str, replies, seed: int = 0, num_players: int = 1):
    env = ta.make(env_id)
    env.reset(num_players=num_players, seed=seed)
    done, seen = False, []
    while not done:
        pid, obs = env.get_observation()
        seen.append(obs)
        done, _ = env.step(next(replies))
    return env, seen, env.close()


def test_registered_ids(ids):
    from textarena.envs.registration import ENV_REGISTRY

    assert ids == ["Parley-Harbor-v1", "Parley-Bazaar-v1", "Parley-Council-v1", "Parley-Negotiation-v0"]
    assert set(ids) <= set(ENV_REGISTRY)
    import game.envs.textarena.worlds

    assert game.envs.textarena.worlds.register() == ids  # idempotent


def test_importing_game_or_the_engine_registers_nothing_and_loads_no_textarena():
    code = (
        "import sys, game, game.engine.loop, game.play.session, game.envs.textarena.agents, game.envs.textarena.negotiation; "
        "print('textarena' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("world", ["harbor", "bazaar", "council"])
def test_a_walkthrough_wins_through_textarena_with_reasoning_before_each_command(ids, world):
    lines = [cmd for _, cmd in script_lines(str(SCRIPTS / f"{world}_win.txt"))]
    styles = [
        "I should look around first, then act. [{}]",
        "Thinking it over...\nAction: {}",
        "{}",
        "Plan: keep going.\n```\n{}\n```",
    ]
    replies = iter([styles[i % len(styles)].format(c) for i, c in enumerate(lines)] + ["wait"] * 50)
    env, seen, (rewards, info) = play(f"Parley-{world.title()}-v1", replies)
    assert rewards == {0: 1.0}, info
    assert "won" in info[0]["reason"] and not info[0]["invalid_move"]
    assert "Reply with one command" in seen[0] and "Next Action" in seen[-1]


def test_a_reply_without_a_command_is_a_penalised_wait_not_inventory(ids):
    env = ta.make("Parley-Harbor-v1")
    env.reset(num_players=1, seed=0)
    env.get_observation()
    env.step("I should look around... take lamp")
    _, obs = env.get_observation()
    game = env.env.game
    assert game.engine.state.invalid["player"] == 1
    assert "no usable command" in obs and "You carry: nothing" in obs
    env.step("Hmm. I will check my pockets.\nAction: inventory")
    assert env.env.game.engine.state.invalid["player"] == 1


def test_the_negotiation_env_reads_moves_with_parleys_parser(ids):
    env = ta.make("Parley-Negotiation-v0")
    env.reset(num_players=2, seed=3)
    pid, obs = env.get_observation()
    assert pid == 0 and "No deal is worth" in obs
    env.step("I accept!")  # nothing to accept yet: TextArena's invalid move, one retry
    assert env.state.error_count == 1
    env.step("Let me open high. [offer i0=v1 i1=v0 i2=v2]")
    pid, obs = env.get_observation()
    assert pid == 1 and "Player 0: offer i0=v1, i1=v0, i2=v2." in obs
    done, _ = env.step("That works for me.\nAction: accept")
    rewards, info = env.close()
    assert done and set(rewards) == {0, 1} and "agreement" in info[0]["reason"]
    u = env.env.utilities
    assert rewards[1] == u["b"]({"i0": "v1", "i1": "v0", "i2": "v2"})


def test_a_scripted_pair_plays_the_parley_negotiation_env_to_the_deadline(ids):
    from game.negotiation.generate import random_scenes

    scene = random_scenes(1, 1)[0]
    offer = "[offer " + " ".join(f"{i}={v[0]}" for i, v in scene.issues.items()) + "]"
    replies = iter([offer, "No. [reject]"] * scene.deadline)
    env, seen, (rewards, info) = play("Parley-Negotiation-v0", replies, seed=1, num_players=2)
    assert "no agreement" in info[0]["reason"]
    assert rewards == {p: env.env.utilities[party].reservation for p, party in enumerate("ab")}


def test_the_world_prompt_advertises_no_console_commands(ids):
    env = ta.make("Parley-Harbor-v1")
    env.reset(num_players=1, seed=0)
    _, obs = env.get_observation()
    assert "save [name]" not in obs and "quit (q)" not in obs and "inventory (i)" in obs
