"""The JSON Schemas LLM seats send are narrowed to what is legal now: every reply a schema admits
is one the game accepts, and what the rules refuse the schema refuses (checked with the
``jsonschema`` validator, the way a grammar-constrained server reads them). They hold no
hidden truth: nothing an agent could not know goes into its schema."""

from __future__ import annotations

import itertools

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.llm.negotiator import LLMNegotiator
from agents.llm.npc import LLMNPC
from agents.llm.player import command_schema
from agents.negotiators import from_kind
from game.core import reply_schema as rs
from game.negotiation.session import Negotiation
from game.negotiation.utility import utilities_for
from game.play.worlds import load_world
from memory.jury import verdicts_schema
from tests.conftest import WORLDS


def admits(schema: dict, reply: object) -> bool:
    try:
        jsonschema.validate(reply, schema)
    except jsonschema.ValidationError:
        return False
    return True


def test_the_player_schema_admits_exactly_the_commands_open_now():
    schema = command_schema(("look", "go north", "take brass key"))
    assert admits(schema, {"command": "go north", "reason": "explore"})
    assert not admits(schema, {"command": "go south", "reason": "explore"})
    assert not admits(schema, {"command": "look"})  # the reason is asked for too
    assert not admits(schema, {"command": "look", "reason": "x" * 81})


@pytest.fixture(scope="module")
def bazaar():
    return load_world(WORLDS / "bazaar").spec


def negotiator(spec, scene_id="spice_for_silk", party=None):
    scene = spec.scenes[scene_id]
    utils = utilities_for(scene)
    party = party or scene.parties[0].id
    llm = LLMNegotiator(None, scene, party, utils[party], fallback=from_kind("linear", utils[party]))
    return scene, utils, llm


def test_the_negotiation_schema_lists_only_offers_worth_the_reservation(bazaar):
    scene, utils, neg = negotiator(bazaar)
    session = Negotiation(scene, utilities=utils)
    while session.turn != neg.party:
        session.offer(session.turn, {k: v[0] for k, v in scene.issues.items()})
    schema = neg.move_schema(session)
    u = utils[neg.party]
    for values in itertools.product(*scene.issues.values()):
        offer = dict(zip(scene.issues, values))
        ok = admits(schema, {"action": "offer", "offer": offer, "message": ""})
        assert ok == (u(offer) >= u.reservation), offer
    standing_ok = u(session.standing_offer) >= u.reservation
    assert admits(schema, {"action": "accept", "message": ""}) == standing_ok
    assert admits(schema, {"action": "walk_away", "message": ""})
    assert not admits(schema, {"action": "offer", "offer": None, "message": ""})
    assert not admits(schema, {"action": "bribe", "message": ""})


def test_the_first_move_cannot_accept_or_reject(bazaar):
    scene = bazaar.scenes["spice_for_silk"]
    first = Negotiation(scene, utilities=utilities_for(scene)).turn
    _, utils, neg = negotiator(bazaar, party=first)
    schema = neg.move_schema(Negotiation(scene, utilities=utils))  # no standing offer yet
    assert not admits(schema, {"action": "accept", "message": ""})
    assert not admits(schema, {"action": "reject", "message": ""})
    assert admits(schema, {"action": "walk_away", "message": ""})


def test_the_npc_schema_speaks_the_world_vocabulary_without_other_npcs_secrets(bazaar):
    npc_id = next(iter(bazaar.npcs))
    npc = LLMNPC(npc_id, bazaar, 0, client=None)
    schema = npc.reply_schema()
    claim = schema["properties"]["claims"]["items"]
    subjects = set(claim["properties"]["subject"]["enum"])
    objects = set(claim["properties"]["object"]["anyOf"][0]["enum"])
    mine = set(bazaar.npcs[npc_id].knowledge)
    theirs = {fid for n in bazaar.npcs.values() for fid in n.knowledge} - mine
    public = {*bazaar.items, *bazaar.npcs, *bazaar.locations}
    for fid in theirs:  # a fact only others know adds no word of its own to this NPC's schema
        f = bazaar.facts[fid]
        if f.subject not in public and all(bazaar.facts[m].subject != f.subject for m in mine):
            assert f.subject not in subjects, fid
        if f.object not in public and all(bazaar.facts[m].object != f.object for m in mine):
            assert f.object not in objects, fid
    assert "true" not in str(schema).lower()  # no truth flag anywhere
    some = {"subject": sorted(subjects)[0], "relation": claim["properties"]["relation"]["enum"][0]}
    topic = claim["properties"]["topic"]["enum"][0]
    assert admits(schema, {"text": "Hello.", "claims": [{**some, "object": "twelve", "topic": topic}]})
    assert not admits(schema, {"text": "Hello.", "claims": [{**some, "object": "x", "topic": "gossip-nobody-has"}]})


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 9), st.data())
def test_numbered_answers_are_one_per_item_in_order(n, data):
    schema = verdicts_schema(n)
    answers = data.draw(st.lists(st.sampled_from(["yes", "no", "unsure"]), min_size=n, max_size=n))
    good = {"verdicts": [{"id": i + 1, "answer": a} for i, a in enumerate(answers)]}
    assert admits(schema, good)
    assert not admits(schema, {"verdicts": good["verdicts"][:-1]})
    assert not admits(schema, {"verdicts": list(reversed(good["verdicts"]))}) or n == 1


