"""Interactive-fiction basics on the shipped worlds: no internal id in prose, arrivals read as
arrivals, fixed things refused for free, scenery and oneself examinable, light sources, take all
and drop all, and a help that lists what the parser knows."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from game.core.phrasing import HELP_TEXT
from game.core.types import PLAYER
from game.engine import predicates
from game.engine.parser import Clarify, Command, Parser, Unknown
from game.play.session import Game
from game.play.worlds import load_world
from game.testing import standard_engine
from tests.conftest import ROOT, WORLDS

SHIPPED = ("harbor", "bazaar", "council")
ID_PATTERN = re.compile(r"\b(?:exit|item|npc|scenery|location|player):[a-z_]|'[a-z]+_[a-z_]+'")


def lines_of(eng, parser, text):
    """What the player reads after ``text`` (one action applied, no NPC turn): the parser's answer
    or the events the player perceives."""
    parsed = parser.parse(text, eng.scope())
    if isinstance(parsed, (Unknown, Clarify)):
        return [getattr(parsed, "message", None) or parsed.question]
    if not isinstance(parsed, Command):
        return []
    eng.state.done = False
    result = eng.apply(parsed.action)
    return [ev.seen_by(PLAYER) for ev in result.events if PLAYER in ev.perceivers]


def ids_of(spec):
    return {i for group in (spec.items, spec.npcs, spec.locations, spec.facts) for i in group if "_" in i}


@pytest.mark.parametrize("world", SHIPPED)
def test_no_internal_id_reaches_the_player(world):
    """Examining, taking, opening, lighting, asking about and going through every noun and exit of
    every room: no message names a thing by its id (``exit:up``, ``mooring_post``)."""
    spec = load_world(WORLDS / world).spec
    ids = ids_of(spec)
    for loc in spec.locations.values():
        eng = standard_engine(load_world(WORLDS / world), seed=0)
        here = next(k for k, v in spec.locations.items() if v is loc)
        eng.state.where[PLAYER] = here
        for iid, item in spec.items.items():  # carry every key, so unlocking runs its rules too
            if item.portable and eng.state.item_at[iid] not in spec.items:
                eng.state.item_at[iid] = PLAYER
        parser = Parser()
        people = [n.name for n in eng.scope().nouns if n.kind == "npc"]
        said: list[str] = []
        for noun in eng.scope().nouns:
            for verb in ("x", "take", "open", "light", "drop", "unlock", "go"):
                said += lines_of(eng, parser, f"{verb} {noun.name}")
                eng.state.where[PLAYER] = here
            said += lines_of(eng, parser, f"unlock {noun.name} with {noun.name}")
            for who in people[:1]:
                said += lines_of(eng, parser, f"ask {who} about {noun.name}")
                said += lines_of(eng, parser, f"give {noun.name} to {who}")
        for d in loc.exits:
            said += lines_of(eng, parser, f"x {d}")
            said += lines_of(eng, parser, f"go {d}")
            eng.state.where[PLAYER] = here
        for line in said:
            assert not ID_PATTERN.search(line), f"{world}/{here}: {line!r}"
            assert not any(re.search(rf"\b{i}\b", line) for i in ids), f"{world}/{here}: {line!r}"


def test_shingle_beach_door_and_lighthouse_read_as_things():
    eng = standard_engine(load_world(WORLDS / "harbor"), seed=0)
    eng.state.where[PLAYER] = "shingle_beach"
    parser = Parser()
    door = lines_of(eng, parser, "x door")
    assert door == ["The lighthouse door is iron-banded and locked. The keyhole is crusted with salt."]
    tower = lines_of(eng, parser, "x lighthouse")
    assert "lighthouse rises dark" in tower[0]


def test_arrivals_read_as_arrivals_and_departures_as_departures():
    """Watching the Quay: whoever 'goes' somewhere has left it, whoever 'arrives' is there now;
    no movement line is told twice to the room."""
    game = Game(WORLDS / "harbor", seed=0)
    heard = []
    for _ in range(15):
        reply = game.submit("look")
        present = {game.engine.name(e) for e in game.engine.state.entities_at("quay")}
        for line in reply.lines[1:]:
            gone = re.fullmatch(r"(.+) goes \w+\.", line)
            came = re.fullmatch(r"(.+) (?:arrives from the \w+|comes (?:up|down) from \w+|arrives)\.", line)
            if gone:
                assert gone.group(1) not in present, line
            if came:
                assert came.group(1) in present, line
            heard.append(line)
    assert any("arrives from the" in line for line in heard)
    assert any(" goes " in line for line in heard)


@pytest.mark.parametrize("world", SHIPPED)
def test_taking_a_fixed_thing_is_refused_without_a_turn(world):
    spec = load_world(WORLDS / world).spec
    fixed = [(lid, iid) for lid, loc in spec.locations.items() for iid in loc.items if not spec.items[iid].portable]
    assert fixed
    for lid, iid in fixed:
        eng = standard_engine(load_world(WORLDS / world), seed=0)
        eng.state.where[PLAYER] = lid
        got = Parser().parse(f"take {spec.items[iid].name}", eng.scope())
        assert isinstance(got, Unknown) and got.message.endswith("won't budge."), (iid, got)
        assert not predicates.takeable(spec, eng.state, PLAYER, iid)


def test_take_fixed_spends_no_turn_and_npcs_stay():
    game = Game(WORLDS / "harbor", seed=0)
    before = (game.engine.state.turn, dict(game.engine.state.where))
    for line in ("take mooring post", "take post", "get the bollard", "take gulls"):
        reply = game.submit(line)
        assert reply.kind == "unknown" and "won't budge" in reply.lines[0]
    assert (game.engine.state.turn, game.engine.state.where) == before


def test_scenery_and_self_can_be_examined():
    game = Game(WORLDS / "harbor", seed=0)
    for line in ("n", "e"):
        game.submit(line)
    assert game.engine.state.where[PLAYER] == "chandlery"
    assert "hang from the beams" in game.submit("x lantern").lines[0]
    assert "hang from the beams" in game.submit("examine the beams").lines[0]
    for me in ("x me", "x self", "examine myself"):
        reply = game.submit(me)
        assert reply.lines[0].startswith("You are Traveller. You carry nothing, and 30 gold.")


def test_lantern_lights_and_opens_the_way_down():
    game = Game(WORLDS / "harbor", seed=0)
    st = game.engine.state
    st.item_at["lantern"] = PLAYER
    st.where[PLAYER] = "shingle_beach"
    refused = game.submit("d").lines[0]
    assert "not lit: try 'light storm lantern'" in refused
    assert st.where[PLAYER] == "shingle_beach"
    assert game.submit("light torch").lines[0] == "You light the storm lantern. It burns bright."
    assert "already lit" in game.submit("light lamp").lines[0]
    game.submit("climb down")
    assert st.where[PLAYER] == "sea_cave"


def test_a_lantern_not_carried_is_hinted_at_not_found():
    game = Game(WORLDS / "harbor", seed=0)
    game.engine.state.where[PLAYER] = "shingle_beach"
    assert "without a lit lantern" in game.submit("d").lines[0]


def test_take_all_and_drop_all_in_one_turn():
    game = Game(WORLDS / "harbor", seed=0)
    st = game.engine.state
    st.where[PLAYER] = "lighthouse"
    turn = st.turn
    reply = game.submit("take all")
    assert reply.lines[:2] == ("Taken: the brass key.", "Taken: the captain's coat.")
    assert st.turn == turn + 1 and st.item_at["brass_key"] == st.item_at["captains_coat"] == PLAYER
    assert "nothing here you can take" in game.submit("take everything").lines[0]
    reply = game.submit("drop all")
    assert reply.lines[:2] == ("Dropped: the brass key.", "Dropped: the captain's coat.")
    assert st.turn == turn + 2 and st.item_at["brass_key"] == "lighthouse"
    assert game.submit("drop all").lines[0] == "You carry nothing to drop."


def test_help_lists_every_verb_the_parser_knows():
    from game.engine import parser

    shown = HELP_TEXT.lower()
    verbs = {name for name in parser._VERBS.values()} - {"walk_away", "leave"}
    missing = [v for v in sorted(verbs) if not re.search(rf"\b{v}\b", shown)]
    assert not missing, missing
    for phrase in ("take all", "drop all", "light x", "examine me"):
        assert phrase in shown, phrase


def test_a_light_lock_needs_a_light_source(tmp_path):
    from game.testing import check_world

    text = (WORLDS / "harbor" / "world.toml").read_text().replace("light = true\n", "", 1)
    folder = tmp_path / "harbor"
    folder.mkdir()
    (folder / "world.toml").write_text(text)
    (folder / "npcs").symlink_to(WORLDS / "harbor" / "npcs")
    problems = [str(p) for p in check_world(folder)]
    assert any("opened by light needs a light source" in p and "shingle_beach.locked.down" in p for p in problems)


@pytest.mark.parametrize("world", SHIPPED)
def test_every_scenery_name_examines_to_its_description(world):
    """Each shipped room names scenery, and each of its names shows its description where nothing
    else of that name is in reach."""
    spec = load_world(WORLDS / world).spec
    assert sum(len(loc.scenery) for loc in spec.locations.values()) >= len(spec.locations) - 3
    for lid, loc in spec.locations.items():
        eng = standard_engine(load_world(WORLDS / world), seed=0)
        eng.state.where[PLAYER] = lid
        others = {w for n in eng.scope().nouns if n.kind != "scenery" for w in (n.name, *n.aliases)}
        for thing in loc.scenery.values():
            for name in (thing.name, *thing.aliases):
                if name not in others:
                    assert lines_of(eng, Parser(), f"x {name}") == [thing.description], (lid, name)


_WORDS = ["take", "drop", "x", "light", "all", "me", "door", "lighthouse", "cleft", "lantern", "steps", "the", "with"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_WORDS) | st.text(max_size=8), max_size=6))
def test_parser_answers_never_show_an_id(said):
    """Any mix of the new verbs and the beach's nouns: the parser answers, and never with an id."""
    eng = _BEACH
    got = Parser().parse(" ".join(said), eng.scope())
    text = getattr(got, "message", None) or getattr(got, "question", None) or ""
    for word in " ".join(said).split():  # the player's own words echoed back are not ids
        text = text.replace(f"'{word.lower()}'", "''").replace(f"'{word}'", "''")
    assert not ID_PATTERN.search(text), text


_BEACH = standard_engine(load_world(WORLDS / "harbor"), seed=0)
_BEACH.state.where[PLAYER] = "shingle_beach"
_BEACH.state.item_at["lantern"] = PLAYER


def test_ways_up_and_down_read_as_above_and_below_in_every_golden_game():
    """ "unlocks the lighthouse door to the up" read as a slip: a way up or down is above or below."""
    import re

    golden = ROOT / "tests" / "golden"
    texts = [line for f in sorted(golden.glob("*.jsonl")) for line in f.read_text(encoding="utf-8").splitlines()]
    assert texts and any("unlocks the lighthouse door above" in t for t in texts)
    assert not [t for t in texts if re.search(r"\bthe (up|down)\b", t)]


def test_a_quest_says_what_it_gave():
    """Gold and things a quest gives are said when it completes, not found later in the inventory."""
    golden = (ROOT / "tests" / "golden" / "harbor_seed0.jsonl").read_text(encoding="utf-8")
    assert "Quest complete: A Promise Kept (+40 points, 20 gold and Gannet's compass)." in golden
