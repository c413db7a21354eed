"""World checks for tests: validity, walkthroughs, and engines with the standard defaults."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from game.core.errors import Problem
from game.engine.loop import Engine
from game.play.session import Game
from game.play.wiring import engine_defaults
from game.play.worlds import collect_problems
from game.world.loader import World


def check_world(path: str | Path) -> list[Problem]:
    """Every problem in the world at ``path`` (a folder, its world.toml, or a shipped world's name)."""
    return collect_problems(path)[1]


def assert_world_valid(path: str | Path) -> None:
    """Fail with every located problem if the world at ``path`` does not validate."""
    problems = check_world(path)
    if problems:  # not an assert: these checks hold under python -O too
        raise AssertionError("world does not validate:\n" + "\n".join(p.render() for p in problems))


def play_script(world: str | Path | World, script: str | Path, seed: int = 0, **game_options: Any) -> Game:
    """A game of ``world`` (seeded) played from the command script at ``script`` until it ends
    (the script or the game). A line that does not parse raises an input error (file:line)."""
    from game.play.episode import run_script, script_lines

    game = Game(world, seed=seed, **game_options)
    run_script(game, script_lines(str(script)), str(script))
    return game


def assert_script_wins(world: str | Path | World, script: str | Path, seeds: range | list[int] = range(3)) -> None:
    """Fail unless the script wins ``world`` (every quest done) from every seed in ``seeds``."""
    for seed in seeds:
        game = play_script(world, script, seed)
        st = game.engine.state
        if not st.won:
            raise AssertionError(f"seed {seed}: the script did not win (quests done: {sorted(st.quests_done)})")


def standard_engine(world: World, seed: int = 0, **kw: Any) -> Engine:
    """An ``Engine`` for ``world`` with the standard scripted voices, rule-based negotiators and
    council debates injected (what ``Game`` gives it); ``kw`` overrides any of them."""
    return Engine(world, seed=seed, **{**engine_defaults(), **kw})
