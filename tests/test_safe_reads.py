"""Every reader of a file a user (or a crash, or another program) can put in place goes through the
safe loader (game.core.files): a symlink to /dev/zero, a named pipe, a folder or a file over the
reader's size limit is refused with an error naming the file (exit code 2 at the CLI), or treated
as absent where the file is only a cache; nothing blocks (each case runs under a timeout)."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core.errors import ParleyError
from tests.conftest import ROOT, parley

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")

BIG = 8 << 30  # a sparse file larger than every reader's limit


def dev_zero(p: Path) -> None:
    p.symlink_to("/dev/zero")


def fifo(p: Path) -> None:
    os.mkfifo(p)


def folder(p: Path) -> None:
    p.mkdir()


def too_big(p: Path) -> None:
    with open(p, "wb") as fh:
        fh.truncate(BIG)


BAD = {"dev_zero": dev_zero, "fifo": fifo, "folder": folder, "too_big": too_big}

TOURNAMENT = """
name = "reads"
kind = "negotiation"
[[competitors]]
name = "boulware"
agent = "boulware"
[[competitors]]
name = "linear"
agent = "linear"
[[scenarios]]
generate = 1
seed = 3
"""


@pytest.fixture(scope="module")
def finished(tmp_path_factory) -> tuple[Path, Path]:
    """A small tournament's config and its finished folder."""
    from game.tournament.config import load_config
    from game.tournament.runner import plan, run

    base = tmp_path_factory.mktemp("finished")
    cfg_path = base / "t.toml"
    cfg_path.write_text(TOURNAMENT, encoding="utf-8")
    cfg, where = load_config(cfg_path)
    run(plan(cfg, where), base / "o")
    return cfg_path, base / "o"


def _folder_with(finished: tuple[Path, Path], tmp: Path, name: str, bad: Callable[[Path], None]) -> Path:
    out = tmp / "o"
    shutil.copytree(finished[1], out)
    (out / name).unlink()
    bad(out / name)
    return out


# --- readers: each puts the bad thing where it reads and returns what the reader gave ---------
def results_rows(tmp, bad, finished):
    from game.tournament.rows import read_results

    bad(tmp / "results.jsonl")
    return read_results(tmp / "results.jsonl")


def results_resume_ids(tmp, bad, finished):
    from game.tournament.results import finished_ids

    bad(tmp / "results.jsonl")
    return finished_ids(tmp / "results.jsonl")


def results_append(tmp, bad, finished):
    from game.tournament.results import ResultsWriter

    bad(tmp / "results.jsonl")
    with ResultsWriter(tmp / "results.jsonl") as w:
        w.write([{"id": "x"}])


def run_resume(tmp, bad, finished):
    from game.tournament.config import load_config
    from game.tournament.runner import plan, run

    out = _folder_with(finished, tmp, "results.jsonl", bad)
    cfg, where = load_config(finished[0])
    return run(plan(cfg, where), out, resume=True)


def run_meta(tmp, bad, finished):
    from game.tournament.config import load_config
    from game.tournament.runner import plan, run

    out = _folder_with(finished, tmp, "tournament.json", bad)
    cfg, where = load_config(finished[0])
    return run(plan(cfg, where), out, resume=True)


def report_scenarios(tmp, bad, finished):
    from game.tournament.report import write_report

    return write_report(_folder_with(finished, tmp, "scenarios.json", bad), n_boot=10, plots=False)


def report_results(tmp, bad, finished):
    from game.tournament.report import write_report

    return write_report(_folder_with(finished, tmp, "results.jsonl", bad), n_boot=10, plots=False)


def tournament_config(tmp, bad, finished):
    from game.tournament.config import load_config

    bad(tmp / "t.toml")
    return load_config(tmp / "t.toml")


def script_seat(tmp, bad, finished):
    from agents.seats import ScriptSeat

    bad(tmp / "moves.txt")
    return ScriptSeat.from_file(str(tmp / "moves.txt"))


def llm_cache(tmp, bad, finished):
    from agents.llm.cache import ResponseCache

    cache = ResponseCache(tmp / "cache")
    key = "ab" + "0" * 62
    cache.path(key).parent.mkdir(parents=True)
    bad(cache.path(key))
    return cache.get(key)


