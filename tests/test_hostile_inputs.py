"""A second round of hostile inputs: signals, huge lines and saves, odd server replies and cache
files, forged save fields, and flags given empty. Each test feeds what a user (or a broken
server) would and reads the outcome."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from game.core.errors import SaveError
from game.engine.parser import MAX_INPUT, Parser, Scope, Unknown
from game.play.persistence import save_hash, save_header
from game.play.session import Game
from tests.conftest import ROOT, typed, write_world
from tests.test_edge_input import MINI, run_cli

# -- signals ---------------------------------------------------------------------------------


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_sigterm_and_sighup_autosave_like_ctrl_c(tmp_path, sig):
    """Was: `kill` or a closed terminal ended `parley play` with no autosave (all progress lost)."""
    env = {**os.environ, "PARLEY_SAVES": str(tmp_path)}
    p = subprocess.Popen(
        [sys.executable, "-m", "game.cli.main", "play", MINI, "--no-memory"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    p.stdin.write(b"take iron key\nwait\n")
    p.stdin.flush()
    out = b""
    deadline = time.monotonic() + 60
    while out.count(b"> ") < 3 and time.monotonic() < deadline:  # both commands answered
        out += os.read(p.stdout.fileno(), 4096)
    p.send_signal(sig)
    rest, err = p.communicate(timeout=60)
    assert p.returncode == 128 + sig, err
    assert b"Traceback" not in err
    game = Game.load("autosave-mini-v1", base=tmp_path)
    assert game.engine.state.turn == 2 and game.engine.state.item_at["iron_key"] == "player"


# -- sizes -----------------------------------------------------------------------------------


def test_a_huge_line_is_refused_so_no_save_outgrows_what_loads():
    """Was: one 5 MB `say` made a 45 MB save; 56 of them a transcript no load would read."""
    for n in (MAX_INPUT + 1, 5_000_000):
        got = Parser().parse("say " + "a" * n, Scope())
        assert isinstance(got, Unknown) and f"at most {MAX_INPUT:,}" in got.message


def test_a_save_too_large_to_load_is_never_written(tmp_path, monkeypatch):
    import game.play.save_files as saves

    game = Game(ROOT / MINI, seed=0, facts=False)
    game.save("s", base=tmp_path)
    before = (tmp_path / "s" / "save.json").read_text()
    game.act(game.parser.parse("say " + "x" * 1500, game.engine.scope()).action)
    monkeypatch.setattr(saves, "SAVE_LIMIT", len(game.transcript.text()) - 1)
    with pytest.raises(SaveError, match="a save holds at most"):
        game.save("s", base=tmp_path)
    assert (tmp_path / "s" / "save.json").read_text() == before
    monkeypatch.undo()
    assert Game.load("s", base=tmp_path).engine.state.turn == 0


def test_a_deal_space_too_large_to_play_fails_validate(tmp_path):
    """Was: `validate` said ok, then `trade with` stopped the game and the autopilot ran out of memory."""
    from game.play.worlds import collect_problems

    text = (ROOT / MINI / "world.toml").read_text()
    issues = ", ".join(f"i{k} = [{', '.join(str(v) for v in range(9))}]" for k in range(7))
    import re

    text = re.sub(r"issues = \{[^}]*\}", "issues = { " + issues + " }", text, count=1)
    _, problems = collect_problems(write_world(tmp_path / "w", text))
    assert any("4,782,969 possible deals" in p.message and "limit is 2,000,000" in p.message for p in problems), [
        p.render() for p in problems
    ][:5]


# -- untrusted servers and files ---------------------------------------------------------------


def test_odd_token_counts_from_a_server_or_the_cache_are_not_a_crash(serve, tmp_path):
    from agents.llm.client import LLMClient
    from agents.llm.config import LLMConfig

    def raw(content: str, usage: dict) -> dict:  # a 200 body exactly as a broken server sends it
        return {
            "raw": json.dumps(
                {
                    "id": "x",
                    "object": "chat.completion",
                    "created": 0,
                    "model": "m",
                    "choices": [
                        {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}
                    ],
                    "usage": usage,
                }
            )
        }

    s = serve(
        [
            raw("Hi.", {"prompt_tokens": "x", "completion_tokens": None}),
            raw("Ho.", {"prompt_tokens": -5, "completion_tokens": 10**30}),
            "Again.",
        ]
    )
    cache = tmp_path / "cache"
    with LLMClient(LLMConfig(base_url=s.base_url, model="m", max_retries=0, cache_dir=str(cache))) as llm:
        a = llm.chat([{"role": "user", "content": "1"}])
        b = llm.chat([{"role": "user", "content": "2"}])
    assert (
        a.text == "Hi." and a.prompt_tokens > 0 and b.prompt_tokens > 0 and 0 <= b.completion_tokens < 100
    )  # estimated
    files = sorted(cache.rglob("*.json"))
    assert len(files) == 2
    data = json.loads(files[0].read_text())
    files[0].write_text(json.dumps({**data, "completion_tokens": "x", "text": "\x1b[2Jcached"}))
    files[1].unlink()
    os.mkfifo(files[1])  # a pipe in the cache is a miss, never a hang
    with LLMClient(LLMConfig(base_url=s.base_url, model="m", max_retries=0, cache_dir=str(cache))) as llm:
        got = {llm.chat([{"role": "user", "content": q}]).text for q in ("1", "2")}
    assert got == {"cached", "Again."}  # the first from the (cleaned) cache, the second asked again


def test_a_deeply_nested_insight_bank_is_a_corrupt_file(tmp_path):
    bank = tmp_path / "deep.json"
    bank.write_text("[" * 100_000)
    code, out, err = run_cli(
        "run",
        MINI,
        "--embedder",
        "hash",
        "--insights",
        str(bank),
        "--script",
        "tests/fixtures/mini_win.txt",
        saves=tmp_path,
    )
    assert code == 2 and "corrupt insight bank" in err and "Traceback" not in err, err


@pytest.mark.parametrize(
    "edit, says",
    [
        (
            lambda d: d["engine"]["state"].__setitem__("unlocked", ["x:y", 5]),
            "engine.state.unlocked\\[1\\]: expected text, got 5",
        ),
        (
            lambda d: d["engine"]["state"]["invalid"].__setitem__("player", "many"),
            "engine.state.invalid.player: expected a whole number",
        ),
        (
            lambda d: d["components"]["memory"].__setitem__("embedder", 123),
            "components.memory.embedder: expected 'minilm' or 'hash', got 123",
        ),
    ],
)
def test_more_forged_fields_are_refused_at_load(tmp_path, edit, says):
    """Was: the save loaded, then the first autosave crashed (TypeError), or `inspect` did."""
    game = Game(ROOT / MINI, seed=0, memory={"embedder": "hash"})
    game.act(game.parser.parse("wait", game.engine.scope()).action)
    path = game.save("x", base=tmp_path) / "save.json"
    data = json.loads(path.read_text())
    edit(data)
    data["state_hash"] = save_hash(data["engine"], data["components"], save_header(data))
    path.write_text(json.dumps(data))
    with pytest.raises(SaveError, match=says):
        Game.load("x", base=tmp_path)


def test_claims_from_a_save_are_shown_escaped_in_the_journal(tmp_path):
    from game.cli.console import journal

    game = Game(ROOT / MINI, seed=0)
    for cmd in ("ask lou about gem",):
        game.act(game.parser.parse(cmd, game.engine.scope()).action)
    assert game.facts.gate.facts
    next(iter(game.facts.gate.facts.values())).text = "\x1b]0;pwned\x07 the gem \u202e"
    text = journal(game)
    assert "\x1b" not in text and "\u202e" not in text and "\\x1b]0;pwned" in text


# -- flags -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, says",
    [
        (["run", MINI, "--no-memory", "--autopilot", "--llm", ""], "--llm is empty"),
        (
            ["run", MINI, "--no-memory", "--autopilot", "--llm", "http://127.0.0.1:9/v1", "--llm-timeout", "inf"],
            "timeout",
        ),
        (
            [
                "run",
                MINI,
                "--no-memory",
                "--autopilot",
                "--llm",
                "http://127.0.0.1:9/v1",
                "--model",
                "\x1b]0;pwn\x07gpt",
            ],
            "model name has control characters",
        ),
        (["run", MINI, "--no-memory", "--autopilot", "--out", ""], "--out is empty"),
        (["run", MINI, "--no-memory", "--autopilot", "--out", "README.md/x.jsonl"], "README.md is not a folder"),
    ],
)
def test_flags_given_empty_or_impossible_are_exit_2(tmp_path, args, says):
    code, out, err = run_cli(*args, saves=tmp_path, timeout=120)
    assert code == 2 and says in err and "Traceback" not in err, err
    assert "\x1b" not in err and "\x1b" not in out


def test_schema_check_of_a_pipe_is_refused_at_once(tmp_path):
    """Was: `schema --check` read without a limit: a FIFO hung, a link to /dev/zero ran the machine
    out of memory."""
    fifo = tmp_path / "schema.json"
    os.mkfifo(fifo)
    code, out, err = run_cli("schema", "--check", str(fifo), saves=tmp_path, timeout=60)
    assert code == 2 and "named pipe" in err, err


class _RawServer:
    """A server that answers every request with ``body_chunks`` after HTTP headers, pausing
    ``pause`` seconds between chunks (a drip, or a flood)."""

    def __init__(self, length: int, chunk: bytes, pause: float):
        import socket
        import threading

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.length, self.chunk, self.pause, self.stop = length, chunk, pause, False
        self.base_url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/v1"
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            try:
                conn.recv(65536)
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % self.length
                )
                sent = 0
                while sent < self.length and not self.stop:
                    conn.sendall(self.chunk)
                    sent += len(self.chunk)
                    time.sleep(self.pause)
            except OSError:
                pass
            finally:
                conn.close()

    def close(self) -> None:
        self.stop = True
        self.sock.close()


@pytest.mark.parametrize("kind", ["drip", "flood"])
def test_a_reply_that_drips_or_floods_is_cut_off(kind):
    """Was: a server sending one byte a second held the game past --llm-timeout for ever, and a
    4 GB body grew the process to 8 GB before failing."""
    from agents.llm.client import LLMClient, LLMError
    from agents.llm.config import LLMConfig

    server = _RawServer(10**6, b" ", 0.05) if kind == "drip" else _RawServer(10**10, b" " * 65536, 0.0)
    try:
        llm = LLMClient(LLMConfig(base_url=server.base_url, model="m", max_retries=0, timeout=1.5))
        t0 = time.monotonic()
        with pytest.raises(LLMError) as info:
            llm.chat([{"role": "user", "content": "hi"}])
        took = time.monotonic() - t0
        llm.close()
    finally:
        server.close()
    assert took < 30, took  # bounded by the total timeout (drip) or the size cap (flood), never hung
    want = "timeout" if kind == "drip" else "larger than 16 MB"
    assert want in info.value.message, info.value.message


def test_validate_of_a_plain_file_names_the_file(tmp_path):
    """Was: `validate afile` blamed the folder around it: '.: missing world.toml'."""
    code, out, err = run_cli("validate", "README.md", saves=tmp_path)
    assert code == 2 and "README.md: is a file, not a world folder" in out, out
    code, out, err = run_cli("validate", "worlds/harbor/world.toml", saves=tmp_path)
    assert code == 0 and out.startswith("ok   worlds/harbor/world.toml"), out + err


# -- third round: data lost without a word, odd server shapes, held locks ----------------------


def test_a_new_game_keeps_the_other_games_autosave(tmp_path):
    """Was: `parley play`, `look`, `quit` silently replaced the autosave of a long game."""
    code, out, err = run_cli("play", MINI, "--no-memory", stdin=b"take iron key\nwait\nwait\nquit\n", saves=tmp_path)
    assert code == 0 and Game.load("autosave-mini-v1", base=tmp_path).engine.state.turn == 3
    code, out, err = run_cli("play", MINI, "--no-memory", stdin=b"wait\nquit\n", saves=tmp_path)
    assert "an autosave of this world exists (turn 3)" in err and "kept as autosave-mini-v1-previous" in out
    assert Game.load("autosave-mini-v1-previous", base=tmp_path).engine.state.turn == 3
    assert Game.load("autosave-mini-v1", base=tmp_path).engine.state.turn == 1
    code, out, err = run_cli("play", "--load", "autosave-mini-v1", "--no-memory", stdin=b"wait\nquit\n", saves=tmp_path)
    assert "kept as" not in out  # continuing the autosave replaces it, as it should
    assert Game.load("autosave-mini-v1", base=tmp_path).engine.state.turn == 2
    assert Game.load("autosave-mini-v1-previous", base=tmp_path).engine.state.turn == 3


def _completion(content, **extra) -> dict:
    return {
        "id": "x",
        "object": "chat.completion",
        "created": 0,
        "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": content}}],
        **extra,
    }


@pytest.mark.parametrize(
    "body, text",
    [
        (json.dumps(_completion([{"type": "text", "text": "lo"}, {"type": "text", "text": "ok"}])), "look"),
        (json.dumps(_completion(7)), ""),
        (json.dumps(_completion({"a": 1})), ""),
        (json.dumps({**_completion("x"), "choices": "nope"}), ""),
        (json.dumps([1, 2]), ""),
        (json.dumps("just a string"), ""),
        ('{"choices": ' + "9" * 5000 + "}", None),
        ("[" * 100_000, None),
    ],
)
def test_odd_completion_shapes_are_text_or_a_clear_failure(serve, body, text):
    """Was: content as a list or number, choices as a string, a list body, a 5000-digit number or
    deep nesting crashed the game with a traceback."""
    from agents.llm.client import LLMClient, LLMError
    from agents.llm.config import LLMConfig

    s = serve([{"raw": body}])
    with LLMClient(LLMConfig(base_url=s.base_url, model="m", max_retries=0)) as llm:
        if text is None:
            # a body nested deeper than a reply ever is is refused by its count of arrays
            with pytest.raises(
                LLMError, match="not an OpenAI-style JSON body|more than 20,000 JSON objects and arrays"
            ):
                llm.chat([{"role": "user", "content": "?"}])
        else:
            assert llm.chat([{"role": "user", "content": "?"}]).text == text


def test_json_nested_too_deeply_in_a_reply_is_an_invalid_reply():
    from agents.llm.client import extract_json_object

    with pytest.raises(ValueError, match="nested too deeply|no JSON object"):
        extract_json_object('{"a":' * 500 + "1" + "}" * 500)


def test_two_names_that_share_a_folder_are_asked_about(tmp_path):
    """Was: `save <64 a>x` then `save <64 a>y` (one folder, slugs cut at 64) overwrote without asking."""
    a = "a" * 64
    code, out, err = run_cli(
        "play", MINI, "--no-memory", stdin=f"wait\nsave {a}x\nwait\nsave {a}y\nn\n".encode(), saves=tmp_path
    )
    assert out.count("Saved to") == 1 and "Overwrite save" in out and "left as it was" in out, out
    assert Game.load(a, base=tmp_path).engine.state.turn == 1


def test_the_overwrite_question_shows_a_saved_world_id_escaped(tmp_path):
    from game.cli.console import run_console

    game = Game(ROOT / MINI, seed=0)
    path = game.save("slot", base=tmp_path) / "save.json"
    path.write_text(path.read_text().replace('"id": "mini-v1"', '"id": "\\u001b]0;PWNED\\u0007mini"'))
    answers = iter(["save slot", "n"])
    asked: list[str] = []
    read = typed(answers, asked)

    run_console(game, saves_base=str(tmp_path), read=read, write=lambda _t: None)
    question = next(q for q in asked if "Overwrite" in q)
    assert "\x1b" not in question and "\\x1b]0;PWNED" in question


def test_numbers_too_big_to_play_fail_validate(tmp_path):
    """Was: `gold = <4300 nines>` validated, then crashed the game and its autosave."""
    from game.play.worlds import collect_problems

    text = (ROOT / MINI / "world.toml").read_text()
    import re

    text = re.sub(r"^gold = \d+", "gold = " + "9" * 40, text, count=1, flags=re.M)
    _, problems = collect_problems(write_world(tmp_path / "w", text))
    assert any("at most 1,000,000,000,000" in p.message for p in problems), [p.render() for p in problems]


def test_script_meta_commands_warn_or_stop(tmp_path):
    """Was: `save`, `load` and `quit` in a script were skipped without a word."""
    script = tmp_path / "s.txt"
    script.write_text("look\nsave slot\nwait\nquit\nwait\n")
    code, out, err = run_cli("run", MINI, "--no-memory", "--quiet", "--script", str(script), saves=tmp_path)
    assert code == 0 and "s.txt:2: 'save' is skipped in a headless run" in err and "s.txt:4: quit" in err, err
    assert "turn 2," in out
    script.write_text("x" * 1_000_000 + "\n")
    code, out, err = run_cli("run", MINI, "--no-memory", "--script", str(script), saves=tmp_path)
    assert code == 2 and len(err) < 1000, len(err)


@pytest.mark.skipif(sys.platform == "win32", reason="flock")
def test_a_save_held_by_another_process_is_a_clear_error_not_a_hang(tmp_path, monkeypatch):
    import fcntl

    import game.play.save_files as saves

    game = Game(ROOT / MINI, seed=0)
    folder = game.save("held", base=tmp_path)
    monkeypatch.setattr(saves, "LOCK_WAIT", 0.3)
    fd = os.open(folder / saves.LOCK_FILE, os.O_RDWR)  # the lock a save left, as another process holds it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        with pytest.raises(SaveError, match="in use by another process"):
            Game.load("held", base=tmp_path)
        with pytest.raises(SaveError, match="in use by another process"):
            game.save("held", base=tmp_path)
    finally:
        os.close(fd)
    assert Game.load("held", base=tmp_path).engine.state.turn == 0


def test_an_agent_never_sees_which_world_fact_a_claim_restates(tmp_path):
    """Was: claims in an agent's observation carried `fact_id`, which with a container's `reveals`
    tells whether a claim is true. The transcript and the listeners keep it."""
    game = Game(ROOT / MINI, seed=0)
    events = game.act(game.parser.parse("ask lou about gem", game.engine.scope()).action)
    said = [e for e in events if e.data.get("claims")]
    assert said and any("fact_id" in c for e in said for c in e.data["claims"])  # the record keeps it
    seen = [e for e in game.engine.observe("player").recent if e.data.get("claims")]
    assert seen and all("fact_id" not in c for e in seen for c in e.data["claims"])
    assert all(set(c) >= {"speaker", "subject", "relation", "object", "topic"} for e in seen for c in e.data["claims"])
    assert "fact_id" in game.transcript.text()
