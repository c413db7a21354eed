"""LLM-driven agents end to end: the real ``openai`` SDK over real HTTP against the
scripted local server (``game.testing.scripted_server``), in games, scenes and the CLI.

No mocks: every reply below travels as an HTTP response and every request the
agents make is read back from the server.
"""

from __future__ import annotations

import json
import re

import pytest

from agents.llm.client import LLMClient, LLMError, LLMUnavailable
from agents.llm.config import LLMConfig
from game.engine.loop import INVALID_PENALTY
from game.engine.parser import Command
from game.play.persistence import replay
from game.play.session import Game
from game.testing.scripted_server import ScriptedServer
from tests.conftest import ROOT, WORLDS, parley

MINI = ROOT / "tests" / "fixtures" / "mini"
BAZAAR = WORLDS / "bazaar"
COUNCIL = WORLDS / "council"
# CLI runs must not pick up a real endpoint, key or model from the developer's environment
CLEAN_ENV = {"OPENAI_BASE_URL": "", "OPENAI_API_KEY": "", "PARLEY_MODEL": ""}


# -- helpers ---------------------------------------------------------------------------


def client(server: ScriptedServer, **kw) -> LLMClient:
    """A client that fails fast: no retries, no backoff, short timeout."""
    settings = dict(
        base_url=server.base_url, model="test", max_retries=0, backoff_base=0.0, backoff_max=0.0, timeout=2.0
    )
    settings.update(kw)
    return LLMClient(LLMConfig(**settings))


def npc_reply(text: str, *claims: tuple[str, str, str, str]) -> str:
    return json.dumps(
        {"text": text, "claims": [dict(zip(("subject", "relation", "object", "topic"), c)) for c in claims]}
    )


def move(action: str, offer: dict | None = None, message: str = "") -> str:
    return json.dumps({"action": action, "offer": offer, "message": message})


def schema_name(body: dict) -> str | None:
    return ((body.get("response_format") or {}).get("json_schema") or {}).get("name")


class BySchema:
    """A responder with one reply queue per reply schema (NpcReply, NegotiationReply)."""

    def __init__(self, **queues: list):
        self.queues = {k: list(v) for k, v in queues.items()}

    def __call__(self, body: dict):
        name = schema_name(body)
        q = self.queues.get(name)
        if not q:
            return {"status": 500, "error": f"test script: no reply left for {name}"}
        return q.pop(0)


def play(game: Game, *lines: str) -> list:
    """Play command lines; returns the events of the last one."""
    events: list = []
    for line in lines:
        parsed = game.parser.parse(line, game.engine.scope())
        assert isinstance(parsed, Command), (line, parsed)
        events = game.act(parsed.action)
    return events


def of_kind(events, kind: str, actor: str | None = None) -> list:
    return [e for e in events if e.kind == kind and (actor is None or e.actor == actor)]


def last_user(body: dict) -> str:
    return body["messages"][-1]["content"]


def system(body: dict) -> str:
    assert body["messages"][0]["role"] == "system"
    return body["messages"][0]["content"]


# -- 1. an NPC answers through the LLM ---------------------------------------------------


