"""Text at the edge: stdin, scripts, LLM replies and --llm URLs from a hostile user.

Each test feeds the bad input the way a user would and reads what comes out:
no traceback, a message that says where and what, no secret printed, and no
game lost.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agents.llm.client import extract_json_object
from agents.llm.config import LLMConfig, redact_url
from game.core.errors import InputError
from game.core.text import clean, decode, is_clean, shown
from tests.conftest import ROOT, typed

MINI = "tests/fixtures/mini"
SECRET = "pw-Zq81-SECRET"


def run_cli(*args: str, stdin: bytes = b"", env: dict | None = None, saves: Path | None = None, timeout: float = 300):
    """The real CLI in a subprocess, bytes in and out (stdin is raw bytes, as a pipe gives them)."""
    e = dict(os.environ)
    e["PARLEY_SAVES"] = str(saves) if saves is not None else e.get("PARLEY_SAVES", "/nonexistent-parley-saves")
    e.update(env or {})
    r = subprocess.run(
        [sys.executable, "-m", "game.cli.main", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        env=e,
        timeout=timeout,
    )
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


# -- game.core.text ---------------------------------------------------------------------------


def test_clean_removes_what_a_terminal_would_obey():
    dirty = "say \udcff\udcfe hi \x1b[31mred\x1b[0m \x1b]0;title\x07\u202eevil\u2066 \x00\x07bell\r\n"
    got = clean(dirty)
    assert got == "say \ufffd\ufffd hi red evil bell\n"
    assert clean("a\tb\nc", newlines=False) == "a b c"
    assert clean("Café — naïve ünïcode, 中文, emoji 🎲") == "Café — naïve ünïcode, 中文, emoji 🎲"
    assert decode(b"say \xff\xfe hi") == "say \ufffd\ufffd hi"


def test_shown_escapes_but_keeps_every_character():
    assert shown("a\x1b[31m\u202eb\udcff\r") == "a\\x1b[31m\\u202eb\\udcff\\x0d"
    assert shown("plain text, ünïcode") == "plain text, ünïcode"


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_clean_output_is_encodable_and_idempotent(text):
    got = clean(text)
    got.encode("utf-8")  # never raises: no lone surrogates left
    assert clean(got) == got and is_clean(got)
    assert not any(c in got for c in "\x1b\x00\u202e\u2066\r")


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_shown_is_printable_and_encodable(text):
    out = shown(text)
    out.encode("utf-8")
    assert "\x1b" not in out and "\u202e" not in out and "\r" not in out


# -- stdin -------------------------------------------------------------------------------


def test_invalid_utf8_on_stdin_keeps_the_game(tmp_path):
    """Was: a traceback in state_hash during the end-of-input autosave, and no save."""
    code, out, err = run_cli(
        "play", "worlds/harbor", "--no-memory", stdin=b"n\nsay \xff\xfe hello\nsave mine\n", saves=tmp_path
    )
    assert code == 0, err
    assert "Traceback" not in err and "Traceback" not in out
    assert "Saved to" in out and "Could not" not in out
    from game.play.persistence import replay
    from game.play.session import Game

    for name in ("mine", "autosave-harbor-v1"):
        game = Game.load(name, base=tmp_path)
        said = [r for r in game.transcript.records if '"say"' in r]
        assert said and "\\udc" not in said[-1] and "\ufffd\ufffd hello" in said[-1]
        assert replay(name, base=tmp_path)[0]


def test_ansi_and_bidi_from_the_player_never_reach_terminal_or_transcript(tmp_path):
    code, out, err = run_cli(
        "play", MINI, "--no-memory", stdin="say \x1b[2J\x1b[31mhello\u202e there\nsave s\n".encode(), saves=tmp_path
    )
    assert code == 0, err
    assert "\x1b" not in out and "\u202e" not in out and "hello there" in out
    folder = next(p for p in (tmp_path / "s").iterdir() if p.suffix == ".jsonl")
    text = folder.read_text(encoding="utf-8")
    assert "hello there" in text and "\\u001b" not in text and "\x1b" not in text and "\u202e" not in text


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([b"", b"say ", b'"', b"take ", b"ask lou about ", b"save ", b"load "]),
            st.binary(max_size=30),
        ).map(b"".join),
        min_size=1,
        max_size=6,
    )
)
def test_arbitrary_bytes_on_stdin_never_raise_and_keep_the_autosave(tmp_path_factory, lines):
    """The console fed any bytes after the words that carry text into the game (decoded as
    Python decodes a pipe: surrogateescape) never raises, and the autosave it leaves loads
    and replays."""
    from game.cli.console import run_console
    from game.play.persistence import replay
    from game.play.session import Game

    saves = tmp_path_factory.mktemp("saves")
    game = Game(ROOT / MINI, seed=0)
    feed = [b"wait", *lines]  # one real turn, so there is something to autosave
    read = typed(raw.decode("utf-8", "surrogateescape") for raw in feed)

    shown_lines: list[str] = []
    assert run_console(game, saves_base=str(saves), read=read, write=shown_lines.append) == 0
    for line in shown_lines:
        line.encode("utf-8")
        assert "\x1b" not in line
    if not game.engine.state.done:
        name = f"autosave-{game.spec.id}"
        assert any("Progress saved" in s for s in shown_lines), shown_lines[-2:]
        loaded = Game.load(name, base=saves)
        played = sum(1 for raw in feed if not raw.startswith((b"save", b"load")))
        assert 1 <= loaded.engine.state.turn <= played  # a `load` may have gone back to a quicksave
        assert replay(name, base=saves)[0]


# -- scripts -----------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(st.binary(max_size=200))
def test_arbitrary_script_bytes_are_an_input_error_at_worst(tmp_path_factory, raw):
    from game.play.episode import run_script, script_lines
    from game.play.session import Game

    path = tmp_path_factory.mktemp("s") / "script.txt"
    path.write_bytes(raw)
    lines = script_lines(str(path))
    for _, line in lines:
        assert is_clean(line)
    game = Game(ROOT / MINI, seed=0, facts=False)
    try:
        run_script(game, lines, str(path))
    except InputError as e:
        assert str(path) in e.message
    game.engine.get_state()
    from game.play.persistence import save_hash

    save_hash(game.engine.get_state(), game.components())


def test_non_utf8_script_is_read_with_a_warning(tmp_path):
    script = tmp_path / "s.txt"
    script.write_bytes(b"look\nsay caf\xe9 \x1b[31mred\nwait\n")
    code, out, err = run_cli("run", MINI, "--no-memory", "--script", str(script), "--out", str(tmp_path / "t.jsonl"))
    assert code == 0, err
    assert "s.txt:2: not UTF-8" in err and "Traceback" not in err
    text = (tmp_path / "t.jsonl").read_text(encoding="utf-8")
    assert "caf\ufffd red" in text and "\\u001b" not in text


# -- LLM replies -------------------------------------------------------------------------


def test_llm_reply_text_and_json_strings_are_cleaned(serve):
    from agents.llm.client import LLMClient

    s = serve(["Ten coins.\x1b[2J\u202e", json.dumps({"say": "hi\u001b[31m\u202e there", "n": [1, "\x07x"]})])
    with LLMClient(LLMConfig(base_url=s.base_url, model="m", max_retries=0)) as llm:
        assert llm.chat([{"role": "user", "content": "?"}]).text == "Ten coins."
        raw = llm.chat([{"role": "user", "content": "??"}]).text
    assert extract_json_object(raw) == {"say": "hi there", "n": [1, "x"]}


# -- --llm URLs --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url, says",
    [
        (f"http://admin:{SECRET}@[::1/v1", "not a valid URL"),
        (f"http://host.example/v1?api_key={SECRET}", "query string"),
        (f"http://host.example/v1#{SECRET}", "query string, fragment"),
        (f"http://admin:{SECRET}@host.example:notaport/v1", "not a valid URL"),
        ("http://host.example:99999/v1", "not a valid URL"),
        ("ftp://host.example/v1", "must look like http://host:port/v1"),
        ("http://host.example/v1\x1b[31m", "control characters"),
        (f"http://admin:p/{SECRET}@host.example/v1", "not a valid URL"),
        (f"http://host.example/{SECRET}@x/v1", "'@' outside user:password@host"),
        (f"//admin:{SECRET}@host.example/v1", "must look like http://host:port/v1"),
        (f"http:/admin:{SECRET}@host.example/v1", "must look like http://host:port/v1"),
        (f"http:///admin:{SECRET}@host.example/v1", "must look like http://host:port/v1"),
        (f"http://host.example/v1;key={SECRET}", "';' parameters"),
    ],
)
def test_bad_llm_url_is_exit_2_without_secret_or_traceback(url, says, tmp_path):
    """Was: a traceback printing the password (IPv6), or requests to '/v1/?api_key=...chat/completions'
    with the secret on stderr, in the hint and in save.json."""
    for args, env in ((["--llm", url], {}), (["--llm", "env"], {"OPENAI_BASE_URL": url})):
        code, out, err = run_cli(
            "run",
            "worlds/harbor",
            "--autopilot",
            "--turns",
            "2",
            "--no-memory",
            *args,
            env={"OPENAI_API_KEY": "sk-test", **env},
            saves=tmp_path,
        )
        assert code == 2, (url, err)
        assert says in err and "Traceback" not in err
        assert SECRET not in err and SECRET not in out and "\x1b" not in err
    assert not any(tmp_path.iterdir())


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=60), st.from_regex(r"Z9q[0-9a-f]{8}", fullmatch=True))
def test_redact_url_never_raises_and_never_shows_userinfo_or_query(prefix, secret):
    for url in (
        f"http://u:{secret}@{prefix}/v1",
        f"https://{prefix}/v1?key={secret}",
        f"u:{secret}@host/v",
        f"http://h/{prefix}#{secret}",
        prefix,
    ):
        out = redact_url(url)
        assert "\x1b" not in out and "\u202e" not in out
        if url != prefix and secret not in prefix:
            assert secret not in out, (url, out)
        try:
            LLMConfig.from_env(base_url=url, api_key="k")
        except InputError as e:
            if secret not in prefix:
                assert secret not in e.render()


def test_userinfo_url_is_redacted_in_saves_and_hints(serve, tmp_path):
    """A URL with credentials is accepted (basic auth), but never printed or saved."""
    s = serve(["Hello."] * 50)
    url = s.base_url.replace("http://", f"http://admin:{SECRET}@")
    code, out, err = run_cli("play", MINI, "--no-memory", "--llm", url, "--model", "m", stdin=b"wait\n", saves=tmp_path)
    assert code == 0, err
    assert SECRET not in out and SECRET not in err
    assert "continue with: parley play --load autosave-mini-v1 --llm URL" in out
    for f in tmp_path.rglob("*"):
        if f.is_file():
            assert SECRET not in f.read_text(encoding="utf-8", errors="replace"), f


# -- files that are not files ------------------------------------------------------------


def test_out_to_a_stream_writes_through_and_never_replaces_it(tmp_path):
    """Was: --out /dev/stdout (or any stream a user can write) was replaced by a regular file.
    Tested on a pipe of the test's own, never on a device of the machine."""
    import stat
    import threading

    fifo = tmp_path / "out.pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def drain() -> None:
        with open(fifo, "rb") as fh:
            got.append(fh.read())

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    code, out, err = run_cli(
        "run",
        MINI,
        "--no-memory",
        "--quiet",
        "--script",
        "tests/fixtures/mini_win.txt",
        "--out",
        str(fifo),
        saves=tmp_path,
        timeout=60,
    )
    reader.join(timeout=10)
    assert code == 0, err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert got and got[0].startswith(b'{"hash":') and b'"type":"start"' in got[0].splitlines()[0]
    # the process's own stdout, as /dev/stdout resolves to it
    code, out, err = run_cli(
        "run",
        MINI,
        "--no-memory",
        "--quiet",
        "--script",
        "tests/fixtures/mini_win.txt",
        "--out",
        "/proc/self/fd/1",
        saves=tmp_path,
        timeout=60,
    )
    assert code == 0, err
    assert out.startswith('{"hash":') and "WON" in out