def test_variants_and_one_of():
    assert rs.variants({"a": 1}) == {"a": 1}
    assert rs.variants({"a": 1}, {"b": 2}) == {"oneOf": [{"a": 1}, {"b": 2}]}
    assert admits(rs.one_of(["x"], nullable=True), None) and not admits(rs.one_of(["x"]), None)


def smallest(schema: dict, pick: int = 0):
    """The smallest reply ``schema`` admits (strings at their least length, arrays at their fewest
    items, the ``pick``-th option of each choice): what a model in a hurry would write."""
    if "const" in schema:
        return schema["const"]
    if "enum" in schema:
        return schema["enum"][pick % len(schema["enum"])]
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return smallest(schema[key][pick % len(schema[key])], pick)
    kind = schema.get("type")
    if kind == "object":
        return {k: smallest(v, pick) for k, v in schema["properties"].items()}
    if kind == "array":
        items = schema.get("prefixItems") or [schema["items"]] * max(schema.get("minItems", 0), 1)
        return [smallest(s, pick) for s in items]
    if kind == "string":
        return "x" * schema.get("minLength", 0)
    if kind == "number":
        return schema.get("minimum", 0.0)
    if kind == "boolean":
        return False
    raise AssertionError(f"no smallest value for {schema}")


def narrowed_schemas(bazaar):
    """(reply model, narrowed schema) for every LLM seat, on the bazaar world."""
    from agents.llm.player import PlayerReply
    from agents.llm.prompts import NegotiationReply, NpcReply
    from agents.memo_llm import LESSONS_SCHEMA, RATING_SCHEMA, SUMMARY_SCHEMA, Lessons, Rating, Summary
    from game.council.llm import DebateReply, LabelReply, LLMDebater
    from memory.extract_llm import LLMExtractor, ReadClaims
    from memory.jury import JuryReply
    from memory.lexicon import Lexicon

    scene, utils, neg = negotiator(bazaar)
    session = Negotiation(scene, utilities=utils)
    while session.turn != neg.party:
        session.offer(session.turn, {k: v[-1] for k, v in scene.issues.items()})
    npc = LLMNPC(next(iter(bazaar.npcs)), bazaar, 0, client=None)
    out = [
        (PlayerReply, command_schema(("look", "go north"))),
        (NegotiationReply, neg.move_schema(session)),
        (NpcReply, npc.reply_schema()),
        (Summary, SUMMARY_SCHEMA),
        (Rating, RATING_SCHEMA),
        (Lessons, LESSONS_SCHEMA),
        (ReadClaims, LLMExtractor(None, Lexicon.from_spec(bazaar)).reply_schema()),
        (JuryReply, verdicts_schema(3)),
    ]
    labels = rs.obj({"labels": rs.numbered(2, "n", {"label": rs.one_of(["keep", "mask"])})})
    out.append((LabelReply, labels))
    from game.council.context import MaskingConfig
    from game.council.session import CouncilSession
    from game.council.tasks import hidden_profile_task
    from game.play.debates import view_for
    from memory.debate_masking import Masker
    from memory.embedder import get_embedder

    task = hidden_profile_task(0)
    council = CouncilSession(task)
    view = view_for(council, task.members[0].id, Masker(MaskingConfig(), get_embedder("hash")))
    out.append((DebateReply, LLMDebater.reply_schema(view)))
    return out


@pytest.mark.parametrize("pick", [0, 1, 2])
def test_the_smallest_reply_each_schema_admits_is_a_valid_reply(bazaar, pick):
    for model, schema in narrowed_schemas(bazaar):
        reply = smallest(schema, pick)
        assert admits(schema, reply), (model.__name__, reply)
        model.model_validate(reply)  # a reply the server may write is one the agent accepts


def test_numbers_in_range_are_an_enum_a_grammar_cannot_overrun():
    schema = rs.number(0.0, 1.0)
    assert "enum" in schema and "minimum" not in schema  # llama.cpp's grammar ignores minimum/maximum
    assert admits(schema, 0.0) and admits(schema, 0.35) and admits(schema, 1.0)
    assert not admits(schema, 1.6) and not admits(schema, -0.05)
