"""MEMO's LLM paths (``--memo-llm``, ``agents.memo_llm``) in real games: the real ``openai`` client
over real HTTP against the scripted local server, its replies read back from the server. Summaries,
reflections, importance ratings and lessons carry the model's wording; replies that are malformed
or fail fall back to the rule-based result; every request is counted under ``memo:<path>``.
Also: a save's Chroma server collection is dropped with the save, and an episode drops the one it made.
"""

from __future__ import annotations

import json
import re

import pytest

from agents.llm.client import LLMClient
from agents.llm.config import LLMConfig
from game.play.config import EpisodeConfig, GameConfig, MemorySettings, memo_llm_paths
from game.play.session import Game
from memory.importance import ImportanceRater, key_terms_of, things_of
from tests.conftest import parley

CLEAN_ENV = {"OPENAI_BASE_URL": "", "OPENAI_API_KEY": "", "PARLEY_MODEL": ""}
REFLECTION = "REFLECTED: the harbour folk keep to their rounds"
SUMMARY = "SUMMED: everyone keeps walking the quay"
# small clusters reach the summariser early (the defaults wait for clusters of 6)
EAGER = {"llm_cluster_min": 3, "keep_verbatim": 2, "summarise_after": 3}


def client(server, **kw) -> LLMClient:
    settings = dict(base_url=server.base_url, model="m", max_retries=0, backoff_base=0.0, timeout=5.0)
    return LLMClient(LLMConfig(**{**settings, **kw}))


def schema_name(body: dict) -> str | None:
    return ((body.get("response_format") or {}).get("json_schema") or {}).get("name")


def path_of(body: dict) -> str:
    """Which MEMO path sent a request (its reply schema; a reflection by its system prompt)."""
    name = schema_name(body)
    if name == "Summary":
        return "reflect" if "reflection" in body["messages"][0]["content"] else "summarise"
    return {"Rating": "importance", "Lessons": "insights"}.get(name, str(name))


def memory_of(body: dict) -> str:
    return body["messages"][-1]["content"].removeprefix("Memory: ")


class Model:
    """Scripted replies per MEMO path; ``rating(text)`` answers an importance request."""

    def __init__(
        self,
        summary=SUMMARY,
        reflection=REFLECTION,
        rating=lambda text: 0.9,
        lessons=("insights: ask Constable Dray before you trust Jory",),
    ):
        self.summary, self.reflection, self.rating, self.lessons = summary, reflection, rating, lessons

    def __call__(self, body: dict):
        path = path_of(body)
        if path == "summarise":
            return json.dumps({"summary": self.summary})
        if path == "reflect":
            return json.dumps({"summary": self.reflection})
        if path == "importance":
            got = self.rating(memory_of(body))
            return got if isinstance(got, str | dict) else json.dumps({"importance": got})
        return json.dumps({"lessons": list(self.lessons)})


def game_with(llm, paths, seed=1, memo=None, **kw) -> Game:
    cfg = GameConfig(
        world="worlds/harbor",
        seed=seed,
        player="autopilot",
        llm_npcs=[],
        memo_llm=paths,
        memory=MemorySettings(embedder="hash", memo=memo),
        **kw,
    )
    return Game("worlds/harbor", config=cfg, llm=llm)


def autoplay(game: Game, turns: int) -> list:
    replies = []
    while not game.engine.done and game.engine.state.turn < turns:
        replies.append(game.play_turn(game.seat))
    return replies


def rule_rater(game: Game) -> ImportanceRater:
    return ImportanceRater(key_terms_of(game.spec), things=things_of(game.spec))


def requests_by_path(server) -> dict[str, int]:
    out: dict[str, int] = {}
    for body in server.requests:
        out[path_of(body)] = out.get(path_of(body), 0) + 1
    return out


# --- the paths, end to end -------------------------------------------------------------------
def test_reflections_and_importance_carry_the_models_answers_and_every_call_is_counted(serve):
    s = serve(responder=Model(rating=lambda text: 0.9))
    llm = client(s)
    game = game_with(llm, "summarise,reflect,importance")
    autoplay(game, 40)
    records = list(game.memory.bank.records.values())
    reflections = [r for r in records if r.kind == "reflection"]
    assert reflections and all(REFLECTION in r.text for r in reflections)
    rater = rule_rater(game)
    for r in records:
        if r.kind != "reflection":  # every memory written blends the rule score with the model's 0.9
            assert r.importance == round(0.5 * rater(r.kind, r.text) + 0.5 * 0.9, 6), r.text
    sent = requests_by_path(s)
    usage = llm.usage_by_agent()
    assert {f"memo:{p}": u.calls for p, u in ((k.split(":")[1], v) for k, v in usage.items())} == {
        f"memo:{p}": n for p, n in sent.items()
    }
    assert sent["importance"] == len({r.text for r in records if r.kind != "reflection"})  # one call per text
    assert all(u.prompt_tokens > 0 and u.completion_tokens > 0 and u.invalid == 0 for u in usage.values())
    by_turn = llm.usage_by_turn()
    assert sum(u.calls for u in by_turn.values()) == len(s.requests)  # and counted per turn


