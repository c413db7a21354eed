"""game.engine.predicates: each rule of reach, payment and conversation is written once, and what the AEC
masks offer, what the parser may match and what the rules allow all agree with it."""

from __future__ import annotations

import numpy as np
import pytest

from game.core.types import PLAYER, Action, Verb
from game.engine import predicates as P
from game.envs.aec import ParleyAEC
from game.play.worlds import load_world
from tests.conftest import ROOT, SHIPPED

WORLDS = [*SHIPPED, ROOT / "tests" / "fixtures" / "mini"]
IDS = [w.name for w in WORLDS]
SEQUENCES = 60  # seeded random action sequences per world (4 worlds: 240)
STEPS = 40  # AEC steps per sequence
CHECK_EVERY = 3  # the rules are asked about the whole catalogue every few steps


@pytest.fixture(scope="module", params=WORLDS, ids=IDS)
def world(request):
    return load_world(request.param)


def _refusal(eng, action: Action) -> str | None:
    """What the rules say to ``action`` now: the refusal text, or None if they allow it. The
    game is put back as it was afterwards."""
    snap = eng.get_state()
    try:
        events = eng.apply(action)
    finally:
        eng.set_state(snap)
    refused = [e.text for e in events if e.kind == "invalid" and e.actor == action.actor and "verb" in e.data]
    return refused[0] if refused else None


def _mask_is_exact(env: ParleyAEC, t) -> bool:
    """Whether a masked-out catalogue entry must be refused by the rules for the player. OFFER
    entries of another scene than the open one are masked out although the rules would read
    their terms against the open scene."""
    return not (t.verb is Verb.OFFER and t.scene != env.engine.state.active_scene)


def aec_walk(world, seed: int, steps: int = STEPS, every: int = CHECK_EVERY):
    """Yield (env, agent) every ``every`` steps of a seeded random walk of ``steps`` steps through the AEC env."""
    env = ParleyAEC(world, max_turns=steps + 5)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for step in range(steps):
        if not env.agents:
            return
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        mask = env.action_mask(agent)
        if step % every == 0:
            yield env, agent
        if rng.random() < 0.1:  # now and then anything at all (the rules then mostly refuse it)
            env.step(int(rng.integers(len(mask))))
            continue
        # a plausible move, its verb drawn first so the rare verbs (unlock, open, trade) come up
        by_verb: dict[Verb, list[int]] = {}
        for i in np.flatnonzero(mask):
            by_verb.setdefault(env.templates[i].verb, []).append(int(i))
        verbs = sorted(by_verb, key=lambda v: v.value)
        env.step(int(rng.choice(by_verb[verbs[int(rng.integers(len(verbs)))]])))


def _disagreements(env: ParleyAEC, agent: str, checked: set[int] | None = None) -> tuple[list[str], list[str]]:
    """(entries the mask offers that the rules refuse, masked-out entries the rules allow), asking
    the rules about every entry the mask offers and about the masked-out entries in ``checked``
    (all of them when None; the latter only for the player, whose mask is exact)."""
    eng = env.engine
    mask = env.action_mask(agent)
    offered_refused: list[str] = []
    hidden_allowed: list[str] = []
    for i, t in enumerate(env.templates):
        if not mask[i] and (
            agent != PLAYER or (checked is not None and i not in checked) or not _mask_is_exact(env, t)
        ):
            continue
        why = _refusal(eng, t.bind(agent))
        where = f"turn {eng.state.turn} {agent}: {t.label()}"
        if mask[i] and why is not None:
            offered_refused.append(f"{where} -> {why}")
        elif not mask[i] and why is None:
            hidden_allowed.append(where)
    return offered_refused, hidden_allowed


def _assert_agree(env: ParleyAEC, agent: str = PLAYER) -> None:
    offered_refused, hidden_allowed = _disagreements(env, agent)
    assert not offered_refused, "the mask offers what the rules refuse:\n" + "\n".join(offered_refused[:10])
    assert not hidden_allowed, "the mask hides what the rules allow:\n" + "\n".join(hidden_allowed[:10])


