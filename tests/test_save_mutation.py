"""A save damaged anywhere, its state hash recomputed (a consistent forgery), is refused by every
command that opens a save: exit 2, the field path named, no traceback, the save folder untouched.

Real saves are made once per module (harbor with agent memory and world-fact memory, a council
debate, a trade in the bazaar); hypothesis picks a leaf anywhere in ``save.json`` and gives it a
value of the wrong type, or deletes a required key, or adds an unknown key. The CLI runs in-process
(``game.cli.main.main``) so a hundred commands take seconds."""

from __future__ import annotations

import contextlib
import copy
import io
import json
import shutil
import sys
import traceback
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.conftest import ROOT, forge_save

GAMES = {
    "harbor": ("harbor", ["look", "ask dray about lantern", "wait", "wait"]),
    "council": ("council", ["go north", "wait", "wait", "say the weir is cracked"]),
    "trade": ("bazaar", ["go north", "go east", "trade with ozra", "offer price=16 grade=fair extras=none"]),
}
SKIP_KEYS = {"state_hash"}  # recomputed by the forgery itself
HASHED_BY_FORGE = {(k,) for k in ("engine", "components", "seed", "turn", "world")} | {
    ("world", "id"),
    ("world", "hash"),
}
FREE_FORM = {"data", "metrics"}  # any JSON is a value there: an event's data, a deal's metrics


def cli(*args: str) -> tuple[object, str, str]:
    """The real CLI in this process: (exit code, stdout, stderr); a traceback goes to stderr."""
    out, err, stdin = io.StringIO(), io.StringIO(), sys.stdin
    sys.stdin = io.StringIO("")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as e:
                code = e.code
            except BaseException:  # noqa: BLE001 - a crash is what the test looks for
                code = "crash"
                err.write(traceback.format_exc())
    finally:
        sys.stdin = stdin
    return code, out.getvalue(), err.getvalue()


def main(argv: list[str]) -> int:
    from game.cli.main import main as parley

    return parley(argv)


def commands(name: str, saves: Path, png: Path) -> list[list[str]]:
    """Every command that opens a save (``watch`` needs a terminal; the TUI's ``load`` goes
    through ``Game.load`` as ``play --load`` does)."""
    d = ["--saves-dir", str(saves)]
    return [
        ["play", "--plain", "--load", name, *d],
        ["replay", name, *d],
        ["inspect", name, "--agent", "player", *d],
        ["trust", name, *d],
        ["trust", name, "--audit", *d],
        ["map", name, "--png", str(png), *d],
        ["saves", *d, "show", name],
    ]


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    from game.play.session import Game

    saves = tmp_path_factory.mktemp("made")
    for name, (world, lines) in GAMES.items():
        game = Game(ROOT / "worlds" / world, seed=0, memory={"embedder": "hash"})
        for line in lines:
            game.submit(line)
        game.save(name, saves)
    return saves


