"""The AEC environment (game.envs.aec) and its PettingZoo adapter (game.envs.pettingzoo_env)."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

from game.core.types import PLAYER, Action, Observation, Verb
from game.engine.catalogue import build_templates, scene_outcomes, tradeable_scenes
from game.engine.loop import INVALID_PENALTY
from game.envs.aec import ParleyAEC
from game.play.worlds import load_world
from game.world.scaffold import scaffold_text

ROOT = Path(__file__).resolve().parents[1]
REAL_WORLDS = sorted(p.parent.name for p in (ROOT / "worlds").glob("*/world.toml"))


@pytest.fixture(scope="module")
def small_world(tmp_path_factory):
    """The scaffolded starter world: gate -(north)- yard; the keeper at the gate; the lamp in the yard."""
    folder = tmp_path_factory.mktemp("worlds") / "testland"
    folder.mkdir()
    (folder / "world.toml").write_text(scaffold_text("testland"), encoding="utf-8")
    return load_world(folder)


MARKET_FILES = {
    "items/rope.toml": 'name = "coil of rope"\naliases = ["rope"]\nvalue = 4\n',
    "npcs/trader.toml": """
name = "the Trader"
aliases = ["trader"]
location = "gate"
inventory = ["rope"]
trade = "rope_deal"
""",
    "scenes/rope_deal.toml": """
type = "negotiation"
title = "a coil of rope"
issues = { price = ["2", "5", "12"] }
deadline = 4
first = "player"
trade = { item = "rope", seller = "trader", price_issue = "price" }

[[parties]]
id = "trader"
weights = { price = 1.0 }
values = { price = { "2" = 0.0, "5" = 0.6, "12" = 1.0 } }
reservation = 0.5

[[parties]]
id = "player"
weights = { price = 1.0 }
values = { price = { "2" = 1.0, "5" = 0.5, "12" = 0.0 } }
""",
    "scenes/moot.toml": """
type = "council"
title = "the gate moot"
motion = "Close the gate at night."
location = "gate"

[[participants]]
id = "player"