def test_masks_and_rules_agree_on_random_walks(world):
    offered_refused: list[str] = []
    hidden_allowed: list[str] = []
    steps = 0
    for seed in range(SEQUENCES):
        for env, agent in aec_walk(world, seed):
            mask = env.action_mask(agent)
            off = np.flatnonzero(mask == 0)
            rng = np.random.default_rng([seed, env.engine.state.turn])
            sample = set(rng.choice(off, size=min(4, len(off)), replace=False).tolist()) if len(off) else set()
            a, b = _disagreements(env, agent, sample)
            offered_refused += [f"seed {seed} {x}" for x in a]
            hidden_allowed += [f"seed {seed} {x}" for x in b]
            steps += 1
    assert steps > 200
    assert not offered_refused, "the mask offers what the rules refuse:\n" + "\n".join(offered_refused[:10])
    assert not hidden_allowed, "the mask hides what the rules allow:\n" + "\n".join(hidden_allowed[:10])


def test_masks_and_rules_agree_on_locks(world):
    """Each locked container and exit, with the key carried: before, after unlocking, after opening."""
    spec = world.spec
    locks = 0
    for iid, item in spec.items.items():
        if not (item.container and item.locked_with):
            continue
        env = ParleyAEC(world)
        st = env.engine.state
        st.item_at[iid], st.item_at[item.locked_with] = st.where[PLAYER], PLAYER
        _assert_agree(env)
        for verb in (Verb.UNLOCK, Verb.OPEN):
            env.engine.apply(Action(actor=PLAYER, verb=verb, obj=iid, target=item.locked_with))
            _assert_agree(env)
        assert iid in env.engine.state.opened  # (asking the rules restores a copy of the state)
        locks += 1
    for lid, loc in spec.locations.items():
        for d, lock in loc.locked.items():
            env = ParleyAEC(world)
            st = env.engine.state
            st.where[PLAYER], st.item_at[lock.key] = lid, PLAYER
            _assert_agree(env)
            env.engine.apply(Action(actor=PLAYER, verb=Verb.UNLOCK, obj=f"exit:{d}", target=lock.key))
            assert f"{lid}:{d}" in env.engine.state.unlocked
            _assert_agree(env)
            locks += 1
    if not locks:
        pytest.skip("nothing is locked in this world")


@pytest.mark.parametrize("purse", ["empty", "full"])
def test_masks_and_rules_agree_while_haggling(world, purse):
    """The player at each merchant, with no gold or plenty: trade, then every player move until the
    talks close, always a plausible one (the first offer the mask allows, else accept or walk away)."""
    spec = world.spec
    merchants = [n for n, s in spec.npcs.items() if s.trade is not None]
    if not merchants:
        pytest.skip("no merchant in this world")
    for npc in merchants:
        env = ParleyAEC(world, max_turns=200)
        eng = env.engine
        eng.state.where[PLAYER] = eng.state.where[npc]
        eng.state.gold[PLAYER] = 0 if purse == "empty" else 10_000
        _assert_agree(env)
        eng.apply(Action(actor=PLAYER, verb=Verb.TRADE, obj=npc))
        for _ in range(30):
            _assert_agree(env)
            if eng.state.active_scene is None:
                break
            mask = env.action_mask(PLAYER)
            on = [
                env.templates[i]
                for i in np.flatnonzero(mask)
                if env.templates[i].verb in (Verb.OFFER, Verb.ACCEPT, Verb.WALK_AWAY)
            ]
            if not on:
                break
            eng.apply(on[0].bind(PLAYER))


def test_reach_matches_the_parser_scope_and_the_observation(world):
    """Engine.scope and Engine.observe name what the predicates call in reach and in sight."""
    for seed in range(8):
        for env, agent in aec_walk(world, 1000 + seed):
            eng, st, spec = env.engine, env.engine.state, env.spec
            scope = eng.scope(agent)
            items = [(n.id, n.where) for n in scope.nouns if n.kind == "item"]
            assert items == P.items_in_reach(spec, st, agent)
            assert [n.id for n in scope.nouns if n.kind == "npc"] == P.npcs_here(spec, st, agent)
            assert list(scope.topics) == P.world_topics(spec)
            assert eng.observe(agent).visible == P.in_sight(st, agent)
            for iid in spec.items:
                assert P.reachable(spec, st, agent, iid) == (iid in dict(items))