def leaves(value, path=()):
    """(path, value) of every leaf (and of every object, for added keys) under ``value``."""
    if isinstance(value, dict):
        yield path, value
        for k, v in value.items():
            if k not in SKIP_KEYS and k not in FREE_FORM:
                yield from leaves(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from leaves(v, (*path, i))
    else:
        yield path, value


def wrong(value, near: bool = False):
    """A value of another JSON type than ``value``; ``near``: one that equals it in Python (true
    for 1, 2.0 for 2, 1 for true), which a lax check would take."""
    if isinstance(value, bool):
        return int(value) if near else "yes"
    if isinstance(value, int):
        return (float(value) if value > 1 else bool(value)) if near else "high"
    if isinstance(value, float):
        return True if near else "high"
    if isinstance(value, str):
        return 12345
    return [[]]


def shown_path(path) -> str:
    """A field path as a message shows it (control characters in keys escaped)."""
    from game.core.text import shown

    return shown("".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip("."))


def check_refused(made: Path, tmp_path: Path, name: str, edit, named: str) -> None:
    saves = tmp_path / "saves"
    if saves.exists():
        shutil.rmtree(saves)
    shutil.copytree(made / name, saves / name)
    (saves / name / ".lock").unlink()  # a save copied by hand: a refused load makes no lock file either
    forge_save(saves / name, edit)
    before = {p.name: p.read_bytes() for p in (saves / name).iterdir()}
    for args in commands(name, saves, tmp_path / "m.png"):
        code, out, err = cli(*args)
        assert code == 2 and "Traceback" not in err, (args, named, err[-3000:])
        assert "save.json: " in err and named in err, (args, named, err)
        assert {p.name: p.read_bytes() for p in (saves / name).iterdir()} == before, args
    assert not (tmp_path / "m.png").exists()


@st.composite
def mutations(draw, made: Path):
    name = draw(st.sampled_from(sorted(GAMES)))
    data = json.loads((made / name / "save.json").read_text())
    found = [(p, v) for p, v in leaves(data) if p]
    path, value = draw(st.sampled_from(found))
    ways = ["wrong", "extra", "delete"] if isinstance(value, dict) else ["wrong", "delete"]
    if isinstance(value, int | float):
        ways.append("near")
    how = draw(st.sampled_from(ways))
    if how == "delete":  # only a key the schema requires (older saves lack some keys)
        assume(isinstance(path[-1], str) and path not in HASHED_BY_FORGE)  # a key, not a list's item
        damaged = copy.deepcopy(data)
        edit_at(path, how)(damaged)
        assume(refusal(damaged) is not None)
    return name, path, value, how


def edit_at(path, how):
    def edit(data):
        *up, last = path
        node = data
        for p in up:
            node = node[p]
        if how == "extra":
            node[last]["zz_unknown"] = 1
        elif how == "delete":
            del node[last]
        else:
            node[last] = wrong(node[last], near=how == "near")

    return edit


def refusal(data) -> str | None:
    """What the schema says of ``data`` (None: nothing)."""
    from game.core.errors import SaveError
    from game.play.save_schema import check_save

    try:
        check_save(data, "save.json")
    except SaveError as e:
        return e.message
    return None


def run_mutation(made, tmp_path, case) -> None:
    name, path, value, how = case
    named = shown_path(path) + (".zz_unknown" if how == "extra" else "")
    if how == "delete":  # a union's member may be told by the key deleted: its parent is named
        named = shown_path(path[:-1])
    check_refused(made, tmp_path, name, edit_at(path, how), named)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_save_with_a_wrong_typed_or_unknown_field_anywhere_is_refused_by_every_command(made, tmp_path, data):
    run_mutation(made, tmp_path, data.draw(mutations(made)))


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_many_damaged_saves_are_refused_by_every_command(made, tmp_path, data):
    run_mutation(made, tmp_path, data.draw(mutations(made)))


REQUIRED = [
    ("harbor", ("engine", "state", "where")),
    ("harbor", ("engine", "rng", "state", "inc")),
    ("harbor", ("components", "memory", "bank", "records", 0, "text")),
    ("harbor", ("components", "facts", "sigma")),
    ("council", ("engine", "state", "scenes", "weir_council", "debate", 0, "reply", "stance")),
    ("trade", ("engine", "state", "scenes", "saffron_deal", "session", "parties")),
    ("trade", ("world", "path")),
    ("trade", ("engine", "recent", "player", 0, "kind")),
]


@pytest.mark.parametrize("name, path", REQUIRED, ids=[shown_path(p) for _, p in REQUIRED])
def test_a_save_missing_a_required_key_is_refused_by_every_command(made, tmp_path, name, path):
    def edit(data):
        node = data
        for p in path[:-1]:
            node = node[p]
        del node[path[-1]]

    check_refused(made, tmp_path, name, edit, shown_path(path))
