"""Replay checks world-fact memory (gate, Σ-Mem, claim log) and agent memory, not only the engine;
LLM jury verdicts (and jury failures) are decisions in the transcript, so a game with the jury
replays with no server. The jury speaks through the real ``openai`` client over HTTP to the local
scripted server (``game.testing.scripted_server``)."""

from __future__ import annotations

import json
import re

import pytest

from agents.llm.client import LLMClient, LLMUnavailable
from agents.llm.config import LLMConfig
from game.play.episode import run_script, script_lines
from game.play.persistence import PARTS, replay, replay_report, save_hash, save_header
from game.play.session import Game
from tests.conftest import ROOT, parley

MINI = ROOT / "tests" / "fixtures" / "mini"
SCRIPT = str(ROOT / "tests" / "fixtures" / "mini_win.txt")
CLEAN_ENV = {"OPENAI_BASE_URL": "", "OPENAI_API_KEY": "", "PARLEY_MODEL": ""}


def jury_server(serve, fail_batches=()):
    """A jury that answers "no" to every candidate; the batches numbered in ``fail_batches``
    (from 1) get a 500 instead. The claim extractor's questions find no claim."""
    batches: list[int] = []

    def respond(body):
        text = body["messages"][-1]["content"]
        if "What they say:" in text:  # the gate's LLM extractor, for words the rules cannot read
            return json.dumps({"claims": []})
        if "sample 1 of" in text:
            batches.append(len(batches) + 1)
        if batches[-1] in fail_batches:
            return {"status": 500, "error": "the jury is out"}
        n = len(re.findall(r"^\d+\. Candidate:", text, re.M))
        return json.dumps({"verdicts": [{"id": i + 1, "answer": "no"} for i in range(n)]})

    return serve(responder=respond)


def client(server) -> LLMClient:
    return LLMClient(
        LLMConfig(
            base_url=server.base_url, model="judge", max_retries=0, backoff_base=0.0, backoff_max=0.0, timeout=5.0
        )
    )


def play(game: Game, *first: str) -> Game:
    run_script(game, [(0, line) for line in first] + script_lines(SCRIPT), SCRIPT)
    return game


def decisions(game: Game, kind: str) -> list[dict]:
    recs = [json.loads(r) for r in game.transcript.records if '"decision"' in r]
    return [d for d in recs if d["kind"] == kind]


def test_a_jury_game_records_its_verdicts_and_replays_every_part_without_the_server(serve, tmp_path):
    s = jury_server(serve, fail_batches={2})
    game = Game(MINI, seed=0, llm=client(s), llm_npcs=[], jury=True)
    run_script(game, [(1, "ask lou about gem")])
    with pytest.raises(LLMUnavailable):  # the turn is finished (the gate holds the claim), then reported
        run_script(game, [(2, "ask lou about weather")])
    play(game)
    assert game.engine.state.won
    verdicts = decisions(game, "jury")
    assert [d["who"] for d in verdicts] == ["gate", "gate"]
    assert verdicts[0]["value"] == [0.0]  # three samples of "no"
    assert verdicts[1]["value"]["error"]["type"] == "LLMUnavailable"  # the failure is recorded too
    failed = [d for d in game.facts.gate.decisions if "jury failed" in d.reason]
    assert len(failed) == 1 and failed[0].outcome == "quarantine"
    game.save("jury", tmp_path)
    asked = len(s.requests)
    s.close()
    report = replay_report("jury", tmp_path)
    assert report.ok, report
    assert tuple(report.parts) == ("engine", "agents", "gate", "sigma", "claims") and report.notes == []
    assert len(s.requests) == asked  # nothing was asked of the jury again
    ok, got, want = replay("jury", tmp_path)
    assert ok and got == want == game.engine.state_hash()
    r = parley("replay", "jury", "--saves-dir", str(tmp_path), env=CLEAN_ENV)
    assert r.returncode == 0, r.stderr
    assert "replay ok" in r.stdout and "gate, sigma, claims checked" in r.stdout