[[participants]]
id = "keeper"
stance = "for"
""",
}


@pytest.fixture(scope="module")
def market_world(tmp_path_factory):
    """The starter world plus a trader who haggles over a rope, and a council at the gate."""
    folder = tmp_path_factory.mktemp("worlds") / "market"
    folder.mkdir()
    (folder / "world.toml").write_text(scaffold_text("market"), encoding="utf-8")
    for rel, text in MARKET_FILES.items():
        (folder / rel).parent.mkdir(exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return load_world(folder)


def real_world(name: str):
    folder = ROOT / "worlds" / name
    if not (folder / "world.toml").is_file():
        pytest.skip(f"world {name} is absent")
    return load_world(folder)


def idx(env: ParleyAEC, verb: Verb, obj=None, target=None, text=None, terms=None) -> int:
    return env.action_index(Action(PLAYER, verb, obj=obj, target=target, text=text, terms=terms))


def go_labels(env: ParleyAEC, mask: np.ndarray) -> set[str]:
    return {env.templates[i].obj for i in np.flatnonzero(mask) if env.templates[i].verb is Verb.GO}


def play_random(env: ParleyAEC, seed: int, steps: int, masked: bool = True):
    """Step with actions sampled (from the mask, or uniformly) by a seeded RNG; record what is seen."""
    rng = np.random.default_rng(seed)
    trace = []
    for _ in range(steps):
        if not env.agents:
            break
        agent = env.agent_selection
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            action = None
        elif masked:
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        else:
            action = int(rng.integers(env.num_actions(agent)))
        trace.append((agent, obs.tobytes(), reward, term, trunc, action))
        env.step(action)
    return trace


# --- catalogue, observation, mask ------------------------------------------------


def test_catalogue_is_fixed_and_bound_to_the_actor(small_world):
    env = ParleyAEC(small_world)
    assert env.possible_agents == ["player", "keeper"]
    assert env.agents == ["player", "keeper"] and env.agent_selection == "player"
    labels = [env.action_label(i) for i in range(env.num_actions())]
    assert labels[:3] == ["wait", "look", "inventory"]
    for want in (
        "go north",
        "go south",
        "take lamp",
        "drop lamp",
        "examine keeper",
        "talk keeper",
        "give lamp to keeper",
        "ask keeper about lamp",
        "accept",
        "vote yes",
        "vote no",
    ):
        assert want in labels
    assert labels == [t.label() for t in build_templates(small_world.spec)]
    assert ParleyAEC(small_world).templates == env.templates  # deterministic order
    for agent in env.possible_agents:
        cat = env.catalogue(agent)
        assert len(cat) == env.num_actions(agent)
        assert all(a.actor == agent for a in cat)


def test_offer_actions_cover_every_outcome_of_tradeable_scenes():
    world = real_world("harbor")
    env = ParleyAEC(world)
    offers = [t for t in env.templates if t.verb is Verb.OFFER]
    expected = [o for sid in tradeable_scenes(world.spec) for o in scene_outcomes(world.spec.scenes[sid])]
    assert [t.terms for t in offers] == expected
    assert offers, "harbor has a tradeable negotiation"


def test_observation_vector(small_world):
    env = ParleyAEC(small_world)
    obs = env.observe("player")
    assert obs.dtype == np.float32 and obs.shape == (env.observation_size,)
    assert obs.min() >= 0.0 and obs.max() <= 1.0
    lay = env.observation_layout
    locs = list(small_world.spec.locations)
    assert obs[lay["location"]].tolist() == [1.0 if loc == "gate" else 0.0 for loc in locs]
    assert obs[lay["carried"]].sum() == 0
    assert obs[lay["present"]].tolist() == [0.0, 1.0]  # the keeper is here, the player is me
    assert obs[lay["self"]].tolist() == [1.0, 0.0]
    assert obs[lay["gold"]][0] == pytest.approx(0.10)  # 10 gold / 100
    assert obs[lay["quests"]].tolist() == [0.0]
    text = env.observe_text("player")
    assert isinstance(text, Observation) and text.location == "gate"
    assert "Gate" in env.render()
    st = env.state()
    assert st.dtype == np.float32 and st.shape == (env.state_size,) and 0 <= st.min() <= st.max() <= 1
    assert np.array_equal(env.infos["player"]["action_mask"], env.action_mask("player"))


def test_action_mask_marks_the_exits_here(small_world):
    env = ParleyAEC(small_world)
    mask = env.action_mask("player")
    assert mask.dtype == np.int8 and set(np.unique(mask)) <= {0, 1}
    assert mask[idx(env, Verb.WAIT)] == 1
    assert go_labels(env, mask) == {"north"}
    assert mask[idx(env, Verb.TALK, "keeper")] == 1  # the keeper is at the gate
    assert mask[idx(env, Verb.TAKE, "lamp")] == 0  # the lamp is in the yard
    assert mask[idx(env, Verb.ACCEPT)] == 0  # no negotiation open
    env.step(idx(env, Verb.GO, "north"))
    env.step(idx(env, Verb.WAIT))  # the keeper's turn
    mask = env.action_mask("player")
    assert go_labels(env, mask) == {"south"}
    assert mask[idx(env, Verb.TAKE, "lamp")] == 1
    assert mask[idx(env, Verb.TALK, "keeper")] == 0  # left behind at the gate
    assert go_labels(env, env.action_mask("keeper")) == {"north"}


def test_negotiation_and_vote_masks(market_world):
    env = ParleyAEC(market_world)
    assert env.possible_agents == ["player", "keeper", "trader"]
    offers = {t.terms: i for i, t in enumerate(env.templates) if t.verb is Verb.OFFER}
    assert set(offers) == {(("price", p),) for p in ("2", "5", "12")}
    trade, accept = idx(env, Verb.TRADE, "trader"), idx(env, Verb.ACCEPT)
    walk, yes, no = idx(env, Verb.WALK_AWAY), idx(env, Verb.VOTE, text="yes"), idx(env, Verb.VOTE, text="no")
    m = env.action_mask("player")
    assert m[trade] == 1 and m[idx(env, Verb.TRADE, "keeper")] == 0  # the keeper does not trade
    assert not any(m[i] for i in offers.values()) and m[accept] == m[walk] == 0
    assert m[yes] == m[no] == 1  # the moot sits at the gate
    assert env.action_mask("keeper")[yes] == 1  # a participant
    assert env.action_mask("trader")[yes] == 0  # not a participant
    env.step(trade)
    assert env.engine.state.active_scene == "rope_deal"
    m = env.action_mask("player")
    assert m[offers[(("price", "2"),)]] == m[offers[(("price", "5"),)]] == 1
    assert m[offers[(("price", "12"),)]] == 0  # 10 gold cannot pay 12
    assert m[walk] == 1 and m[accept] == 0 and m[trade] == 0  # nothing to accept yet
    assert env.observe("player")[env.observation_layout["negotiation"]][0] == 1.0
    assert env.observe("trader")[env.observation_layout["negotiation"]][0] == 1.0
    assert env.observe("keeper")[env.observation_layout["negotiation"]][0] == 0.0
    for npc in ("keeper", "trader"):  # only the player haggles here
        nm = env.action_mask(npc)
        assert nm[walk] == nm[accept] == nm[trade] == 0 and not any(nm[i] for i in offers.values())
    env.step(idx(env, Verb.WAIT))
    env.step(idx(env, Verb.WAIT))
    env.step(offers[(("price", "5"),)])  # the trader answers at once
    st = env.engine.state
    session = env.engine.scenes.session("rope_deal")
    m = env.action_mask("player")
    if st.active_scene is None:
        assert session.status != "open" and m[walk] == 0
    else:
        legal = set(session.legal_moves("player"))
        assert bool(m[walk]) == ("walk_away" in legal)
        assert bool(m[accept]) == ("accept" in legal and int(session.standing_offer["price"]) <= 10)
    env.step(idx(env, Verb.WAIT))
    env.step(idx(env, Verb.WAIT))
    assert env.agent_selection == "player"
    env.step(idx(env, Verb.GO, "north"))  # leaving the moot
    assert env.action_mask("player")[yes] == 0


def test_masked_out_action_is_penalised_not_fatal(small_world):
    env = ParleyAEC(small_world)
    south = idx(env, Verb.GO, "south")
    assert env.action_mask("player")[south] == 0
    before = env.engine.state.where["player"]
    env.step(south)
    assert env.rewards["player"] == pytest.approx(-INVALID_PENALTY)
    assert env.engine.state.where["player"] == before
    assert env.engine.state.invalid["player"] == 1
    env.step(idx(env, Verb.WAIT))  # keeper
    _, reward, term, trunc, _ = env.last()
    assert env.agent_selection == "player" and reward == pytest.approx(-INVALID_PENALTY)
    assert not term and not trunc


def test_every_action_for_every_agent_never_crashes(small_world):
    env = ParleyAEC(small_world)
    for i in range(env.num_actions()):
        for _ in env.possible_agents:
            if not env.agents:
                env.reset(seed=i)
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            env.step(i)
    with pytest.raises(ValueError):
        ParleyAEC(small_world).step(10_000)


def masked_actions_are_accepted(env: ParleyAEC, seed: int, steps: int) -> int:
    """Every action the mask allows is one the engine accepts (probed on a saved state).

    Plays ``steps`` steps with masked random actions, starting a new episode when one ends.
    """
    rng = np.random.default_rng(seed)
    probed = 0
    for _ in range(steps):
        if not env.agents:
            env.reset(seed=int(rng.integers(1 << 16)))
        eng = env.engine
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        mask = env.action_mask(agent)
        saved = eng.get_state()
        for i in np.flatnonzero(mask):
            events = eng.apply(env.catalogue(agent)[i])
            bad = [e.text for e in events if e.kind == "invalid" and e.actor == agent]
            assert not bad, f"{agent}: masked-in {env.action_label(i)!r} refused: {bad}"
            eng.set_state(copy.deepcopy(saved))  # Engine.set_state keeps references into its argument
            probed += 1
        env.step(int(rng.choice(np.flatnonzero(mask))))
    return probed


@pytest.mark.parametrize("fixture", ["small_world", "market_world"])
def test_masked_in_actions_are_legal(fixture, request):
    env = ParleyAEC(request.getfixturevalue(fixture))
    assert masked_actions_are_accepted(env, seed=1, steps=200) > 300


# --- determinism and persistence ---------------------------------------------------


def test_same_seed_same_actions_same_game(small_world):
    a, b = ParleyAEC(small_world), ParleyAEC(small_world)
    a.reset(seed=7)
    b.reset(seed=7)
    ta, tb = play_random(a, 3, 120, masked=False), play_random(b, 3, 120, masked=False)
    assert ta == tb
    assert a.state_hash() == b.state_hash()
    a.reset(seed=7)  # a reset replays the same episode
    assert play_random(a, 3, 120, masked=False) == ta and a.state_hash() == b.state_hash()


def test_unseeded_resets_are_derived_deterministically(small_world):
    a, b = ParleyAEC(small_world), ParleyAEC(small_world)
    for env in (a, b):
        env.reset()
        assert env.seed == 0
        env.reset()
    assert a.seed == b.seed != 0


def test_get_state_set_state_round_trip(small_world):
    env = ParleyAEC(small_world)
    env.reset(seed=5)
    play_random(env, 11, 9, masked=False)  # mid-round: the keeper is to move
    snap = env.get_state()
    h, sel = env.state_hash(), env.agent_selection
    cont = play_random(env, 12, 30, masked=False)
    end_hash = env.state_hash()
    for _ in range(2):  # the snapshot is not consumed
        env.reset(seed=99)
        env.set_state(snap)
        assert env.state_hash() == h and env.agent_selection == sel
        assert play_random(env, 12, 30, masked=False) == cont
        assert env.state_hash() == end_hash


# --- the end of the game -------------------------------------------------------------


def test_win_terminates_and_removes_every_agent(small_world):
    env = ParleyAEC(small_world)
    env.reset(seed=0)
    env.step(idx(env, Verb.GO, "north"))
    env.step(idx(env, Verb.WAIT))
    env.step(idx(env, Verb.TAKE, "lamp"))  # completes the only quest
    assert env.engine.state.won
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.agent_selection == "player"
    _, reward, term, trunc, info = env.last()
    assert reward == pytest.approx(10.0) and term and not trunc and info["won"] is True
    with pytest.raises(ValueError):
        env.step(0)  # a dead agent may only pass None
    order = []
    for agent in env.agent_iter(10):
        order.append(agent)
        env.step(None)
    assert order == ["player", "keeper"]
    assert env.agents == [] and env.rewards == {} and env.infos == {}


def test_turn_limit_truncates(small_world):
    env = ParleyAEC(small_world, max_turns=2)
    for seed, limit in ((0, 2), (1, 3)):
        env.reset(seed=seed, options={"max_turns": 3} if limit == 3 else None)
        rounds = 0
        while not any(env.truncations.values()):
            for _ in env.possible_agents:
                env.step(idx(env, Verb.WAIT))
            rounds += 1
        assert rounds == limit == env.engine.state.turn
        assert not any(env.terminations.values())
        assert env.observe("player")[env.observation_layout["turn"]][0] == pytest.approx(1.0)
        for _ in env.agent_iter():
            env.step(None)
        assert env.agents == []


def test_npc_agents_mode_plays_scripted_npcs():
    world = real_world("harbor")
    env = ParleyAEC(world, npc_agents=True, max_turns=40)
    assert env.possible_agents == ["player"]
    env.reset(seed=2)
    start = dict(env.engine.state.where)
    trace = play_random(env, 4, 100)
    assert env.agents == [] and env.engine.state.turn == 40
    assert len(trace) == 41  # 40 turns, then one None step
    moved = {n for n in world.spec.npcs if env.engine.state.where[n] != start[n]}
    assert moved, "the wandering and patrolling NPCs move on their own"


@pytest.mark.parametrize("name", REAL_WORLDS or ["harbor"])
def test_real_world_masks_and_exits(name):
    env = ParleyAEC(real_world(name), max_turns=30)
    env.reset(seed=3)
    eng = env.engine
    for agent in env.possible_agents:
        here = eng.spec.locations[eng.state.where[agent]]
        open_exits = {d for d in here.exits if d not in here.locked}
        assert go_labels(env, env.action_mask(agent)) == open_exits
    assert masked_actions_are_accepted(env, seed=3, steps=150) > 0


# --- PettingZoo ------------------------------------------------------------------------


@pytest.fixture
def pz():
    pytest.importorskip("pettingzoo")
    pytest.importorskip("gymnasium")
    import game.envs.pettingzoo_env as mod

    return mod


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")
def test_pettingzoo_api_and_seed_tests_small_world(pz, small_world):
    from pettingzoo.test import api_test, seed_test

    api_test(pz.raw_env(small_world), num_cycles=200)
    api_test(pz.env(small_world), num_cycles=200)
    api_test(pz.env(small_world, max_turns=5), num_cycles=200)  # plays to the end and removes agents
    seed_test(lambda: pz.env(small_world), num_cycles=50)


@pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")
@pytest.mark.parametrize("name", REAL_WORLDS or ["harbor"])
def test_pettingzoo_api_and_seed_tests_real_worlds(pz, name):
    from pettingzoo.test import api_test, seed_test

    world = real_world(name)
    api_test(pz.env(world), num_cycles=200)
    seed_test(lambda: pz.env(world), num_cycles=50)
    seed_test(lambda: pz.env(world, npc_agents=True), num_cycles=50)


def test_pettingzoo_spaces_and_observations(pz, small_world):
    import gymnasium

    e = pz.raw_env(small_world, render_mode="ansi")
    e.reset(seed=1)
    assert e.metadata["name"] == "parley_v0" and e.metadata["is_parallelizable"] is False
    for agent in e.possible_agents:
        space = e.observation_space(agent)
        assert isinstance(space, gymnasium.spaces.Dict) and space is e.observation_space(agent)
        assert e.action_space(agent) == gymnasium.spaces.Discrete(e.aec.num_actions(agent))
        obs = e.observe(agent)
        assert space.contains(obs)
        assert np.array_equal(obs["action_mask"], e.infos[agent]["action_mask"])
    assert "Gate" in e.render()
    assert e.state_space.contains(e.state())
    wrapped = pz.env()  # the default world
    assert isinstance(wrapped.unwrapped, pz.ParleyPettingZooEnv)


# --- optional dependency ------------------------------------------------------------------


def _run(code: str) -> str:
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_aec_imports_neither_pettingzoo_nor_gymnasium():
    assert (
        _run("import sys, game.envs.aec; print([m for m in ('pettingzoo', 'gymnasium') if m in sys.modules])") == "[]"
    )


@pytest.mark.parametrize("module", ["game.envs.pettingzoo_env", "game.envs.pettingzoo_parallel"])
def test_missing_pettingzoo_gives_an_install_hint(module):
    """Without pettingzoo the import fails as ExtraMissing (still an ImportError), naming the extra."""
    out = _run(
        "import sys; sys.modules['pettingzoo'] = None\n"
        "from game.core.extras import ExtraMissing\n"
        f"try:\n    import {module}\nexcept ImportError as e:\n"
        "    print(isinstance(e, ExtraMissing), e.extra, '|', e)"
    )
    assert out.startswith("True pettingzoo |") and "pip install 'parley-engine[pettingzoo]'" in out
