"""What ``parley --help`` and every subcommand's help say: only extras pyproject.toml has, under
the package's name; play opens the app; world arguments take ids. And ``saves list`` keeps its
columns with long names."""

from __future__ import annotations

import argparse
import re
import tomllib

from conftest import ROOT, parley

from game.cli.arguments import build_parser

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PACKAGE = PYPROJECT["project"]["name"]
EXTRAS = set(PYPROJECT["project"]["optional-dependencies"])
INSTALL = re.compile(r"pip install\s+(?:-e\s+)?'?([\w.-]*)\[([\w,-]+)\]")


def every_help() -> dict[str, str]:
    """``parley [SUB ...] --help`` for every command and subcommand, as argparse prints it."""
    out: dict[str, str] = {}

    def walk(parser: argparse.ArgumentParser, name: str) -> None:
        out[name] = parser.format_help()
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, p in action.choices.items():
                    walk(p, f"{name} {sub}")

    walk(build_parser(), "parley")
    return out


def wrong_installs(text: str) -> list[str]:
    """Each ``pip install NAME[EXTRAS]`` in ``text`` that names another package or an extra that does not exist."""
    text = re.sub(r"\s+", " ", text)  # argparse wraps help lines
    bad = []
    for package, extras in INSTALL.findall(text):
        if extras.isupper():  # a placeholder: pip install 'parley-engine[EXTRA]'
            continue
        if package not in (PACKAGE, ".") or not set(extras.split(",")) <= EXTRAS:
            bad.append(f"{package}[{extras}]")
    return bad + re.findall(r"'parley\[[\w,]+\]'", text)  # the old name, quoted as in a pip line


def test_every_help_names_only_extras_that_exist_under_the_package_name():
    """Was: tournament --help said pip install 'parley[ray]' (the package is parley-engine, the extra scale)."""
    helps = every_help()
    assert len(helps) > 20 and "parley serve" in helps and "parley saves list" in helps
    bad = {name: wrong_installs(text) for name, text in helps.items() if wrong_installs(text)}
    assert not bad
    assert "pip install 'parley-engine[scale]'" in re.sub(r"\s+", " ", helps["parley tournament"])


def test_the_source_and_docs_name_only_extras_that_exist():
    files = [
        *ROOT.glob("game/**/*.py"),
        *ROOT.glob("benchmarks/**/*.py"),
        *ROOT.glob("docs/**/*.md"),
        ROOT / "README.md",
    ]
    bad = {str(f.relative_to(ROOT)): wrong_installs(f.read_text()) for f in files if wrong_installs(f.read_text())}
    assert not bad


def test_wrong_install_lines_are_caught():
    assert wrong_installs("ray: a Ray cluster (pip install 'parley[ray]')") == ["parley[ray]", "'parley[ray]'"]
    assert wrong_installs('"seats": parley[k]["negotiations_per_s"]') == []  # code, not an install line
    assert wrong_installs("pip install 'parley-engine[nope]'") == ["parley-engine[nope]"]
    assert wrong_installs("(pip\n     install 'parley-engine[nope]')") == ["parley-engine[nope]"]  # wrapped by argparse
    assert wrong_installs("pip install 'parley-engine[tui,serve]'") == []
    assert wrong_installs("pip install 'parley-engine[EXTRA]'") == []


def test_play_help_says_it_opens_the_app_and_world_arguments_take_ids():
    """Was: play was "line mode"; watch and run said "world folder" though harbor-v1 works."""
    helps = {name: re.sub(r"\s+", " ", text) for name, text in every_help().items()}
    top = helps["parley"]
    assert "line mode" not in top and re.search(r"play\s+play a world in the terminal app", top)
    for name in ("play", "run", "watch", "serve", "map", "lexicon"):
        assert "harbor-v1" in helps[f"parley {name}"], name


def test_saves_list_is_a_table_that_keeps_its_columns(tmp_path):
    """Was: a long save name pushed its row's world, turn and score out of their columns."""
    long = "a-very-long-save-name-that-goes-on-and-on-for-a-while"
    r = parley(
        "play",
        "--no-memory",
        "tests/fixtures/mini",
        "--saves-dir",
        str(tmp_path),
        input=f"wait\nsave {long}\nsave short\nquit\n",
    )
    assert r.returncode == 0, r.stderr
    r = parley("saves", "--saves-dir", str(tmp_path), "list", env={"COLUMNS": "60"})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert all(len(line) <= 60 for line in lines)
    header = lines[0]
    assert header.split() == ["Name", "World", "Status", "Score", "Saved"]
    world, status = header.index("World"), header.index("Status")
    rows = [line for line in lines[1:] if line[world:].startswith("mini-v1")]
    assert len(rows) == 3  # the long save, the short one, the autosave
    assert all(line[status:].startswith("turn 1") for line in rows), r.stdout
    names = [line[:world].strip() for line in lines[1:]]
    assert long in "".join(names)  # wrapped within its column, never cut