def test_the_summariser_writes_the_summary_lines_of_a_context(serve):
    s = serve(responder=Model())
    llm = client(s)
    # seed 0: its 60 turns leave settled clusters of old lines (not every seed's game does)
    game = game_with(llm, ["summarise"], seed=0, memo={**EAGER, "reflection": {"threshold": 1000}})
    autoplay(game, 60)
    ctx = game.memory.context("player", game.engine.observe("player"))
    summaries = [line for line in ctx.text().splitlines() if SUMMARY in line]
    # its turn span follows: "[turns 20-48]" on a summary of a cluster, "(x4, turns 11-56)" on a group's
    assert summaries and all(re.search(r"turns? \d+(-\d+)?[\])]$", line.rstrip()) for line in summaries), summaries
    rows = game.memory.optimizer.explain("player", game.engine.state.turn)
    assert any(row["fate"] == "summarised" for row in rows)
    assert set(requests_by_path(s)) == {"summarise"}
    assert llm.usage_by_agent()["memo:summarise"].calls == len(s.requests)


def test_malformed_replies_fall_back_to_the_rules_and_are_counted(serve):
    """A summary that states a number no memory states is sent back once, then the extractive
    summary stands; a rating that is not one keeps the rule score; one out of range is clamped."""

    def rating(text: str):
        if "goes" in text:
            return 7  # clamped to 1
        if "says" in text:
            return "I would say it matters a great deal."  # no JSON: the rule score stands
        return {"content": json.dumps({"importance": "high"})}

    s = serve(responder=Model(summary="SUMMED: 412 gulls and 99 nets", reflection="REFLECTED 77 times", rating=rating))
    llm = client(s)
    game = game_with(llm, "summarise,reflect,importance", memo=EAGER)
    # the same ratings, with no summariser and no LLM reflections: what the fallbacks must give
    reference = game_with(client(serve(responder=Model(rating=rating))), ["importance"], memo=EAGER)
    autoplay(game, 40)
    autoplay(reference, 40)
    rater = rule_rater(game)
    records = [r for r in game.memory.bank.records.values() if r.kind != "reflection"]
    for r in records:
        rule = rater(r.kind, r.text)
        want = round(0.5 * rule + 0.5, 6) if "goes" in r.text else rule
        assert r.importance == pytest.approx(want, abs=1e-9), r.text
    texts = [r.text for r in game.memory.bank.records.values()]
    assert not any("412" in t or "77 times" in t or "SUMMED" in t for t in texts)
    reflections = [t for t in texts if t.startswith("Recalled")]
    assert reflections == [
        t for t in (r.text for r in reference.memory.bank.records.values()) if t.startswith("Recalled")
    ]  # the extractive reflections, word for word
    ctx = game.memory.context("player", game.engine.observe("player")).text()
    assert "SUMMED" not in ctx and ctx == reference.memory.context("player", reference.engine.observe("player")).text()
    usage = llm.usage_by_agent()
    sent = requests_by_path(s)
    for path in ("reflect", "summarise"):  # each reply, and its one repair, refused
        assert usage[f"memo:{path}"].invalid == usage[f"memo:{path}"].calls == sent[path] > 0
    repairs = [b for b in s.requests if path_of(b) in ("reflect", "summarise") and len(b["messages"]) > 2]
    assert repairs and all("which no memory states" in b["messages"][-1]["content"] for b in repairs)
    assert usage["memo:importance"].invalid == sum(
        1 for b in s.requests if path_of(b) == "importance" and "goes" not in memory_of(b)
    )
    assert game.engine.state.to_dict() == reference.engine.state.to_dict()


def test_a_failing_endpoint_loses_no_memory_and_the_game_goes_on(serve):
    """Every MEMO request fails (HTTP 500): each turn ends whole and says so (the client's outage);
    the memories, their importance and the reflections are the rule-based game's."""
    s = serve(responder=lambda body: {"status": 500, "error": "model crashed"})
    llm = client(s)
    game = game_with(llm, "all")
    reference = game_with(None, [])
    replies = autoplay(game, 25)
    autoplay(reference, 25)
    assert any(r.outage is not None for r in replies) and s.requests
    got = {k: (r.text, round(r.importance, 9), r.status) for k, r in game.memory.bank.records.items()}
    assert got == {k: (r.text, round(r.importance, 9), r.status) for k, r in reference.memory.bank.records.items()}
    assert game.engine.state_hash() == reference.engine.state_hash()


