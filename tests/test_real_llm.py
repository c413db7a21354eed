"""Every LLM path against a real language model: the bundled SmolLM2-135M-Instruct, served by
llama.cpp (``--llm local``), through the real ``openai`` client over real HTTP.

Deterministic: temperature 0 and seed 0 (the local model's defaults). One server serves the
whole group (``agents.llm.local.shared_url``); the group runs in one xdist worker
(``xdist_group``, ``make test`` uses ``--dist loadgroup``). The point is not a strong player but
proof that the prompts, the structured replies, the reply reader and the repairs work on what a
real model writes: with replies narrowed to what is legal now, nothing it sends is refused.
"""

from __future__ import annotations

import json

import pytest

from agents.llm import local
from agents.llm.client import LLMClient
from agents.llm.config import LLMConfig
from game.play.session import Game
from tests.conftest import WORLDS

pytestmark = [pytest.mark.real_llm, pytest.mark.xdist_group("real_llm")]


@pytest.fixture(scope="module")
def llm() -> LLMClient:
    client = LLMClient(LLMConfig(base_url="local", timeout=120))
    yield client
    client.close()


def decisions(game: Game) -> list[dict]:
    return [json.loads(r) for r in game.transcript.records if '"decision"' in r]


def test_the_local_server_is_one_per_run_and_answers_the_openai_client(llm):
    url = local.shared_url()
    assert local.answers(url) and url == local.shared_url()  # started once, then shared
    assert local.ENV in __import__("os").environ  # worker processes would reuse it
    reply = llm.chat([{"role": "user", "content": "Say hello."}], agent="probe", max_tokens=8)
    assert reply.text.strip() and reply.completion_tokens >= 1
    assert llm.config.model == local.BUNDLED_NAME and llm.config.temperature == 0.0 and llm.config.seed == 0


def test_an_llm_npc_answers_in_character_and_its_claims_reach_the_gate(llm):
    game = Game(WORLDS / "bazaar", seed=0, llm=llm, llm_npcs={"ozra"})
    for cmd in ("go north", "go east"):
        game.submit(cmd)
    reply = game.submit("ask ozra about wares")
    (say,) = [e for e in reply.events if e.kind == "say" and e.actor == "ozra"]
    used = llm.usage_by_agent()["ozra"]
    assert used.calls >= 1 and used.invalid == 0  # the model's own reply, valid at once
    assert [(d["kind"], d["who"]) for d in decisions(game)] == [("reply", "ozra")]
    assert say.text.startswith("Ozra Nayl says:") and len(say.text) > len("Ozra Nayl says: ")
    claims = say.data["claims"]
    assert claims, "the model asserted no world fact"
    spec = game.spec
    vocabulary = {*spec.items, *spec.npcs, *spec.locations, *(f.subject for f in spec.facts.values())}
    assert all(c["subject"] in vocabulary and c["topic"] in {f.topic for f in spec.facts.values()} for c in claims)
    judged = game.facts.gate.audit(source="ozra")
    assert judged, "the gate judged none of the NPC's claims"
    assert all(d.outcome in ("admit", "quarantine", "reject") and d.reason for d in judged)
    assert game.engine.state.invalid == {}


def test_an_llm_negotiator_finishes_with_only_legal_moves(llm):
    from agents.llm.negotiator import LLMNegotiator
    from agents.negotiators import from_kind
    from game.negotiation.runner import run_negotiation
    from game.negotiation.utility import utilities_for
    from game.play.worlds import load_world

    spec = load_world(WORLDS / "bazaar").spec
    scene = spec.scenes["spice_for_silk"]
    utils = utilities_for(scene)
    a, b = [p.id for p in scene.parties]
    negs = {
        a: LLMNegotiator(llm, scene, a, utils[a], fallback=from_kind("linear", utils[a])),
        b: from_kind("boulware", utils[b]),
    }
    fallbacks: list[str] = []
    session, _ = run_negotiation(
        scene, negs, utilities=utils, on_move=lambda p, m: fallbacks.append(m.fallback) if p == a else None
    )
    moves = [r for r in session.history if r.party == a]
    assert moves, "the LLM never moved"
    assert not any(fallbacks), fallbacks
    assert llm.usage_by_agent()[a].invalid == 0
    for r in moves:
        if r.kind == "offer":
            terms = dict(r.terms)
            assert all(terms[k] in v for k, v in scene.issues.items())
            assert utils[a](terms) >= utils[a].reservation  # the schema listed only acceptable offers
    assert not session.is_open and session.status in ("agreement", "no_agreement", "walked_away")


