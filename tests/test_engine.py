"""Engine rules on a small world that exercises each of them (actions built directly)."""

from __future__ import annotations

import pytest

from game.core.types import PLAYER, Action, Verb
from game.play.worlds import load_world
from game.testing import standard_engine
from tests.conftest import ROOT

MINI = ROOT / "tests" / "fixtures" / "mini"


@pytest.fixture
def eng():
    return standard_engine(load_world(MINI), seed=3)


def act(eng, verb, obj=None, target=None, text=None, terms=None, actor=PLAYER):
    return eng.run_round(
        Action(actor, verb, obj=obj, target=target, text=text, terms=tuple(sorted(terms.items())) if terms else None)
    )


def kinds(events):
    return [e.kind for e in events]


def test_move_and_perception(eng):
    evs = act(eng, Verb.GO, "north")
    assert eng.state.where[PLAYER] == "shop"
    move, arrive = evs[0], evs[1]
    assert move.kind == "move" and move.text == "Tester goes north."
    assert "liar" in move.perceivers and "mara" not in move.perceivers  # seen leaving the yard
    assert arrive.kind == "move" and arrive.text == "Tester arrives from the south."
    assert arrive.perceivers == ("mara",)  # seen coming into the shop; the mover sees the room instead
    assert "elder" not in move.perceivers + arrive.perceivers


def test_locked_exit_needs_the_right_key(eng):
    evs = act(eng, Verb.GO, "east")
    assert kinds(evs) == ["invalid"] and "iron gate is locked" in evs[0].text
    assert eng.state.invalid[PLAYER] == 1
    act(eng, Verb.TAKE, "brass_key")
    evs = act(eng, Verb.UNLOCK, "exit:east", "brass_key")
    assert kinds(evs) == ["invalid"] and "doesn't fit" in evs[0].text
    act(eng, Verb.TAKE, "iron_key")
    assert kinds(act(eng, Verb.UNLOCK, "exit:east", "iron_key")) == ["unlock"]
    act(eng, Verb.GO, "east")
    assert eng.state.where[PLAYER] == "vault"


def test_take_rules(eng):
    assert kinds(act(eng, Verb.TAKE, "rock")) == ["invalid"]
    assert kinds(act(eng, Verb.TAKE, "gem")) == ["invalid"]  # inside a closed chest elsewhere
    assert kinds(act(eng, Verb.TAKE, "iron_key")) == ["take"]
    assert eng.state.item_at["iron_key"] == PLAYER
    assert kinds(act(eng, Verb.DROP, "iron_key")) == ["drop"]
    assert eng.state.item_at["iron_key"] == "yard"


def _to_vault(eng):
    for v, o, t in [
        (Verb.TAKE, "iron_key", None),
        (Verb.TAKE, "brass_key", None),
        (Verb.UNLOCK, "exit:east", "iron_key"),
        (Verb.GO, "east", None),
    ]:
        act(eng, v, o, t)


def test_container_lock_open_reveals_and_verifies(eng):
    _to_vault(eng)
    assert "locked" in act(eng, Verb.OPEN, "chest")[0].text
    act(eng, Verb.UNLOCK, "chest", "brass_key")
    evs = act(eng, Verb.OPEN, "chest")
    assert kinds(evs)[:2] == ["open", "verify"]
    assert eng.state.verified == {"gem_in_chest": True, "gem_in_well": False}
    assert eng.state.item_at["gem"] == "vault"
    evs = act(eng, Verb.TAKE, "gem")
    assert "quest" in kinds(evs)
    assert eng.state.item_at["seal"] == PLAYER  # reward item created
    assert eng.state.score == 10


def test_honesty_profile_controls_claims(eng):
    told = set()
    for _ in range(6):
        ev = act(eng, Verb.ASK, "liar", "gem")[0]
        told |= {c["fact_id"] for c in ev.data["claims"]}
    assert told == {"gem_in_well"}  # honesty 0 on gem: always the false version
    ev = act(eng, Verb.ASK, "liar", "weather")[0]
    assert ev.data["claims"][0]["fact_id"] == "sky_blue"
    assert ev.data["claims"][0]["speaker"] == "liar"
    ev = act(eng, Verb.ASK, "liar", "dragons")[0]
    assert "know nothing" in ev.text and ev.data["claims"] == []


def test_talk_lists_topics(eng):
    ev = act(eng, Verb.TALK, "liar")[0]
    assert ev.data["topics"] == ["gem", "weather"]


def test_give_wanted_item_scores(eng):
    evs = act(eng, Verb.GIVE, "coin", "liar")
    assert "give" in kinds(evs) and eng.state.score == 5
    assert "coin>liar" in eng.state.gave
    assert eng.state.item_at["coin"] == "liar"


def test_trade_with_merchant_completes_deal(eng):
    act(eng, Verb.GO, "north")
    evs = act(eng, Verb.TRADE, "mara")
    assert kinds(evs)[0] == "trade_open" and eng.state.active_scene == "buy_lamp"
    evs = act(eng, Verb.OFFER, terms={"price": "20"})  # the merchant's best: accepted at once
    assert "agreement" in kinds(evs)
    assert eng.state.item_at["lamp"] == PLAYER
    assert eng.state.gold[PLAYER] == 10 and eng.state.gold["mara"] == 20
    assert eng.state.scenes["buy_lamp"]["outcome"] == "agreement"
    assert "lamp" in eng.state.quests_done
    assert eng.state.active_scene is None


