"""LLM agents read their MEMO context: an LLM NPC's and an LLM merchant's prompts carry
what they remember (real MiniLM-free hash embedder, real HTTP to the scripted server)."""

from __future__ import annotations

import json

from agents.llm.client import LLMClient
from agents.llm.config import LLMConfig
from game.core.types import PLAYER, Action, Verb
from game.play.session import Game
from game.testing.scripted_server import ScriptedServer


def npc_or_move(body: dict) -> str:
    """Answer NPC requests with a line, negotiation requests with a walk-away."""
    system = body["messages"][0]["content"]
    if "Protocol: alternating offers" in system:
        return json.dumps({"action": "walk_away", "offer": None, "message": "Not today."})
    return json.dumps({"text": "Aye.", "claims": []})


def test_llm_npc_and_merchant_prompts_carry_their_memory_context():
    with ScriptedServer(responder=npc_or_move) as server:
        client = LLMClient(LLMConfig(base_url=server.base_url, model="m", max_retries=0, timeout=5))
        game = Game("tests/fixtures/mini", seed=1, memory={"embedder": "hash"}, llm=client)
        game.act(Action(PLAYER, Verb.SAY, text="The iron key opens the gate, Lou."))
        game.act(Action(PLAYER, Verb.ASK, obj="liar", target="gem"))
        asked = server.requests[-1]["messages"][-1]["content"]
        assert "asks you about gem" in asked
        assert "What you remember" in asked and "iron key opens the gate" in asked
        game.act(Action(PLAYER, Verb.GO, obj="north"))
        game.act(Action(PLAYER, Verb.TRADE, obj="mara"))
        game.act(Action(PLAYER, Verb.OFFER, terms=(("price", "5"),)))
        move = next(r for r in server.requests if "Protocol: alternating offers" in r["messages"][0]["content"])
        prompt = move["messages"][-1]["content"]
        assert "What you remember" in prompt and "offers price=5" in prompt
        assert game.engine.state.scenes["buy_lamp"]["outcome"] == "no_agreement"
        usage = client.usage_by_agent()
        assert usage["liar"].calls >= 1 and usage["mara"].calls >= 1
        assert sum(u.calls for u in client.usage_by_turn().values()) == client.total().calls
