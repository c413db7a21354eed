"""The wheel as a user gets it: ``pip install parley-engine`` is the light core.

One fresh virtualenv (no system site-packages) per module gets the wheel built from this tree with
its core dependencies (numpy, pydantic, filelock, pysbd, text2num, roman) and the ``pettingzoo`` extra (pettingzoo, gymnasium), and
nothing else. From a folder with no ``worlds/`` in it, that install loads the shipped worlds by
id, wins harbor with the walkthrough script (CLI and game API), runs the PettingZoo AEC env (and
the Gymnasium env when the tree has one), and every feature whose extra is missing says which
extra to install. pip fetches what it needs from the package index (the pip cache makes it quick);
the versions are pinned to the ones in the running environment.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest

from tests.conftest import ROOT, SCRIPTS

pytestmark = pytest.mark.slow

HEAVY = (
    "torch",
    "chromadb",
    "textual",
    "openai",
    "pygame",
    "sentence_transformers",
    "ray",
    "scipy",
    "matplotlib",
    "openskill",
    "textarena",
    "transformers",
    "rich",
)
# the core's dependencies and the pettingzoo extra's, pinned to what this environment runs
PINNED = (
    "numpy",
    "pydantic",
    "filelock",
    "pysbd",
    "text2num",
    "roman",
    "pydantic-core",
    "annotated-types",
    "typing-extensions",
    "typing-inspection",
    "pettingzoo",
    "gymnasium",
    "cloudpickle",
    "farama-notifications",
)
SOURCES = ("pyproject.toml", "README.md", "game", "agents", "memory", "worlds")
WIN = SCRIPTS / "harbor_win.txt"


class Venv:
    def __init__(self, root: Path, work: Path, wheel: Path):
        self.root, self.work, self.wheel = root, work, wheel
        self.python = root / "bin" / "python"
        self.parley = root / "bin" / "parley"
        self.env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
        self.env.update(PARLEY_SAVES=str(work / "saves"), PYTHONDONTWRITEBYTECODE="1")

    def run(self, *args: str | Path, timeout: float = 120, **kw) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(a) for a in args], cwd=self.work, env=self.env, capture_output=True, text=True, timeout=timeout, **kw
        )

    def py(self, code: str) -> str:
        r = self.run(self.python, "-c", textwrap.dedent(code))
        assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
        return r.stdout


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Venv:
    """The fresh install, made once per test session: under pytest-xdist the workers share one
    (the first builds it under a lock in the session's common temporary folder, the rest reuse it)."""
    import fcntl

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # this session's folder, above every worker's own
    base = shared / "parley-packaging"
    with open(shared / "parley-packaging.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (base / "ready").exists():
            shutil.rmtree(base, ignore_errors=True)
            base.mkdir()
            _install(base)
            (base / "ready").write_text("ok\n")
    (wheel,) = (base / "dist").glob("parley_engine-*.whl")
    return Venv(base / "venv", base / "work", wheel)


def _install(base: Path) -> None:
    src = base / "src"
    src.mkdir()
    for name in SOURCES:  # a copy: building never writes build/ or *.egg-info into the tree
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(path, src / name)
    dist = base / "dist"
    r = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(dist), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    (wheel,) = dist.glob("parley_engine-*.whl")
    root = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(root)], check=True, timeout=300)
    pins = []
    for dist_name in PINNED:
        try:
            pins.append(f"{dist_name}=={metadata.version(dist_name)}")
        except metadata.PackageNotFoundError:
            pass
    constraints = base / "constraints.txt"
    constraints.write_text("\n".join(pins) + "\n")
    work = base / "work"  # where the commands run: no worlds/, no game/ beside them
    work.mkdir()
    v = Venv(root, work, wheel)
    r = v.run(v.python, "-m", "pip", "install", "-q", "-c", constraints, f"{wheel}[pettingzoo]", timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]


