"""The Gymnasium single-agent environment (game.envs.gym_env): checker, ids, masks, seeding, random play."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from tests.conftest import ROOT, warnings_raised

gymnasium = pytest.importorskip("gymnasium")

import game.envs.gym_env as gym_env  # noqa: E402  (after the skip: needs gymnasium)
from game.engine.loop import INVALID_PENALTY  # noqa: E402
from game.envs.gym_env import random_masked_episodes  # noqa: E402
from game.envs.gym_spaces import INFO_KEYS  # noqa: E402

MINI = str(ROOT / "tests" / "fixtures" / "mini")
# (gym id, make kwargs): every shipped world by its own id, and the test fixture through World-v0
WORLDS = {
    "harbor": ("Parley/Harbor-v1", {}),
    "bazaar": ("Parley/Bazaar-v1", {}),
    "council": ("Parley/Council-v1", {}),
    "mini": ("Parley/World-v0", {"world": MINI}),
}


def make(name: str, **kw):
    gid, extra = WORLDS[name]
    return gymnasium.make(gid, **extra, **kw).unwrapped


# --- the checker and the ids -------------------------------------------------------------


@pytest.mark.parametrize("flat", [False, True], ids=["dict", "flat"])
@pytest.mark.parametrize("name", list(WORLDS))
def test_check_env_passes_without_warnings(name, flat):
    from gymnasium.utils.env_checker import check_env

    env = make(name, flat=flat, render_mode="ansi")
    assert warnings_raised(check_env, env) == []
    space = env.observation_space
    assert isinstance(space, gymnasium.spaces.Box if flat else gymnasium.spaces.Dict)


def test_every_shipped_world_is_registered():
    folders = {p.parent.name for p in (ROOT / "worlds").glob("*/world.toml")}
    shipped = gym_env.shipped_worlds()
    assert {f.name for f in shipped.values()} == folders
    assert {"Parley/Harbor-v1", "Parley/Bazaar-v1", "Parley/Council-v1"} <= set(shipped)
    assert set(gym_env.REGISTERED) == {*shipped, "Parley/World-v0"}
    assert gym_env.register_envs() == gym_env.REGISTERED  # idempotent
    env = gymnasium.make("Parley/Harbor-v1")
    assert env.spec.id == "Parley/Harbor-v1" and env.unwrapped.aec.world.id == "harbor-v1"
    assert gymnasium.make("Parley/World-v0", world="bazaar").unwrapped.aec.world.id == "bazaar-v1"
    assert gymnasium.make("Parley/World-v0", world=MINI).unwrapped.aec.world.id == "mini-v1"
    assert gymnasium.make("game.envs.gym_env:Parley/Council-v1").unwrapped.aec.world.id == "council-v1"
    assert gym_env.gym_id("harbor-v1") == "Parley/Harbor-v1" and gym_env.gym_id("my_town") == "Parley/MyTown-v0"


def _run(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_imports_are_lazy_and_the_registration_happens_on_import():
    assert (
        _run(
            "import sys, game, game.envs.aec, game.engine.loop; "
            "print([m for m in ('gymnasium', 'pettingzoo') if m in sys.modules])"
        )
        == "[]"
    )
    assert (
        _run("import gymnasium, game.envs.gym_env; print(gymnasium.make('Parley/Harbor-v1').spec.id)")
        == "Parley/Harbor-v1"
    )


def test_missing_gymnasium_names_the_extra():
    out = _run(
        "import sys; sys.modules['gymnasium'] = None\n"
        "try:\n    import game.envs.gym_env\nexcept ImportError as e:\n    print(e)"
    )
    assert "pip install 'parley-engine[gym]'" in out


# --- masks ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(WORLDS))
def test_every_masked_in_action_is_accepted_and_a_masked_out_one_penalised(name):
    """On states along a random masked game: every action the mask allows steps without an
    invalid penalty (each tried from a saved state); a masked-out one is answered with one."""
    env = make(name, max_turns=25)
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    tried = penalised = 0
    for _ in range(12):
        mask = env.action_masks()
        snap = env.aec.get_state()
        for i in np.flatnonzero(mask):
            _, _, _, _, info = env.step(int(i))
            assert not info["invalid"], f"{name}: masked-in {env.action_label(i)!r} refused"
            env.aec.set_state(snap)
            env._over = False
            tried += 1
        illegal = np.flatnonzero(~mask)
        if illegal.size:
            _, reward, _, _, info = env.step(int(rng.choice(illegal)))
            assert info["invalid"] and reward <= -INVALID_PENALTY + 1e-9
            env.aec.set_state(snap)
            env._over = False
            penalised += 1
        env.step(int(rng.choice(np.flatnonzero(mask))))
    assert tried > 12 and penalised > 0


def test_masks_in_info_flat_vector_and_labels_agree():
    env = make("mini", flat=True)
    obs, info = env.reset(seed=0)
    lay = env.observation_layout
    assert np.array_equal(obs[lay["action_mask"]], env.action_masks().astype(np.float32))
    assert np.array_equal(info["action_mask"], env.action_masks().astype(np.int8))
    assert obs[lay["location"]].sum() == 1 and obs.shape == env.observation_space.shape
    assert env.action_label(0) == "wait" and env.action_space.n == len(env.aec.templates)
    assert set(info) <= INFO_KEYS


def test_invalid_action_types_are_refused():
    env = make("mini")
    env.reset(seed=0)
    with pytest.raises(ValueError):
        env.step(env.action_space.n)
    with pytest.raises(ValueError):
        env.step("north")


# --- seeding, the end, rendering ----------------------------------------------------------------


def _trace(env, seed: int, steps: int):
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    out = [np.asarray(obs).tobytes()]
    for _ in range(steps):
        obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        out.append((np.asarray(obs).tobytes(), r, term, trunc, info["turn"]))
        if term or trunc:
            break
    return out, env.aec.state_hash()


def test_same_seed_same_episode_and_unseeded_resets_are_derived():
    a, b = make("harbor", flat=True), make("harbor", flat=True)
    assert _trace(a, 7, 60) == _trace(b, 7, 60)
    assert _trace(a, 7, 60) == _trace(a, 7, 60)  # a reset replays the episode
    assert _trace(a, 8, 60)[1] != _trace(a, 7, 60)[1]  # the NPCs wander differently
    a.reset(seed=3)
    b.reset(seed=3)
    for env in (a, b):
        env.reset()
    assert a.aec.seed == b.aec.seed != 3


def test_unseeded_envs_draw_different_games_and_a_vector_env_is_not_n_copies():
    """As Gymnasium expects: a first reset without a seed draws one from fresh entropy."""
    seeds = set()
    for _ in range(4):
        env = make("harbor")
        env.reset()
        seeds.add(env.aec.seed)
        first = env.aec.seed
        env.reset()  # later unseeded resets derive from the drawn seed
        assert env.aec.seed != first
    assert len(seeds) == 4
    vec = gymnasium.make_vec("Parley/Harbor-v1", num_envs=3, vectorization_mode="sync", flat=True)
    vec.reset()
    assert len({e.unwrapped.aec.seed for e in vec.envs}) == 3
    vec.close()


def test_turn_limit_truncates_and_the_episode_must_be_reset():
    env = make("mini", max_turns=3, render_mode="ansi")
    env.reset(seed=0)
    results = [env.step(0) for _ in range(3)]
    assert [r[3] for r in results] == [False, False, True] and not any(r[2] for r in results)
    assert results[-1][4]["turn"] == 3
    with pytest.raises(RuntimeError):
        env.step(0)
    env.reset(seed=0, options={"max_turns": 5})
    assert sum(env.step(0)[3] for _ in range(5)) == 1
    assert isinstance(env.render(), str) and env.render().strip()
    assert make("mini").render() is None


# --- random play ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(WORLDS))
def test_a_thousand_random_masked_episodes_of_short_games(name):
    """1,000 episodes over the four worlds (250 each), games capped at 8 turns: every masked
    action accepted. About 1 s per world on an idle core (0.4-0.6 ms a step)."""
    steps, _ = random_masked_episodes(make(name, max_turns=8), 250, seed=1)
    assert steps >= 250


@pytest.mark.parametrize("name", list(WORLDS))
def test_random_masked_episodes_of_full_length(name):
    """Ten full-length episodes per world (to the world's own turn limit). The 1,000-episode
    full-length run is benchmarks/gym_soak.py (about 100 s on an idle core)."""
    steps, _ = random_masked_episodes(make(name), 10, seed=2)
    assert steps >= 10
