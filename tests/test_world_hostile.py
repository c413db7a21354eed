"""Hostile world folders: the loader never crashes, hangs or reads without bound; it says what
a path really is; text from world files is cleaned, and messages never print it raw."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core import files
from game.core.errors import InputError, Problem, WorldError
from game.play.worlds import collect_problems, load_world
from game.world.loader import MAX_FILE_BYTES, resolve_world_path
from game.world.scaffold import scaffold_text
from tests.conftest import ROOT, write_world

GOOD = scaffold_text("demo")
posix_only = pytest.mark.skipif(os.name != "posix", reason="needs FIFOs and /dev/zero")


def world(tmp_path, name="w"):
    return write_world(tmp_path / name, GOOD)


def messages(folder):
    w, problems = collect_problems(folder)
    assert w is None
    return [p.render() for p in problems]


def cli(*args, timeout=60, limit_memory=False):
    """The real CLI in a subprocess that cannot hang the suite (nor, with ``limit_memory``,
    eat the machine's memory)."""

    def cap():  # pragma: no cover - runs in the child
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))

    import tempfile

    env = dict(os.environ, PARLEY_SAVES=tempfile.mkdtemp(prefix="parley-saves-"))
    try:
        return subprocess.run(
            [sys.executable, "-m", "game.cli.main", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            preexec_fn=cap if limit_memory else None,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"`parley {' '.join(args)}` hung for {timeout}s")


# --- nesting ---------------------------------------------------------------------------


@pytest.mark.parametrize("nest", ["[" * 400 + "]" * 400, "{ a = " * 400 + "1" + " }" * 400])
def test_deep_nesting_in_world_toml_is_a_located_problem(tmp_path, nest):
    folder = world(tmp_path)
    (folder / "world.toml").write_text(GOOD + f"\n[relations.deep]\ndescription = {nest}\n")
    [msg] = messages(folder)
    line = (GOOD + "\n[relations.deep]\n").count("\n") + 1
    assert msg.startswith(f"{folder / 'world.toml'}:{line}: relations.deep.description")
    assert "nested more than 32 levels deep" in msg and "nested too deeply" in msg


@pytest.mark.parametrize("depth", [400, 60])  # past the parser's recursion, and just past the limit
def test_deep_nesting_in_an_extra_file_is_a_located_problem(tmp_path, depth):
    folder = world(tmp_path)
    (folder / "npcs").mkdir()
    (folder / "npcs" / "deep.toml").write_text("x = " + "[" * depth + "]" * depth + "\n")
    [msg] = messages(folder)
    assert "npcs/deep.toml" in msg and "nested too deeply" in msg and "32 levels" in msg


def test_integer_too_long_to_convert_is_a_problem(tmp_path):
    folder = world(tmp_path)
    (folder / "world.toml").write_text(GOOD.replace("max_turns", "x") + "\nmax_turns = 1" + "0" * 5000 + "\n")
    [msg] = messages(folder)
    assert "world.toml" in msg and "digits" in msg


# --- what is read: regular files only, under 10 MB, symlinks inside the folder -------------


@posix_only
def test_fifo_among_npcs_is_refused_without_blocking(tmp_path):
    folder = world(tmp_path)
    (folder / "npcs").mkdir()
    os.mkfifo(folder / "npcs" / "pipe.toml")
    r = cli("validate", str(folder))
    assert r.returncode == 2, r.stderr
    assert "npcs/pipe.toml: is a named pipe (FIFO), not a regular file" in r.stdout
    r = cli("run", "--no-memory", str(folder), "--script", str(ROOT / "tests" / "fixtures" / "mini_win.txt"))
    assert r.returncode == 2 and "named pipe" in r.stderr and "Traceback" not in r.stderr


@posix_only
def test_fifo_world_toml_is_refused_by_validate_run_and_resolve(tmp_path):
    folder = tmp_path / "w"
    folder.mkdir()
    os.mkfifo(folder / "world.toml")
    for target in (folder, folder / "world.toml"):
        r = cli("validate", str(target))
        assert r.returncode == 2 and "world.toml: is a named pipe (FIFO)" in r.stdout, r.stdout
    r = cli("run", "--no-memory", str(folder / "world.toml"), "--script", "x.txt")
    assert r.returncode == 2 and "named pipe" in r.stderr
    assert resolve_world_path(folder / "world.toml") == folder
    other = tmp_path / "pipe"
    os.mkfifo(other)
    with pytest.raises(InputError, match="named pipe"):
        resolve_world_path(other)
    [p] = collect_problems(other)[1]
    assert "named pipe" in p.message


@posix_only
def test_symlink_to_dev_zero_is_refused_not_read(tmp_path):
    folder = world(tmp_path)
    (folder / "npcs").mkdir()
    (folder / "npcs" / "zero.toml").symlink_to("/dev/zero")
    r = cli("validate", str(folder), limit_memory=True)
    assert r.returncode == 2, r.stderr
    assert "npcs/zero.toml: is a symlink to '/dev/zero', outside the world folder" in r.stdout


@posix_only
def test_device_inside_the_folder_is_refused(tmp_path, monkeypatch):
    """A device node that resolves inside the folder (faked: a link to /dev/null whose target
    counts as inside) is still not a regular file."""
    folder = world(tmp_path)
    (folder / "npcs").mkdir()
    (folder / "npcs" / "null.toml").symlink_to("/dev/null")
    monkeypatch.setattr(files, "_inside", lambda path, root: True)
    [msg] = messages(folder)
    assert "npcs/null.toml: is a character device, not a regular file" in msg


def test_symlink_outside_the_folder_is_refused(tmp_path):
    folder = world(tmp_path)
    (tmp_path / "elsewhere.toml").write_text('name = "Guard"\nlocation = "yard"\n')
    (folder / "npcs").mkdir()
    (folder / "npcs" / "guard.toml").symlink_to(tmp_path / "elsewhere.toml")
    [msg] = messages(folder)
    assert "npcs/guard.toml: is a symlink to" in msg and "outside the world folder" in msg
    (folder / "drafts").mkdir()  # a link that stays inside the folder is followed
    (folder / "drafts" / "guard.toml").write_text('name = "Guard"\nlocation = "yard"\n')
    (folder / "npcs" / "guard.toml").unlink()
    (folder / "npcs" / "guard.toml").symlink_to("../drafts/guard.toml")
    assert load_world(folder).spec.npcs["guard"].location == "yard"


def test_symlinked_section_folder_outside_is_refused(tmp_path):
    folder = world(tmp_path)
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "guard.toml").write_text('name = "Guard"\nlocation = "yard"\n')
    (folder / "npcs").symlink_to(tmp_path / "shared", target_is_directory=True)
    [msg] = messages(folder)
    assert f"{folder / 'npcs'}: is a symlink to" in msg and "outside the world folder" in msg