def insight_bank(tmp, bad, finished):
    from memory.insights import InsightBank

    bad(tmp / "insights.json")
    return InsightBank(tmp / "insights.json")


def imported_set(tmp, bad, finished):
    from game.tournament.scenario_set import load_set

    bad(tmp / "set.json")
    return load_set(tmp / "set.json")


def import_dond(tmp, bad, finished):
    from game.tournament.importers import import_set

    bad(tmp / "data.txt")
    return import_set("dond", tmp / "data.txt")


def import_casino(tmp, bad, finished):
    from game.tournament.importers import import_set

    bad(tmp / "casino.json")
    return import_set("casino", tmp / "casino.json")


def world_file(tmp, bad, finished):
    from game.play.worlds import load_world

    shutil.copytree(ROOT / "worlds" / "harbor", tmp / "w")
    (tmp / "w" / "world.toml").unlink()
    bad(tmp / "w" / "world.toml")
    return load_world(tmp / "w")


def map_state(tmp, bad, finished):
    from game.map.window import read_state

    bad(tmp / "state.json")
    return read_state(tmp / "state.json")


def council_profile_texts(tmp, bad, finished):
    from game.council.profile_texts import load

    bad(tmp / "profiles.toml")
    return load(tmp / "profiles.toml")


def scripted_replies(tmp, bad, finished):
    from game.testing.scripted_server import load_replies

    bad(tmp / "replies.jsonl")
    return load_replies(tmp / "replies.jsonl")