def test_insight_distillation_adds_the_models_lessons(serve, tmp_path):
    from memory.insights import InsightBank

    s = serve(responder=Model(lessons=["trust: Jory Flint's treasure talk is bait", "", "- Carry a lantern below"]))
    llm = client(s)
    bank = InsightBank(tmp_path / "insights.json")
    cfg = GameConfig(
        world="worlds/harbor",
        seed=1,
        player="autopilot",
        llm_npcs=[],
        memo_llm="insights",
        memory=MemorySettings(embedder="hash"),
        insights=str(tmp_path / "insights.json"),
    )
    game = Game("worlds/harbor", config=cfg, llm=llm, insights=bank)
    autoplay(game, 20)
    assert game.learn() > 0
    player = bank.insights(game.agent_keys()["player"])
    llm_lines = [(i.topic, i.text) for i in player if i.source == "llm"]
    assert ("trust", "Jory Flint's treasure talk is bait") in llm_lines and (
        "general",
        "Carry a lantern below",
    ) in llm_lines
    assert any(i.source == "rule" for i in player)
    assert llm.usage_by_agent()["memo:insights"].calls == len(s.requests) == len(game.agent_keys())


# --- settings and the CLI ----------------------------------------------------------------------
def test_paths_are_validated_with_a_suggestion():
    assert memo_llm_paths("all") == ["summarise", "reflect", "importance", "insights"]
    assert memo_llm_paths(" Reflect, summarise ,") == ["summarise", "reflect"]
    assert memo_llm_paths("none") == [] and memo_llm_paths(None) == []
    with pytest.raises(ValueError, match=r"unknown MEMO LLM path 'sumarise' \(did you mean 'summarise'\?\)"):
        memo_llm_paths("sumarise")
    with pytest.raises(ValueError, match="extra"):
        MemorySettings(memo_llm="all")  # the paths are the game's choice, beside llm_npcs and jury
    from game.core.errors import InputError

    with pytest.raises(InputError, match="needs an LLM endpoint"):
        Game("worlds/harbor", memory={"embedder": "hash"}, memo_llm=["reflect"])


@pytest.mark.parametrize(
    "args, says",
    [
        (["--memo-llm", "reflekt", "--llm", "http://127.0.0.1:9/v1"], "did you mean 'reflect'?"),
        (["--memo-llm", "summarise,importance"], "--memo-llm summarise,importance needs an LLM endpoint"),
        (["--memo-llm", "all", "--no-memory", "--llm", "http://127.0.0.1:9/v1"], "needs agent memory"),
        (
            ["--scene", "spice_for_silk", "--memo-llm", "all", "--llm", "http://127.0.0.1:9/v1"],
            "a --scene run has none",
        ),
    ],
)
def test_cli_refuses_bad_memo_llm_with_exit_2(args, says):
    world = "worlds/bazaar" if "--scene" in args else "worlds/harbor"
    seat = [] if "--scene" in args else ["--autopilot"]
    r = parley("run", world, *seat, "--embedder", "hash", *args, env=CLEAN_ENV)
    assert r.returncode == 2 and says in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    if "LLM endpoint" in says:
        assert "add --llm URL" in r.stderr


def test_cli_run_counts_memo_calls_in_the_usage_table(serve):
    s = serve(responder=Model())
    r = parley(
        "run",
        "worlds/harbor",
        "--autopilot",
        "--turns",
        "20",
        "--quiet",
        "--embedder",
        "hash",
        "--no-insights",
        "--llm",
        s.base_url,
        "--model",
        "m",
        "--llm-npcs",
        "none",
        "--memo-llm",
        "reflect,importance",
        env=CLEAN_ENV,
    )
    assert r.returncode == 0, r.stderr
    rows = {line.split()[0]: line.split()[1:] for line in r.stdout.splitlines() if line.strip().startswith("memo:")}
    sent = requests_by_path(s)
    assert set(rows) == {"memo:reflect", "memo:importance"}
    assert {k: int(v[0]) for k, v in rows.items()} == {f"memo:{p}": n for p, n in sent.items()}


# --- Chroma server collections: saves rm and episodes -------------------------------------------
def _collections(server) -> set[str]:
    import chromadb
    from chromadb.config import Settings

    return {
        c.name for c in chromadb.HttpClient(**server, settings=Settings(anonymized_telemetry=False)).list_collections()
    }


def _server_game(chroma_server, seed: int) -> Game:
    game = Game(
        "worlds/harbor", seed=seed, memory={"embedder": "hash", "store": "chroma", "store_options": dict(chroma_server)}
    )
    for line in ("look", "talk to mara", "north"):
        game.submit(line)
    game.memory.bank.flush()
    return game