def test_trade_refuses_unaffordable_and_bad_moves(eng):
    eng.state.gold[PLAYER] = 12
    act(eng, Verb.GO, "north")
    assert kinds(act(eng, Verb.ACCEPT)) == ["invalid"]  # not negotiating
    act(eng, Verb.TRADE, "mara")
    evs = act(eng, Verb.OFFER, terms={"price": "15"})
    assert kinds(evs) == ["invalid"] and "cannot afford" in evs[0].text
    evs = act(eng, Verb.OFFER, terms={"price": "99"})
    assert kinds(evs) == ["invalid"]
    evs = act(eng, Verb.OFFER, terms={"price": "5"})
    assert kinds(evs)[0] == "offer" and evs[1].actor == "mara"  # she counters
    evs = act(eng, Verb.WALK_AWAY)
    assert "no_agreement" in kinds(evs)
    assert eng.state.scenes["buy_lamp"]["outcome"] == "no_agreement"


def test_council_persuasion_and_vote(eng):
    _to_vault(eng)
    act(eng, Verb.UNLOCK, "chest", "brass_key")
    act(eng, Verb.OPEN, "chest")
    act(eng, Verb.TAKE, "gem")
    act(eng, Verb.GO, "west")
    evs = act(eng, Verb.GO, "west")
    assert "council_open" in kinds(evs) and "speech" in kinds(evs)
    act(eng, Verb.GIVE, "gem", "elder")
    assert eng.state.scenes["motion"]["stances"]["elder"] == "for"
    evs = act(eng, Verb.VOTE, text="yes")
    assert eng.state.scenes["motion"]["outcome"] == "passed"
    assert evs[0].public and "3 to 0" in evs[0].text


def test_council_fails_without_support(eng):
    act(eng, Verb.GO, "west")
    act(eng, Verb.VOTE, text="no")
    assert eng.state.scenes["motion"]["outcome"] == "failed"
    assert kinds(act(eng, Verb.VOTE, text="yes")) == ["invalid"]  # the vote is over


def test_turn_limit_truncates(eng):
    for _ in range(60):
        if eng.done:
            break
        act(eng, Verb.WAIT)
    assert eng.done and not eng.state.won and eng.state.turn == 60


def test_state_round_trip_continues_identically(eng):
    act(eng, Verb.GO, "north")
    act(eng, Verb.TRADE, "mara")
    act(eng, Verb.OFFER, terms={"price": "5"})
    snap = eng.get_state()
    other = standard_engine(load_world(MINI), seed=999)
    other.set_state(snap)
    assert other.state_hash() == eng.state_hash()
    a = act(eng, Verb.OFFER, terms={"price": "10"})
    b = act(other, Verb.OFFER, terms={"price": "10"})
    assert [e.to_dict() for e in a] == [e.to_dict() for e in b]


def test_observation_is_what_the_actor_perceived(eng):
    act(eng, Verb.TAKE, "iron_key")
    obs = eng.observe("liar")
    assert obs.location == "yard" and PLAYER in obs.visible
    assert any(e.kind == "take" for e in obs.recent)
    assert "iron_key" not in obs.inventory
    mara = eng.observe("mara")
    assert not any(e.kind == "take" for e in mara.recent)  # she was not there


def test_unknown_actor_is_an_error(eng):
    with pytest.raises(ValueError):
        eng.apply(Action("ghost", Verb.WAIT))


def test_restoring_one_snapshot_twice_gives_the_same_game(eng):
    act(eng, Verb.GO, "north")
    act(eng, Verb.TRADE, "mara")
    snap = eng.get_state()
    h0 = eng.state_hash()
    other = standard_engine(load_world(MINI), seed=0)
    other.set_state(snap)
    act(other, Verb.OFFER, terms={"price": "5"})  # mutates the restored game only
    again = standard_engine(load_world(MINI), seed=0)
    again.set_state(snap)
    assert again.state_hash() == h0


def test_leaving_the_room_ends_the_haggling(eng):
    act(eng, Verb.GO, "north")
    act(eng, Verb.TRADE, "mara")
    act(eng, Verb.OFFER, terms={"price": "5"})
    evs = act(eng, Verb.GO, "south")
    assert "no_agreement" in kinds(evs) and eng.state.active_scene is None
    assert eng.state.scenes["buy_lamp"]["outcome"] == "no_agreement"
    assert kinds(act(eng, Verb.OFFER, terms={"price": "20"})) == ["invalid"]
    assert eng.state.item_at["lamp"] == "mara"


def test_no_trade_when_the_seller_lacks_the_item(eng):
    act(eng, Verb.GO, "north")
    eng.state.item_at["lamp"] = "yard"
    evs = act(eng, Verb.TRADE, "mara")
    assert kinds(evs) == ["invalid"] and "no lamp left" in evs[0].text
    assert eng.state.gold[PLAYER] == 30


def test_council_sits_where_the_player_starts(tmp_path):
    from tests.conftest import write_world

    text = (MINI / "world.toml").read_text().replace('start = "yard"', 'start = "hall"')
    e = standard_engine(load_world(write_world(tmp_path / "m", text)), seed=0)
    assert e.state.scenes["motion"]["announced"]
    evs = act(e, Verb.WAIT)
    assert "speech" in kinds(evs)


def test_observations_after_restore_match(eng):
    act(eng, Verb.TAKE, "iron_key")
    act(eng, Verb.ASK, "liar", "weather")
    other = standard_engine(load_world(MINI), seed=0)
    other.set_state(eng.get_state())
    assert other.observe("liar") == eng.observe("liar")
    assert other.observe(PLAYER) == eng.observe(PLAYER)
