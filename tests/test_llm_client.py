"""The LLM client: the real ``openai`` SDK over real HTTP against a scripted local server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from pydantic import BaseModel, ValidationError

from agents.llm.cache import ResponseCache, cache_key
from agents.llm.client import LLMClient, LLMError, LLMInvalidReply, LLMUnavailable, Usage, extract_json_object
from agents.llm.config import LOCAL_KEY, LLMConfig
from game.core.errors import InputError, ParleyError
from game.testing.scripted_server import ScriptedServer, load_replies
from tests.conftest import ROOT

FAKE_KEY = "sk-parley-TEST-7f3a9c1e5b2d-DO-NOT-LEAK"
USER = [{"role": "user", "content": "What is your offer?"}]


class Offer(BaseModel):
    price: int
    note: str = ""


def make(server: ScriptedServer, sleeps: list | None = None, rng=None, **kw) -> LLMClient:
    settings = dict(
        base_url=server.base_url,
        api_key=FAKE_KEY,
        model="test-model",
        timeout=2.0,
        max_retries=2,
        backoff_base=0.001,
        backoff_max=0.01,
        seed=0,
    )
    settings.update(kw)
    sleep = sleeps.append if sleeps is not None else (lambda s: None)
    return LLMClient(LLMConfig(**settings), rng=rng, sleep=sleep)


# -- chat and accounting ------------------------------------------------------------


def test_round_trip_and_usage_per_agent_and_turn(serve):
    s = serve(
        [
            {"content": "Ten coins.", "usage": {"prompt_tokens": 11, "completion_tokens": 3}},
            {"content": "Twelve.", "usage": {"prompt_tokens": 20, "completion_tokens": 2}},
            {"content": "No.", "usage": {"prompt_tokens": 5, "completion_tokens": 1}},
        ]
    )
    with make(s) as llm:
        r = llm.chat(USER, agent="mara", turn=1)
        assert (r.text, r.prompt_tokens, r.completion_tokens, r.cached) == ("Ten coins.", 11, 3, False)
        assert r.latency_ms > 0
        llm.chat(USER, agent="mara", turn=2)
        llm.chat(USER, agent="tom", turn=2, temperature=0.0, max_tokens=7)
        by_agent, by_turn, total = llm.usage_by_agent(), llm.usage_by_turn(), llm.total()
    assert by_agent["mara"].calls == 2 and by_agent["mara"].prompt_tokens == 31
    assert by_agent["tom"].to_dict() | {"latency_ms": 0} == {
        "calls": 1,
        "prompt_tokens": 5,
        "completion_tokens": 1,
        "latency_ms": 0,
        "retries": 0,
        "cache_hits": 0,
        "invalid": 0,
        "prompt_cached": 0,
    }
    assert list(by_turn) == [1, 2] and by_turn[2].calls == 2 and by_turn[2].completion_tokens == 3
    assert (total.calls, total.prompt_tokens, total.completion_tokens, total.total_tokens) == (3, 36, 6, 42)
    assert total.latency_ms == pytest.approx(sum(u.latency_ms for u in by_agent.values()))
    first, last = s.requests[0], s.requests[2]
    assert first["model"] == "test-model" and first["messages"] == USER
    assert first["temperature"] == 0.7 and first["max_tokens"] == 512 and first["seed"] == 0
    assert last["temperature"] == 0.0 and last["max_tokens"] == 7
    assert s.received[0].authorized and "authorization" not in s.received[0].headers


def test_missing_usage_is_estimated(serve):
    s = serve([{"content": "a reply of some forty characters or so..", "usage": False}])
    with make(s) as llm:
        r = llm.chat(USER)
    assert r.prompt_tokens > 0 and r.completion_tokens == 10
    assert llm.total().completion_tokens == 10


def test_usage_add_and_to_dict():
    u = Usage(calls=1, prompt_tokens=2).add(Usage(calls=2, completion_tokens=3, latency_ms=1.23456, prompt_cached=1))
    assert u.to_dict() == {
        "calls": 3,
        "prompt_tokens": 2,
        "completion_tokens": 3,
        "latency_ms": 1.235,
        "retries": 0,
        "cache_hits": 0,
        "invalid": 0,
        "prompt_cached": 1,
    }


def test_empty_and_missing_content_are_empty_text(serve):
    s = serve([{"content": ""}, {"content": None}])
    with make(s) as llm:
        assert llm.chat(USER).text == ""
        assert llm.chat(USER).text == ""


def test_models_endpoint(serve):
    import openai

    s = serve()
    with openai.OpenAI(base_url=s.base_url, api_key="x", max_retries=0) as raw:
        assert [m.id for m in raw.models.list()] == ["scripted"]


# -- structured output -----------------------------------------------------------------


def test_structured_happy_path_sends_json_schema(serve):
    s = serve(['{"price": 12, "note": "fair"}'])
    with make(s) as llm:
        offer = llm.structured(USER, Offer, agent="mara", turn=3)
    assert offer == Offer(price=12, note="fair")
    fmt = s.requests[0]["response_format"]
    assert fmt["type"] == "json_schema"
    assert fmt["json_schema"] == {"name": "Offer", "schema": Offer.model_json_schema(), "strict": False}
    assert llm.usage_by_turn()[3].invalid == 0


def test_structured_falls_back_to_json_object_and_remembers(serve):
    s = serve(
        [{"status": 400, "error": "response_format json_schema is not supported"}, '{"price": 3}', '{"price": 4}']
    )
    system = {"role": "system", "content": "You are a merchant."}
    with make(s) as llm:
        assert llm.structured([system, *USER], Offer).price == 3
        assert llm.structured(USER, Offer).price == 4
    assert [r["response_format"]["type"] for r in s.requests] == ["json_schema", "json_object", "json_object"]
    assert s.requests[1]["response_format"]["schema"] == Offer.model_json_schema()  # llama.cpp's form
    sys1, last = s.requests[1]["messages"][0], s.requests[1]["messages"][-1]
    assert sys1 == system  # the system prompt stays as it was: a prompt cache reuses it
    assert last["role"] == "user" and '"price"' in last["content"] and "JSON Schema" in last["content"]
    assert "JSON Schema" in s.requests[2]["messages"][-1]["content"]
    assert llm.reply_format == "json_object"
    assert llm.total().calls == 2


def test_plain_chat_does_not_fall_back(serve):
    s = serve([{"status": 400, "error": "response_format json_schema is not supported"}])
    with make(s) as llm, pytest.raises(LLMError, match="does not support response_format"):
        llm.chat(USER, response_format={"type": "json_schema", "json_schema": {"name": "x", "schema": {}}})


def test_malformed_reply_is_repaired_with_the_error(serve):
    s = serve(["Sure! Here you go: {price: twelve}", 'Here:\n```json\n{"price": 12}\n```\nThanks!'])
    with make(s) as llm:
        assert llm.structured(USER, Offer, agent="mara", turn=1).price == 12
    assert len(s.requests) == 2
    *_, bad, fix = s.requests[1]["messages"]
    assert bad == {"role": "assistant", "content": "Sure! Here you go: {price: twelve}"}
    assert fix["role"] == "user" and fix["content"].startswith("Your reply was invalid: no JSON object found")
    assert fix["content"].endswith("Reply with one JSON object matching the schema.")
    assert llm.usage_by_agent()["mara"].invalid == 1


def test_semantic_validation_error_goes_back_to_the_model(serve):
    s = serve(['{"price": 500}', '{"price": 50}'])

    def in_range(offer: Offer) -> None:
        if not 1 <= offer.price <= 100:
            raise ValueError(f"price {offer.price} is outside the outcome space 1..100")

    with make(s) as llm:
        assert llm.structured(USER, Offer, validate=in_range).price == 50
    assert "price 500 is outside the outcome space 1..100" in s.requests[1]["messages"][-1]["content"]


def test_schema_error_names_the_field(serve):
    s = serve(['{"note": "no price"}', '{"price": 1}'])
    with make(s) as llm:
        llm.structured(USER, Offer)
    assert "price: Field required" in s.requests[1]["messages"][-1]["content"]


def test_repairs_exhausted_raises_invalid_reply(serve):
    s = serve(["nope", "still nope", "[1, 2]"])
    with make(s) as llm:
        with pytest.raises(LLMInvalidReply) as info:
            llm.structured(USER, Offer, agent="tom", max_repairs=2)
    err = info.value
    assert isinstance(err, ParleyError) and err.raw == "[1, 2]" and "JSON list" in err.error
    assert "tom" in err.message and "Offer" in err.message and err.hint
    assert len(s.requests) == 3 and llm.usage_by_agent()["tom"].invalid == 3


def test_empty_structured_reply_is_repaired(serve):
    s = serve([{"content": ""}, '{"price": 9}'])
    with make(s) as llm:
        assert llm.structured(USER, Offer).price == 9
    assert "the reply was empty" in s.requests[1]["messages"][-1]["content"]


@pytest.mark.parametrize(
    "text", ['{"price": 1}', ' ```json\n{"price": 1}\n``` ', 'ok {"price": 1} bye', 'a {broken} then {"price": 1}']
)
def test_extract_json_object(text):
    assert extract_json_object(text) == {"price": 1}


# -- retries and failures --------------------------------------------------------------


def test_slow_reply_times_out_then_retry_succeeds(serve):
    s = serve([{"delay": 1.5, "content": "too late"}, "on time"])
    sleeps: list[float] = []
    with make(s, sleeps, timeout=0.3) as llm:
        r = llm.chat(USER, agent="a", turn=4)
    assert r.text == "on time" and len(sleeps) == 1
    assert llm.usage_by_turn()[4].retries == 1 and llm.total().calls == 1


def test_429_retry_after_is_honoured_and_capped(serve):
    s = serve([{"status": 429, "retry_after": 0.05}, {"status": 429, "retry_after": 999}, "ok"])
    sleeps: list[float] = []
    with make(s, sleeps, retry_after_max=2.0) as llm:
        assert llm.chat(USER).text == "ok"
    assert sleeps == [0.05, 2.0]
    assert llm.total().retries == 2


def test_500_then_success_with_deterministic_jitter(serve):
    def run() -> list[float]:
        s = serve([{"status": 500}, {"status": 502}, "fine"])
        sleeps: list[float] = []
        with make(s, sleeps, rng=np.random.default_rng(7), backoff_base=0.001, backoff_max=1.0) as llm:
            assert llm.chat(USER).text == "fine"
        return sleeps

    first, second = run(), run()
    rng = np.random.default_rng(7)
    expected = [0.001 * 2**a * (0.5 + rng.random()) for a in range(2)]
    assert first == second == pytest.approx(expected)


def test_malformed_http_body_is_retried(serve):
    s = serve([{"raw": "not json"}, "ok"])
    with make(s) as llm:
        assert llm.chat(USER).text == "ok"
    assert llm.total().retries == 1


def test_server_dies_mid_game(serve):
    s = serve(["hello", {"die": True}, "never served"])
    sleeps: list[float] = []
    with make(s, sleeps) as llm:
        assert llm.chat(USER).text == "hello"
        with pytest.raises(LLMUnavailable) as info:
            llm.chat(USER, agent="mara")
    err = info.value
    assert s.base_url in err.message and "test-model" in err.message and "connection" in err.message
    assert "server running" in err.hint and "OPENAI_BASE_URL" in err.hint
    assert len(sleeps) == 2 and s.dead


def test_persistent_5xx_is_unavailable(serve):
    s = serve([])  # script exhausted: every request is a 500
    with make(s, max_retries=1) as llm, pytest.raises(LLMUnavailable, match="exhausted") as info:
        llm.chat(USER)
    assert "HTTP 500" in info.value.message and len(s.requests) == 2


@pytest.mark.parametrize(
    "status, hint", [(401, "OPENAI_API_KEY"), (403, "OPENAI_API_KEY"), (404, "PARLEY_MODEL"), (400, "parameters")]
)
def test_client_errors_are_not_retried(serve, status, hint):
    s = serve([{"status": status, "error": f"nope ({status})"}, "unreachable"])
    sleeps: list[float] = []
    with make(s, sleeps) as llm, pytest.raises(LLMError) as info:
        llm.chat(USER)
    assert not isinstance(info.value, LLMUnavailable)
    assert hint in info.value.hint and f"HTTP {status}" in info.value.message
    assert len(s.requests) == 1 and sleeps == []


def test_concurrency_limit(serve):
    s = serve([{"delay": 0.15, "content": "x"}], loop=True)
    with make(s, concurrency=2, timeout=5) as llm:
        threads = [threading.Thread(target=llm.chat, args=(USER,), kwargs={"agent": f"a{i}"}) for i in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert len(s.requests) == 6 and s.max_in_flight == 2
    assert llm.total().calls == 6


# -- cache ----------------------------------------------------------------------------------


def test_cache_hit_makes_no_request(serve, tmp_path):
    s = serve(["first answer", "second answer", "third answer"])
    with make(s, cache_dir=str(tmp_path)) as llm:
        a = llm.chat(USER, agent="mara", turn=1)
        b = llm.chat(USER, agent="mara", turn=2)
        c = llm.chat(USER, agent="mara", temperature=0.1)  # other params: other key
    assert (a.text, b.text, c.text) == ("first answer", "first answer", "second answer")
    assert (
        b.cached and not a.cached and (b.prompt_tokens, b.completion_tokens) == (a.prompt_tokens, a.completion_tokens)
    )
    assert len(s.requests) == 2
    u = llm.usage_by_turn()[2]
    assert (u.calls, u.cache_hits, u.prompt_tokens) == (1, 1, 0)


def test_corrupt_cache_file_is_a_miss(serve, tmp_path):
    s = serve(["one", "two"])
    with make(s, cache_dir=str(tmp_path)) as llm:
        llm.chat(USER)
        files = list(tmp_path.glob("*/*.json"))
        assert len(files) == 1 and files[0].parent.name == files[0].stem[:2]
        files[0].write_text("{truncated", encoding="utf-8")
        assert llm.chat(USER).text == "two"
    assert len(s.requests) == 2 and json.loads(files[0].read_text())["text"] == "two"
    assert ResponseCache(tmp_path).get("0" * 64) is None


def test_cache_key_ignores_none_and_order():
    k1 = cache_key("m", USER, {"temperature": 0.5, "seed": None, "max_tokens": 9})
    k2 = cache_key("m", USER, {"max_tokens": 9, "temperature": 0.5})
    assert k1 == k2 and len(k1) == 64 and k1 != cache_key("m2", USER, {"max_tokens": 9, "temperature": 0.5})


# -- secrets -----------------------------------------------------------------------------


def test_api_key_never_leaks(serve, tmp_path, caplog):
    caplog.set_level("DEBUG")
    s = serve(
        [
            "cached reply",
            {"status": 500, "error": f"echo {FAKE_KEY}"},
            "ok",
            {"status": 401, "error": f"bad key {FAKE_KEY}"},
        ]
    )
    cfg = LLMConfig(
        base_url=s.base_url, api_key=FAKE_KEY, model="m", cache_dir=str(tmp_path), backoff_base=0.001, backoff_max=0.01
    )
    llm = LLMClient(cfg, sleep=lambda _: None)
    llm.chat(USER)
    llm.chat([{"role": "user", "content": "again"}])  # a 500 echoing the key, then ok
    with pytest.raises(LLMError) as info:
        llm.chat([{"role": "user", "content": "third"}])
    llm.close()
    texts = [
        repr(llm),
        str(llm),
        repr(cfg),
        str(cfg),
        json.dumps(cfg.public_dict()),
        info.value.render(),
        str(info.value),
        caplog.text,
        repr(s.received),
    ]
    texts += [p.read_text() for p in tmp_path.rglob("*") if p.is_file()]
    assert len(texts) > 9
    for text in texts:
        assert FAKE_KEY not in text
    assert "bad key ***" in info.value.message and "echo ***" in caplog.text  # scrubbed, not dropped
    assert "api_key" not in cfg.public_dict()
    assert cfg.api_key.get_secret_value() == FAKE_KEY


# -- config ------------------------------------------------------------------------------


def test_config_from_env(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "https://llm.example.com/v1/")
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("PARLEY_MODEL", "env-model")
    cfg = LLMConfig.from_env(model=None, timeout=5)
    assert (cfg.base_url, cfg.model, cfg.timeout) == ("https://llm.example.com/v1", "env-model", 5)
    assert LLMConfig.from_env(model="cli-model").model == "cli-model"
    with pytest.raises(ValidationError):
        cfg.timeout = 3  # frozen


def test_config_local_server_needs_no_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("PARLEY_MODEL", raising=False)
    cfg = LLMConfig.from_env(base_url="http://localhost:11434/v1")
    assert cfg.api_key.get_secret_value() == LOCAL_KEY and cfg.model == "gpt-4o-mini"
    remote = LLMConfig.from_env(base_url="https://api.example.com/v1")
    assert remote.api_key is None
    with pytest.raises(LLMError, match="no API key"):
        LLMClient(remote).chat(USER)


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"timeout": 0}, "timeout"),
        ({"concurrency": 0}, "concurrency"),
        ({"temperature": 3}, "temperature"),
        ({"base_url": "localhost"}, "base_url"),
        ({"structured": "xml"}, "structured"),
        ({"colour": 1}, "colour"),
    ],
)
def test_config_rejects_bad_values(bad, field):
    with pytest.raises(InputError) as info:
        LLMConfig.from_env(**bad)
    assert field in info.value.message and info.value.exit_code == 2


# -- the server itself, and import hygiene -------------------------------------------------


def test_load_replies_json_and_jsonl(tmp_path):
    (tmp_path / "a.json").write_text('["hi", {"status": 500}]')
    (tmp_path / "b.jsonl").write_text('"hi"\n\n{"status": 500}\n')
    assert load_replies(tmp_path / "a.json") == load_replies(tmp_path / "b.jsonl") == ["hi", {"status": 500}]


def test_scripted_server_entry_point(tmp_path):
    import openai

    (tmp_path / "r.json").write_text('["from the command line"]')
    proc = subprocess.Popen(
        [sys.executable, "-m", "game.testing.scripted_server", "--replies", str(tmp_path / "r.json"), "--loop"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = proc.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:") and url.endswith("/v1")
        with openai.OpenAI(base_url=url, api_key="x", max_retries=0, timeout=5) as raw:
            for _ in range(2):
                r = raw.chat.completions.create(model="m", messages=USER)
                assert r.choices[0].message.content == "from the command line"
    finally:
        proc.terminate()
        proc.wait(timeout=5)


def test_llm_package_does_not_import_openai():
    code = (
        "import sys, agents.llm, agents.llm.client, agents.llm.config, agents.llm.cache, "
        "game.testing.scripted_server; from agents.llm import LLMClient; "
        "print('openai' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# -- a real endpoint (opt-in) -----------------------------------------------------------------

REAL_URL = os.environ.get("PARLEY_TEST_LLM_URL") or os.environ.get("PARLEY_LLM_BASE_URL")


@pytest.mark.llm
@pytest.mark.skipif(not REAL_URL, reason="set PARLEY_TEST_LLM_URL (and PARLEY_TEST_LLM_MODEL) to run")
def test_real_endpoint(tmp_path: Path):
    cfg = LLMConfig.from_env(
        base_url=REAL_URL,
        model=os.environ.get("PARLEY_TEST_LLM_MODEL"),
        temperature=0.0,
        max_tokens=64,
        timeout=120,
        max_retries=2,
    )
    with LLMClient(cfg) as llm:
        reply = llm.chat([{"role": "user", "content": "Say hello in one word."}], agent="probe", turn=0)
        assert reply.text.strip()
        offer = llm.structured(
            [
                {"role": "system", "content": "You haggle. Answer in JSON."},
                {"role": "user", "content": "Offer a price between 1 and 100 for a lamp."},
            ],
            Offer,
            agent="probe",
            turn=0,
            validate=lambda o: None,
            max_repairs=3,
        )
        assert isinstance(offer.price, int)
        assert llm.total().calls >= 2
