"""The autopilot wins every shipped adventure from the tuning seeds, deterministically, reading only
what a player could know: the guard below fails on any read of hidden data while it chooses."""

from __future__ import annotations

import dataclasses
import json
from typing import ClassVar

import numpy as np
import pytest

from agents.autopilot import Autopilot, command_text, make_autopilot, seeded_rng
from game.session import Game
from game.types import PLAYER, Action, Verb
from game.world.loader import load_world
from tests.conftest import ROOT, WORLDS, parley

WORLD_DIRS = {"harbor": WORLDS / "harbor", "bazaar": WORLDS / "bazaar", "council": WORLDS / "council",
              "mini": ROOT / "tests" / "fixtures" / "mini"}
_LOADED: dict[str, object] = {}


def world(name: str):
    if name not in _LOADED:
        _LOADED[name] = load_world(WORLD_DIRS[name])
    return _LOADED[name]


def autoplay(w, seed: int, turns: int | None = None) -> tuple[Game, Autopilot]:
    game = Game(w, seed=seed)
    pilot = make_autopilot(game, seed)
    limit = turns if turns is not None else game.spec.max_turns
    while not game.engine.done and game.engine.state.turn < limit:
        game.act(pilot.act(game.engine.observe(PLAYER)))
    return game, pilot


@pytest.mark.parametrize("name", list(WORLD_DIRS))
@pytest.mark.parametrize("seed", range(20))
def test_autopilot_wins_every_tuning_seed(name, seed):
    """Seeds 0-19 are the ones it was built on; it won 20/20 in every world there (held-out figures:
    benchmarks/autopilot_bench.py, seeds 1000-1049)."""
    game, pilot = autoplay(world(name), seed)
    st = game.engine.state
    assert st.won, f"{name} seed {seed}: quests {st.quests_done} by turn {st.turn}"
    assert len(st.quests_done) == len(game.spec.quests)
    assert st.turn <= game.spec.max_turns
    invalid = st.invalid.get(PLAYER, 0)
    assert invalid <= 0.05 * pilot.actions, f"{invalid} refused actions of {pilot.actions}"
    assert pilot.invalid == invalid  # it noticed every refusal it got


@pytest.mark.parametrize("name", list(WORLD_DIRS))
def test_same_seed_same_transcript_bytes(name):
    a = autoplay(world(name), 7)[0].transcript.text()
    b = autoplay(world(name), 7)[0].transcript.text()
    assert a == b and len(a) > 1000


def test_autopilot_never_changes_the_engine():
    game = Game(world("harbor"), seed=5)
    pilot = make_autopilot(game.engine, 5)  # an Engine works as well as a Game
    while not game.engine.done:
        before = game.engine.snapshot()
        action = pilot.act(game.engine.observe(PLAYER))
        assert game.engine.snapshot() == before
        assert isinstance(action, Action) and action.actor == PLAYER and command_text(game.engine, action)
        game.act(action)
    assert game.engine.state.won


@pytest.mark.parametrize("name,turn", [("harbor", 17), ("bazaar", 17), ("council", 12), ("mini", 17)])
def test_state_round_trip_mid_game_continues_identically(name, turn):
    """Saved mid-game (bazaar and mini: in the middle of haggling) and restored into a fresh game."""
    w = world(name)
    a = Game(w, seed=4)
    pa = make_autopilot(a, 4)
    while not a.engine.done and a.engine.state.turn < turn:
        a.act(pa.act(a.engine.observe(PLAYER)))
    if name in ("bazaar", "mini"):
        assert a.engine.state.active_scene is not None
    saved_engine = json.loads(json.dumps(a.engine.get_state()))
    saved_agents = json.loads(json.dumps(a.components()))
    saved_pilot = json.loads(json.dumps(pa.get_state()))  # JSON-able, and survives a round trip
    mark = len(a.transcript.records)
    while not a.engine.done:
        a.act(pa.act(a.engine.observe(PLAYER)))

    b = Game(w, seed=4)
    b.engine.set_state(saved_engine)
    for k, st in saved_agents["agents"].items():
        b.agents[k].set_state(st)
    b.facts.set_state(saved_agents["facts"])
    # a different stream (set_state restores it), reading the restored game's Σ-Mem as `pa` read a's
    pb = Autopilot(b.engine, np.random.default_rng(12345), sigma=b.facts.sigma)
    pb.set_state(saved_pilot)
    while not b.engine.done:
        b.act(pb.act(b.engine.observe(PLAYER)))
    assert b.transcript.records[1:] == a.transcript.records[mark:]
    assert b.engine.state_hash() == a.engine.state_hash() and b.engine.state.won
    assert pb.get_state() == pa.get_state()
    assert b.facts.get_state() == a.facts.get_state()


