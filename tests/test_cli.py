"""The `parley` CLI in a subprocess: exit codes 0 / 1 / 2, every error with where and what."""

from __future__ import annotations

import json

from tests.conftest import ROOT, parley

MINI = "tests/fixtures/mini"
SCRIPT = "tests/fixtures/mini_win.txt"


def test_help_and_version():
    r = parley("--help")
    assert r.returncode == 0 and "validate" in r.stdout and "replay" in r.stdout
    r = parley("--version")
    assert r.returncode == 0 and r.stdout.startswith("parley ")
    assert parley().returncode == 2  # no command: usage


def test_bad_flag_is_usage_error():
    r = parley("run", "--no-memory", MINI, "--script", SCRIPT, "--seed", "abc")
    assert r.returncode == 2 and "invalid int value" in r.stderr


def test_validate_ok_and_broken():
    r = parley("validate", MINI)
    assert r.returncode == 0 and r.stdout.startswith("ok")
    r = parley("validate", "worlds/broken")
    assert r.returncode == 2
    out = r.stdout
    assert out.count("FAIL") == 4
    assert "worlds/broken/syntax/world.toml:6:" in out
    assert "did you mean 'cellar'?" in out
    assert "descripton" in out and "did you mean 'description'?" in out
    assert "npcs/porter.toml:2:" in out


def test_validate_missing_folder():
    r = parley("validate", "worlds/nope")
    assert r.returncode == 2 and "no such world folder" in r.stdout


def test_run_script_wins_and_is_deterministic(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    r1 = parley("run", "--no-memory", MINI, "--script", SCRIPT, "--out", str(a), "--quiet")
    r2 = parley("run", "--no-memory", MINI, "--script", SCRIPT, "--out", str(b), "--quiet")
    assert r1.returncode == 0 == r2.returncode and "WON" in r1.stdout
    assert a.read_bytes() == b.read_bytes()
    first = json.loads(a.read_text().splitlines()[0])
    assert first == {"type": "start", "world": "mini-v1", "hash": first["hash"], "seed": 0}


def test_run_script_bad_line_points_at_it(tmp_path):
    script = tmp_path / "s.txt"
    script.write_text("look\n\nfrobnicate the lamp\n")
    r = parley("run", "--no-memory", MINI, "--script", str(script))
    assert r.returncode == 2 and "s.txt:3" in r.stderr and "frobnicate" in r.stderr
    assert "Traceback" not in r.stderr


def test_run_missing_world_and_script(tmp_path):
    r = parley("run", "--no-memory", "worlds/harbr", "--script", SCRIPT)
    assert r.returncode == 2 and "did you mean 'harbor'?" in r.stderr
    r = parley("run", "--no-memory", MINI, "--script", str(tmp_path / "none.txt"))
    assert r.returncode == 2 and "cannot read script" in r.stderr


def test_schema_check(tmp_path):
    assert parley("schema", "--check", "worlds/schema/world.schema.json").returncode == 0
    stale = tmp_path / "s.json"
    stale.write_text("{}")
    r = parley("schema", "--check", str(stale))
    assert r.returncode == 2 and "stale" in r.stderr


def test_new_world_scaffold_validates(tmp_path):
    r = parley("new-world", "my-keep", "--dir", str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert parley("validate", str(tmp_path / "my-keep")).returncode == 0
    r = parley("new-world", "my-keep", "--dir", str(tmp_path))
    assert r.returncode == 2 and "already exists" in r.stderr
    r = parley("new-world", "Bad Name!", "--dir", str(tmp_path))
    assert r.returncode == 2


def test_play_line_mode_save_replay_and_saves_commands(tmp_path):
    saves = tmp_path / "saves"
    r = parley("play", "--no-memory", MINI, "--saves-dir", str(saves), input="look\ntake iron key\nsave first\nquit\n")
    assert r.returncode == 0, r.stderr
    assert "Taken: the iron key." in r.stdout and "Saved to" in r.stdout
    r = parley("saves", "--saves-dir", str(saves), "list")
    assert r.returncode == 0 and "first" in r.stdout and "mini-v1" in r.stdout
    r = parley("saves", "--saves-dir", str(saves), "show", "first")
    assert r.returncode == 0 and "turn     2" in r.stdout
    r = parley("replay", "first", "--saves-dir", str(saves))
    assert r.returncode == 0 and "replay ok" in r.stdout
    r = parley("play", "--no-memory", "--load", "first", "--saves-dir", str(saves), input="inventory\n")
    assert r.returncode == 0 and "iron key" in r.stdout
    (saves / "first" / "save.json").write_text('{"format_version": 1')
    r = parley("play", "--no-memory", "--load", "first", "--saves-dir", str(saves))
    assert r.returncode == 2 and "corrupt save" in r.stderr and "Traceback" not in r.stderr
    assert (saves / "first" / "save.json").read_text() == '{"format_version": 1'
    r = parley("saves", "--saves-dir", str(saves), "rm", "first")
    assert r.returncode == 0 and not (saves / "first").exists()
    r = parley("saves", "--saves-dir", str(saves), "rm", "first")
    assert r.returncode == 2


def test_play_handles_nonsense_and_eof_then_autosaves(tmp_path):
    r = parley(
        "play", "--no-memory", MINI, input="\nxyzzy\ntkae key\nhelp\nwait\n", env={"PARLEY_SAVES": str(tmp_path)}
    )
    assert r.returncode == 0 and "Traceback" not in r.stderr
    assert "Did you mean 'take'?" in r.stdout
    assert "parley play --load autosave-mini-v1" in r.stdout
    r = parley(
        "play", "--no-memory", "--load", "autosave-mini-v1", input="inventory\n", env={"PARLEY_SAVES": str(tmp_path)}
    )
    assert r.returncode == 0 and "copper coin" in r.stdout


def test_refuses_foreign_agents_package(tmp_path):
    fake = tmp_path / "agents"
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.path.insert(0, sys.argv[1]); "
            "from game.cli.main import main; sys.exit(main(['validate', 'tests/fixtures/mini']))",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=env,
    )
    assert r.returncode == 2 and "resolves to" in r.stderr and "openai-agents" in r.stderr


def test_run_standalone_scene(tmp_path):
    out = tmp_path / "r.json"
    r = parley("run", "--no-memory", "worlds/bazaar", "--scene", "camel_hire", "--out", str(out))
    assert r.returncode == 0, r.stderr
    assert "camel_hire: agreement" in r.stdout and "Nash point" in r.stdout
    data = json.loads(out.read_text())
    assert data["status"] == "agreement" and data["metrics"]["agreement"] is True
    assert data["history"][-1]["kind"] == "accept"
    r = parley("run", "--no-memory", "worlds/bazaar", "--scene", "camel_hir")
    assert r.returncode == 2 and "did you mean 'camel_hire'?" in r.stderr


def test_run_bad_inputs_exit_2_without_traceback(tmp_path):
    r = parley("run", "--no-memory", MINI, "--script", SCRIPT, "--seed", "-1")
    assert r.returncode == 2 and "must be 0 or more" in r.stderr
    copy = tmp_path / "s.txt"
    copy.write_text((ROOT / SCRIPT).read_text())
    before = copy.read_text()
    r = parley("run", "--no-memory", MINI, "--script", str(copy), "--out", str(copy))
    assert r.returncode == 2 and "overwrite the script" in r.stderr and copy.read_text() == before
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"look\n\xff\xfe\n")
    r = parley("run", "--no-memory", MINI, "--script", str(bad))
    assert r.returncode == 2 and "bad.txt:2: not UTF-8" in r.stderr
    r = parley("run", "--no-memory", MINI, "--script", SCRIPT, "--out", str(tmp_path))
    assert r.returncode == 2 and "is a folder" in r.stderr
    for res in (r,):
        assert "Traceback" not in res.stderr