def test_llm_npc_answers_with_claims_mapped_to_world_facts(serve):
    s = serve(
        [
            npc_reply(
                "Mine is the best saffron in Qirath, friend. Tavish sells it too, they say.",
                ("saffron", "sold_by", "ozra", "wares"),
                ("saffron", "sold_by", "tavish", "wares"),
            )
        ]
    )
    llm = client(s)
    game = Game(BAZAAR, seed=0, llm=llm, llm_npcs={"ozra"})
    (say,) = of_kind(play(game, "go north", "go east", "ask ozra about wares"), "say")
    assert say.actor == "ozra" and say.perceivers[:1] == ("player",)
    assert say.text == 'Ozra Nayl says: "Mine is the best saffron in Qirath, friend. Tavish sells it too, they say."'
    real, invented = say.data["claims"]
    assert real == {
        "subject": "saffron",
        "relation": "sold_by",
        "object": "ozra",
        "topic": "wares",
        "speaker": "ozra",
        "turn": 2,
        "fact_id": "saffron_sold_by_ozra",
    }
    assert invented["object"] == "tavish" and invented["fact_id"] is None and invented["topic"] == "wares"

    (req,) = s.requests  # only Ozra is LLM-driven; walking there asked nobody
    sysmsg = system(req)
    assert "You are Ozra Nayl" in sysmsg and "hennaed hands" in sysmsg  # name and persona
    assert "The best saffron in Qirath is Ozra's" in sysmsg  # what she knows
    assert "Ozra would sooner burn her fine saffron" in sysmsg and "a falsehood you may tell" in sysmsg
    assert "truthful about merchants 20% of the time" in sysmsg  # her honesty profile
    assert "Traveller asks you about wares" in last_user(req)
    fmt = req["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "NpcReply"
    assert set(fmt["json_schema"]["schema"]["properties"]) == {"text", "claims"}
    assert req["model"] == "test"
    assert llm.usage_by_agent()["ozra"].calls == 1 and game.engine.state.invalid == {}
    decisions = [json.loads(r) for r in game.transcript.records if '"decision"' in r]
    assert [(d["kind"], d["who"]) for d in decisions] == [("reply", "ozra")]


# -- 2. invalid replies: repair, then the scripted voice as a penalised fallback ---------


def test_garbage_until_repairs_run_out_falls_back_to_the_scripted_voice(serve):
    s = serve(
        [
            "I am not JSON at all.",
            json.dumps({"text": ""}),
            npc_reply("Down the well.", ("gem", "located_in", "well", "dragons")),
        ]
    )
    llm = client(s)  # max_repairs defaults to 2: three replies in all
    game = Game(MINI, seed=3, llm=llm, llm_npcs={"liar"})
    events = play(game, "ask lou about gem")
    scripted = of_kind(play(Game(MINI, seed=3), "ask lou about gem"), "say")

    says = of_kind(events, "say")
    assert [(e.text, e.data["claims"]) for e in says] == [(e.text, e.data["claims"]) for e in scripted]
    assert says[0].data["claims"][0]["fact_id"] == "gem_in_well"  # Lou lies about the gem, as scripted
    (bad,) = of_kind(events, "invalid", "liar")
    assert bad.perceivers == ("liar",) and bad.data == {"fallback": True}
    assert "unusable LLM reply" in bad.text and "claim topic 'dragons'" in bad.text
    assert game.engine.state.invalid == {"liar": 1}
    assert game.engine.rewards["liar"] == pytest.approx(-INVALID_PENALTY)

    assert len(s.requests) == 3
    first, second, third = s.requests
    assert second["messages"][-2] == {"role": "assistant", "content": "I am not JSON at all."}
    assert "Your reply was invalid: no JSON object found in the reply" in last_user(second)
    assert "text: String should have at least 1 character" in last_user(third)
    assert llm.usage_by_agent()["liar"].invalid == 3


def test_a_penalised_fallback_replays_exactly(serve, tmp_path):
    """The fallback's reason rides in the decision record, so a replay applies the penalty too."""
    s = serve(["garbage"] * 3)
    game = Game(MINI, seed=3, llm=client(s), llm_npcs={"liar"})
    play(game, "ask lou about gem")
    assert game.engine.state.invalid == {"liar": 1}
    game.save("fallback", base=tmp_path)
    ok, got, want = replay("fallback", base=tmp_path)
    assert ok, (got, want)


def test_a_claim_on_an_unknown_topic_is_rejected_and_repaired(serve):
    s = serve(
        [
            npc_reply("Dragons took it.", ("gem", "located_in", "well", "dragons")),
            npc_reply("The gem? Down the well, of course.", ("gem", "located_in", "well", "gem")),
        ]
    )
    llm = client(s)
    game = Game(MINI, seed=0, llm=llm, llm_npcs={"liar"})
    events = play(game, "ask lou about gem")
    (say,) = of_kind(events, "say")
    assert say.text == 'Lou says: "The gem? Down the well, of course."'
    assert [c["fact_id"] for c in say.data["claims"]] == ["gem_in_well"]
    assert not of_kind(events, "invalid") and game.engine.state.invalid == {}
    repair = last_user(s.requests[1])
    assert "claim topic 'dragons' is not a topic of this world (topics: gem, weather)" in repair
    assert llm.usage_by_agent()["liar"].invalid == 1


# -- 3. the LLM negotiator at the table ----------------------------------------------------


def test_llm_merchant_haggles_with_repairs_and_its_own_lines(serve):
    s = serve(
        [
            move("offer", {"price": "65", "lining": "none"}, "Sixty-five."),  # not a value
            move("offer", {"price": "30", "lining": "silk"}, "Practically free."),  # below reservation
            move("offer", {"price": "60", "lining": "wool"}, "Sixty, and I line it in wool."),
            move("accept", None, "Silk it is, then."),
        ]
    )
    llm = client(s)
    game = Game(BAZAAR, seed=0, llm=llm, llm_npcs={"tavish"})
    opened = play(game, "go north", "go west", "trade with tavish")
    (offer,) = of_kind(opened, "offer", "tavish")
    assert offer.data["terms"] == {"price": "60", "lining": "wool"}
    assert offer.text.endswith('Tavish Orme says: "Sixty, and I line it in wool."')
    assert offer.data["line"] == "Sixty, and I line it in wool."

    first, second, third = s.requests[:3]
    assert all(schema_name(r) == "NegotiationReply" for r in s.requests)
    sysmsg = system(first)
    assert "You are Tavish Orme" in sysmsg and "party 'tavish'" in sysmsg
    assert "reservation value (what no deal is worth to you): 0.30" in sysmsg
    assert "price (weight 0.70)" in sysmsg and "weight 0.65" not in sysmsg  # never the player's weights
    assert "'65' is not a value of 'price' (values: 30, 40, 50, 60)" in last_user(second)
    assert "below your reservation value 0.30" in last_user(third)

    closed = play(game, "offer price=50 lining=silk")
    (acc,) = of_kind(closed, "accept", "tavish")
    assert acc.text == 'Tavish Orme accepts. Tavish Orme says: "Silk it is, then."'
    (deal,) = of_kind(closed, "agreement")
    assert deal.data["terms"] == {"price": "50", "lining": "silk"}
    st = game.engine.state
    assert st.scenes["cloak_deal"]["outcome"] == "agreement" and st.item_at["cloak"] == "player"
    assert st.gold["player"] == 80 and "dressed_for_the_desert" in st.quests_done
    assert st.invalid == {}  # repairs succeeded: no fallback, no penalty
    u = llm.usage_by_agent()["tavish"]
    assert (u.calls, u.invalid) == (4, 2)
    assert "Standing offer from them: {'price': '50', 'lining': 'silk'} (worth 0.56 to you)" in last_user(s.requests[3])


def test_llm_merchant_falls_back_to_its_rule_based_negotiator(serve):
    s = serve(
        responder=BySchema(
            NegotiationReply=["nonsense"] * 3, NpcReply=[npc_reply("Sixty, and not a thread of lining.")]
        )
    )
    game = Game(BAZAAR, seed=0, llm=client(s), llm_npcs={"tavish"})
    events = play(game, "go north", "go west", "trade with tavish")
    (offer,) = of_kind(events, "offer", "tavish")
    (bad,) = of_kind(events, "invalid", "tavish")
    assert "unusable negotiation move" in bad.text and game.engine.state.invalid == {"tavish": 1}
    # the fallback is his configured (conceder) negotiator: it opens as the scripted Tavish does
    (scripted,) = of_kind(play(Game(BAZAAR, seed=0), "go north", "go west", "trade with tavish"), "offer")
    assert offer.data["terms"] == scripted.data["terms"]
    # ...and his LLM voice says the line that goes with it
    assert offer.text.endswith('Tavish Orme says: "Sixty, and not a thread of lining."')
    assert [schema_name(r) for r in s.requests] == ["NegotiationReply"] * 3 + ["NpcReply"]
    assert "You are haggling with Traveller. Your move: offer" in last_user(s.requests[3])


# -- 4. a standalone scene from the CLI ------------------------------------------------------


def _ozra(body: dict) -> str:
    """Ozra's scripted play: accept a standing offer worth 0.5 or more, else offer 2 pouches for 3 bolts."""
    worth = re.search(r"\(worth ([0-9.]+) to you\)", last_user(body))
    if worth and float(worth.group(1)) >= 0.5:
        return move("accept", None, "Done, and may your silk never fade.")
    return move("offer", {"pouches": "2", "bolts": "3"}, "Two pouches for three bolts.")


def usage_row(out: str, agent: str) -> list[str]:
    """The fields of ``agent``'s row in the LLM usage table: agent calls prompt reused compl. ms retries cached
    invalid."""
    table = out.split("LLM usage", 1)[1].splitlines()[2:]
    return next(line.split() for line in table if line.split()[:1] == [agent])


def _scene(server: ScriptedServer, *extra: str):
    return parley(
        "run",
        str(BAZAAR),
        "--scene",
        "spice_for_silk",
        "--negotiators",
        "llm,boulware",
        "--llm",
        server.base_url,
        "--model",
        "m",
        "--no-memory",
        *extra,
        env=CLEAN_ENV,
    )


def test_cli_scene_with_an_llm_negotiator(serve):
    # cloak_deal has the player as a party; spice_for_silk is the bazaar's NPC-only scene
    s = serve(responder=_ozra)
    r = _scene(s)
    assert r.returncode == 0, r.stderr
    assert "spice_for_silk: agreement on pouches=2, bolts=2" in r.stdout
    assert re.search(r"round  9  ozra\s+accept", r.stdout)
    assert "LLM usage (m; replies asked as json_schema):" in r.stdout
    row = usage_row(r.stdout, "ozra")
    assert row[1] == str(len(s.requests)) == "9" and row[7:] == ["0", "0"]  # calls; cached, invalid
    assert all(b["model"] == "m" and schema_name(b) == "NegotiationReply" for b in s.requests)
    assert "party 'ozra'" in system(s.requests[0])


def test_cli_scene_flag_errors():
    r = parley(
        "run", str(BAZAAR), "--scene", "spice_for_silk", "--negotiators", "llm,boulware", "--no-memory", env=CLEAN_ENV
    )
    assert r.returncode == 2 and "an llm negotiator needs --llm URL" in r.stderr
    r = parley("run", str(BAZAAR), "--scene", "spice_for_silk", "--negotiators", "foo,bar", "--no-memory")
    assert r.returncode == 2 and "unknown kind 'foo'" in r.stderr and "llm" in r.stderr
    r = parley("run", str(BAZAAR), "--scene", "spice_for_silk", "--negotiators", "bolware,llm", "--no-memory")
    assert r.returncode == 2 and "did you mean 'boulware'?" in r.stderr
    r = parley(
        "run",
        str(BAZAAR),
        "--scene",
        "cloak_deal",
        "--negotiators",
        "llm,boulware",
        "--llm",
        "http://127.0.0.1:9/v1",
        "--no-memory",
        env=CLEAN_ENV,
    )
    assert r.returncode == 2 and "has the player as a party" in r.stderr


def test_cli_llm_settings_errors_exit_2_without_leaking_secrets():
    r = parley("play", str(MINI), "--llm", "https://api.example.com/v1", "--no-memory", input="look\n", env=CLEAN_ENV)
    assert r.returncode == 2 and "no API key for a remote endpoint" in r.stderr and "OPENAI_API_KEY" in r.stderr
    r = parley(
        "run",
        str(BAZAAR),
        "--scene",
        "camel_hire",
        "--no-memory",
        "--llm",
        "ftp://user:sk-SECRET999@host/v1",
        env=CLEAN_ENV,
    )
    assert r.returncode == 2 and "base_url" in r.stderr
    assert "SECRET999" not in r.stderr + r.stdout
    r = parley(
        "play",
        str(MINI),
        "--llm",
        "http://127.0.0.1:9/v1",
        "--llm-npcs",
        "lou,nobody",
        "--no-memory",
        input="look\n",
        env=CLEAN_ENV,
    )
    assert r.returncode == 2 and "no NPC 'lou'" in r.stderr
    r = parley("play", str(MINI), "--model", "m", "--no-memory", input="look\n", env=CLEAN_ENV)
    assert r.returncode == 2 and "need --llm URL" in r.stderr


# -- 5. replay needs no server ----------------------------------------------------------------


def test_llm_game_replays_without_the_server(serve, tmp_path):
    s = serve(
        responder=BySchema(
            NpcReply=[
                npc_reply("In the chest, obviously.", ("gem", "located_in", "chest", "gem")),
                npc_reply("Lou's the name. Ask me anything."),
                npc_reply("Fifteen. A fair price for a fine lamp."),
            ],
            NegotiationReply=[move("accept")],
        )
    )  # no message: Mara's LLM voice says the haggle line
    game = Game(MINI, seed=5, llm=client(s), llm_npcs="all")
    play(game, "ask lou about gem", "talk to lou", "go north", "trade with mara")
    events = play(game, "offer price=15")
    (acc,) = of_kind(events, "accept", "mara")
    assert acc.text == 'Mara accepts. Mara says: "Fifteen. A fair price for a fine lamp."'
    assert "lamp" in game.engine.state.quests_done
    decisions = [json.loads(r) for r in game.transcript.records if '"decision"' in r]
    assert [(d["kind"], d["who"]) for d in decisions] == [
        ("reply", "liar"),
        ("reply", "liar"),
        ("move", "mara"),
        ("reply", "mara"),
    ]
    game.save("llm-replay", base=tmp_path)
    n = len(s.requests)
    s.close()
    ok, got, want = replay("llm-replay", base=tmp_path)
    assert ok and got == want == game.engine.state_hash()
    assert len(s.requests) == n == 4


# -- 6. the endpoint dies mid-game ------------------------------------------------------------


def test_cli_dead_endpoint_autosaves_and_resumes_scripted(serve, tmp_path):
    s = serve([npc_reply("In the oak chest, friend."), {"die": True}])
    env = {**CLEAN_ENV, "PARLEY_SAVES": str(tmp_path)}
    r = parley(
        "play",
        str(MINI),
        "--llm",
        s.base_url,
        "--model",
        "m",
        "--no-memory",
        "--llm-timeout",
        "0.5",
        "--llm-retries",
        "1",
        input="ask lou about gem\nask lou about weather\nlook\n",
        env=env,
    )
    assert r.returncode == 1, (r.stdout, r.stderr)
    assert 'Lou says: "In the oak chest, friend."' in r.stdout
    assert f"parley: error: {s.base_url} (model 'm') failed after 2 attempt(s)" in r.stderr
    assert "finished the turn with their scripted fallbacks" in r.stderr and "is the server running?" in r.stderr
    assert 'Lou says: "The sky is blue."' in r.stdout  # the failed turn was finished by Lou's scripted voice
    assert "Progress saved to" in r.stdout and "continue with: parley play --load autosave-mini-v1" in r.stdout
    assert s.dead and len(s.requests) == 2
    save = json.loads((tmp_path / "autosave-mini-v1" / "save.json").read_text())
    assert save["turn"] == 2 and save["llm"]["base_url"] == s.base_url and save["llm"]["model"] == "m"
    assert "api_key" not in save["llm"]

    r = parley("play", "--load", "autosave-mini-v1", "--no-memory", input="ask lou about weather\n", env=env)
    assert r.returncode == 0, r.stderr
    assert f"note: this game's NPCs spoke through {s.base_url} (m)" in r.stderr
    assert 'Lou says: "The sky is blue."' in r.stdout  # scripted now
    assert "turn 3." in r.stdout  # resumed at turn 2, played one more
    assert parley("replay", "autosave-mini-v1", env=env).returncode == 0


@pytest.mark.parametrize(
    "failure,raised", [({"status": 500}, LLMUnavailable), ({"status": 404, "error": "model 'm' not found"}, LLMError)]
)
def test_a_failed_turn_is_finished_scripted_and_the_save_replays(serve, tmp_path, failure, raised):
    """A dead (500, after retries) or refusing (404, not retried) endpoint mid-turn: the turn
    completes with scripted fallbacks, then the outage is reported, and the game stays replayable."""
    s = serve([npc_reply("In the oak chest, friend."), failure])
    game = Game(MINI, seed=0, llm=client(s), llm_npcs={"liar"})
    play(game, "ask lou about gem")
    with pytest.raises(LLMError) as err:
        play(game, "ask lou about weather")
    assert type(err.value) is raised
    assert "scripted fallbacks" in err.value.message
    assert [e.text for e in err.value.events if e.kind == "say"] == ['Lou says: "The sky is blue."']
    game.save("crashed", base=tmp_path)
    resumed = Game.load("crashed", base=tmp_path)
    play(resumed, "ask lou about weather")
    resumed.save("resumed", base=tmp_path)
    assert replay("resumed", base=tmp_path)[0]


# -- 7. a council member argues through the LLM -------------------------------------------------


def test_llm_member_speaks_in_the_debating_council_from_its_masked_memory(serve):
    text = "The barns are half empty; the tithe is spent to the last sack."
    s = serve([npc_reply(text, ("tithe", "suffices_for", "nothing", "tithe"))])
    llm = client(s)
    game = Game(COUNCIL, seed=0, llm=llm, llm_npcs={"corvin"})
    speeches = {e.actor: e for e in of_kind(play(game, "go north"), "speech")}
    scene = game.spec.scenes["weir_council"]
    assert set(speeches) == {p.id for p in scene.participants if p.id != "player"}
    corvin = speeches["corvin"]
    assert corvin.text == f'Councillor Corvin Lusk (treasurer, against): "{text}"'
    assert [c["fact_id"] for c in corvin.data["claims"]] == ["tithe_short"]
    debate = game.engine.council_debate("weir_council")
    said = {st.speaker: st for st in debate.session.history}
    assert said["corvin"].text == text and said["corvin"].kind == "argument"  # his words, in the debate
    for p in scene.participants:
        if p.id not in ("player", "corvin"):  # the others are scripted debaters
            assert speeches[p.id].text.endswith(f'"{said[p.id].text}"'), p.id
    (req,) = s.requests
    ask = last_user(req)
    assert "You are the treasurer; your stance is against. Round 1." in ask
    assert "Stone, carts and masons for a whole season" in ask  # his argument bank as hints
    memory = ask.split("What you remember of the debate so far:\n")[1]  # his masked context
    assert memory.startswith("Motion: That Hollin Ford rebuild") and said["wick"].text in memory
    assert "You are Councillor Corvin Lusk" in system(req)
    assert llm.usage_by_agent().keys() == {"corvin"}


def test_a_game_with_an_llm_member_in_a_debating_council_replays(serve, tmp_path):
    """The replay has no agents: the transcript says which member spoke in its own words."""
    s = serve(
        [
            npc_reply("The barns are half empty."),
            npc_reply("Stone is a fool's bargain."),
            npc_reply("Not one sack to spare."),
        ]
    )
    game = Game(COUNCIL, seed=0, llm=client(s), llm_npcs={"corvin"})
    play(game, "go north")
    play(game, "say the footings are cracked")
    play(game, "wait")
    debate = game.engine.council_debate("weir_council")
    assert [st.text for st in debate.session.history if st.speaker == "corvin"][:2] == [
        "The barns are half empty.",
        "Stone is a fool's bargain.",
    ]
    game.save("llm-council", base=tmp_path)
    ok, *_ = replay("llm-council", base=tmp_path)
    assert ok


# -- 8. the API key never reaches a file ---------------------------------------------------------


def test_api_key_is_never_written(serve, tmp_path):
    key = "sk-test-SECRET123"
    s = serve(
        responder=BySchema(
            NpcReply=[npc_reply("In the chest.", ("gem", "located_in", "chest", "gem")), npc_reply("Hello, Tester.")]
        )
    )
    saves = tmp_path / "saves"
    r = parley(
        "play",
        str(MINI),
        "--llm",
        s.base_url,
        "--model",
        "m",
        "--no-memory",
        "--llm-cache",
        str(saves / "cache"),
        input="ask lou about gem\ntalk to lou\nsave keytest\nquit\n",
        env={**CLEAN_ENV, "OPENAI_API_KEY": key, "PARLEY_SAVES": str(saves)},
    )
    assert r.returncode == 0, r.stderr
    assert len(s.requests) == 2 and all(rec.authorized for rec in s.received)  # the key was used...
    files = [p for p in saves.rglob("*") if p.is_file()]
    names = {p.relative_to(saves).as_posix() for p in files}
    assert {"keytest/save.json", "keytest/transcript.jsonl", "autosave-mini-v1/save.json"} <= names
    assert any(n.startswith("cache/") for n in names)
    for p in files:  # ...and written nowhere
        assert b"SECRET123" not in p.read_bytes(), p
    assert "SECRET123" not in r.stdout + r.stderr
    assert "In the chest." in (saves / "keytest" / "transcript.jsonl").read_text()


# -- 9. the reply cache --------------------------------------------------------------------------


def test_cli_scene_rerun_is_served_from_the_cache(serve, tmp_path):
    s = serve(responder=_ozra)
    cache = tmp_path / "cache"
    first = _scene(s, "--llm-cache", str(cache))
    assert first.returncode == 0, first.stderr
    n = len(s.requests)
    assert n == 9 and any(cache.rglob("*.json"))
    second = _scene(s, "--llm-cache", str(cache))
    assert second.returncode == 0, second.stderr
    assert len(s.requests) == n  # not one request the second time

    def outcome(out: str) -> str:
        return out.split("LLM usage")[0]

    assert outcome(second.stdout) == outcome(first.stdout)
    assert "spice_for_silk: agreement" in second.stdout
    row = usage_row(second.stdout, "ozra")
    assert row[1] == row[7] == "9"  # 9 calls, 9 cache hits


# -- an LLM in the player's seat -------------------------------------------------------------


def test_cli_llm_player_plays_with_repairs(serve, tmp_path):
    replies = iter(
        [
            json.dumps({"command": "take the iron key", "reason": "keys open things"}),
            json.dumps({"command": "dance a jig", "reason": "fun"}),  # does not parse: repaired
            json.dumps({"command": "go north", "reason": "the shop"}),
        ]
    )
    s = serve(responder=lambda body: next(replies, json.dumps({"command": "wait"})))
    out = tmp_path / "run.jsonl"
    r = parley(
        "run",
        str(MINI),
        "--llm-player",
        "--llm",
        s.base_url,
        "--model",
        "m",
        "--llm-npcs",
        "none",
        "--no-memory",
        "--turns",
        "3",
        "--out",
        str(out),
        env=CLEAN_ENV,
    )
    assert r.returncode == 0, r.stderr
    assert "> take iron key" in r.stdout and "> go north" in r.stdout
    repair = s.requests[2]["messages"][-1]["content"]
    assert "'dance a jig' is not a command you can use now" in repair
    assert (
        "Mini" in s.requests[0]["messages"][0]["content"] and "Your quests" in s.requests[0]["messages"][0]["content"]
    )
    assert "world mini-v1 seed 0: turn 3" in r.stdout
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [a["verb"] for a in rows if a["type"] == "action" and a["actor"] == "player"] == ["take", "go", "wait"]
    r = parley("run", str(MINI), "--llm-player", "--no-memory", env=CLEAN_ENV)
    assert r.returncode == 2 and "--llm-player needs --llm URL" in r.stderr


def test_llm_player_that_never_gives_a_command_waits_and_is_penalised(serve):
    from agents.llm.player import LLMPlayer

    s = serve(["nonsense"] * 3)
    game = Game(MINI, seed=0, llm=client(s), llm_npcs=set())
    action, events = game.agent_turn(LLMPlayer(game.llm, game.engine))
    assert action.verb.value == "wait" and game.engine.state.invalid == {"player": 1}
    assert any(e.kind == "invalid" and "no usable command" in e.text for e in events)
