"""LLM competitors on the bundled local model: ``llm = "local"`` in a tournament file, match ids
that name the spec (never the server's port), one model server per run that the pool's workers
share, and the LLM's calls, tokens and seconds in the rows, the report and the printed table.

The tests marked ``real_llm`` run SmolLM2 through xllamacpp; the others run without a model (the
scripted OpenAI-compatible server stands in for the endpoint where one is needed)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from game.core.errors import InputError
from game.tournament.config import load_config, parse_config, tournament_schema
from game.tournament.llm_usage import SEAT_FIELDS, usage_by_competitor
from game.tournament.model import endpoint
from game.tournament.report import write_report
from game.tournament.runner import local_models, plan, run
from game.tournament.stats import read_results, summarise
from tests.conftest import ROOT, parley

LOCAL = """
name = "local"
kind = "negotiation"
deadline = 4
openers = "scene"

[[competitors]]
name = "smol"
agent = "llm"
llm = LLM

[[competitors]]
name = "boulware"
agent = "boulware"

[[scenarios]]
generate = 1
seed = 3
"""

SERVER = "agents.llm.local_serve"


def write(tmp: Path, llm: str, name: str = "t.toml", text: str = LOCAL) -> Path:
    p = tmp / name
    p.write_text(text.replace("LLM", llm), encoding="utf-8")
    return p


def rows_of(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]


@pytest.fixture
def no_shared_server(monkeypatch):
    """No model server inherited from the environment; the ones the test starts stop after it."""
    from agents.llm.local import ENV, stop_shared

    for var in (ENV, "OPENAI_BASE_URL", "PARLEY_MODEL"):
        monkeypatch.delenv(var, raising=False)
    yield
    stop_shared()


# --- the config: a string is short for the endpoint --------------------------------------------
def test_an_llm_string_is_short_for_its_endpoint(tmp_path, no_shared_server):
    short, _ = load_config(write(tmp_path, '"local"'))
    table, _ = load_config(write(tmp_path, '{ endpoint = "local" }', "table.toml"))
    assert short == table and short.competitors[0].llm.endpoint == "local"
    assert endpoint(short.competitors[0]) == {"base_url": "local", "model": "smollm2-135m-instruct"}
    assert [m.id for m in plan(short, tmp_path).matches] == [m.id for m in plan(table, tmp_path).matches]

    gguf, _ = load_config(write(tmp_path, '"local:models/other.gguf"', "gguf.toml"))
    assert endpoint(gguf.competitors[0]) == {"base_url": "local:models/other.gguf", "model": "other"}
    example, base = load_config(ROOT / "examples" / "tournaments" / "llm_local.toml")
    assert example.competitors[0].llm.endpoint == "local" and len(plan(example, base).matches) == 8
    url, _ = load_config(write(tmp_path, '"http://localhost:11434/v1"', "url.toml"))
    assert url.competitors[0].llm.endpoint == "http://localhost:11434/v1"
    assert url.competitors[0].llm.usd_per_1k_tokens == 0.0

    schema = tournament_schema()
    llm = schema["$defs"]["Competitor"]["properties"]["llm"]["anyOf"]
    assert [o.get("type") for o in llm if "type" in o] == ["string", "null"] and {"$ref": "#/$defs/LLMEndpoint"} in llm
    jsonschema = pytest.importorskip("jsonschema")
    import tomllib

    jsonschema.validate(tomllib.loads(write(tmp_path, '"local"', "raw.toml").read_text()), schema)

    bad, _ = load_config(write(tmp_path, '"ftp://example.com/v1"', "bad.toml"))
    with pytest.raises(InputError, match=r"competitor 'smol'.*base_url: must look like http://host:port/v1"):
        plan(bad, tmp_path)
    with pytest.raises(InputError) as e:
        parse_config({**_rules_only(), "competitors": [{"name": "x", "agent": "llm", "llm": 7}]})
    assert "competitors[0].llm: llm is an endpoint (local, local:PATH.gguf or a URL) or a table" in e.value.render()


def test_local_match_ids_name_the_spec_not_the_server(tmp_path, monkeypatch, no_shared_server):
    from agents.llm.local import ENV, bundled_path

    cfg, base = load_config(write(tmp_path, '"local"'))
    first = [m.id for m in plan(cfg, base).matches]
    assert len(first) == 2 and first == [m.id for m in plan(cfg, base).matches]
    # a running server (its random port in the environment) changes nothing
    monkeypatch.setenv(ENV, f"http://127.0.0.1:45678/v1 {bundled_path()}")
    again, _ = load_config(write(tmp_path, '"local"', "again.toml"))
    assert [m.id for m in plan(again, base).matches] == first
    # another model file is another competitor
    other, _ = load_config(write(tmp_path, '"local:other.gguf"', "other.toml"))
    assert not set(first) & {m.id for m in plan(other, base).matches}
    # the runner starts the server only for unfinished matches on a local model
    p = plan(cfg, base)
    assert local_models(p) == ["local"]
    p.done = set(first)
    assert local_models(p) == []
    assert local_models(plan(parse_config(_rules_only()), base)) == []


def _rules_only() -> dict:
    return {
        "kind": "negotiation",
        "competitors": [{"name": "b", "agent": "boulware"}, {"name": "l", "agent": "linear"}],
        "scenarios": [{"generate": 1}],
    }


# --- usage in rows, statistics, report and the printed table (scripted endpoint) ---------------
def _repair_then_walk(body: dict) -> dict:
    """The first reply of each move does not parse; the repaired one walks away (always legal)."""
    last = body["messages"][-1]["content"]
    if "Your reply was invalid" not in last:
        return {"delay": 0.02, "content": "I would like to think about it."}
    return {"delay": 0.02, "content": json.dumps({"action": "walk_away", "offer": None, "message": "No."})}


def test_llm_seats_carry_their_calls_tokens_seconds_and_repairs(tmp_path, serve, no_shared_server):
    s = serve(responder=_repair_then_walk)
    cfg = load_config(write(tmp_path, json.dumps(s.base_url)))[0]
    summary = run(plan(cfg, tmp_path), tmp_path / "o", backend="processes", workers=2)
    assert summary.played == 2
    for row in rows_of(tmp_path / "o"):
        (llm,) = [seat for seat in row["seats"] if seat["competitor"] == "smol"]
        (rule,) = [seat for seat in row["seats"] if seat["competitor"] == "boulware"]
        assert not set(SEAT_FIELDS) & set(rule)
        assert llm["invalid"] == 0 and llm["llm_calls"] == 2 * llm["llm_repairs"] >= 2
        assert llm["llm_tokens"] == llm["llm_prompt_tokens"] + llm["llm_completion_tokens"] > 0
        assert llm["llm_seconds"] >= 0.02 * llm["llm_calls"]
        assert (row["llm_calls"], row["llm_tokens"], row["llm_seconds"]) == (
            llm["llm_calls"],
            llm["llm_tokens"],
            llm["llm_seconds"],
        )
    rows = read_results(tmp_path / "o" / "results.jsonl")
    stats = summarise(rows, n_boot=50)
    assert {"llm_calls", "llm_tokens", "llm_seconds"} <= set(stats.metrics["smol"])
    assert not {"llm_calls", "llm_tokens", "llm_seconds", "cost"} & set(stats.metrics["boulware"])
    (used,) = usage_by_competitor(rows)
    assert used.competitor == "smol" and used.matches == 2 and used.repairs * 2 == used.calls

    r = parley("tournament", "report", str(tmp_path / "o"))
    assert r.returncode == 0, r.stderr
    assert "LLM usage" in r.stdout and "seconds / call" in r.stdout
    line = next(x for x in r.stdout.splitlines() if x.startswith("smol "))
    assert line.split()[1:4] == ["2", str(used.calls), f"{used.prompt_tokens:,}"]
    md = (tmp_path / "o" / "summary.md").read_text()
    assert "### LLM usage" in md and "| LLM seconds |" in md
    assert f"| smol | 2 | {used.calls} | {used.prompt_tokens:,} |" in md
    assert "LLM usage" in (tmp_path / "o" / "report.html").read_text()


def test_rows_without_seat_figures_still_count(tmp_path):
    """Results written before seats had their own figures: the match's totals, when an LLM ran."""
    from game.tournament.llm_usage import competitor_figures

    seat = {"competitor": "a", "points": 0.5}
    old = {"seats": [seat], "llm_calls": 3, "llm_tokens": 90, "cost": 0.0}
    assert competitor_figures(old, [seat]) == {"llm_calls": 3.0, "llm_tokens": 90.0, "llm_seconds": None, "cost": 0.0}
    assert competitor_figures({**old, "llm_calls": 0}, [seat]) == {}