def test_failed_run_leaves_existing_out_file(tmp_path):
    out = tmp_path / "keep.jsonl"
    out.write_text("precious\n")
    script = tmp_path / "s.txt"
    script.write_text("look\nfrobnicate\n")
    r = parley("run", "--no-memory", MINI, "--script", str(script), "--out", str(out))
    assert r.returncode == 2 and out.read_text() == "precious\n"


def test_load_with_world_moved(tmp_path):
    import shutil

    world = tmp_path / "w" / "mini"
    shutil.copytree(ROOT / MINI, world)
    saves = tmp_path / "saves"
    r = parley("play", "--no-memory", str(world), "--saves-dir", str(saves), input="take iron key\nsave s\nquit\n")
    assert r.returncode == 0
    moved = tmp_path / "elsewhere"
    shutil.move(str(world), str(moved))
    r = parley("play", "--no-memory", "--load", "s", "--saves-dir", str(saves))
    assert r.returncode == 2 and "cannot find world 'mini-v1'" in r.stderr and "parley play WORLD --load" in r.stderr
    r = parley("play", "--no-memory", str(moved), "--load", "s", "--saves-dir", str(saves), input="inventory\n")
    assert r.returncode == 0 and "iron key" in r.stdout


def test_memory_flag_errors(tmp_path):
    r = parley("run", MINI, "--script", SCRIPT, "--budget", "5")
    assert r.returncode == 2 and "at least 16" in r.stderr
    saves = tmp_path / "s"
    r = parley("play", "--no-memory", MINI, "--saves-dir", str(saves), input="wait\nsave a\nquit\n")
    assert r.returncode == 0
    r = parley("play", "--load", "a", "--embedder", "hash", "--saves-dir", str(saves))
    assert r.returncode == 2 and "memory off" in r.stderr and "Traceback" not in r.stderr