def test_world_toml_that_is_a_folder_says_so(tmp_path):
    (tmp_path / "w" / "world.toml").mkdir(parents=True)
    [msg] = messages(tmp_path / "w")
    assert msg == f"{tmp_path / 'w' / 'world.toml'}: is a folder, not a file"
    for target in (tmp_path / "w" / "world.toml", tmp_path / "w"):
        with pytest.raises(WorldError) as ei:
            load_world(target)
        assert [p.message for p in ei.value.problems] == ["is a folder, not a file"]
    (tmp_path / "w" / "world.toml").rmdir()  # really missing: still said so
    [msg] = messages(tmp_path / "w")
    assert "missing world.toml" in msg


def test_world_toml_symlink_loop_says_so(tmp_path):
    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "world.toml").symlink_to("world.toml")
    [msg] = messages(tmp_path / "w")
    assert "world.toml: is a symlink loop" in msg and "missing" not in msg
    with pytest.raises(WorldError):
        load_world(tmp_path / "w" / "world.toml")


def test_file_over_the_size_limit_names_the_file_and_the_limit(tmp_path):
    folder = world(tmp_path)
    (folder / "npcs").mkdir()
    with open(folder / "npcs" / "huge.toml", "wb") as f:
        f.truncate(MAX_FILE_BYTES + 1)  # sparse: costs no disk
    [msg] = messages(folder)
    assert "npcs/huge.toml" in msg and "the limit is 10 MB" in msg