@pytest.mark.parametrize("kind", ["boulware", "linear", "conceder", "hardliner", "tit_for_tat", "aspiration",
                                  "random"])
def test_every_kind_of_merchant_still_sells(kind):
    """Every merchant driven by each rule-based negotiator kind (it is told none of them): it still
    closes every deal and wins, without a refused action."""
    from agents.negotiators import from_kind
    for name in ("harbor", "bazaar", "mini"):
        for seed in range(3):
            game = Game(world(name), seed=seed)
            game.engine.scenes.factory = lambda scene, party, utility, params: from_kind(kind, utility)
            pilot = make_autopilot(game, seed)
            while not game.engine.done:
                game.act(pilot.act(game.engine.observe(PLAYER)))
            assert game.engine.state.won, f"{name} seed {seed} {kind}"
            assert game.engine.state.invalid.get(PLAYER, 0) == 0


def _private_swapped(w):
    """The world's spec with every merchant's private side changed: reservation, values, weights
    and negotiator (what a player cannot see)."""
    from game.world.spec import NegotiationScene
    spec = w.spec

    def swap(p):
        vals = {i: {v: round(1.0 - u, 2) for v, u in table.items()} for i, table in p.values.items()}
        return p.model_copy(update={"reservation": 0.9 - p.reservation, "values": vals,
                                    "weights": dict.fromkeys(p.weights, 1.0)})
    scenes = {sid: sc.model_copy(update={"parties": [p if p.id == PLAYER else swap(p) for p in sc.parties]})
              if isinstance(sc, NegotiationScene) else sc for sid, sc in spec.scenes.items()}
    npcs = {k: n.model_copy(update={"agent": n.agent.model_copy(update={"params": {"negotiator": "hardliner"}})})
            for k, n in spec.npcs.items()}
    return spec.model_copy(update={"scenes": scenes, "npcs": npcs})


@pytest.mark.parametrize("name", ["harbor", "bazaar", "mini"])
def test_its_moves_depend_only_on_what_it_saw(name):
    """A second autopilot that sees the same game through a spec in which every merchant's utility,
    reservation and negotiator are different chooses exactly the same action at every turn."""
    w = world(name)
    other = _private_swapped(w)
    for seed in range(2):
        game = Game(w, seed=seed)
        a = make_autopilot(game, seed)
        view = _Guard(game.engine, (), "engine")  # the same engine, seen through the other spec
        object.__setattr__(view, "spec", other)
        b = Autopilot(view, seeded_rng(seed), sigma=game.facts.sigma)
        while not game.engine.done:
            obs = game.engine.observe(PLAYER)
            action = a.act(obs)
            assert b.act(obs) == action, f"{name} seed {seed} turn {game.engine.state.turn}"
            game.act(action)
        assert game.engine.state.won


def test_in_its_last_allowed_session_it_takes_the_offer_on_the_table():
    """Harbor: the player opens, so its last move (round 8) is answered by Mara, and a refused offer
    ends the talks. In the last session it allows itself it accepts her counter rather than test a
    lower price; the merchant model is never asked to be right about the deal it cannot lose."""
    from agents.autopilot import MAX_TRADE_TRIES
    game = Game(world("harbor"), seed=0)
    pilot = make_autopilot(game, 0)
    while game.engine.state.active_scene is None:
        game.act(pilot.act(game.engine.observe(PLAYER)))
    while pilot._session("lantern_deal").moves_made < 14:  # offer 10 (refused) up to the last move
        game.act(Action(PLAYER, Verb.OFFER, terms=(("price", "10"),)))
    assert pilot._session("lantern_deal").standing_offer == {"price": "18"}
    pilot.neg["lantern_deal"]["tries"] = MAX_TRADE_TRIES
    assert pilot.act(game.engine.observe(PLAYER)) == Action(PLAYER, Verb.ACCEPT)


