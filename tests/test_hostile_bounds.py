"""Hostile input across the command line: folders that are not folders, addresses that cannot be
used, world names that match everything, LLM replies that are small on the wire but huge to parse.

Each case runs the real CLI (or the real client over a real socket) and expects what every bad
input gets: exit code 2, one message naming the flag or the file and what is wrong, no
traceback, nothing written, and bounded time.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT, parley, write_world

MINI = str(ROOT / "tests" / "fixtures" / "mini")
HARBOR = str(ROOT / "worlds" / "harbor")


def refused(r, *words: str) -> str:
    """The error line of a refused command, checked: exit 2, no traceback, every word in it."""
    assert r.returncode == 2, (r.returncode, r.stdout[-500:], r.stderr[-1000:])
    assert "Traceback" not in r.stderr + r.stdout
    line = next(x for x in r.stderr.splitlines() if "error:" in x)
    for w in words:
        assert w in line, (w, line)
    return line


@pytest.fixture
def not_folders(tmp_path: Path) -> dict[str, str]:
    """Paths that exist but are not folders, and a path below a file."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    zero = tmp_path / "zero"
    zero.symlink_to("/dev/zero")
    plain = tmp_path / "plain"
    plain.write_text("x")
    return {"fifo": str(fifo), "zero": str(zero), "file": str(plain), "below a file": str(plain / "sub")}


def _nothing_written(tmp_path: Path) -> None:
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe", "plain", "zero"]
    assert (tmp_path / "plain").read_text() == "x"


@pytest.mark.parametrize("kind", ["fifo", "zero", "file", "below a file"])
def test_saves_dir_that_is_not_a_folder_is_refused_by_every_command(tmp_path, not_folders, kind):
    bad = not_folders[kind]
    for args in (["saves", "--saves-dir", bad, "list"], ["replay", "x", "--saves-dir", bad]):
        refused(parley(*args), "--saves-dir", "not a folder")
    # play refuses it before the game starts, not after the player has played it
    r = parley("play", MINI, "--plain", "--no-memory", "--saves-dir", bad, input="look\nquit\n")
    refused(r, "--saves-dir", "not a folder")
    assert "Score" not in r.stdout
    _nothing_written(tmp_path)


@pytest.mark.parametrize("kind", ["fifo", "file", "below a file"])
def test_llm_cache_that_is_not_a_folder_is_refused_before_any_request(tmp_path, not_folders, serve, kind):
    server = serve(["look"], loop=True)
    r = parley(
        "run", MINI, "--no-memory", "--quiet", "--player", "llm", "--turns", "1",
        "--llm", server.base_url, "--llm-cache", not_folders[kind],
    )  # fmt: skip
    refused(r, "--llm-cache", "not a folder")
    assert not server.received
    _nothing_written(tmp_path)


def test_tournament_out_below_a_file_is_refused(tmp_path, not_folders):
    config = ROOT / "examples" / "tournaments" / "debate_masking.toml"
    refused(parley("tournament", str(config), "--out", not_folders["below a file"]), "--out", "not a folder")
    _nothing_written(tmp_path)


def test_new_world_dir_below_a_file_is_refused(tmp_path, not_folders):
    refused(parley("new-world", "keep", "--dir", not_folders["below a file"]), "--dir", "not a folder")
    _nothing_written(tmp_path)


def test_serve_host_that_cannot_be_a_host_name_is_refused():
    """A label longer than 63 characters cannot be encoded as a host name at all."""
    t0 = time.monotonic()
    r = parley("serve", MINI, "--no-memory", "--port", "1", "--host", "h" * 300)
    refused(r, "--host")
    assert time.monotonic() - t0 < 60


def test_ray_address_that_is_not_an_address_is_refused(tmp_path):
    pytest.importorskip("ray")
    config = ROOT / "examples" / "tournaments" / "debate_masking.toml"
    r = parley("tournament", str(config), "--out", str(tmp_path / "t"), "--backend", "ray", "--ray-address", "x" * 300)
    refused(r, "--ray-address")
    assert not (tmp_path / "t" / "results.jsonl").exists()