def test_the_core_install_holds_numpy_and_pydantic_and_nothing_heavy(venv):
    out = json.loads(
        venv.py(f"""
        import importlib.util, importlib.metadata as md, json, game
        print(json.dumps({{"game": game.__file__,
                          "present": [m for m in {HEAVY!r} if importlib.util.find_spec(m) is not None],
                          "light": [m for m in ("numpy", "pydantic") if importlib.util.find_spec(m) is None],
                          "requires": md.requires("parley-engine")}}))
    """)
    )
    assert Path(out["game"]).is_relative_to(venv.root), out["game"]  # the wheel's copy, not the tree's
    assert out["present"] == [], f"a core install pulled in {out['present']}"
    assert out["light"] == []
    core = sorted(r.split(">")[0].split("=")[0].strip() for r in out["requires"] if "extra ==" not in r)
    assert core == ["filelock", "numpy", "pydantic", "pysbd", "roman", "text2num"]
    extras = {r.split("extra ==")[1].strip().strip("'\"") for r in out["requires"] if "extra ==" in r}
    assert {
        "memory",
        "tui",
        "map",
        "llm",
        "scale",
        "tournament",
        "gym",
        "pettingzoo",
        "textarena",
        "all",
        "dev",
    } <= extras
    torch = [r for r in out["requires"] if r.startswith("torch")]
    assert torch and all("==2.13.0" in r for r in torch), torch  # pinned: anything else pulls CUDA


def test_shipped_worlds_load_by_id_and_by_repository_path(venv):
    out = json.loads(
        venv.py("""
        import json
        from pathlib import Path
        from game.core.errors import InputError
        from game.play.worlds import load_world
        from game.world.shipped import shipped_worlds
        assert not Path("worlds").exists()
        ids = list(shipped_worlds())
        loaded = {i: load_world(i).id for i in ids}
        by_path = load_world("worlds/harbor")
        by_name = load_world("council")
        try:
            load_world("harbr-v1")
            hint = None
        except InputError as e:
            hint = e.hint
        print(json.dumps({"ids": ids, "loaded": loaded, "by_path": [by_path.id, str(by_path.folder)],
                          "by_name": by_name.id, "hint": hint}))
    """)
    )
    assert {"harbor-v1", "council-v1", "bazaar-v1"} <= set(out["ids"])
    assert all(out["loaded"][i] == i for i in out["ids"])
    assert out["by_path"][0] == "harbor-v1" and Path(out["by_path"][1]).is_relative_to(venv.root)
    assert out["by_name"] == "council-v1"
    assert "did you mean 'harbor-v1'?" in out["hint"] and "bazaar-v1, council-v1, harbor-v1" in out["hint"]
    wheel_files = venv.run(venv.python, "-m", "zipfile", "-l", venv.wheel).stdout
    assert "worlds/harbor/npcs/ilse.toml" in wheel_files and "worlds/schema/world.schema.json" in wheel_files
    assert "worlds/broken" not in wheel_files  # the tests' broken worlds are not shipped
    assert "game/tui/parley.tcss" in wheel_files


def test_the_walkthrough_wins_harbor_from_the_cli_and_the_game_api(venv):
    r = venv.run(venv.parley, "run", "harbor-v1", "--script", WIN)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "WON" in r.stdout.splitlines()[-1]
    # memory is on by default at the CLI; without the 'memory' extra it is turned off, with a note
    assert "agent memory is off" in r.stderr and "pip install 'parley-engine[memory]'" in r.stderr
    r = venv.run(venv.parley, "run", "worlds/harbor", "--script", WIN, "--no-memory", "--quiet")
    assert r.returncode == 0 and "WON" in r.stdout and r.stderr == "", r.stderr
    out = venv.py(f"""
        from game.play.config import EpisodeConfig, GameConfig
        from game.play.episode import play_episode
        result = play_episode(EpisodeConfig(game=GameConfig(world="harbor-v1", player="script:{WIN}")))
        print(result.won, result.world)
    """)
    assert out.split() == ["True", "harbor-v1"]


def test_the_pettingzoo_env_runs_in_the_core_install(venv):
    out = venv.py("""
        import numpy as np
        from game.envs.pettingzoo_env import env
        e = env()  # the default world, "worlds/harbor", from a folder that has none
        e.reset(seed=1)
        rng = np.random.default_rng(0)
        steps = 0
        for agent in e.agent_iter(max_iter=300):
            obs, reward, term, trunc, info = e.last()
            mask = obs["action_mask"] if isinstance(obs, dict) else info["action_mask"]
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(mask))))
            steps += 1
        print(steps, len(e.possible_agents))
    """)
    steps, agents = map(int, out.split())
    assert steps > 10 and agents > 1