def test_every_item_place_is_reported_once(world):
    from game.testing import standard_engine

    eng = standard_engine(world, seed=0)
    st, spec = eng.state, world.spec
    for actor in (PLAYER, *spec.npcs):
        places = dict(P.items_in_reach(spec, st, actor))
        assert {i for i, p in places.items() if p == P.CARRIED} == set(st.items_in(actor))
        assert {i for i, p in places.items() if p == P.IN_ROOM} == set(st.items_in(st.where[actor]))


def test_topics(world):
    spec = world.spec
    assert P.world_topics(spec) == list(dict.fromkeys(f.topic for f in spec.facts.values()))
    for npc in spec.npcs:
        known = P.npc_topics(spec, npc)
        assert len(known) == len(set(known)) and set(known) <= set(P.world_topics(spec))
        assert known == list(dict.fromkeys(spec.facts[f].topic for f in spec.npcs[npc].knowledge))


def test_askable_needs_the_npc_present(world):
    from game.testing import standard_engine

    eng = standard_engine(world, seed=0)
    st, spec = eng.state, world.spec
    for npc in spec.npcs:
        here = st.where[npc] == st.where[PLAYER]
        assert P.askable(spec, st, PLAYER, npc) == (P.world_topics(spec) if here else [])
    assert P.askable(spec, st, PLAYER, "nobody") == []


def _trade_scene(spec):
    for sid, sc in spec.scenes.items():
        if getattr(sc, "trade", None) is not None:
            return sid, sc
    pytest.skip("no trade scene in this world")


def test_affordability_binds_the_buyer_only(world):
    from game.testing import standard_engine

    spec = world.spec
    sid, scene = _trade_scene(spec)
    st = standard_engine(world, seed=0).state
    buyer, seller = P.buyer_of(scene), scene.trade.seller
    assert buyer is not None and buyer != seller
    prices = sorted(int(v) for v in scene.issues[scene.trade.price_issue])
    top = {scene.trade.price_issue: str(prices[-1])}
    st.gold[buyer] = prices[-1] - 1
    st.gold[seller] = 0
    assert P.unaffordable_price(spec, st, sid, buyer, top) == prices[-1]
    assert not P.affordable(spec, st, sid, buyer, top)
    assert P.affordable(spec, st, sid, seller, top)  # the seller may ask anything
    assert P.affordable(spec, st, sid, buyer, None)  # no terms, nothing to pay
    assert P.affordable(spec, st, sid, buyer, {})  # terms without a price
    st.gold[buyer] = prices[-1]
    assert P.affordable(spec, st, sid, buyer, top)


def test_the_rules_refuse_what_the_buyer_cannot_pay(world):
    """The trade scene's own refusal and the predicate agree on the price and the purse."""
    from game.testing import standard_engine

    spec = world.spec
    sid, scene = _trade_scene(spec)
    if P.buyer_of(scene) != PLAYER:
        pytest.skip("the player does not buy in this world")
    eng = standard_engine(world, seed=0)
    seller = scene.trade.seller
    eng.state.where[PLAYER] = eng.state.where[seller]
    npc = next(n for n, s in spec.npcs.items() if s.trade == sid)
    eng.apply(Action(actor=PLAYER, verb=Verb.TRADE, obj=npc))
    if eng.state.active_scene != sid or eng.scenes.session(sid).turn != PLAYER:
        pytest.skip("the talks did not open on the player's move")
    top = str(max(int(v) for v in scene.issues[scene.trade.price_issue]))
    eng.state.gold[PLAYER] = int(top) - 1
    terms = {**{i: v[0] for i, v in scene.issues.items()}, scene.trade.price_issue: top}
    assert not P.affordable(spec, eng.state, sid, PLAYER, terms)
    why = _refusal(eng, Action(actor=PLAYER, verb=Verb.OFFER, terms=tuple(sorted(terms.items()))))
    assert why is not None and "cannot afford" in why
