"""Command-line values are judged by the pydantic models they end up in (game.cli.flags): a value
the model refuses is exit code 2 with the flag named and the bound said, never a traceback; a
value it takes runs.

The fuzz runs the real ``parley`` entry point (``game.cli.main.main``) in this process, so a
traceback is an exception the test sees; the named cases run it as a subprocess as a user
would. Commands are kept cheap: the mini world, one turn, no memory model, a model file that
does not exist for ``model serve``.
"""

from __future__ import annotations

import contextlib
import io

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game.cli.main import main
from tests.conftest import ROOT
from tests.test_edge_input import MINI, run_cli

HUGE = "1" + "0" * 12


def cli(*argv: str) -> tuple[int, str]:
    """``parley ARGV`` in this process: (exit code, stdout + stderr). Any exception but argparse's
    ``SystemExit`` escapes (a traceback is a failure)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv))
        except SystemExit as e:
            code = e.code
    return int(code or 0), out.getvalue() + err.getvalue()


NUMBERS = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.integers(min_value=-3, max_value=260).map(str),  # around the bounds
    st.integers(min_value=10**60, max_value=10**4000).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["nan", "-nan", "inf", "-inf", "1e400", "", " ", "0", "-0", "1.5", "1e3", "0x10", "1_000", "٣"]),
    st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)), max_size=20),
)
TEXT = st.one_of(
    st.sampled_from(["", " ", "\t", "x" * 300, "-", "--", "all", "none"]),
    st.text(alphabet=st.characters(blacklist_characters="\x00/", blacklist_categories=("Cs",)), max_size=30),
)

DEBATE = ["debate", "--quiet", "--masking", "none"]
RUN = ["run", MINI, "--no-memory", "--autopilot", "--quiet", "--turns", "1"]
RUN_MEMORY = ["run", MINI, "--embedder", "hash", "--no-insights", "--autopilot", "--quiet", "--turns", "1"]
SERVE = ["model", "serve", "--port", "1", "--model-file", "/nonexistent/parley-test.gguf"]  # never starts a server

NUMERIC = [
    (DEBATE, "--rounds"),
    (DEBATE, "--budget"),
    (DEBATE, "--seed"),
    (DEBATE, "--task-seed"),
    (DEBATE, "--llm-timeout"),
    (DEBATE, "--llm-retries"),
    (RUN, "--seed"),
    (RUN, "--turns"),
    (RUN, "--llm-timeout"),
    (RUN, "--llm-retries"),
    (RUN, "--chroma-port"),
    (RUN_MEMORY, "--budget"),
    (SERVE, "--threads"),
    (SERVE, "--ctx"),
    (SERVE, "--parallel"),
    (SERVE, "--port"),
]


def _refused_by_name(code: int, said: str, flag: str) -> bool:
    return code == 2 and flag in said and "Traceback" not in said


@pytest.mark.parametrize("base, flag", NUMERIC, ids=[f"{b[0]}{f}" for b, f in NUMERIC])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=NUMBERS)
def test_a_number_flag_runs_or_is_refused_by_name(base, flag, value):
    code, said = cli(*base, f"{flag}={value}")
    if base is SERVE and code == 2 and "no model file" in said:
        return  # the value passed: the command went on to the (missing) model file
    assert code == 0 or _refused_by_name(code, said, flag), (code, said[-600:])


TEXTUAL = [
    (DEBATE, "--model"),
    (DEBATE, "--scene"),
    (RUN, "--model"),
    (RUN, "--llm-cache"),
    (RUN, "--llm-npcs"),
    (RUN, "--chroma-host"),
    (RUN, "--insights"),
    (RUN[:3] + ["--quiet", "--turns", "1"], "--player"),
    (RUN[:3] + ["--quiet", "--turns", "1"], "--council"),
    (["map", MINI], "--saves-dir"),
]


@pytest.mark.parametrize("base, flag", TEXTUAL, ids=[f"{b[0]}{f}" for b, f in TEXTUAL])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=TEXT)
def test_a_text_flag_runs_or_is_refused_saying_where(base, flag, value, tmp_path_factory):
    from game.core.text import shown

    argv = [*base, f"{flag}={value}"]
    if base[0] == "map":
        argv += ["--png", str(tmp_path_factory.mktemp("map") / "m.png")]
    code, said = cli(*argv)
    assert code in (0, 2) and "Traceback" not in said, (code, said[-600:])
    if code == 2 and not value.strip():
        assert flag in said and "empty" in said, said
    elif code == 2:
        forms = (value.strip(), shown(value.strip()), repr(value.strip())[1:-1])
        assert flag in said or any(f in said for f in forms), (value, said[-600:])


@pytest.mark.parametrize(
    "args, says",
    [
        (["debate", "--rounds", HUGE], f"--rounds: must be at most 200 (got {HUGE})"),
        (["debate", "--rounds", "0"], "--rounds: must be at least 1 (got 0)"),
        (["debate", "--budget", HUGE], "--budget: must be at most 100000"),
        (["debate", "--budget", "nan"], "--budget: invalid int value: 'nan' (must be a whole number)"),
        (["debate", "--seed", "-1"], "--seed: must be 0 or more (got -1)"),
        (["debate", "--llm-timeout", "nan"], "--llm-timeout: must be a finite number"),
        (["debate", "--llm-timeout", "-1"], "--llm-timeout: must be above 0"),
        (["run", MINI, "--autopilot", "--llm-timeout", "inf"], "--llm-timeout: must be a finite number"),
        (["run", MINI, "--autopilot", "--llm-retries", HUGE], "--llm-retries: must be at most 50"),
        (["run", MINI, "--autopilot", "--chroma-port", HUGE], "--chroma-port: must be at most 65535"),
        (["run", MINI, "--autopilot", "--turns", "-5"], "--turns: must be 0 or more"),
        (["run", MINI, "--autopilot", "--budget", "3"], "--budget: must be at least 16"),
        (["run", MINI, "--autopilot", "--insights", ""], "--insights: must not be empty"),
        (["run", MINI, "--autopilot", "--chroma-host", " "], "--chroma-host: must not be empty"),
        ([*SERVE, "--ctx", str(10**9)], "--ctx: must be at most 32768"),
        ([*SERVE, "--threads", "-4"], "--threads: must be at least 1"),
        ([*SERVE, "--ctx", "512", "--parallel", "4"], "--ctx/--parallel: 4 slots share 512 context tokens"),
        (["play", MINI, "--plain", "--seed", "1.5"], "--seed: invalid int value"),
        (["watch", MINI, "--seed", "x"], "--seed: invalid int value"),
    ],
)
def test_a_value_its_model_refuses_is_exit_2_naming_the_flag(tmp_path, args, says):
    code, out, err = run_cli(*args, saves=tmp_path, timeout=120)
    assert code == 2 and says in err and "Traceback" not in err, err
    assert "type=" not in err and "pydantic" not in err  # pydantic's own wording stays inside


def test_a_refused_value_is_quoted_short():
    code, said = cli("debate", "--rounds", "9" * 4000)
    assert code == 2 and "--rounds: must be at most 200 (got 999" in said and len(said) < 2000


def test_a_value_the_model_takes_runs():
    code, said = cli(*DEBATE, "--rounds", "200", "--budget", "100000", "--seed", str(10**40))
    assert code == 0 and "The motion" in said, said
    code, said = cli(*RUN, "--seed", "7", "--llm-timeout", "3600", "--llm-retries", "50")
    assert code == 0 and "seed 7" in said, said


def test_flag_errors_name_the_flag_of_a_nested_field():
    from pydantic import ValidationError

    from game.cli.commands import EPISODE_FLAGS
    from game.cli.flags import flag_error
    from game.play.config import EpisodeConfig

    with pytest.raises(ValidationError) as info:
        EpisodeConfig(game={"world": "w", "seed": -1, "memory": {"chroma_port": 0}}, turns=-2)
    text = flag_error(info.value, EPISODE_FLAGS, "EpisodeConfig").message
    assert "--seed: must be 0 or more (got -1)" in text
    assert "--chroma-port: must be at least 1 (got 0)" in text and "--turns: must be 0 or more (got -2)" in text


def test_parley_help_does_not_load_pydantic():
    import subprocess
    import sys

    code = "import sys; from game.cli.arguments import build_parser; build_parser(); print('pydantic' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.stdout.strip() == "False", r.stderr


def _flags(parser, path=()):
    """(command path, option strings, argparse type) of every flag of every command."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _flags(sub, (*path, name))
        elif action.option_strings:
            yield path, action.option_strings, action.type


