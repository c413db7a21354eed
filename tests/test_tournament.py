"""Tournaments: configs with located errors, matches with stable ids, the three backends giving the
same rows, kill-and-resume, the CLI, adventure/council/LLM tournaments."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core.errors import InputError
from game.tournament.config import load_config, parse_config, tournament_schema
from game.tournament.matches import expand, resolve_scenarios
from game.tournament.results import finished_ids
from game.tournament.runner import plan, run
from tests.conftest import ROOT, parley

BAZAAR = ROOT / "worlds" / "bazaar"

RULES = """
name = "small"
kind = "negotiation"
seeds = [0]

[[competitors]]
name = "boulware"
agent = "boulware"

[[competitors]]
name = "linear+om"
agent = "linear"
params = { opponent_model = true }

[[competitors]]
name = "random"
agent = "random"

[[scenarios]]
generate = GEN
seed = 5
"""


def write(tmp: Path, text: str, name: str = "t.toml") -> Path:
    p = tmp / name
    p.write_text(text, encoding="utf-8")
    return p


def rows_digest(folder: Path) -> tuple[int, str]:
    rows = [json.loads(line) for line in (folder / "results.jsonl").read_text().splitlines()]
    for r in rows:
        r.pop("wall_time")
    rows.sort(key=lambda r: r["id"])
    return len(rows), hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


# --- config --------------------------------------------------------------------------------
def test_config_errors_say_where_and_what(tmp_path):
    bad = RULES.replace("GEN", "3").replace('agent = "boulware"', 'agnet = "boulware"')
    with pytest.raises(InputError) as e:
        load_config(write(tmp_path, bad))
    text = e.value.render()
    assert "t.toml" in text and "competitors[0]" in text and "unknown key 'agnet'" in text
    assert "did you mean 'agent'" in text

    bad = RULES.replace("GEN", "3").replace('agent = "linear"', 'agent = "lineer"')
    with pytest.raises(InputError) as e:
        load_config(write(tmp_path, bad))
    assert "unknown negotiator 'lineer'" in e.value.render() and "did you mean 'linear'" in e.value.render()

    bad = RULES.replace("GEN", "3").replace("opponent_model = true", "exponent = -1")
    with pytest.raises(InputError) as e:
        load_config(write(tmp_path, bad))
    assert "competitors[1]" in e.value.render() and "exponent" in e.value.render()

    with pytest.raises(InputError, match=r"t.toml: not valid TOML: .*line 2"):
        load_config(write(tmp_path, 'name = "x"\nkind = = "negotiation"\n'))

    def problem(data):
        with pytest.raises(InputError) as e:
            parse_config(data) if isinstance(data, dict) else load_config(data)
        return e.value.render()

    assert "competitor names repeat: boulware" in problem(
        write(tmp_path, RULES.replace("GEN", "3").replace('name = "random"', 'name = "boulware"'))
    )
    assert "adventure scenarios are worlds" in problem(
        {"kind": "adventure", "competitors": [{"name": "a", "agent": "autopilot"}], "scenarios": [{"generate": 3}]}
    )
    assert "unknown seat 'autopilott'" in problem(
        {"kind": "adventure", "competitors": [{"name": "a", "agent": "autopilott"}], "scenarios": [{"world": "h"}]}
    )


def test_schema_describes_the_config():
    schema = tournament_schema()
    assert schema["title"] == "Parley tournament"
    assert {"kind", "competitors", "scenarios", "seeds", "repetitions", "limits"} <= set(schema["properties"])
    jsonschema = pytest.importorskip("jsonschema")
    example = json.loads(
        json.dumps(load_config(ROOT / "examples/tournaments/negotiation.toml")[0].model_dump(mode="json"))
    )
    jsonschema.validate(example, schema)


_leaf = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**6), st.floats(allow_nan=True), st.text(max_size=12))
_tree = st.recursive(
    _leaf,
    lambda ch: st.one_of(
        st.lists(ch, max_size=4),
        st.dictionaries(
            st.sampled_from(
                [
                    "kind",
                    "name",
                    "agent",
                    "params",
                    "competitors",
                    "scenarios",
                    "generate",
                    "world",
                    "scene",
                    "seeds",
                    "imported",
                    "limits",
                    "x",
                ]
            ),
            ch,
            max_size=5,
        ),
    ),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.one_of(
        _tree,
        st.fixed_dictionaries(
            {
                "kind": st.sampled_from(["negotiation", "adventure", "council"]),
                "competitors": st.lists(
                    st.dictionaries(st.sampled_from(["name", "agent", "params", "memory"]), _leaf, max_size=4),
                    max_size=3,
                ),
                "scenarios": st.lists(
                    st.dictionaries(st.sampled_from(["generate", "seed", "world", "scene"]), _leaf, max_size=3),
                    max_size=2,
                ),
            }
        ),
    )
)
def test_any_config_data_is_accepted_or_an_input_error(data):
    try:
        parse_config(data, "fuzz.toml")
    except InputError:
        pass


# --- matches -------------------------------------------------------------------------------
def test_round_robin_covers_every_role_and_opener_with_stable_ids(tmp_path):
    cfg, base = load_config(write(tmp_path, RULES.replace("GEN", "4")))
    p = plan(cfg, base)
    assert len(p.matches) == 4 * 3 * 2 * 2  # scenes x ordered pairs x openers
    seen = {(m.scenario, tuple(m.seats.values()), m.opener) for m in p.matches}
    assert len(seen) == len(p.matches)
    for m in p.matches:  # every pairing in both roles with both openers
        x, y = m.seats.values()
        for opener in ("a", "b"):
            assert (m.scenario, (y, x), opener) in seen
    # adding a competitor or moving the file keeps the other matches' ids
    more = RULES.replace("GEN", "4") + '\n[[competitors]]\nname = "hard"\nagent = "hardliner"\n'
    (tmp_path / "sub").mkdir()
    cfg2, base2 = load_config(write(tmp_path / "sub", more))
    ids2 = {m.id for m in plan(cfg2, base2).matches}
    assert {m.id for m in p.matches} < ids2
    # changing a competitor's params changes its matches' ids only
    cfg3, _ = load_config(
        write(tmp_path, RULES.replace("GEN", "4").replace("opponent_model = true", "opponent_model = false"))
    )
    ids3 = {m.id for m in plan(cfg3, base).matches}
    kept = {m.id for m in p.matches if "linear+om" not in m.seats.values()}
    assert kept <= ids3 and not ({m.id for m in p.matches} - kept) & ids3


def test_world_scenes_and_errors(tmp_path):
    cfg = parse_config(
        {
            "kind": "negotiation",
            "competitors": [{"name": "b", "agent": "boulware"}, {"name": "c", "agent": "conceder"}],
            "scenarios": [{"world": str(BAZAAR), "scene": "spice_for_silk"}],
        }
    )
    sc = resolve_scenarios(cfg, tmp_path)
    assert list(sc) == ["bazaar-v1:spice_for_silk"]
    assert len(expand(cfg, sc)) == 4
    for scene, msg in (("cloak_deal", "has the player as a party"), ("spice_for_silks", "did you mean")):
        bad = cfg.model_copy(update={"scenarios": [cfg.scenarios[0].model_copy(update={"scene": scene})]})
        with pytest.raises(InputError) as e:
            resolve_scenarios(bad, tmp_path)
        assert msg in e.value.render() and "scenarios[0]" in e.value.render()


# --- running -------------------------------------------------------------------------------
def test_results_rows_are_scored_and_complete(tmp_path):
    cfg, base = load_config(write(tmp_path, RULES.replace("GEN", "3")))
    p = plan(cfg, base)
    summary = run(p, tmp_path / "out")
    assert summary.played == len(p.matches) == 36 and summary.skipped == 0
    rows = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == sorted(m.id for m in p.matches)
    for r in rows:
        assert r["group"] == r["id"] and len(r["seats"]) == 2
        for s in r["seats"]:
            if r["agreement"]:
                assert s["advantage"] == pytest.approx(
                    (s["utility"] - s["reservation"]) / (1 - s["reservation"]), abs=2e-6
                )
            else:
                assert s["advantage"] == 0 and s["utility"] == s["reservation"]
            assert s["points"] == s["advantage"]
        assert r["pareto_distance"] >= 0 and 1 <= r["rounds"] <= 20
        if r["agreement"]:
            assert r["welfare"] == pytest.approx(sum(s["utility"] for s in r["seats"]), abs=2e-6)
    meta = json.loads((tmp_path / "out" / "tournament.json").read_text())
    assert meta["matches"] == 36 and meta["config"]["name"] == "small"
    assert set(json.loads((tmp_path / "out" / "scenarios.json").read_text())) == {"gen5-0", "gen5-1", "gen5-2"}


def test_backends_give_the_same_rows(tmp_path):
    cfg, base = load_config(write(tmp_path, RULES.replace("GEN", "6")))
    digests = set()
    for backend in ("local", "processes"):
        run(plan(cfg, base), tmp_path / backend, backend=backend, workers=2, batch_size=7)
        digests.add(rows_digest(tmp_path / backend))
    assert len(digests) == 1 and next(iter(digests))[0] == 6 * 12


@pytest.mark.slow
def test_ray_backend_gives_the_same_rows(tmp_path):
    pytest.importorskip("ray")
    cfg, base = load_config(write(tmp_path, RULES.replace("GEN", "6")))
    run(plan(cfg, base), tmp_path / "local")
    run(plan(cfg, base), tmp_path / "ray", backend="ray", workers=2, batch_size=9)
    assert rows_digest(tmp_path / "ray") == rows_digest(tmp_path / "local")


def test_torn_last_line_is_played_again_and_a_corrupt_middle_stops(tmp_path):
    cfg, base = load_config(write(tmp_path, RULES.replace("GEN", "2")))
    run(plan(cfg, base), tmp_path / "full")
    out = tmp_path / "cut"
    run(plan(cfg, base), out)
    raw = (out / "results.jsonl").read_bytes()
    (out / "results.jsonl").write_bytes(raw[: len(raw) - 40])  # a write cut short
    with pytest.raises(InputError, match="already holds results"):
        run(plan(cfg, base), out)  # without --resume nothing is touched
    summary = run(plan(cfg, base), out, resume=True)
    assert summary.played == 1 and summary.skipped == 23
    assert any("cut short" in n for n in summary.notes)
    assert rows_digest(out) == rows_digest(tmp_path / "full")
    lines = (out / "results.jsonl").read_bytes().split(b"\n")
    lines[3] = b"{garbage"
    (out / "results.jsonl").write_bytes(b"\n".join(lines))
    with pytest.raises(InputError, match=r"results.jsonl:4: corrupt line"):
        run(plan(cfg, base), out, resume=True)


def test_resume_refuses_another_tournament(tmp_path):
    cfg, base = load_config(write(tmp_path, RULES.replace("GEN", "2")))
    run(plan(cfg, base), tmp_path / "out")
    cfg2, _ = load_config(write(tmp_path, RULES.replace("GEN", "3"), "u.toml"))
    with pytest.raises(InputError, match="holds another tournament"):
        run(plan(cfg2, base), tmp_path / "out", resume=True)


@given(st.binary(max_size=300))
@settings(max_examples=150, deadline=None)
def test_results_reader_never_crashes(tmp_path_factory, blob):
    path = tmp_path_factory.mktemp("r") / "results.jsonl"
    path.write_bytes(blob)
    try:
        rows, _ = finished_ids(path)
    except InputError:
        return
    assert all(isinstance(r["id"], str) for r in rows)
    assert path.read_bytes() == b"" or path.read_bytes().endswith(b"\n")


def test_killed_at_any_instant_and_resumed_gives_the_same_results(tmp_path):
    cfg_path = write(tmp_path, RULES.replace("GEN", "400"))
    started = time.monotonic()
    assert (
        parley("tournament", str(cfg_path), "--out", str(tmp_path / "whole"), "--quiet", "--no-report").returncode == 0
    )
    whole = time.monotonic() - started  # the kills land inside a run however fast this machine plays
    out = tmp_path / "killed"
    env = dict(os.environ, PARLEY_SAVES=str(tmp_path / "saves"))
    cmd = [
        sys.executable,
        "-m",
        "game.cli.main",
        "tournament",
        str(cfg_path),
        "--out",
        str(out),
        "--quiet",
        "--no-report",
    ]
    kills = 0
    for delay in (0.45 * whole, 0.65 * whole, 0.55 * whole):
        proc = subprocess.Popen(
            cmd + (["--resume"] if kills else []),
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(delay)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait()
    assert kills >= 1
    r = parley("tournament", str(cfg_path), "--out", str(out), "--resume", "--quiet", "--no-report")
    assert r.returncode == 0, r.stderr
    ids = [json.loads(line)["id"] for line in (out / "results.jsonl").read_text().splitlines()]
    assert len(ids) == len(set(ids))  # no match played twice
    assert rows_digest(out) == rows_digest(tmp_path / "whole")


# --- the CLI -------------------------------------------------------------------------------
def test_cli_dry_run_errors_and_report(tmp_path):
    cfg_path = write(tmp_path, RULES.replace("GEN", "3"))
    r = parley("tournament", str(cfg_path), "--dry-run", "--out", str(tmp_path / "o"))
    assert r.returncode == 0 and "36 matches" in r.stdout and "estimate" in r.stdout
    assert not (tmp_path / "o").exists()
    r = parley("tournament", str(cfg_path), "--out", str(tmp_path / "o"), "--quiet")
    assert r.returncode == 0, r.stderr
    assert "36 matches played" in r.stdout
    assert (tmp_path / "o" / "report.html").exists() and (tmp_path / "o" / "summary.md").exists()
    r = parley("tournament", str(cfg_path), "--out", str(tmp_path / "o"), "--quiet")
    assert r.returncode == 2 and "--resume" in r.stderr
    r = parley("tournament", str(cfg_path), "--out", str(tmp_path / "o"), "--resume", "--quiet", "--no-report")
    assert r.returncode == 0 and "0 matches played, 36 already finished" in r.stdout
    (tmp_path / "o" / "report.html").unlink()
    r = parley("tournament", "report", str(tmp_path / "o"))
    assert r.returncode == 0 and (tmp_path / "o" / "report.html").exists()
    bad = write(tmp_path, RULES.replace("GEN", "0"), "bad.toml")
    r = parley("tournament", str(bad))
    assert r.returncode == 2 and "bad.toml" in r.stderr and "scenarios[0].generate" in r.stderr
    r = parley("tournament", str(cfg_path), "--workers", "-1")  # 0 is one per CPU core
    assert r.returncode == 2 and "--workers: must be a whole number from 0 to" in r.stderr
    r = parley("tournament", str(tmp_path / "missing.toml"))
    assert r.returncode == 2 and "missing" in r.stderr


def test_example_configs_load():
    for name in ("negotiation", "adventure", "council", "llm"):
        cfg, base = load_config(ROOT / "examples" / "tournaments" / f"{name}.toml")
        assert plan(cfg, base).matches


# --- adventures, councils, LLM competitors -------------------------------------------------
def test_adventure_and_council_tournaments(tmp_path):
    for kind, scen in (
        ("adventure", {"world": str(ROOT / "worlds" / "harbor")}),
        ("council", {"world": str(ROOT / "worlds" / "council"), "scene": "weir_council"}),
    ):
        cfg = parse_config(
            {
                "kind": kind,
                "seeds": [0, 1],
                "turns": 120,
                "competitors": [
                    {"name": "auto", "agent": "autopilot"},
                    {"name": "auto+memo", "agent": "autopilot", "memory": True, "embedder": "hash"},
                ],
                "scenarios": [scen],
            }
        )
        out = tmp_path / kind
        summary = run(plan(cfg, tmp_path), out)
        assert summary.played == 4
        rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
        groups = {r["group"] for r in rows}
        assert len(groups) == 2  # one multiplayer game per seed
        for r in rows:
            (seat,) = r["seats"]
            assert seat["role"] == "player" and isinstance(seat["won"], bool)
            assert seat["points"] >= float(seat["won"])
        if kind == "adventure":
            assert any(r["seats"][0]["won"] for r in rows)


def test_llm_competitor_and_token_limit(tmp_path, serve):
    def reply(body):
        text = json.dumps(body)
        if "Standing offer" in text:
            return json.dumps({"action": "accept", "offer": None, "message": "Agreed."})
        return json.dumps({"action": "offer", "offer": {}, "message": "Hm."})  # not an offer: repaired, then fallback

    s = serve(responder=reply)
    data = {
        "kind": "negotiation",
        "limits": {"llm_tokens": 1},
        "competitors": [
            {
                "name": "bot",
                "agent": "llm",
                "llm": {"endpoint": s.base_url, "model": "m", "max_retries": 0, "usd_per_1k_tokens": 0.5},
            },
            {"name": "boulware", "agent": "boulware"},
        ],
        "scenarios": [{"generate": 3, "seed": 1}],
    }
    os.environ.pop("OPENAI_API_KEY", None)
    cfg = parse_config(data)
    p = plan(cfg, tmp_path)
    summary = run(p, tmp_path / "o")
    assert summary.stopped and "token limit" in summary.stopped
    assert 1 <= summary.played < len(p.matches)
    rows = [json.loads(line) for line in (tmp_path / "o" / "results.jsonl").read_text().splitlines()]
    assert rows[0]["llm_calls"] >= 1 and rows[0]["llm_tokens"] > 0
    assert rows[0]["cost"] == pytest.approx(rows[0]["llm_tokens"] / 1000 * 0.5, abs=1e-6)
    lifted = cfg.model_copy(update={"limits": cfg.limits.model_copy(update={"llm_tokens": None})})
    summary = run(plan(lifted, tmp_path), tmp_path / "o", resume=True)
    assert summary.skipped + summary.played == len(p.matches) and not summary.stopped


# --- what --resume must never mix ---------------------------------------------------------
def test_resume_never_mixes_names_settings_or_worlds(tmp_path):
    cfg, base = load_config(write(tmp_path, RULES.replace("GEN", "2")))
    run(plan(cfg, base), tmp_path / "out")
    swapped = (
        RULES.replace("GEN", "2")
        .replace('name = "boulware"', 'name = "tmp"')
        .replace('name = "random"', 'name = "boulware"')
        .replace('name = "tmp"', 'name = "random"')
    )
    cfg2, _ = load_config(write(tmp_path, swapped, "swapped.toml"))
    with pytest.raises(InputError, match="holds another tournament"):
        run(plan(cfg2, base), tmp_path / "out", resume=True)
    # a changed default is a changed match, even when the config text is the same
    ids = {m.id for m in plan(cfg, base).matches}
    import agents.negotiators as negotiators

    old = negotiators.NaiveTitForTat.__init__.__kwdefaults__["first_concession"]
    tft = parse_config(
        {
            "kind": "negotiation",
            "competitors": [{"name": "t", "agent": "tit_for_tat"}, {"name": "b", "agent": "boulware"}],
            "scenarios": [{"generate": 1}],
        }
    )
    before = {m.id for m in plan(tft, base).matches}
    negotiators.NaiveTitForTat.__init__.__kwdefaults__["first_concession"] = old + 0.05
    try:
        assert not before & {m.id for m in plan(tft, base).matches}
    finally:
        negotiators.NaiveTitForTat.__init__.__kwdefaults__["first_concession"] = old
    assert ids == {m.id for m in plan(cfg, base).matches}
    # an edited world is another scenario
    import shutil

    world = tmp_path / "harbor"
    shutil.copytree(ROOT / "worlds" / "harbor", world)
    adv = parse_config(
        {"kind": "adventure", "competitors": [{"name": "a", "agent": "autopilot"}], "scenarios": [{"world": "harbor"}]}
    )
    first = {m.id for m in plan(adv, tmp_path).matches}
    text = (world / "world.toml").read_text()
    (world / "world.toml").write_text(text.replace("max_turns = ", "max_turns = 1", 1))
    assert first.isdisjoint({m.id for m in plan(adv, tmp_path).matches})


def test_scenario_ids_must_not_collide_and_foreign_rows_are_refused(tmp_path):
    data = {
        "kind": "negotiation",
        "competitors": [{"name": "b", "agent": "boulware"}, {"name": "c", "agent": "conceder"}],
        "scenarios": [{"generate": 2, "seed": 0}, {"generate": 3, "seed": 0, "deadline": 4}],
    }
    with pytest.raises(InputError) as e:
        plan(parse_config(data), tmp_path)
    assert "scenarios[1]: scenario 'gen0-0' is also in scenarios[0]" in e.value.render()
    cfg, base = load_config(write(tmp_path, RULES.replace("GEN", "2")))
    run(plan(cfg, base), tmp_path / "out")
    results = tmp_path / "out" / "results.jsonl"
    lines = results.read_text().splitlines()
    results.write_text("\n".join(lines + [lines[0]]) + "\n")
    with pytest.raises(InputError, match="appears twice"):
        run(plan(cfg, base), tmp_path / "out", resume=True)
    foreign = json.loads(lines[0]) | {"id": "0123456789abcdef"}
    results.write_text("\n".join(lines[1:] + [json.dumps(foreign)]) + "\n")
    with pytest.raises(InputError, match="not a match of this tournament"):
        run(plan(cfg, base), tmp_path / "out", resume=True)
    (tmp_path / "file").write_text("x")
    with pytest.raises(InputError, match="not a folder"):
        run(plan(cfg, base), tmp_path / "file")


def _descendants(pid: int) -> set[int]:
    parents: dict[int, int] = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            parents[int(d.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parents.items() if pp == p]
        out.update(kids)
        todo += kids
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_pool_workers_exit_when_the_run_is_killed(tmp_path):
    cfg_path = write(tmp_path, RULES.replace("GEN", "200"))
    out = tmp_path / "o"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "game.cli.main",
            "tournament",
            str(cfg_path),
            "--out",
            str(out),
            "--quiet",
            "--no-report",
            "--workers",
            "2",
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    kids: set[int] = set()
    for _ in range(100):  # until the pool is up and has written something
        time.sleep(0.1)
        kids = _descendants(proc.pid)
        if len(kids) >= 3 and (out / "results.jsonl").exists() and (out / "results.jsonl").stat().st_size:
            break
    assert proc.poll() is None and len(kids) >= 3
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.time() + 15
    alive = kids
    while alive and time.time() < deadline:
        time.sleep(0.2)
        alive = {
            k
            for k in alive
            if Path(f"/proc/{k}").exists() and (Path(f"/proc/{k}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z")
        }
    assert not alive, f"orphaned processes left: {sorted(alive)}"