RAISE = "raise"  # an error naming the file
ABSENT = "absent"  # a cache or a display: the file counts as missing (None)
READERS = {
    results_rows: RAISE,
    results_resume_ids: RAISE,
    results_append: RAISE,
    run_resume: RAISE,
    run_meta: RAISE,
    report_scenarios: RAISE,
    report_results: RAISE,
    tournament_config: RAISE,
    script_seat: RAISE,
    llm_cache: ABSENT,
    insight_bank: RAISE,
    imported_set: RAISE,
    import_dond: RAISE,
    import_casino: RAISE,
    world_file: RAISE,
    map_state: ABSENT,
    council_profile_texts: RAISE,
    scripted_replies: RAISE,
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", list(BAD))
@pytest.mark.parametrize("reader", list(READERS), ids=lambda f: f.__name__)
def test_a_reader_refuses_what_is_not_a_bounded_regular_file(reader, kind, tmp_path, finished):
    if kind == "too_big" and reader is results_append:
        pytest.skip("appending has no size limit: a run reads the file (with its limit) before it appends")
    if READERS[reader] == ABSENT:
        assert reader(tmp_path, BAD[kind], finished) is None
        return
    with pytest.raises(ParleyError) as e:
        reader(tmp_path, BAD[kind], finished)
    text = e.value.render()
    name = {
        results_append: "results.jsonl",
        run_resume: "results.jsonl",
        report_results: "results.jsonl",
        run_meta: "tournament.json",
        report_scenarios: "scenarios.json",
        world_file: "world.toml",
    }.get(reader)
    assert name is None or name in text, text
    if reader in (results_rows, results_resume_ids, tournament_config, script_seat, insight_bank, imported_set):
        assert str(tmp_path) in text, text


@pytest.mark.timeout(120)
@pytest.mark.parametrize("kind", list(BAD))
def test_cli_resume_and_report_refuse_a_bad_results_file(kind, tmp_path, finished):
    """``--resume``, ``--dry-run --resume`` and ``tournament report`` on a results file that is a
    symlink to /dev/zero, a named pipe, a folder or too big: exit 2 naming it, no traceback."""
    out = _folder_with(finished, tmp_path, "results.jsonl", BAD[kind])
    before = sorted(p.name for p in out.iterdir())
    for args in (
        ("tournament", str(finished[0]), "--out", str(out), "--resume", "--quiet", "--no-report"),
        ("tournament", str(finished[0]), "--out", str(out), "--resume", "--dry-run"),
        ("tournament", "report", str(out)),
    ):
        r = parley(*args)
        assert r.returncode == 2, (args, r.stderr)
        assert "results.jsonl" in r.stderr and "Traceback" not in r.stderr, r.stderr
        said = [line for line in r.stderr.splitlines() if not line.startswith(("<frozen", "  hint:"))]
        assert len(said) == 1 and said[0].startswith("parley: error: "), r.stderr
    assert sorted(p.name for p in out.iterdir()) == before


@pytest.mark.timeout(60)
def test_open_regular_opens_files_only_and_never_blocks(tmp_path):
    """The descriptor behind the results file's appends: a named pipe with no reader, a device or
    a folder is refused before anything is written."""
    from game.core.files import open_regular, read_limited

    fifo(tmp_path / "pipe")
    dev_zero(tmp_path / "zero")
    folder(tmp_path / "dir")
    for name in ("pipe", "zero", "dir"):
        for write in (False, True):
            fd, why = open_regular(tmp_path / name, write=write)
            assert fd is None and why is not None and "not a" in why[0], (name, write, why)
    fd, why = open_regular(tmp_path / "new.jsonl", write=True)
    assert why is None and fd is not None
    os.write(fd, b"{}\n")
    os.close(fd)
    assert read_limited(tmp_path / "new.jsonl") == (b"{}\n", None)


@pytest.mark.timeout(60)
def test_a_resumed_results_file_is_read_line_by_line_with_its_torn_tail_cut(tmp_path, finished):
    """The streaming reader keeps what the whole-file reader did: a torn last line is cut off the
    file on resume, and the run ends with every match once."""
    from game.tournament.config import load_config
    from game.tournament.runner import plan, run

    out = tmp_path / "o"
    shutil.copytree(finished[1], out)
    results = out / "results.jsonl"
    lines = results.read_bytes().splitlines(keepends=True)
    results.write_bytes(b"".join(lines[:-1]) + lines[-1][:25])
    cfg, where = load_config(finished[0])
    summary = run(plan(cfg, where), out, resume=True)
    assert summary.played == 1 and summary.skipped == len(lines) - 1
    rows = [json.loads(x) for x in results.read_bytes().splitlines()]
    assert len({r["id"] for r in rows}) == len(rows) == len(lines)


# --- the line-by-line results reader --------------------------------------------------------
LINE = st.one_of(
    st.builds(lambda i: json.dumps({"id": f"{i:016x}", "n": i}).encode(), st.integers(0, 10**6)),
    st.just(b""),
    st.just(b"   "),
    st.sampled_from([b'{"id": "ab', b"garbage", b"[1, 2]", b'{"no_id": 1}', b"\xc3", b'{"id": 3}']),
)


def _reference(raw: bytes) -> tuple[list[tuple[int, str]], int | None] | str:
    """What the file holds, said plainly: the rows (line number, id) and the torn last line's
    number; "damaged" when a line that is not a row has a non-blank line after it."""
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    rows, bad = [], []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            row = None
        if isinstance(row, dict) and isinstance(row.get("id"), str):
            rows.append((n, row["id"]))
        else:
            bad.append(n)
    last = max((n for n, line in enumerate(lines, 1) if line.strip()), default=None)
    if any(n != last for n in bad):
        return "damaged"
    return rows, (bad[0] if bad else None)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=st.lists(LINE, max_size=8), newline_at_end=st.booleans())
def test_the_results_reader_agrees_with_a_plain_reading(tmp_path_factory, lines, newline_at_end):
    from game.core.errors import InputError
    from game.tournament.results import ResultLines

    raw = b"\n".join(lines) + (b"\n" if newline_at_end and lines else b"")
    path = tmp_path_factory.mktemp("r") / "results.jsonl"
    path.write_bytes(raw)
    want = _reference(raw)
    reader = ResultLines(path)
    if want == "damaged":
        with pytest.raises(InputError, match=r"results\.jsonl:\d+: corrupt line"):
            list(reader)
        return
    rows, torn = want
    assert [(n, r["id"]) for n, r in reader] == rows
    assert (reader.torn[0] if reader.torn else None) == torn
    if reader.torn:  # the torn line starts where the offset says
        assert raw[reader.torn[1] :].startswith(reader.torn[2])
