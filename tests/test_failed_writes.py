"""A file the command line cannot write is an error naming it (exit code 2), never a file said to
be written: a full device (/dev/full), a file too large for the process (RLIMIT_FSIZE: the write
itself fails, after every check passed), a parent that is a regular file, a missing parent, a
folder in the way, a read-only folder (as a user other than root). Nothing half-written is left.

Each writing command runs as a subprocess, as a user would run it."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.test_edge_input import MINI

pytest.importorskip("matplotlib")
pytest.importorskip("pygame")

WRITERS = {
    "debate --plot": lambda f: ["debate", "--quiet", "--masking", "none", "--rounds", "3", "--plot", f"{f}.png"],
    "map --png": lambda f: ["map", MINI, "--png", f"{f}.png"],
    "schema --out": lambda f: ["schema", "--out", f"{f}.json"],
    "run --out": lambda f: [
        "run",
        MINI,
        "--no-memory",
        "--autopilot",
        "--quiet",
        "--turns",
        "2",
        "--out",
        f"{f}.jsonl",
    ],
}


def parley(*args: str, saves: Path, fsize: int | None = None) -> tuple[int, str, str]:
    def limit() -> None:  # Python ignores SIGXFSZ: a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    r = subprocess.run(
        [sys.executable, "-m", "game.cli.main", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "PARLEY_SAVES": str(saves)},
        timeout=240,
        preexec_fn=limit if fsize is not None else None,
    )
    return r.returncode, r.stdout, r.stderr


def refused(code: int, out: str, err: str, path: str) -> None:
    assert code == 2, (code, out[-300:], err[-600:])
    assert path in err and "Traceback" not in err, err
    assert "written" not in out and "wrote" not in out, out


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith(".tmp") or p.suffix in (".png", ".json"))


@pytest.mark.parametrize("writer", WRITERS)
def test_a_write_that_fails_after_every_check_is_exit_2_naming_the_file(tmp_path, writer):
    target = tmp_path / "out" / "result"
    target.parent.mkdir()
    args = WRITERS[writer](str(target))
    code, out, err = parley(*args, saves=tmp_path / "saves", fsize=400)
    refused(code, out, err, args[-1])
    assert "File too large" in err and list(target.parent.iterdir()) == []  # no temp file, no part


@pytest.mark.parametrize("writer", ["debate --plot", "schema --out", "run --out"])
def test_a_full_device_is_exit_2_naming_it(tmp_path, writer):
    args = WRITERS[writer]("x")[:-1] + ["/dev/full"]
    code, out, err = parley(*args, saves=tmp_path)
    refused(code, out, err, "/dev/full")
    assert "No space left on device" in err


def test_map_refuses_a_device_before_drawing(tmp_path):
    code, out, err = parley("map", MINI, "--png", "/dev/full", saves=tmp_path)
    refused(code, out, err, "/dev/full")
    assert "not a regular file" in err


@pytest.mark.parametrize("writer", WRITERS)
@pytest.mark.parametrize("where", ["under a file", "missing parent", "a folder"])
def test_an_impossible_place_is_exit_2_naming_it(tmp_path, writer, where):
    plain = tmp_path / "plain.txt"
    plain.write_text("a regular file, not a folder")
    if where == "under a file":
        args = WRITERS[writer](str(plain / "x"))
    elif where == "missing parent":
        args = WRITERS[writer](str(tmp_path / "no" / "such" / "x"))
    else:
        args = WRITERS[writer](str(tmp_path / "box"))
        Path(args[-1]).mkdir()
    code, out, err = parley(*args, saves=tmp_path / "saves", fsize=None)
    refused(code, out, err, str(tmp_path))
    assert plain.read_text() == "a regular file, not a folder" and not (tmp_path / "no").exists()


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into a read-only folder")
@pytest.mark.parametrize("writer", WRITERS)
def test_a_read_only_folder_is_exit_2_naming_the_file(tmp_path, writer):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        args = WRITERS[writer](str(folder / "x"))
        code, out, err = parley(*args, saves=tmp_path / "saves")
        refused(code, out, err, args[-1])
        assert list(folder.iterdir()) == []
    finally:
        folder.chmod(0o755)


def test_new_world_that_cannot_be_written_leaves_nothing(tmp_path):
    code, out, err = parley("new-world", "keep", "--dir", str(tmp_path), saves=tmp_path / "saves", fsize=200)
    refused(code, out, err, str(tmp_path / "keep" / "world.toml"))
    assert not (tmp_path / "keep").exists()
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    code, out, err = parley("new-world", "keep", "--dir", str(plain), saves=tmp_path / "saves")
    assert code == 2 and str(plain) in err and "Traceback" not in err, err


def test_a_game_whose_autosave_cannot_be_written_ends_with_exit_2(tmp_path):
    """The saves folder is fine (a --saves-dir that is a file is refused before the game: see
    tests/test_hostile_bounds.py), but a file sits where the autosave's folder goes."""
    saves = tmp_path / "saves"
    saves.mkdir()
    plain = saves / "autosave-mini-v1"
    plain.write_text("x")
    r = subprocess.run(
        [sys.executable, "-m", "game.cli.main", "play", MINI, "--plain", "--no-memory", "--saves-dir", str(saves)],
        cwd=ROOT,
        input="look\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = r.stdout + r.stderr
    assert r.returncode == 2 and "Could not autosave" in said and str(plain) in said, said
    assert "Progress saved" not in said and "Traceback" not in said


def test_write_errors_are_oserrors_for_code_and_input_errors_for_the_cli(tmp_path):
    import pickle

    from game.core.errors import InputError
    from game.core.files import WriteError, write_atomic, write_output

    with pytest.raises(WriteError) as info:
        write_atomic("/dev/full", b"x")  # never swapped for a regular file
    assert isinstance(info.value, OSError) and isinstance(info.value, InputError) and info.value.exit_code == 2
    assert info.value.filename == "/dev/full" and "character device" in str(info.value)
    assert Path("/dev/full").is_char_device()
    again = pickle.loads(pickle.dumps(info.value))  # a worker process's failure comes back whole
    assert type(again) is WriteError and again.filename == "/dev/full"
    with pytest.raises(WriteError, match="No space left on device"):
        write_output("/dev/full", "text", "--out")
    with pytest.raises(InputError, match="no folder"):
        write_output(tmp_path / "no" / "x.txt", "text")
    assert write_output("/dev/null", b"bytes") == Path("/dev/null")