def test_an_llm_council_debates_two_rounds_under_subjective_masking(llm):
    from game.council.context import SubjectiveMaskingConfig
    from game.council.llm import llm_council
    from game.council.session import CouncilConfig
    from game.council.tasks import hidden_profile_task
    from game.play.debates import run_debate

    task = hidden_profile_task(0)
    debaters = llm_council(task, llm)
    session, metrics = run_debate(
        task,
        CouncilConfig(max_rounds=2, min_rounds=2, speakers_per_round=2),
        SubjectiveMaskingConfig(budget=200),
        debaters,
    )
    assert len(session.history) == 4  # two speakers in each of two rounds
    invalid = [i for d in debaters.values() for i in d.invalid]
    assert invalid == [], invalid
    assert all(0.0 <= s.stance <= 1.0 for s in session.history)
    known = {e.id for e in task.evidence}
    assert all(s.evidence is None or s.evidence in known for s in session.history)
    assert metrics is not None


def test_memo_summarise_and_the_claim_extractor_run_on_real_output(llm):
    from agents.memo_llm import MemoLLM
    from game.play.worlds import load_world
    from memory.extract_llm import LLMExtractor
    from memory.lexicon import Lexicon

    memo = MemoLLM(llm)
    summary = memo.summarise(
        [
            "Ozra says her saffron is the best in Qirath.",
            "Tavish offered three pouches for four bolts of silk.",
            "The guard at the gate wants a pass before night.",
        ]
    )
    assert isinstance(summary, str) and 0 < len(summary.strip()) <= 2000
    spec = load_world(WORLDS / "bazaar").spec
    extractor = LLMExtractor(llm, Lexicon.from_spec(spec))
    raw = extractor._ask("Word on Spice Row: whatever Ozra hawks came off a boat from the south.")
    assert isinstance(raw, list) and len(raw) <= 8
    lex = extractor.lex
    assert all(c["subject"] in lex.entities and c["relation"] in lex.relations for c in raw)
    assert llm.usage_by_agent()["extract"].invalid == 0


def test_a_game_with_llm_npcs_replays_without_the_model(llm, tmp_path):
    from game.play.persistence import replay

    game = Game(WORLDS / "bazaar", seed=3, llm=llm, llm_npcs={"ozra"})
    for cmd in ("go north", "go east", "ask ozra about wares", "talk to ozra"):
        game.submit(cmd)
    assert len(decisions(game)) >= 2
    game.save("real-llm", base=tmp_path)
    calls = llm.total().calls
    local.stop_shared()  # no model from here on
    try:
        ok, got, want = replay("real-llm", base=tmp_path)
        assert ok and got == want == game.engine.state_hash()
        assert llm.total().calls == calls
    finally:
        llm.close()  # its next request starts a fresh server
        llm._sdk_client = None


def test_an_llm_player_plays_twenty_turns_of_harbor_with_no_unusable_command(llm):
    from agents.llm.player import LLMPlayer

    game = Game(WORLDS / "harbor", seed=0, llm=llm, llm_npcs=())
    seat = LLMPlayer(llm)
    commands = []
    for _ in range(20):
        reply = game.play_turn(seat)
        assert reply.kind == "turn" and reply.fallback is None, reply.fallback
        commands.append(reply.command)
        refused = [e.text for e in reply.events if e.actor == "player" and e.kind == "invalid"]
        assert not refused, refused  # the rules refused nothing it chose
    assert game.engine.state.turn == 20 and game.engine.state.invalid == {}
    used = llm.usage_by_agent()["player"]
    assert used.calls == 20 and used.invalid == 0  # one reply a turn, each a legal command
    assert len(set(commands)) > 1
