"""Who may import whom beyond the engine layer (tests/test_layering.py covers the engine layer),
and the size limits that keep modules about one job."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# what agents and memory may use of the game package: plain data and protocols, errors, the
# negotiation maths, and leaf helpers that know nothing of a running game (text cleaning, the safe
# file reader, the claim-value rule, the command language, the atomic file writer of game.play.save_files)
AGENT_SIDE_ALLOWED = ("game.core.types", "game.core.protocols", "game.core.errors", "game.negotiation", "game.core.text",
                      "game.core.files", "game.core.claims", "game.core.phrasing", "game.play.save_files", "game.core.extras")
# the composition root, the CLI and the front ends: the only modules that may import agents and the engine
COMPOSERS = {"game.play.compose", "game.play.wiring", "game.play.session", "game.play.persistence", "game.play.episode", "game.cli.commands",
             "game.cli.main", "game.cli.console", "game.envs.aec", "game.envs.pettingzoo_env", "game.tui", "game.tournament", "game.map.render"}
MAX_MODULE_LINES, MAX_FUNCTION_LINES = 500, 80


def _modules(*packages: str) -> list[Path]:
    return sorted(p for pkg in packages for p in (ROOT / pkg).rglob("*.py"))


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at any depth (lazy imports inside functions count)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out |= {f"{node.module}.{a.name}" for a in node.names}
    return out


def _is_under(module: str, roots: tuple[str, ...] | set[str]) -> bool:
    return any(module == r or module.startswith(r + ".") for r in roots)


@pytest.mark.parametrize("path", _modules("agents", "memory"), ids=lambda p: str(p.relative_to(ROOT)))
def test_agents_and_memory_use_only_the_types_protocols_and_maths_of_the_game(path):
    used = {m for m in _imports(path) if m == "game" or m.startswith("game.")}
    # "from game.x import y" also lists game.x.y: it is allowed when game.x is
    bad = sorted(m for m in used if not _is_under(m, AGENT_SIDE_ALLOWED)
                 and not _is_under(m.rsplit(".", 1)[0], AGENT_SIDE_ALLOWED))
    assert not bad, f"{_name(path)} imports {bad}; it may use only {', '.join(AGENT_SIDE_ALLOWED)}"


@pytest.mark.parametrize("path", _modules("game"), ids=lambda p: str(p.relative_to(ROOT)))
def test_only_the_composition_root_and_front_ends_import_both_agents_and_the_engine(path):
    mods = _imports(path)
    uses_agents = any(_is_under(m, ("agents",)) for m in mods)
    uses_engine = any(_is_under(m, ("game.engine.loop",)) for m in mods)
    assert not (uses_agents and uses_engine) or _is_under(_name(path), COMPOSERS), \
        f"{_name(path)} imports both agents and game.engine.loop; build games through game.play.compose"


def test_the_checks_see_real_imports():
    assert "game.engine.loop" in _imports(ROOT / "game" / "compose.py")
    assert any(m.startswith("agents") for m in _imports(ROOT / "game" / "session.py"))  # lazily, in a function


@pytest.mark.parametrize("path", _modules("game", "agents", "memory"), ids=lambda p: str(p.relative_to(ROOT)))
def test_modules_and_functions_stay_small(path):
    text = path.read_text()
    lines = text.count("\n")
    assert lines <= MAX_MODULE_LINES, f"{path.relative_to(ROOT)} has {lines} lines (at most {MAX_MODULE_LINES})"
    long = [f"{n.name} ({n.end_lineno - n.lineno + 1} lines)" for n in ast.walk(ast.parse(text))
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.end_lineno - n.lineno + 1 > MAX_FUNCTION_LINES]
    assert not long, f"{path.relative_to(ROOT)}: functions over {MAX_FUNCTION_LINES} lines: {', '.join(long)}"