def test_the_gymnasium_env_runs_in_the_core_install(venv):
    out = venv.py("""
        import gymnasium
        import numpy as np
        import game.envs.gym_env
        ids = [i for i in gymnasium.registry if i.lower().startswith("parley/harbor")]
        e = gymnasium.make(ids[0]) if ids else game.envs.gym_env.ParleyGymEnv()
        obs, info = e.reset(seed=0)
        total = 0
        for _ in range(20):
            mask = np.asarray(info["action_mask"])
            obs, reward, terminated, truncated, info = e.step(int(np.flatnonzero(mask)[0]))
            total += 1
            if terminated or truncated:
                break
        print(total)
    """)
    assert int(out) >= 1


def _on_a_terminal(venv: Venv, *args: str) -> tuple[int, str]:
    """Run ``parley ARGS`` with a pseudo-terminal as stdin and stdout (so ``play`` picks the app)."""
    import pty

    master, slave = pty.openpty()
    try:
        r = subprocess.run(
            [str(venv.parley), *args],
            cwd=venv.work,
            env=venv.env,
            stdin=slave,
            stdout=slave,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
        )
    finally:
        os.close(slave)
        os.close(master)
    return r.returncode, r.stderr


def test_a_feature_whose_extra_is_missing_says_which_extra(venv):
    code, err = _on_a_terminal(venv, "play")
    assert code == 2, err
    assert "the terminal app needs the 'tui' extra: pip install 'parley-engine[tui]'" in err
    assert "Traceback" not in err
    cases = {
        "memory": ["run", "harbor-v1", "--script", str(WIN), "--embedder", "minilm"],
        "memory ": ["run", "harbor-v1", "--script", str(WIN), "--store", "chroma", "--embedder", "hash"],
        "llm": ["run", "harbor-v1", "--script", str(WIN), "--no-memory", "--llm", "http://127.0.0.1:9/v1"],
        "map": ["map", "harbor-v1", "--png", "harbor.png"],
        "tournament": ["tournament", "report", "nowhere"],
        "tournament ": ["debate", "--plot", "flow.png"],  # refused before the debate runs
        "serve": ["serve", "harbor-v1", "--port", "9"],  # refused before it listens
    }
    for extra, args in cases.items():
        r = venv.run(venv.parley, *args)
        extra = extra.strip()
        assert r.returncode == 2, (args, r.stdout[-2000:], r.stderr[-2000:])
        assert f"needs the '{extra}' extra: pip install 'parley-engine[{extra}]'" in r.stderr, (args, r.stderr)
        assert "Traceback" not in r.stderr
    r = venv.run(venv.parley, "run", "harbor-v1", "--script", WIN, "--embedder", "minilm")
    assert "--no-memory" in r.stderr  # the way to play without it
    out = venv.py("""
        try:
            import game.envs.textarena.worlds
        except ImportError as e:
            print(type(e).__name__, e)
    """)
    assert "ExtraMissing" in out and "parley-engine[textarena]" in out
    r = venv.run(venv.parley, "run", "harbor-v1", "--script", WIN, "--embedder", "hash", "--quiet")
    assert r.returncode == 0 and "WON" in r.stdout, r.stderr  # memory on without the extra


def test_the_cli_help_and_the_engine_stay_light(venv):
    out = venv.py("""
        import sys, contextlib, io
        from game.cli.main import main
        with contextlib.redirect_stdout(io.StringIO()) as buf:
            try: main(["--help"])
            except SystemExit: pass
        assert "parley" in buf.getvalue()
        print(",".join(m for m in ("pydantic", "numpy") if m in sys.modules) or "-")
        import game.engine.loop, game.play.session, agents, memory, game.envs.aec, game.envs.pettingzoo_env
        print(",".join(m for m in sys.modules if m.split(".")[0] in ("torch", "textual", "chromadb", "openai",
                                                                     "pygame")) or "-")
    """)
    assert out.split() == ["-", "-"]