def _mine(sc):
    from game.negotiation.utility import UtilityFunction
    return UtilityFunction.from_party(next(p for p in sc.parties if p.id == PLAYER), sc.issues)


def _history(moves):
    """A session history from (round, party, kind, price) tuples (harbor's lantern)."""
    return [{"round": r, "party": p, "kind": k, "terms": {"price": str(x)} if x is not None else None}
            for r, p, k, x in moves]


def test_merchant_model_learns_only_from_the_talks():
    """Harbor's lantern: a seller prefers a higher price (all it assumes). Mara holding 22 and then
    giving 18 in round 7 makes 18 more likely to be taken at the end than 14, and 14 than 10; once
    a session showed her refusing 14 in the last round, 14 at the end is less likely than before."""
    from agents.autopilot_merchant import MerchantModel
    sc = world("harbor").spec.scenes["lantern_deal"]
    me = _mine(sc)
    moves = [m for r in range(1, 7) for m in ((r, PLAYER, "offer", 10), (r, "mara", "offer", 22))]
    first = _history(moves + [(7, PLAYER, "offer", 10), (7, "mara", "offer", 18)])
    model = MerchantModel(sc, me, "mara", [first])
    assert list(np.argsort(model.est)) == [0, 1, 2, 3]           # 10 < 14 < 18 < 22 for the seller
    p = model.accept_prob(1.0)
    assert p[3] > p[2] > p[1] > p[0] and p[3] > 0.99
    refused = _history(moves + [(7, PLAYER, "offer", 10), (7, "mara", "offer", 18),
                                (8, PLAYER, "offer", 14), (8, "mara", "offer", 18)])
    assert MerchantModel(sc, me, "mara", [first, refused]).accept_prob(1.0)[1] < p[1]
    none = MerchantModel(sc, me, "mara", [])
    assert np.allclose(none.weights, none.weights[0])             # nothing seen: the prior


def test_merchant_model_ranks_what_the_merchant_preferred():
    """Bazaar's astrolabe: Kesh countered the player's 20/crest/year with 35/initials/none, and
    then 35/crest/none: the estimate puts both counters above the refused offer, without knowing
    her weights (it only knows she sells, so a higher price is better for her)."""
    from agents.autopilot_merchant import MerchantModel
    sc = world("bazaar").spec.scenes["astrolabe_deal"]
    me = _mine(sc)
    offer = {"price": "20", "engraving": "crest", "warranty": "year"}
    c1 = {"price": "35", "engraving": "initials", "warranty": "none"}
    c2 = {"price": "35", "engraving": "crest", "warranty": "none"}
    hist = [{"round": 1, "party": PLAYER, "kind": "offer", "terms": offer},
            {"round": 1, "party": "kesh", "kind": "offer", "terms": c1},
            {"round": 2, "party": PLAYER, "kind": "offer", "terms": offer},
            {"round": 2, "party": "kesh", "kind": "offer", "terms": c2}]
    model = MerchantModel(sc, me, "kesh", [hist])
    idx = model.space.index
    assert model.est[idx(c1)] >= model.est[idx(c2)] > model.est[idx(offer)]


HIDDEN_NPC = ("honesty", "agent")                      # how honest an NPC is; its kind and negotiator
HIDDEN_PARTY = ("weights", "values", "reservation")    # another party's utility in a negotiation
HIDDEN_SCENES = ("factory", "default_factory", "default_negotiator",  # the negotiators the engine builds
                 "_negotiators", "_negotiator")
HIDDEN_ENGINE = ("actors", "_voices", "voice", "voice_factory", "rng")  # NPC agents (negotiators, honesty), RNG