@pytest.mark.parametrize("kind", ["fifo", "zero", "folder", "huge"])
def test_script_that_is_not_a_regular_file_is_refused_at_once(tmp_path, kind):
    """Was: a FIFO or /dev/zero as --script blocked or read until memory ran out."""
    path = tmp_path / "script.txt"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "zero":
        path.symlink_to("/dev/zero")
    elif kind == "folder":
        path.mkdir()
    else:
        with open(path, "wb") as fh:
            fh.truncate(11 * 1024 * 1024)
    code, out, err = run_cli("run", MINI, "--no-memory", "--script", str(path), saves=tmp_path, timeout=60)
    assert code == 2, err
    assert str(path) in err and "Traceback" not in err
    assert {"fifo": "named pipe", "zero": "character device", "folder": "folder", "huge": "10 MB"}[kind] in err


def test_insight_bank_or_save_that_is_a_pipe_is_refused_at_once(tmp_path):
    """Was: --insights FIFO (and a save.json that is a FIFO) blocked for ever."""
    fifo = tmp_path / "bank.json"
    os.mkfifo(fifo)
    code, out, err = run_cli(
        "run",
        MINI,
        "--embedder",
        "hash",
        "--insights",
        str(fifo),
        "--script",
        "tests/fixtures/mini_win.txt",
        saves=tmp_path,
        timeout=60,
    )
    assert code == 2 and "bank.json: is a named pipe (FIFO), not a regular file" in err, err
    (tmp_path / "s").mkdir()
    os.mkfifo(tmp_path / "s" / "save.json")
    for args in (["saves", "show", "s"], ["replay", "s"], ["play", "--load", "s", "--no-memory"]):
        code, out, err = run_cli(*args, saves=tmp_path, timeout=60)
        assert code == 2 and "no save 's'" in err, (args, err)  # not a save; answered at once
        assert "Traceback" not in err


