"""game.testing, as a user's tests would use it: world checks, walkthroughs, golden files, engines."""

from __future__ import annotations

import pytest

from game.testing import (
    ScriptedServer,
    assert_golden,
    assert_script_wins,
    assert_world_valid,
    check_world,
    play_script,
    standard_engine,
)
from tests.conftest import ROOT, SCRIPTS, WORLDS, write_world

MINI = ROOT / "tests" / "fixtures" / "mini"


def test_a_valid_world_passes_and_a_broken_one_names_its_problems(tmp_path):
    assert_world_valid(WORLDS / "harbor")
    assert check_world(MINI) == []
    broken = write_world(tmp_path / "w", (MINI / "world.toml").read_text().replace('start = "', 'start = "nowhere_', 1))
    problems = check_world(broken)
    assert problems
    with pytest.raises(AssertionError, match="does not validate"):
        assert_world_valid(broken)


def test_a_walkthrough_wins_and_a_short_one_does_not(tmp_path):
    assert_script_wins(WORLDS / "harbor", SCRIPTS / "harbor_win.txt", seeds=[0, 1])
    short = tmp_path / "short.txt"
    short.write_text("# only looks around\nlook\n")
    with pytest.raises(AssertionError, match="did not win"):
        assert_script_wins(WORLDS / "harbor", short, seeds=[0])


def test_golden_files_pin_a_transcript_and_name_the_first_difference(tmp_path, monkeypatch):
    text = play_script(MINI, ROOT / "tests" / "fixtures" / "mini_win.txt", seed=0).transcript.text()
    golden = tmp_path / "mini.jsonl"
    with pytest.raises(AssertionError, match="PARLEY_UPDATE_GOLDEN=1"):
        assert_golden(text, golden)
    monkeypatch.setenv("PARLEY_UPDATE_GOLDEN", "1")
    assert_golden(text, golden)
    monkeypatch.delenv("PARLEY_UPDATE_GOLDEN")
    assert_golden(text, golden)
    lines = text.splitlines()
    changed = "\n".join([*lines[:2], lines[2] + " ", *lines[3:]]) + "\n"
    with pytest.raises(AssertionError, match=r"mini.jsonl:3 differs"):
        assert_golden(changed, golden)
    with pytest.raises(AssertionError, match="a final newline counts"):
        assert_golden(text.rstrip("\n"), golden)
    monkeypatch.setenv("PARLEY_UPDATE_GOLDEN", "0")  # not an update
    with pytest.raises(AssertionError, match="differs"):
        assert_golden(changed, golden)


def test_the_checks_hold_without_assert_statements(tmp_path):
    code = (
        "from game.testing import assert_world_valid\n"
        "try:\n    assert_world_valid('worlds/broken/refs')\nexcept AssertionError:\n    print('failed as it should')\n"
    )
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-O", "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "failed as it should", out.stderr[-2000:]


def test_standard_engine_speaks_through_the_standard_voices():
    from game.play.worlds import load_world

    eng = standard_engine(load_world(MINI), seed=3)
    npc = next(iter(eng.spec.npcs))
    assert eng.voice(npc) is eng.voice(npc)  # built once, from the injected factory


def test_the_scripted_server_is_importable_from_game_testing():
    server = ScriptedServer(["hello"])
    try:
        assert server.base_url.startswith("http://127.0.0.1:")
    finally:
        server.close()