class _Guard:
    """Wraps an object; reading one of its hidden attributes while the autopilot thinks is recorded in
    ``_Guard.reads`` and raises (recorded too, so a read that the autopilot swallows still fails)."""

    active = False
    reads: ClassVar[list[str]] = []

    def __init__(self, obj, hidden, label: str):
        object.__setattr__(self, "_obj", obj)
        object.__setattr__(self, "_hidden", frozenset(hidden))
        object.__setattr__(self, "_label", label)

    def __getattr__(self, name):
        if name in self._hidden and _Guard.active:
            _Guard.reads.append(f"{self._label}.{name}")
            raise AssertionError(f"the autopilot read {self._label}.{name}")
        return getattr(self._obj, name)

    def __setattr__(self, name, value):
        setattr(self._obj, name, value)


def _guarded(w, flip: bool):
    """A copy of the world whose hidden fields the autopilot may not read: each fact's truth (flipped
    if asked), each NPC's honesty and agent (kind, params: negotiator and its parameters), and, in every
    negotiation scene, every party's weights, values and reservation except the player's own."""
    from game.world.spec import NegotiationScene
    spec = w.spec
    facts = {k: _Guard(f.model_copy(update={"true": (not f.true) if flip else f.true}), ("true",), f"facts.{k}")
             for k, f in spec.facts.items()}
    npcs = {k: _Guard(n, HIDDEN_NPC, f"npcs.{k}") for k, n in spec.npcs.items()}
    scenes = {}
    for sid, sc in spec.scenes.items():
        if isinstance(sc, NegotiationScene):
            parties = [p if p.id == PLAYER else _Guard(p, HIDDEN_PARTY, f"scenes.{sid}.parties.{p.id}")
                       for p in sc.parties]
            sc = sc.model_copy(update={"parties": parties})
        scenes[sid] = sc
    return dataclasses.replace(w, spec=spec.model_copy(update={"facts": facts, "npcs": npcs, "scenes": scenes}))


def _engine_view(engine):
    """The engine as the autopilot sees it: its NPC agents, RNG and live negotiators are off limits."""
    view = _Guard(engine, HIDDEN_ENGINE, "engine")
    object.__setattr__(view, "scenes", _Guard(engine.scenes, HIDDEN_SCENES, "engine.scenes"))
    return view


def play_guarded(w, seed: int, pilot_class=Autopilot) -> Game:
    """Play ``w`` (a ``_guarded`` world) to the end; the guard is on while the autopilot is built
    and while it chooses each action, off while the engine plays (the engine keeps the real data)."""
    game = Game(w, seed=seed)
    _Guard.reads = []
    try:
        _Guard.active = True
        pilot = pilot_class(_engine_view(game.engine), seeded_rng(seed), sigma=game.facts.sigma)
        _Guard.active = False
        while not game.engine.done:
            obs = game.engine.observe(PLAYER)
            _Guard.active = True
            action = pilot.act(obs)
            _Guard.active = False
            game.act(action)
    finally:
        _Guard.active = False
    assert _Guard.reads == [], f"the autopilot read hidden data: {sorted(set(_Guard.reads))}"
    return game


@pytest.mark.parametrize("name", list(WORLD_DIRS))
def test_autopilot_reads_nothing_hidden_and_wins_when_every_rumour_flips(name):
    """Reading, while choosing an action, a fact's truth, an NPC's honesty or agent (negotiator kind
    and parameters), another party's weights, values or reservation, or the engine's NPC agents,
    negotiators or RNG fails the test. With every truth flag flipped, NPCs who know several answers
    tell other stories (in mini the claims it hears change); claims are only hints, and it still wins."""
    for flip in (False, True):
        w = _guarded(world(name), flip)
        for seed in range(5):
            game = play_guarded(w, seed)
            assert game.engine.state.won, f"{name} seed {seed} flip={flip}"


class _Peeker(Autopilot):
    """An autopilot that peeks before every move, swallowing the guard's error (the read is still recorded)."""

    peek = staticmethod(lambda pilot: None)

    def act(self, observation=None, context=None):
        try:
            type(self).peek(self)
        except AssertionError:
            pass
        return super().act(observation, context)