# --- the real model ------------------------------------------------------------------------------
def _descendants(root: int) -> dict[int, str]:
    """pid -> command line of every process below ``root``."""
    parents: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
                parents[int(d.name)] = int(stat.rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
    found, frontier = set(), {root}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier and p not in found}
        found |= frontier
    out = {}
    for pid in found:
        try:
            out[pid] = (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
    return out


class ServerWatch:
    """Every model server (``python -m agents.llm.local_serve``) seen below ``root`` while it runs."""

    def __init__(self, root: int | None = None):
        self.root = root or os.getpid()
        self.seen: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)

    def _watch(self) -> None:
        while not self._stop.is_set():
            self.seen |= {pid for pid, cmd in _descendants(self.root).items() if SERVER in cmd}
            self._stop.wait(0.1)

    def __enter__(self) -> ServerWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _alive(pid: int) -> bool:
    try:
        return "Z" not in (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[:1]
    except OSError:
        return False


def _need_model() -> None:
    from agents.llm.local import info

    if not info()["ready"]:
        pytest.skip("the bundled model or xllamacpp is not installed")


@pytest.mark.real_llm
@pytest.mark.xdist_group("real_llm")
def test_a_local_model_tournament_shares_one_server(tmp_path, no_shared_server):
    _need_model()
    from agents.llm.local import ENV

    cfg, base = load_config(write(tmp_path, '"local"'))
    p = plan(cfg, base)
    start = time.perf_counter()
    with ServerWatch() as watch:
        summary = run(p, tmp_path / "o", backend="processes", workers=2)
    took = time.perf_counter() - start
    assert summary.played == 2 and not summary.stopped
    assert len(watch.seen) == 1, f"model servers: {watch.seen}"  # the parent's, shared by both workers
    assert os.environ[ENV].startswith("http://127.0.0.1:")

    rows = rows_of(tmp_path / "o")
    assert sorted(r["id"] for r in rows) == sorted(m.id for m in p.matches)
    for row in rows:
        (llm,) = [seat for seat in row["seats"] if seat["competitor"] == "smol"]
        assert llm["invalid"] == llm["llm_repairs"] == 0, row  # every move legal as the model first gave it
        assert llm["llm_calls"] >= 1 and llm["llm_tokens"] == llm["llm_prompt_tokens"] + llm["llm_completion_tokens"]
        assert llm["llm_prompt_tokens"] > 0 and llm["llm_completion_tokens"] > 0 and llm["llm_seconds"] > 0
        (rule,) = [seat for seat in row["seats"] if seat["competitor"] == "boulware"]
        assert "llm_calls" not in rule

    _, md_path = write_report(tmp_path / "o", n_boot=50, plots=False)
    md = md_path.read_text()
    tokens = sum(row["llm_tokens"] for row in rows)
    assert "| LLM seconds |" in md and "### LLM usage" in md and f"{tokens / 2:,.0f}" in md

    # the same config read again gives the same ids: --resume finds everything played
    again, _ = load_config(write(tmp_path, '"local"', "again.toml"))
    resumed = run(plan(again, base), tmp_path / "o", resume=True, backend="processes", workers=2)
    assert (resumed.played, resumed.skipped) == (0, 2)
    print(f"\nreal-model tournament: {took:.1f} s for {summary.played} matches")


@pytest.mark.real_llm
@pytest.mark.xdist_group("real_llm")
def test_an_adventure_llm_seat_on_the_local_model(tmp_path, no_shared_server):
    _need_model()
    cfg = parse_config(
        {
            "kind": "adventure",
            "turns": 1,
            "competitors": [{"name": "smol", "agent": "llm", "llm": "local"}, {"name": "auto", "agent": "autopilot"}],
            "scenarios": [{"world": str(ROOT / "worlds" / "harbor")}],
        }
    )
    assert run(plan(cfg, tmp_path), tmp_path / "o").played == 2
    rows = {r["seats"][0]["competitor"]: r for r in rows_of(tmp_path / "o")}
    llm, auto = rows["smol"]["seats"][0], rows["auto"]["seats"][0]
    assert llm["llm_calls"] >= 1 and llm["llm_tokens"] > 0 and llm["llm_seconds"] > 0
    assert rows["smol"]["llm_seconds"] == llm["llm_seconds"] and "llm_calls" not in auto
    (used,) = usage_by_competitor(rows.values())
    assert used.competitor == "smol" and used.tokens == llm["llm_tokens"]


@pytest.mark.real_llm
@pytest.mark.xdist_group("real_llm")
def test_an_interrupted_tournament_stops_the_model_server(tmp_path, no_shared_server):
    _need_model()
    longer = LOCAL.replace("deadline = 4", "deadline = 10")  # two matches of up to 20 moves: seconds of LLM
    cfg = write(tmp_path, '"local"', text=longer)
    proc = subprocess.Popen(
        [sys.executable, "-m", "game.cli.main", "tournament", str(cfg), "--out", str(tmp_path / "o")]
        + ["--quiet", "--workers", "2"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal gives a command
    )
    try:
        deadline = time.monotonic() + 60
        servers: set[int] = set()
        while not servers and time.monotonic() < deadline and proc.poll() is None:
            servers = {pid for pid, cmd in _descendants(proc.pid).items() if SERVER in cmd}
            time.sleep(0.1)
        assert len(servers) == 1, proc.communicate(timeout=5)
        time.sleep(0.3)  # the pool is starting or in its first matches: seconds of LLM moves remain
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the tournament, its pool and workers; not the server
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    # interrupted mid-run: exit 130 with the resume hint; on a machine fast enough to finish the two
    # matches before the signal lands, a clean exit. Either way the server must not outlive the run.
    assert proc.returncode == 0 or (proc.returncode == 130 and "--resume" in err), (proc.returncode, err[-2000:])
    (server,) = servers
    gone = time.monotonic() + 10
    while _alive(server) and time.monotonic() < gone:
        time.sleep(0.1)
    assert not _alive(server), "the model server outlived the interrupted tournament"


@pytest.mark.real_llm
@pytest.mark.xdist_group("real_llm")
def test_two_local_models_are_both_shared_with_child_processes(tmp_path, no_shared_server):
    """``PARLEY_LOCAL_LLM`` names a server per model file, so a tournament of two local models hands
    both to its workers: a child process reuses each instead of starting its own."""
    _need_model()
    import shutil

    from agents.llm.local import ENV, bundled_path, inherited, shared_url

    other = tmp_path / "other.gguf"
    shutil.copyfile(bundled_path(), other)
    with ServerWatch() as watch:
        urls = [shared_url("local"), shared_url(f"local:{other}")]
        assert inherited() == {bundled_path(): urls[0], other.resolve(): urls[1]}
        child = subprocess.run(
            [
                sys.executable,
                "-c",
                f"from agents.llm.local import shared_url; print(shared_url('local'), shared_url('local:{other}'))",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, ENV: os.environ[ENV]},
        )
    assert child.returncode == 0, child.stderr
    assert child.stdout.split() == urls and urls[0] != urls[1]
    assert len(watch.seen) == 2  # the child started none