def test_every_model_bound_flag_names_a_field_of_its_model():
    from game.cli.arguments import build_parser
    from game.cli.flags import model_class

    bound = [(p, o, t.model_field) for p, o, t in _flags(build_parser()) if hasattr(t, "model_field")]
    assert len(bound) >= 20
    for path, options, (target, field) in bound:
        assert field in model_class(target).__pydantic_fields__, (path, options, target, field)
    named = {(p[0], o[0]) for p, o, _ in bound}
    for flag in ("--rounds", "--budget", "--seed", "--llm-timeout", "--llm-retries", "--model"):
        assert ("debate", flag) in named
    for flag in ("--seed", "--turns", "--budget", "--chroma-port", "--chroma-host", "--llm-timeout"):
        assert ("run", flag) in named


def test_a_text_value_with_a_5000_digit_number_is_read_not_crashed_on():
    number = "9" * 5000  # past Python's int() digit limit
    code, said = cli("lexicon", MINI, "--read", f"the ship leaves at {number} pm")
    assert code == 0 and "Read:" in said, said[-600:]


@pytest.mark.parametrize("flag", ["--plot", "--saves-dir"])
def test_a_name_too_long_for_the_file_system_is_exit_2(flag):
    name = "a" * 5000
    args = ["debate", "--quiet", "--plot", name + ".png"] if flag == "--plot" else ["trust", "x", flag, name]
    code, said = cli(*args)
    assert code == 2 and "too long" in said and len(said) < 3000, said[-600:]