@pytest.mark.parametrize("peek,what", [
    (lambda p: p.spec.scenes["lantern_deal"].parties[0].reservation, "parties.mara.reservation"),
    (lambda p: p.spec.scenes["lantern_deal"].parties[0].values, "parties.mara.values"),
    (lambda p: p.spec.scenes["lantern_deal"].parties[0].weights, "parties.mara.weights"),
    (lambda p: p.spec.npcs["mara"].agent.params, "npcs.mara.agent"),
    (lambda p: p.spec.npcs["jory"].honesty, "npcs.jory.honesty"),
    (lambda p: p.spec.facts["strongbox_in_cave"].true, "facts.strongbox_in_cave.true"),
    (lambda p: p.engine.scenes.factory, "engine.scenes.factory"),
    (lambda p: p.engine.voice("mara"), "engine.voice"),
])
def test_the_guard_catches_every_kind_of_peek(peek, what):
    """The guard is not vacuous: each of these reads, even swallowed, fails the game."""
    cheat = type("Cheat", (_Peeker,), {"peek": staticmethod(peek)})
    with pytest.raises(AssertionError, match=what.replace(".", r"\.")):
        play_guarded(_guarded(world("harbor"), False), 0, cheat)
    play_guarded(_guarded(world("harbor"), False), 0)  # the honest one passes the same guard