# -- what a hand-edited save or a bad flag prints ----------------------------------------------


def test_hand_edited_save_is_shown_escaped_and_huge_numbers_are_corrupt_not_a_crash(tmp_path):
    """Was: control codes from save.json reached the terminal in `saves list/show`; an integer of
    5,000 digits crashed every command that reads saves (one bad save stopped `saves list`)."""
    code, out, err = run_cli("play", MINI, "--no-memory", stdin=b"wait\nsave x\nsave y\n", saves=tmp_path)
    assert code == 0, err
    for name, pattern, value in (
        ("x", r'"id": "mini-v1"', '"id": "\\u001b]0;pwned\\u0007\\u001b[2J\\u202emini"'),
        ("y", r'"turn": \d+', '"turn": ' + "9" * 5000),
    ):
        import re

        p = tmp_path / name / "save.json"
        p.write_text(re.sub(pattern, lambda _m, v=value: v, p.read_text(), count=1))
    code, out, err = run_cli("saves", "list", saves=tmp_path)
    assert code == 0, err
    assert "\x1b" not in out and "\u202e" not in out and "\\x1b]0;pwned" in out
    assert re.search(r"^y\s+\(corrupt\)", out, re.M)
    code, out, err = run_cli("saves", "show", "x", saves=tmp_path)  # refused as every command refuses it
    assert code == 2 and "x/save.json" in err, err
    assert "\x1b" not in out + err and "\u202e" not in out + err
    for args in (["saves", "show", "y"], ["replay", "y"], ["play", "--load", "y"], ["trust", "y"]):
        code, out, err = run_cli(*args, saves=tmp_path)
        assert code == 2 and "y/save.json: corrupt save" in err and "Traceback" not in err, (args, err)