def test_the_read_itself_is_bounded(tmp_path, monkeypatch):
    """Even when the stat check is fooled (a file that grows after it), at most one byte past the
    limit is read."""
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:
        f.truncate(3 * MAX_FILE_BYTES)
    monkeypatch.setattr(files, "path_problem", lambda *a, **k: None)
    reads = []
    real_read = os.read
    monkeypatch.setattr(files.os, "read", lambda fd, n: reads.append(n) or real_read(fd, n))
    raw, why = files.read_limited(big)
    assert raw is None and "larger than the limit of 10 MB" in why[0]
    assert sum(reads) <= MAX_FILE_BYTES + 1


def test_content_hash_comes_from_the_bytes_read_once(monkeypatch):
    """The hash is computed from the bytes the loader read (same algorithm, same value as
    before); no file is opened a second time, unchecked, to hash it."""
    import hashlib
    from pathlib import Path

    folder = ROOT / "tests" / "fixtures" / "mini"
    h = hashlib.sha256()
    h.update(b"world.toml\0" + (folder / "world.toml").read_bytes() + b"\0")

    def refuse(self):
        raise AssertionError(f"{self} read again, without the loader's checks")

    monkeypatch.setattr(Path, "read_bytes", refuse)
    monkeypatch.setattr(Path, "read_text", refuse)
    assert load_world(folder).content_hash == h.hexdigest()[:16]


# --- text at the edge ----------------------------------------------------------------------


def test_problem_render_escapes_control_and_bidi_characters():
    p = Problem(
        "unknown location 'ga\u202eet'",
        file="w\x1b[31m/world.toml",
        path="npcs.x\u202e",
        hint="did you mean '\u202egate'?",
    )
    out = p.render()
    assert "\u202e" not in out and "\x1b" not in out
    assert "\\u202e" in out and "\\x1b" in out


def test_validate_never_prints_a_bidi_override_raw(tmp_path):
    folder = write_world(
        tmp_path / "evil\u202eworld",
        GOOD.replace('title = "Demo"', 'title = "Demo"\n"bogus\u202e" = 1\nmax_turns = "ma\u202eny"'),
    )
    r = cli("validate", str(folder))
    assert r.returncode == 2
    assert "\u202e" not in r.stdout + r.stderr
    assert "evil\\u202eworld" in r.stdout
    assert "unknown key 'bogus'" in r.stdout and "got 'many'" in r.stdout
    folder = write_world(tmp_path / "ok\u202e", GOOD.replace('location = "gate"', 'location = "ga\u202eet"'))
    r = cli("validate", str(folder))
    assert r.returncode == 2 and "\u202e" not in r.stdout and "unknown location 'gaet'" in r.stdout


# --- fuzzing: arbitrary bytes never raise anything but WorldError / InputError ---------------


def _only_clean_errors(folder):
    try:
        w, problems = collect_problems(folder)
        assert (w is None) == bool(problems)
        for p in problems:
            assert p.render()
        load_world(folder)
    except (WorldError, InputError):
        pass


HOSTILE = st.builds(
    lambda key, opener, n, tail: key + opener * n + tail,
    st.sampled_from([b"x = ", b"name = ", b"[a]\nb = "]),
    st.sampled_from([b"[", b"{ a = ", b"[{ a = "]),
    st.integers(0, 700),
    st.binary(max_size=10),
)
"""Bytes an attacker would try: deep nesting, truncated or not."""


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    raw=st.one_of(
        st.binary(max_size=400),
        st.builds(lambda a, b: GOOD.encode()[:a] + b, st.integers(0, len(GOOD)), st.binary(max_size=60)),
        HOSTILE,
    )
)
def test_fuzz_world_toml_bytes(tmp_path, raw):
    folder = tmp_path / "fz"
    folder.mkdir(exist_ok=True)
    (folder / "world.toml").write_bytes(raw)
    _only_clean_errors(folder)


NPC = b'name = "Guard"\nlocation = "yard"\nagent = { kind = "patrol", params = { route = ["yard", "gate"] } }\n'


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    raw=st.one_of(
        st.binary(max_size=400),
        st.builds(lambda a, b: NPC[:a] + b + NPC[a:], st.integers(0, len(NPC)), st.binary(max_size=20)),
        HOSTILE,
    )
)
def test_fuzz_npc_file_bytes(tmp_path, raw):
    folder = write_world(tmp_path / "fz", GOOD)
    (folder / "npcs").mkdir(exist_ok=True)
    (folder / "npcs" / "guard.toml").write_bytes(raw)
    _only_clean_errors(folder)