def test_an_empty_alias_is_refused(tmp_path):
    text = (Path(MINI) / "world.toml").read_text()
    assert 'aliases = ["' in text
    world = write_world(tmp_path / "w", text.replace('aliases = ["', 'aliases = ["", "', 1))
    r = parley("validate", str(world))
    assert r.returncode == 2 and "Traceback" not in r.stdout + r.stderr
    assert "aliases[0]: a name must not be empty" in r.stdout + r.stderr, r.stdout


def test_lexicon_read_of_nothing_is_refused():
    refused(parley("lexicon", HARBOR, "--read", "  "), "--read")


def _many_choices(n: int) -> str:
    one = {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
    return json.dumps({"id": "x", "object": "chat.completion", "created": 1, "model": "m", "choices": [one] * n})


def test_a_reply_of_a_hundred_thousand_objects_is_refused_within_the_timeout(serve):
    """A 10 MB reply is under the size cap, but 100,000 choices take the SDK many seconds to
    build: the transport refuses a reply with more JSON objects and arrays than any LLM reply has."""
    from agents.llm.client import LLMClient, LLMUnavailable
    from agents.llm.config import LLMConfig

    server = serve([{"raw": _many_choices(100_000)}])
    llm = LLMClient(LLMConfig(base_url=server.base_url, model="m", max_retries=0, timeout=3))
    t0 = time.monotonic()
    try:
        with pytest.raises(LLMUnavailable) as info:
            llm.chat([{"role": "user", "content": "hi"}])
    finally:
        llm.close()
    assert time.monotonic() - t0 < 3 + 2.0
    assert "JSON objects and arrays" in info.value.message


def test_a_reply_with_a_few_hundred_objects_is_read(serve):
    from agents.llm.client import LLMClient
    from agents.llm.config import LLMConfig

    server = serve([{"raw": _many_choices(300)}])
    llm = LLMClient(LLMConfig(base_url=server.base_url, model="m", max_retries=0, timeout=10))
    try:
        assert llm.chat([{"role": "user", "content": "hi"}]).text == "hi"
    finally:
        llm.close()


def test_a_failed_move_on_a_full_undo_stack_keeps_its_oldest_step(harbor, tmp_path):
    """After more moves than ``undo`` keeps, a move that fails is put back with the undo stack
    whole: the step its snapshot pushed off the stack comes back too."""
    from game.play.autosave import write_autosave
    from game.play.meta import UNDO_DEPTH
    from game.play.persistence import replay_report
    from game.play.session import Game, TurnError

    game = Game(harbor, seed=0)
    for _ in range(UNDO_DEPTH + 3):
        game.submit("wait")
    steps = [(s.said, s.turn) for s in game.meta.snapshots]
    assert len(steps) == UNDO_DEPTH

    def bug(event):
        raise RuntimeError("a listener's bug")

    game.engine.listeners.append(bug)
    with pytest.raises(TurnError):
        game.submit("look")
    game.engine.listeners.remove(bug)
    assert [(s.said, s.turn) for s in game.meta.snapshots] == steps
    turn = game.engine.state.turn
    for _ in range(UNDO_DEPTH):
        game.submit("undo")
    assert game.engine.state.turn == turn - UNDO_DEPTH
    write_autosave(game, tmp_path)
    assert replay_report("autosave-harbor-v1", tmp_path).ok


@pytest.mark.parametrize(
    "args",
    [
        ["schema", "--out"],
        ["run", MINI, "--no-memory", "--autopilot", "--quiet", "--turns", "2", "--out"],
        ["debate", "--quiet", "--rounds", "2", "--plot"],
    ],
    ids=["schema", "run", "debate"],
)
def test_an_output_named_pipe_nobody_reads_is_an_error_not_a_hang(tmp_path, args):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    t0 = time.monotonic()
    refused(parley(*args, str(fifo)), str(fifo), "no program is reading")
    assert time.monotonic() - t0 < 60


def test_an_output_named_pipe_with_a_reader_gets_the_whole_output(tmp_path):
    import subprocess

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = subprocess.Popen(["cat", str(fifo)], stdout=subprocess.PIPE)
    try:
        time.sleep(0.2)  # the reader opens the pipe first
        r = parley("schema", "--out", str(fifo))
        got = reader.communicate(timeout=60)[0]
    finally:
        reader.kill()
    assert r.returncode == 0, r.stderr
    assert json.loads(got)["type"] == "object"


def test_an_imported_set_too_large_to_hold_is_refused_before_it_is_read(tmp_path):
    """A scenario set is decoded whole (about 16 bytes of memory per byte of file): one of 200 MB,
    even with ``limit = 10``, is refused by its size, before any byte is read."""
    big = tmp_path / "set.json"
    with open(big, "wb") as f:
        f.truncate(200 * 1024 * 1024)  # sparse: nothing is written
    config = tmp_path / "t.toml"
    config.write_text(
        'name = "x"\nkind = "negotiation"\n'
        '[[competitors]]\nname = "a"\nagent = "boulware"\n[[competitors]]\nname = "b"\nagent = "linear"\n'
        f'[[scenarios]]\nimported = "{big}"\nlimit = 10\n'
    )
    t0 = time.monotonic()
    refused(parley("tournament", "--dry-run", str(config)), str(big), "the limit is 32 MB")
    assert time.monotonic() - t0 < 30


def test_a_world_whose_files_together_are_too_large_is_refused_unread(tmp_path):
    """Each file is under the limit of one file (10 MB), but the world's files hold 60 MB: refused
    by their sizes (stat only), before one is parsed."""
    text = (Path(MINI) / "world.toml").read_text()
    world = write_world(tmp_path / "w", text)
    (world / "npcs").mkdir()
    for i in range(6):
        with open(world / "npcs" / f"n{i}.toml", "wb") as f:
            f.truncate(10 * 1000 * 1000)  # sparse
    t0 = time.monotonic()
    r = parley("validate", str(world))
    assert r.returncode == 2 and "Traceback" not in r.stdout + r.stderr
    assert "the world's files hold 60,00" in r.stdout and "a world is at most 32 MB" in r.stdout, r.stdout
    assert time.monotonic() - t0 < 30
    refused(parley("run", str(world), "--no-memory", "--autopilot", "--turns", "1"), "1 problem")


def test_a_debate_whose_llm_endpoint_is_down_exits_1_saying_so():
    """As a game does: the members finish with their scripted fallbacks, and the command says the
    endpoint failed (exit 1) instead of printing an outcome as if the LLM had debated."""
    from tests.conftest import free_port

    url = f"http://127.0.0.1:{free_port()}/v1"  # nothing listens there
    r = parley("debate", "--quiet", "--rounds", "2", "--llm", url, "--llm-retries", "0", "--llm-timeout", "5")
    assert r.returncode == 1, (r.returncode, r.stdout[-300:], r.stderr[-500:])
    assert "Traceback" not in r.stderr and "The motion" not in r.stdout
    assert "scripted fallbacks" in r.stderr and url in r.stderr


@pytest.mark.parametrize("kind", ["fifo", "file"])
def test_parley_saves_that_is_not_a_folder_is_refused_like_the_flag(tmp_path, not_folders, kind):
    env = {"PARLEY_SAVES": not_folders[kind]}
    refused(parley("saves", "list", env=env), "PARLEY_SAVES", "not a folder")
    r = parley("play", MINI, "--plain", "--no-memory", input="look\nquit\n", env=env)
    refused(r, "PARLEY_SAVES", "not a folder")
    assert "Score" not in r.stdout
    _nothing_written(tmp_path)


def test_a_reply_far_longer_than_max_tokens_is_cut_to_it(serve):
    """A server that ignores ``max_tokens`` and answers with one 8 MB string (under the transport's
    16 MB cap): the reply is cut to what the token limit allows before anything else reads it."""
    from agents.llm.client import CHARS_PER_TOKEN, LLMClient
    from agents.llm.config import LLMConfig

    server = serve(["yes " * 2_000_000])
    llm = LLMClient(LLMConfig(base_url=server.base_url, model="m", max_retries=0, timeout=20, max_tokens=100))
    try:
        text = llm.chat([{"role": "user", "content": "hi"}]).text
    finally:
        llm.close()
    assert text.startswith("yes yes") and len(text) <= max(16_384, 100 * CHARS_PER_TOKEN)