def tamper(folder, edit) -> None:
    """Edit the saved world-fact state and make the save's state hash agree (a consistent forgery
    that only a replay can expose)."""
    path = folder / "save.json"
    data = json.loads(path.read_text())
    edit(data["components"]["facts"])
    data["state_hash"] = save_hash(data["engine"], data["components"], save_header(data))
    path.write_text(json.dumps(data))


def test_an_edited_gate_or_sigma_state_is_a_replay_mismatch(serve, tmp_path):
    s = jury_server(serve)
    game = Game(MINI, seed=0, llm=client(s), llm_npcs=[], jury=True)
    play(game, "ask lou about gem")
    s.close()
    folder = game.save("sigma", tmp_path)

    def trust_lou(facts):
        facts["sigma"]["S"] = [[v + 0.5 for v in row] for row in facts["sigma"]["S"]]

    tamper(folder, trust_lou)
    Game.load("sigma", tmp_path)  # the hash agrees: it loads
    report = replay_report("sigma", tmp_path)
    assert not report.ok and report.diverged == ["sigma"]
    assert report.parts["engine"][0] == report.parts["engine"][1]
    r = parley("replay", "sigma", "--saves-dir", str(tmp_path), env=CLEAN_ENV)
    assert r.returncode == 1 and "replay MISMATCH in sigma" in r.stderr and "<- differs" in r.stderr

    folder = game.save("gate", tmp_path)

    def admit_everything(facts):
        for f in facts["gate"]["facts"]:
            f["status"] = "admitted"

    tamper(folder, admit_everything)
    report = replay_report("gate", tmp_path)
    assert not report.ok and report.diverged == ["gate"]
    assert not replay("gate", tmp_path)[0]


def test_an_edited_jury_verdict_is_caught(serve, tmp_path):
    from tests.conftest import forge_transcript

    s = jury_server(serve)
    game = Game(MINI, seed=0, llm=client(s), llm_npcs=[], jury=True)
    play(game, "ask lou about gem")
    s.close()
    folder = game.save("verdict", tmp_path)
    text = (folder / "transcript.jsonl").read_text()
    assert '"kind":"jury","turn":0,"type":"decision","value":[0.0]' in text
    forge_transcript(folder, text.replace('"value":[0.0]', '"value":[1.0]'))
    report = replay_report("verdict", tmp_path)
    assert not report.ok and "gate" in report.diverged and "engine" not in report.diverged


def test_a_memory_game_without_jury_replays_with_every_part_matching(tmp_path):
    game = play(Game(MINI, seed=0, memory={"embedder": "hash"}), "ask lou about gem", "ask lou about weather")
    assert game.engine.state.won and game.facts.gate.decisions and game.memory.bank.records
    game.save("mem", tmp_path)
    report = replay_report("mem", tmp_path)
    assert report.ok, report
    assert tuple(report.parts) == PARTS
    r = parley("replay", "mem", "--saves-dir", str(tmp_path))
    assert r.returncode == 0 and "engine, agents, gate, sigma, claims, memory checked" in r.stdout, r.stderr


def test_an_edited_memory_bank_is_a_replay_mismatch(tmp_path):
    game = play(Game(MINI, seed=0, memory={"embedder": "hash"}), "ask lou about gem")
    folder = game.save("mem", tmp_path)
    path = folder / "save.json"
    data = json.loads(path.read_text())
    data["components"]["memory"]["bank"]["records"][0]["text"] = "Nothing happened."
    data["state_hash"] = save_hash(data["engine"], data["components"], save_header(data))
    path.write_text(json.dumps(data))
    report = replay_report("mem", tmp_path)
    assert report.diverged == ["memory"]


def test_a_save_without_world_fact_state_replays_the_engine_with_a_note(tmp_path):
    game = play(Game(MINI, seed=0, facts=False))
    game.save("nofacts", tmp_path)
    report = replay_report("nofacts", tmp_path)
    assert report.ok and tuple(report.parts) == ("engine", "agents")
    assert any("no world-fact state" in n for n in report.notes)
    r = parley("replay", "nofacts", "--saves-dir", str(tmp_path))
    assert r.returncode == 0 and "replay ok" in r.stdout and "note: the save holds no world-fact state" in r.stderr