def test_cli_autopilot_wins_and_is_deterministic(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    r1 = parley("run", "--no-memory", "worlds/harbor", "--autopilot", "--seed", "3", "--out", str(a))
    r2 = parley("run", "--no-memory", "worlds/harbor", "--autopilot", "--seed", "3", "--out", str(b), "--quiet")
    assert r1.returncode == 0 and r2.returncode == 0, r1.stderr + r2.stderr
    assert "WON" in r1.stdout and "> go " in r1.stdout and "Quest complete" in r1.stdout
    assert r2.stdout.splitlines()[0].startswith("world harbor-v1 seed 3:") and "WON" in r2.stdout
    assert a.read_bytes() == b.read_bytes()
    first = json.loads(a.read_text().splitlines()[0])
    assert first["type"] == "start" and first["seed"] == 3
    r3 = parley("run", "--no-memory", "worlds/council", "--autopilot", "--turns", "4", "--quiet")
    assert r3.returncode == 0 and "turn 4," in r3.stdout and "not won" in r3.stdout
    r4 = parley("run", "--no-memory", "worlds/council", "--autopilot", "--script", "x.txt")
    assert r4.returncode == 2 and "not allowed" in r4.stderr


# --- trust: Σ-Mem reads (M-Route, M-Vote) ---------------------------------------------------------

def _first_action(game, pilot):
    return pilot.act(game.engine.observe(PLAYER))


def test_trust_is_the_games_sigma_and_off_or_engine_means_none():
    game = Game(world("harbor"), seed=0)
    assert make_autopilot(game, 0).sigma is game.facts.sigma  # trust on by default
    assert make_autopilot(game, 0, trust=False).sigma is None
    assert make_autopilot(game.engine, 0).sigma is None  # an Engine has no world facts
    assert make_autopilot(Game(world("harbor"), seed=0, facts=False), 0).sigma is None
    from memory.sigma import SigmaMem
    mine = SigmaMem(phi="onehot", topics=["treasure"])
    assert make_autopilot(game, 0, trust=mine).sigma is mine


def test_m_route_asks_the_npc_trusted_on_the_topic():
    """At the quay on turn 0 Dray and Jory can both tell about treasure (the strongbox's topic).
    Without trust it asks the first (Dray); with Jory trusted there, it asks Jory."""
    game = Game(world("harbor"), seed=0)
    assert _first_action(game, make_autopilot(game, 0, trust=False)) == \
        Action(PLAYER, Verb.ASK, obj="dray", target="strongbox")
    game = Game(world("harbor"), seed=0)
    assert _first_action(game, make_autopilot(game, 0)) == Action(PLAYER, Verb.ASK, obj="dray", target="strongbox")
    game.facts.sigma.write("treasure", {"jory": 1, "dray": -1})
    assert _first_action(game, make_autopilot(game, 0)) == Action(PLAYER, Verb.ASK, obj="jory", target="strongbox")
    game = Game(world("harbor"), seed=0)
    game.facts.sigma.write("treasure", {"jory": 1})  # Dray unknown (0), Jory trusted
    assert _first_action(game, make_autopilot(game, 0)) == Action(PLAYER, Verb.ASK, obj="jory", target="strongbox")
    game = Game(world("harbor"), seed=0)
    game.facts.sigma.write("weather", {"jory": 1})  # trust on another topic does not count here
    assert _first_action(game, make_autopilot(game, 0)) == Action(PLAYER, Verb.ASK, obj="dray", target="strongbox")


def test_m_route_does_not_ask_npcs_proved_wrong_on_the_topic():
    game = Game(world("harbor"), seed=0)
    game.facts.sigma.write("treasure", {"jory": -1, "dray": -1})
    action = _first_action(game, make_autopilot(game, 0))
    assert action.verb != Verb.ASK, action


def test_m_route_reads_a_given_sigma_instead_of_the_games():
    from memory.sigma import SigmaMem
    game = Game(world("harbor"), seed=0)
    mine = SigmaMem.from_state(game.facts.sigma.get_state())
    mine.write("treasure", {"jory": 1})
    assert _first_action(game, make_autopilot(game, 0, trust=mine)) == \
        Action(PLAYER, Verb.ASK, obj="jory", target="strongbox")


def _say(turn: int, seq: int, speaker: str, subject: str, obj: str, topic: str = "treasure"):
    from game.types import Event
    claim = {"speaker": speaker, "subject": subject, "relation": "located_in", "object": obj, "topic": topic}
    return Event(turn, seq, "say", speaker, f"{speaker} says {subject} is at {obj}",
                 data={"intent": "answer", "claims": [claim], "topic": subject, "asked_by": PLAYER})


@pytest.mark.parametrize("trusted,expected", [("dray", "north"), ("hobb", "south"), (None, "south")])
def test_m_vote_heads_for_the_place_the_trusted_npc_named(trusted, expected):
    """Two claims about the strongbox: Dray says the crypt (3 steps north), Hobb the pier (1 step
    south). Without trust it takes the nearest lead; with trust M-Vote picks the trusted speaker's."""
    game = Game(world("harbor"), seed=0)
    if trusted is not None:
        game.facts.sigma.write("treasure", {trusted: 1, ({"dray", "hobb"} - {trusted}).pop(): -1})
    pilot = Autopilot(game.engine, np.random.default_rng(0), sigma=game.facts.sigma, ask=False)
    pilot.visited.update({"market_row": -1, "chapel": -1})  # the way to the crypt is known
    obs = game.engine.observe(PLAYER)
    obs = dataclasses.replace(obs, recent=obs.recent + (_say(0, 90, "dray", "strongbox", "crypt"),
                                                        _say(0, 91, "hobb", "strongbox", "pier")))
    action = pilot.act(obs)
    assert action == Action(PLAYER, Verb.GO, obj=expected), action
    place = "crypt" if expected == "north" else "pier"
    assert pilot.followed == [["strongbox", place, 1]]
    if trusted is None:  # the same as playing without trust at all
        plain = Autopilot(Game(world("harbor"), seed=0).engine, np.random.default_rng(0), ask=False)
        plain.visited.update({"market_row": -1, "chapel": -1})
        assert plain.act(obs) == action


def test_m_vote_falls_back_to_the_other_lead_once_the_voted_one_is_ruled_out():
    game = Game(world("harbor"), seed=0)
    game.facts.sigma.write("treasure", {"dray": 1, "hobb": -1})
    pilot = Autopilot(game.engine, np.random.default_rng(0), sigma=game.facts.sigma, ask=False)
    pilot.visited.update({"market_row": -1, "chapel": -1, "crypt": -1})  # the crypt was searched already
    obs = game.engine.observe(PLAYER)
    obs = dataclasses.replace(obs, recent=obs.recent + (_say(0, 90, "dray", "strongbox", "crypt"),
                                                        _say(0, 91, "hobb", "strongbox", "pier")))
    assert pilot.act(obs) == Action(PLAYER, Verb.GO, obj="south")


@pytest.mark.parametrize("name", ["harbor", "council"])
def test_trust_off_plays_exactly_as_before_whatever_sigma_holds(name):
    """trust=False ignores Σ-Mem entirely: the transcript equals an autopilot built without one."""
    for seed in range(3):
        a = Game(world(name), seed=seed)
        for tp in sorted({f.topic for f in a.spec.facts.values()}):
            a.facts.sigma.write(tp, {n: (1 if i % 2 else -1) for i, n in enumerate(a.spec.npcs)})
        pa = make_autopilot(a, seed, trust=False)
        b = Game(world(name), seed=seed)
        pb = Autopilot(b.engine, np.random.default_rng(np.random.SeedSequence([seed, 1])))
        for g, p in ((a, pa), (b, pb)):
            while not g.engine.done:
                g.act(p.act(g.engine.observe(PLAYER)))
        assert a.transcript.text() == b.transcript.text()


@pytest.mark.parametrize("name", ["harbor", "council"])
def test_autopilot_never_writes_sigma(name):
    """Σ-Mem only changes when the game verifies something, never while the autopilot chooses."""
    game = Game(world(name), seed=3)
    for tp in sorted({f.topic for f in game.spec.facts.values()}):
        game.facts.sigma.write(tp, {n: (1 if i % 3 else -1) for i, n in enumerate(game.spec.npcs)})
    pilot = make_autopilot(game, 3)
    assert pilot.sigma is game.facts.sigma
    while not game.engine.done:
        before = json.dumps(game.facts.sigma.get_state())
        action = pilot.act(game.engine.observe(PLAYER))
        assert json.dumps(game.facts.sigma.get_state()) == before
        game.act(action)
    assert game.engine.state.won


@pytest.mark.parametrize("name", list(WORLD_DIRS))
def test_trust_carried_across_games_still_wins_and_stops_asking_known_liars(name):
    """Σ-Mem persisted from seed to seed (the player remembers who was wrong last time)."""
    carried = None
    asked_after_wrong: list[tuple[int, str, str]] = []
    for seed in range(8):
        game = Game(world(name), seed=seed)
        if carried is not None:
            game.facts.sigma.set_state(carried)
        pilot = make_autopilot(game, seed)
        sigma = game.facts.sigma
        while not game.engine.done:
            action = pilot.act(game.engine.observe(PLAYER))
            if action.verb == Verb.ASK:
                topic = pilot._topic_of(action.target)
                if topic is not None and sigma.score(action.obj, topic) < 0:
                    asked_after_wrong.append((seed, action.obj, action.target))
            game.act(action)
        assert game.engine.state.won, f"{name} seed {seed}"
        carried = sigma.get_state()
    assert asked_after_wrong == []


def test_state_version_1_still_loads():
    game, pilot = autoplay(world("harbor"), 2, turns=5)
    old = pilot.get_state()
    old = {k: v for k, v in old.items() if k not in ("claims", "followed")} | {"version": 1}
    fresh = make_autopilot(Game(world("harbor"), seed=2), 2)
    fresh.set_state(old)
    assert fresh.claims == [] and fresh.followed == [] and fresh.asked == pilot.asked


def test_m_vote_without_trust_is_a_majority_of_claimants():
    """Nobody trusted: two say the crypt, one the pier; M-Vote's majority beats the nearer pier."""
    game = Game(world("harbor"), seed=0)
    pilot = Autopilot(game.engine, np.random.default_rng(0), sigma=game.facts.sigma, ask=False)
    pilot.visited.update({"market_row": -1, "chapel": -1})
    obs = game.engine.observe(PLAYER)
    obs = dataclasses.replace(obs, recent=obs.recent + (_say(0, 90, "hobb", "strongbox", "pier"),
                                                        _say(0, 91, "dray", "strongbox", "crypt"),
                                                        _say(0, 92, "jory", "strongbox", "crypt")))
    assert pilot.act(obs) == Action(PLAYER, Verb.GO, obj="north")
