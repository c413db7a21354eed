"""A tournament counts its matches from the config before it does any work, refuses more than
``--max-matches``, and makes its matches one at a time (planning, dry-run, running, resuming), so
a huge config is answered at once and in little memory; ``--workers`` and ``--max-matches`` are
whole numbers within bounds, with one message naming the flag."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.core.errors import InputError
from game.tournament.config import load_config, parse_config
from game.tournament.runner import plan, run
from tests.conftest import ROOT, parley

HUGE = ROOT / "tests" / "fixtures" / "tournament_huge.toml"
FACTORS = "12 pairings × 2 openers × 1,000 scenarios × 10,000 repetitions = 240,000,000 matches"


def capped(*args: str, cap_mb: int = 1024, timeout: float = 120) -> tuple[subprocess.CompletedProcess, float]:
    """The real CLI in a subprocess whose address space is capped (RLIMIT_AS), and its wall time."""
    import resource

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap_mb << 20, cap_mb << 20))

    t = time.perf_counter()
    r = subprocess.run(
        [sys.executable, "-m", "game.cli.main", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        preexec_fn=limit,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    return r, time.perf_counter() - t


def errors(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("parley")]


# --- the count, before any work -----------------------------------------------------------
@pytest.mark.timeout(120)
@pytest.mark.parametrize("dry", [True, False])
def test_a_huge_tournament_is_refused_at_once_naming_its_factors(dry, tmp_path):
    out = tmp_path / "o"
    r, secs = capped("tournament", str(HUGE), "--out", str(out), *(["--dry-run"] if dry else []))
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr and "MemoryError" not in r.stderr
    (line,) = errors(r.stderr)
    assert FACTORS in line and "more than the limit 100,000" in line
    assert "--max-matches N" in r.stderr
    assert not out.exists()
    assert secs < 30  # the CLI's start-up included; the count itself is arithmetic


@pytest.mark.timeout(120)
def test_a_raised_limit_dry_runs_a_huge_tournament_quickly_in_little_memory():
    r, secs = capped("tournament", str(HUGE), "--dry-run", "--max-matches", "1000000000", cap_mb=1024)
    assert r.returncode == 0, r.stderr
    assert "huge: 240,000,000 matches" in r.stdout and "estimate" in r.stdout
    assert secs < 30
    # in this process: planning makes the scenarios, never the matches
    import tracemalloc

    cfg, base = load_config(HUGE)
    tracemalloc.start()
    t = time.perf_counter()
    p = plan(cfg, base, 10**9)
    took = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(p.matches) == 240_000_000 and p.remaining == 240_000_000
    assert took < 5 and peak < 100 << 20, (took, peak)
    first = list(itertools.islice(p.matches, 50))  # made on demand, in their fixed order
    assert len({m.id for m in first}) == 50 and first[0].scenario == "gen1-0"


def _negotiation(comps: int, self_play: bool, openers: str, seeds: int, reps: int, gen: int) -> dict:
    agents = ["boulware", "linear", "conceder", "hardliner"]
    return {
        "name": "count",
        "kind": "negotiation",
        "competitors": [{"name": a, "agent": a} for a in agents[:comps]],
        "scenarios": [{"generate": gen, "seed": 2}, {"generate": 1, "seed": 9}],
        "seeds": list(range(seeds)),
        "repetitions": reps,
        "openers": openers,
        "self_play": self_play,
    }


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    comps=st.integers(1, 4),
    self_play=st.booleans(),
    openers=st.sampled_from(["both", "scene"]),
    seeds=st.integers(1, 3),
    reps=st.integers(1, 3),
    gen=st.integers(1, 3),
)
def test_the_count_from_the_config_is_the_number_of_matches_made(comps, self_play, openers, seeds, reps, gen):
    if comps == 1 and not self_play:
        self_play = True
    cfg = parse_config(_negotiation(comps, self_play, openers, seeds, reps, gen))
    p = plan(cfg, ROOT)
    made = [m.id for m in p.matches]
    assert len(p.matches) == len(made) == len(set(made))
    with pytest.raises(InputError, match=f"= {len(made):,} matches, more than the limit {len(made) - 1:,}"):
        plan(cfg, ROOT, len(made) - 1)
    assert len(plan(cfg, ROOT, len(made)).matches) == len(made)


@pytest.mark.parametrize("name", ["adventure", "council", "debate_masking", "negotiation"])
def test_every_kind_counts_its_example_exactly(name):
    cfg, base = load_config(ROOT / "examples" / "tournaments" / f"{name}.toml")
    p = plan(cfg, base)
    n = sum(1 for _ in p.matches)
    assert len(p.matches) == n > 0
    with pytest.raises(InputError, match=f"= {n:,} matches, more than the limit {n - 1:,}"):
        plan(cfg, base, n - 1)


def test_the_default_limit_counts_before_any_scenario_is_made(tmp_path):
    """Over the limit, not one scenario is generated and no world is read: a world that does not
    exist is never reached."""
    data = _negotiation(4, False, "both", 1, 10_000, 5)
    data["scenarios"].append({"world": str(tmp_path / "nowhere"), "scene": "x"})
    cfg = parse_config(data)
    with pytest.raises(InputError, match=r"12 pairings × 2 openers × 7 scenarios × 10,000 repetitions = 1,680,000"):
        plan(cfg, tmp_path)
    from game.tournament import DEFAULT_MAX_MATCHES

    assert DEFAULT_MAX_MATCHES == 100_000


# --- flags --------------------------------------------------------------------------------
@pytest.mark.timeout(300)
def test_count_flags_are_whole_numbers_within_bounds_with_one_message():
    cfg = str(ROOT / "examples" / "tournaments" / "debate_masking.toml")
    bad = [
        ("--workers", "100000000000000000000"),
        ("--workers", "-3"),
        ("--workers", "two"),
        ("--max-matches", "0"),
        ("--max-matches", "-5"),
        ("--max-matches", "100000000000000000000"),
        ("--max-matches", "1e6"),
    ]
    for flag, value in bad:
        r = parley("tournament", cfg, flag, value, "--backend", "processes", "--dry-run")
        assert r.returncode == 2, (flag, value, r.stderr)
        assert "Traceback" not in r.stderr and "OverflowError" not in r.stderr
        low = 0 if flag == "--workers" else 1
        assert f"argument {flag}: must be a whole number from {low} to " in r.stderr, r.stderr
    r = parley("tournament", cfg, "--workers", "0", "--dry-run")  # 0: one per CPU core
    assert r.returncode == 0, r.stderr
    assert f"on {os.cpu_count() or 1} worker(s)" in r.stdout
    from game.tournament import max_workers

    most = max_workers()
    r = parley("tournament", cfg, "--workers", str(most + 1), "--dry-run")
    assert r.returncode == 2 and f"from 0 to {most} (0: one per CPU core), got '{most + 1}'" in r.stderr
    help_text = " ".join(parley("tournament", "--help").stdout.split())
    assert f"1 to {most}" in help_text and "0: one per CPU core" in help_text and "--max-matches" in help_text


# --- resuming -----------------------------------------------------------------------------
def test_a_folder_written_with_the_older_fingerprint_resumes(tmp_path):
    from game.tournament.model import digest

    cfg = parse_config(_negotiation(2, False, "both", 1, 1, 2))
    out = tmp_path / "o"
    run(plan(cfg, ROOT), out)
    meta = json.loads((out / "tournament.json").read_text())
    meta["fingerprint"] = digest(sorted(m.id for m in plan(cfg, ROOT).matches))  # as older runs wrote it
    (out / "tournament.json").write_text(json.dumps(meta))
    summary = run(plan(cfg, ROOT), out, resume=True)
    assert summary.played == 0 and summary.skipped == summary.total == 12
    other = parse_config(_negotiation(3, False, "both", 1, 1, 2))
    with pytest.raises(InputError, match="holds another tournament"):
        run(plan(other, ROOT), out, resume=True)


def test_run_bounds_its_workers_too(tmp_path):
    cfg = parse_config(_negotiation(2, False, "scene", 1, 1, 1))
    for workers in (0, -3, 10**20):
        with pytest.raises(InputError, match="workers: must be a whole number from 1 to"):
            run(plan(cfg, ROOT), tmp_path / "o", backend="processes", workers=workers)
    from game.tournament import max_workers

    with pytest.raises(InputError, match=f"from 1 to {max_workers()}, got {max_workers() + 1}"):
        run(plan(cfg, ROOT), tmp_path / "o", backend="processes", workers=max_workers() + 1)
    assert not (tmp_path / "o").exists()