def test_folder_flags_that_are_not_folders_are_exit_2(tmp_path):
    code, out, err = run_cli("new-world", "q", "--dir", str(ROOT / "README.md"), saves=tmp_path)
    assert code == 2 and "--dir" in err and "is a file, not a folder" in err, err
    code, out, err = run_cli(
        "run",
        MINI,
        "--no-memory",
        "--quiet",
        "--script",
        "tests/fixtures/mini_win.txt",
        "--out",
        str(tmp_path),
        saves=tmp_path,
    )
    assert code == 2 and f"--out {tmp_path}: is a folder" in err and ".tmp" not in err, err


@pytest.mark.parametrize(
    "edit, says",
    [
        (lambda e: e.__setitem__("seq", "x"), "engine.seq: expected a whole number"),
        (
            lambda e: e["state"]["scenes"].__setitem__("ghost_deal", 7),
            "engine.state.scenes.ghost_deal: expected an object, got 7",
        ),
        (
            lambda e: e["state"].__setitem__("active_scene", "ghost"),
            "engine.state.active_scene: 'ghost' is not a trade scene",
        ),
        (
            lambda e: e["state"]["where"].__setitem__("player", "atlantis"),
            "engine.state.where.player: 'atlantis' is not a known place",
        ),
    ],
)
def test_a_save_forged_with_a_recomputed_hash_is_refused_not_a_crash_later(tmp_path, edit, says):
    """The state hash has no secret: whoever edits a save can recompute it. Was: such a save
    loaded, then crashed mid-game (KeyError, AttributeError, TypeError)."""
    from game.core.errors import SaveError
    from game.play.persistence import save_hash, save_header
    from game.play.session import Game

    game = Game(ROOT / MINI, seed=0)
    game.act(game.parser.parse("wait", game.engine.scope()).action)
    folder = game.save("x", base=tmp_path)
    path = folder / "save.json"
    data = json.loads(path.read_text())
    edit(data["engine"])
    data["state_hash"] = save_hash(data["engine"], data["components"], save_header(data))
    path.write_text(json.dumps(data))
    with pytest.raises(SaveError, match=says) as info:
        Game.load("x", base=tmp_path)
    assert "x/save.json: engine." in info.value.message and info.value.exit_code == 2


