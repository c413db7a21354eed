"""PettingZoo: the AEC env's names and warnings, the parallel env (game.envs.pettingzoo_parallel), and
the guard that no adapter shows an agent anything hidden. (The AEC env's own tests: test_aec.py.)"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tests.conftest import ROOT, warnings_raised

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")
# importing pettingzoo.test loads PettingZoo's own deprecated-module shims; not this project's warning
pytestmark = pytest.mark.filterwarnings("ignore:The old environment creation API:DeprecationWarning")

import game.envs.pettingzoo_env as pz  # noqa: E402  (after the skips)
from game.envs.aec import ParleyAEC  # noqa: E402
from game.envs.gym_spaces import INFO_KEYS, info_for, observation  # noqa: E402
from game.play.worlds import load_world  # noqa: E402

WORLDS = {
    "harbor": ROOT / "worlds" / "harbor",
    "bazaar": ROOT / "worlds" / "bazaar",
    "council": ROOT / "worlds" / "council",
    "mini": ROOT / "tests" / "fixtures" / "mini",
}
DICT_OBS_WARNINGS = {
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
}


def caught(fn, *args, **kw) -> set[str]:
    return set(warnings_raised(fn, *args, **kw))


# --- the AEC env: names and warnings -------------------------------------------------------


@pytest.mark.parametrize("name", list(WORLDS))
def test_api_test_passes_without_warnings_with_flat_observations(name):
    from pettingzoo.test import api_test

    assert caught(api_test, pz.env(WORLDS[name], flat=True), num_cycles=200) == set()
    assert caught(api_test, pz.env(WORLDS[name], flat=True, max_turns=4), num_cycles=200) == set()


@pytest.mark.parametrize("name", ["mini", "council"])
def test_dict_observations_keep_only_pettingzoos_dict_warnings(name):
    """api_test warns on every dict observation ("not a NumPy array"; its exemption list names only
    PettingZoo's own games). The dict is PettingZoo's action-mask convention, so it stays the
    default; ``flat=True`` is the warning-free form. The agent-name warning is gone."""
    from pettingzoo.test import api_test

    assert caught(api_test, pz.env(WORLDS[name]), num_cycles=100) <= DICT_OBS_WARNINGS


def test_agents_are_seats_mapped_to_parley_ids():
    e = pz.raw_env(WORLDS["mini"])
    assert e.possible_agents == ["player_0", "npc_0", "npc_1", "npc_2", "npc_3"]
    assert e.parley_ids == {"player_0": "player", "npc_0": "mara", "npc_1": "liar", "npc_2": "elder", "npc_3": "clerk"}
    assert e.seats == {v: k for k, v in e.parley_ids.items()} and e.parley_id("npc_0") == "mara"
    e.reset(seed=0)
    assert e.agent_selection == "player_0" and set(e.infos) == set(e.possible_agents)
    e.step(0)
    assert e.agent_selection == "npc_0"
    wrapped = pz.env(WORLDS["mini"])
    assert wrapped.unwrapped.parley_ids["npc_1"] == "liar"
    old = pz.raw_env(WORLDS["mini"], agent_names="parley")  # the names before the rename
    assert old.possible_agents == ["player", "mara", "liar", "elder", "clerk"]
    with pytest.raises(ValueError):
        pz.raw_env(WORLDS["mini"], agent_names="numbers")


def test_flat_observation_is_the_vector_then_the_mask():
    e = pz.raw_env(WORLDS["mini"], flat=True)
    e.reset(seed=1)
    for agent in e.possible_agents:
        obs, pid = e.observe(agent), e.parley_id(agent)
        assert e.observation_space(agent).contains(obs)
        assert np.array_equal(obs[e.observation_layout["action_mask"]], e.aec.action_mask(pid))
        assert np.array_equal(obs[: e.aec.observation_size], e.aec.observe(pid))
        assert np.array_equal(e.infos[agent]["action_mask"], e.aec.action_mask(pid))


# --- the parallel env ------------------------------------------------------------------------


@pytest.mark.parametrize("flat", [False, True], ids=["dict", "flat"])
@pytest.mark.parametrize("name", list(WORLDS))
def test_parallel_api_and_seed_tests(name, flat):
    from pettingzoo.test import parallel_api_test, parallel_seed_test

    world = load_world(WORLDS[name])
    assert caught(parallel_api_test, pz.parallel_env(world, flat=flat), num_cycles=200) == set()
    assert caught(parallel_api_test, pz.parallel_env(world, flat=flat, max_turns=4), num_cycles=200) == set()
    parallel_seed_test(lambda: pz.parallel_env(world, flat=flat), num_cycles=50)
    parallel_seed_test(lambda: pz.parallel_env(world, flat=flat, npc_agents=True), num_cycles=50)


def test_a_parallel_step_is_one_round_resolved_in_the_engines_order():
    env = pz.parallel_env(WORLDS["council"], max_turns=6, render_mode="ansi")
    obs, infos = env.reset(seed=3)
    assert set(obs) == set(infos) == set(env.agents) == set(env.possible_agents)
    rng = np.random.default_rng(3)
    turn, rounds = env.aec.engine.state.turn, 0
    while env.agents:
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        invalid_before = dict(env.aec.engine.state.invalid)
        obs, rewards, terms, truncs, infos = env.step(actions)
        rounds += 1
        assert env.aec.engine.state.turn == turn + rounds
        # the player is resolved first, so its masked action is never refused
        assert env.aec.engine.state.invalid.get("player", 0) == invalid_before.get("player", 0)
        assert set(rewards) == set(obs) == set(terms) == set(truncs) == set(infos)
        assert all(set(i) <= INFO_KEYS for i in infos.values())
    assert rounds == 6 and all(truncs.values()) and not any(terms.values())
    assert isinstance(env.render(), str)
    with pytest.raises(RuntimeError):
        env.step({})


def test_a_game_won_part_way_through_a_round_ends_it_for_everyone(demo_world):
    """The scaffold world is won by taking the lamp in the yard: the NPC after the player does not act."""
    env = pz.parallel_env(demo_world)
    env.reset(seed=0)
    aec = env.aec
    north = next(i for i, t in enumerate(aec.templates) if t.label() == "go north")
    take = next(i for i, t in enumerate(aec.templates) if t.label() == "take lamp")
    env.step({"player_0": north})
    assert env.agents == ["player_0", "npc_0"]
    obs, rewards, terms, truncs, infos = env.step({"player_0": take, "npc_0": 0})
    assert env.agents == [] and all(terms.values()) and not any(truncs.values())
    assert rewards["player_0"] > 0 and infos["player_0"]["won"] is True
    env.reset(seed=0)
    with pytest.raises(ValueError):
        env.step({"nobody": 0})


# --- the guard: nothing hidden reaches an observation or an info ---------------------------------


def _hidden_twin(world):
    """The same world with everything a player cannot see changed: NPC honesty, wants and
    knowledge, the truth of every fact, every NPC party's reservation, every council member's stance
    and what persuades it."""
    spec = world.spec
    npcs = {
        k: n.model_copy(
            update={
                "honesty": n.honesty.model_copy(update={"default": 1.0 - n.honesty.default, "topics": {}}),
                "wants": {},
                "knowledge": [],
            }
        )
        for k, n in spec.npcs.items()
    }
    facts = {k: f.model_copy(update={"true": not f.true}) for k, f in spec.facts.items()}
    scenes = {}
    for sid, sc in spec.scenes.items():
        if sc.type == "negotiation":
            parties = [
                p if p.id == "player" else p.model_copy(update={"reservation": 1.0 - p.reservation}) for p in sc.parties
            ]
            scenes[sid] = sc.model_copy(update={"parties": parties})
        else:
            flip = {"for": "against", "against": "undecided", "undecided": "for"}
            members = [m.model_copy(update={"stance": flip[m.stance], "persuaded_by": []}) for m in sc.participants]
            scenes[sid] = sc.model_copy(update={"participants": members})
    twin = spec.model_copy(update={"npcs": npcs, "facts": facts, "scenes": scenes})
    return dataclasses.replace(world, spec=twin)


@pytest.mark.parametrize("flat", [False, True], ids=["dict", "flat"])
@pytest.mark.parametrize("name", list(WORLDS))
def test_observations_and_infos_depend_on_nothing_hidden(name, flat):
    """Along a random game, every agent's observation, mask and info are the same in a twin world
    whose hidden values all differ (same engine state): the Gym, AEC and parallel envs all build
    theirs with ``game.envs.gym_spaces.observation``/``info_for``, checked here, and no info carries a
    key beyond the mask, the turn, the player's own score, the win and the invalid flag."""
    world = load_world(WORLDS[name])
    real, twin = ParleyAEC(world, max_turns=80), ParleyAEC(_hidden_twin(world), max_turns=80)
    assert twin.spec.facts == {} or twin.spec.facts != world.spec.facts
    real.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(120):
        if not real.agents:
            break
        twin.set_state(real.get_state())
        for a in real.agents:
            o1, o2 = observation(real, a, flat), observation(twin, a, flat)
            if flat:
                assert np.array_equal(o1, o2), f"{name}: {a}'s observation shows hidden state"
            else:
                assert all(np.array_equal(o1[k], o2[k]) for k in o1), f"{name}: {a}'s observation shows hidden state"
            i1, i2 = info_for(real, a), info_for(twin, a)
            assert set(i1) <= INFO_KEYS and i1.keys() == i2.keys()
            assert all(np.array_equal(i1[k], i2[k]) for k in i1)
        agent = real.agent_selection
        if real.terminations[agent] or real.truncations[agent]:
            real.step(None)
        else:
            real.step(int(rng.choice(np.flatnonzero(real.action_mask(agent)))))


def test_the_guard_is_not_vacuous(monkeypatch):
    """An observation that read an NPC's honesty would differ between the twins."""
    world = load_world(WORLDS["mini"])
    real, twin = ParleyAEC(world), ParleyAEC(_hidden_twin(world))
    twin.set_state(real.get_state())
    assert np.array_equal(observation(real, "player", True), observation(twin, "player", True))
    honest = ParleyAEC.observe
    monkeypatch.setattr(
        ParleyAEC,
        "observe",
        lambda self, agent: np.append(honest(self, agent), np.float32(self.spec.npcs["liar"].honesty.default)),
    )
    assert not np.array_equal(observation(real, "player", True), observation(twin, "player", True))


def test_a_bad_action_in_a_parallel_round_is_refused_before_anyone_acts():
    from game.envs.pettingzoo_env import parallel_env

    pe = parallel_env("council-v1")
    obs, _ = pe.reset(seed=0)
    turn = pe.aec.engine.state.turn
    with pytest.raises(ValueError, match="not an index"):
        pe.step({"player_0": 1, "npc_3": 10**6})
    assert pe.aec.engine.state.turn == turn and pe.aec.agent_selection == "player"  # nothing was played
    legal = {a: int(np.flatnonzero(obs[a]["action_mask"])[0]) for a in pe.agents}
    pe.step(legal)  # and the env goes on
    assert pe.aec.engine.state.turn == turn + 1