def test_saves_rm_drops_the_saves_collection_unless_another_save_uses_it(chroma_server, tmp_path):
    game = _server_game(chroma_server, 11)
    name = game.memory.bank.store.name
    game.save("first", base=tmp_path)
    game.save("second", base=tmp_path)  # the same game saved twice: one collection
    assert name in _collections(chroma_server)
    r = parley("saves", "--saves-dir", str(tmp_path), "rm", "first")
    assert r.returncode == 0, r.stderr
    assert f"kept Chroma collection {name}" in r.stdout and "save second still uses it" in r.stdout
    assert name in _collections(chroma_server)
    r = parley("saves", "--saves-dir", str(tmp_path), "rm", "second")
    assert r.returncode == 0, r.stderr
    assert f"dropped Chroma collection {name} from localhost:{chroma_server['port']}" in r.stdout
    assert name not in _collections(chroma_server)


def test_saves_rm_of_a_flat_save_says_nothing_of_chroma(tmp_path):
    game = Game("worlds/harbor", seed=2, memory={"embedder": "hash"})
    game.submit("look")
    game.save("flat", base=tmp_path)
    r = parley("saves", "--saves-dir", str(tmp_path), "rm", "flat")
    assert r.returncode == 0 and "Chroma" not in r.stdout + r.stderr


def test_saves_rm_with_the_server_gone_removes_the_save_and_names_the_collection(chroma_server, tmp_path):
    from tests.conftest import free_port

    game = _server_game(chroma_server, 12)
    name = game.memory.bank.store.name
    folder = game.save("gone", base=tmp_path)
    data = json.loads((folder / "save.json").read_text())
    assert data["components"]["memory"]["store_options"]["collection"] == name
    game.memory.drop()
    r = parley("saves", "--saves-dir", str(tmp_path), "rm", "gone")
    assert r.returncode == 0 and "already gone" in r.stdout, r.stdout + r.stderr
    # a save pointing at a server that is not there: the save goes, the collection is named
    game = _server_game(chroma_server, 13)
    game.save("away", base=tmp_path)
    path = tmp_path / "away" / "save.json"
    text = path.read_text().replace(f'"port": {chroma_server["port"]}', f'"port": {free_port()}')
    path.write_text(text)
    r = parley("saves", "--saves-dir", str(tmp_path), "rm", "away")
    assert r.returncode == 0 and not path.exists()
    assert "warning: could not drop Chroma collection" in r.stderr and "delete_collection(" in r.stderr
    game.memory.drop()


def test_an_episode_drops_its_server_collection_unless_asked_to_keep_it(chroma_server):
    from game.play.episode import play_episode

    before = _collections(chroma_server)
    memory = MemorySettings(
        embedder="hash", store="chroma", chroma_host=chroma_server["host"], chroma_port=chroma_server["port"]
    )
    game = GameConfig(world="worlds/harbor", seed=4, player="autopilot", memory=memory)
    dropped = play_episode(EpisodeConfig(game=game, turns=5))
    assert any(n.startswith("memory: dropped Chroma collection parley-harbor-v1-s4-") for n in dropped.notes)
    assert _collections(chroma_server) == before
    kept = play_episode(EpisodeConfig(game=game, turns=5, keep_memory=True))
    (note,) = [n for n in kept.notes if n.startswith("memory: kept")]
    name = note.split()[4]
    assert _collections(chroma_server) == before | {name}
    import chromadb
    from chromadb.config import Settings

    chromadb.HttpClient(**chroma_server, settings=Settings(anonymized_telemetry=False)).delete_collection(name)


def test_cli_run_on_a_server_says_what_became_of_the_collection(chroma_server):
    base = [
        "run",
        "worlds/harbor",
        "--autopilot",
        "--turns",
        "3",
        "--quiet",
        "--embedder",
        "hash",
        "--no-insights",
        "--chroma-host",
        chroma_server["host"],
        "--chroma-port",
        str(chroma_server["port"]),
    ]
    before = _collections(chroma_server)
    r = parley(*base)
    assert r.returncode == 0 and "parley: memory: dropped Chroma collection parley-harbor-v1-s0-" in r.stderr, r.stderr
    assert _collections(chroma_server) == before
    r = parley(*base, "--keep-memory")
    assert r.returncode == 0 and "parley: memory: kept Chroma collection" in r.stderr, r.stderr
    (name,) = _collections(chroma_server) - before
    import chromadb
    from chromadb.config import Settings

    chromadb.HttpClient(**chroma_server, settings=Settings(anonymized_telemetry=False)).delete_collection(name)