def test_save_names_in_any_script_and_seed_with_load(tmp_path):
    """Was: `save é` and `save 日本` were refused as having no letter; `--seed` with `--load`
    was silently ignored."""
    code, out, err = run_cli(
        "play", MINI, "--no-memory", stdin="wait\nsave Église\nsave 日本\n".encode(), saves=tmp_path
    )
    assert code == 0 and "Could not" not in out, out + err
    assert {"église", "日本"} <= {p.name for p in tmp_path.iterdir()}
    code, out, err = run_cli("play", "--load", "日本", "--no-memory", stdin=b"look\n", saves=tmp_path)
    assert code == 0 and "Traceback" not in err, err
    code, out, err = run_cli("play", "--load", "日本", "--seed", "5", "--no-memory", saves=tmp_path)
    assert code == 2 and "--seed cannot be changed with --load" in err


def test_wanderer_with_no_moves_is_refused(tmp_path):
    from game.play.worlds import collect_problems
    from tests.conftest import write_world

    text = (ROOT / "tests/fixtures/broken_agents/world.toml").read_text()
    folder = write_world(tmp_path / "w", text)
    (folder / "npcs").mkdir()
    (folder / "npcs" / "gull.toml").write_text(
        (ROOT / "tests/fixtures/broken_agents/npcs/gull.toml")
        .read_text()
        .replace('moves = ["square", "towers"], p = 7.5, speed = 2', "moves = []")
    )
    _, problems = collect_problems(folder)
    assert any("npcs.gull.agent.params.moves" in (p.path or "") and "at least 1" in p.message for p in problems), [
        p.render() for p in problems
    ]


def test_save_through_a_link_out_of_the_saves_folder_is_refused(tmp_path):
    """Was: `save x` wrote through saves/x -> /elsewhere and said "Saved", but `load x` refused it."""
    saves, elsewhere = tmp_path / "saves", tmp_path / "elsewhere"
    saves.mkdir()
    elsewhere.mkdir()
    (saves / "x").symlink_to(elsewhere)
    code, out, err = run_cli("play", MINI, "--no-memory", stdin=b"wait\nsave x\n", saves=saves)
    assert code == 0 and "Could not save" in out and "outside the saves folder" in out, out
    assert not any(elsewhere.iterdir())
    from game.play.session import Game

    Game(ROOT / MINI, seed=0).save("x", base=tmp_path / "other")  # a real save behind the link:
    (saves / "x").unlink()
    (saves / "x").symlink_to(tmp_path / "other" / "x")
    code, out, err = run_cli("play", MINI, "--no-memory", stdin=b"wait\nsave x\ny\n", saves=saves)
    assert "outside the saves folder" in out and "Overwrite" not in out, out  # refused before asking
