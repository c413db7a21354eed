"""The layering rule (DESIGN.md, "Dependency direction"): the engine layer never imports the
``agents`` or ``memory`` packages. The composition layer (``game.play.session``, ``game.play.wiring``, the
CLI, the AEC env) builds the agents and injects them: voices, negotiator factories, the known agent
kinds and their parameter models.

The check reads the source with ``ast``: every ``import x`` and ``from x import y`` at any depth
(inside functions too), relative imports resolved, and ``importlib.import_module("x")`` /
``__import__("x")`` with a literal name.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

FORBIDDEN = ("agents", "memory")
# the engine layer: rules, scenes, world, negotiation maths, parser and what they stand on
ENGINE_FILES = ["engine", "rules", "scenes", "parser", "state", "types", "text", "files", "errors", "protocols",
                "dialogue", "perception", "quests", "phrasing", "transcript", "saves", "predicates",
                "scenes_trade", "council/scenes", "aec_actions", "aec_encoding", "nouns", "parser_offers",
                "parser_replies"]
ENGINE_PACKAGES = ["world", "negotiation"]
# the composition layer may import agents and memory; the engine layer reaches it only lazily
# (inside a function, for a default the caller did not inject), never when it is imported
COMPOSITION = ("game.play.wiring", "game.play.session", "game.cli.main", "game.cli.commands", "game.envs.aec", "game.envs.pettingzoo_env",
               "game.cli.console", "game.tui", "game.tournament", "game.play.compose")


def engine_modules() -> list[Path]:
    game = ROOT / "game"
    files = [game / f"{name}.py" for name in ENGINE_FILES]
    for pkg in ENGINE_PACKAGES:
        files += sorted((game / pkg).rglob("*.py"))
    return [f for f in files if f.exists()]


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports(path: Path) -> list[tuple[int, str, bool]]:
    """(line, imported module, at module level) for every import in the file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    top_level: set[int] = set()  # nodes that run when the module is imported (not inside a function)
    todo: list[ast.AST] = list(tree.body)
    while todo:
        n = todo.pop()
        top_level.add(id(n))
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(n))
    out: list[tuple[int, str, bool]] = []
    for node in ast.walk(tree):
        at_top = id(node) in top_level
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, at_top) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                mod = ".".join([*base, node.module] if node.module else base)
            else:
                mod = node.module or ""
            out.append((node.lineno, mod, at_top))
            out += [(node.lineno, f"{mod}.{a.name}", at_top) for a in node.names]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if fname in ("import_module", "__import__"):
                out.append((node.lineno, node.args[0].value, at_top))
    return out


def _names(mod: str, packages: tuple[str, ...]) -> bool:
    return any(mod == p or mod.startswith(p + ".") for p in packages)


def test_the_engine_layer_is_known():
    mods = {_module_name(p) for p in engine_modules()}
    assert {"game.engine.loop", "game.engine.rules", "game.engine.scenes", "game.engine.parser", "game.world.loader",
            "game.world.checks", "game.world.spec", "game.negotiation.session", "game.engine.predicates",
            "game.engine.scenes_trade", "game.engine.scenes_council", "game.envs.aec_actions", "game.envs.aec_encoding", "game.engine.nouns",
            "game.engine.parser_offers", "game.engine.parser_replies"} <= mods


@pytest.mark.parametrize("path", engine_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_layer_imports_neither_agents_nor_memory(path):
    bad = [f"{path.relative_to(ROOT)}:{line}: imports {mod}" for line, mod, _ in imports(path)
           if _names(mod, FORBIDDEN)]
    assert not bad, "the engine layer must not import agents or memory (inject them):\n" + "\n".join(bad)


@pytest.mark.parametrize("path", engine_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_engine_layer_reaches_the_composition_layer_only_lazily(path):
    bad = [f"{path.relative_to(ROOT)}:{line}: imports {mod} when it is imported"
           for line, mod, top in imports(path) if top and _names(mod, COMPOSITION)]
    assert not bad, "\n".join(bad)


def test_the_check_sees_nested_relative_and_dynamic_imports(tmp_path, monkeypatch):
    pkg = tmp_path / "game" / "world"
    pkg.mkdir(parents=True)
    src = pkg / "x.py"
    src.write_text("import os\n"
                   "def f():\n    if True:\n        from agents.npc import ScriptedNPC\n"
                   "class C:\n    def g(self):\n        import memory.runtime as m\n"
                   "from .. import wiring\n"
                   "import importlib\nimportlib.import_module('agents.registry')\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = {(mod, top) for _, mod, top in imports(src)}
    assert ("agents.npc", False) in found and ("memory.runtime", False) in found
    assert ("game.play.wiring", True) in found and ("agents.registry", True) in found
    assert ("os", True) in found


def test_importing_the_engine_layer_loads_neither_agents_nor_memory():
    mods = sorted(_module_name(p) for p in engine_modules())
    code = (f"import importlib, sys\nfor m in {mods!r}: importlib.import_module(m)\n"
            "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] in ('agents', 'memory'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_injected_kinds_voices_and_negotiators_keep_the_agents_out(tmp_path):
    """A caller that injects what the engine layer needs never loads ``agents`` or ``memory``: a world
    is checked against the kinds given, the schema is built from their models, the engine speaks and
    trades through the factories given."""
    code = """
import sys
from pydantic import BaseModel, ConfigDict
from game.engine.loop import Engine
from game.core.types import PLAYER, Action, Verb, Utterance
from game.play.worlds import collect_problems, load_world
from game.play.worlds import json_schema

class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")

class Kinds:
    LLM_KINDS = ()
    def kinds(self): return ["idle"]
    def params_problems(self, kind, params):
        return [type("P", (), {"message": "no params here", "hint": None, "path": ""})()] if params else []
    def param_models(self): return {"idle": Strict}

_, problems = collect_problems("tests/fixtures/mini", agent_kinds=Kinds())
print(sorted({p.message for p in problems}))
schema = json_schema(agent_kinds=Kinds())
print(schema["$defs"]["AgentSpec"]["properties"]["kind"]["enum"])

class Accepting(Kinds):
    def params_problems(self, kind, params): return []

class Voice:
    def reply(self, request, context=None):
        return [Utterance(speaker=self.npc, intent="answer", text="Hm.")]
def voice(engine, npc):
    v = Voice(); v.npc = npc; return v
def negotiator(scene, party, utility, params):
    raise RuntimeError("stub")

world = load_world("tests/fixtures/mini", agent_kinds=Accepting())
eng = Engine(world, seed=1, voice_factory=voice, default_negotiator=negotiator)
assert eng.voice("mara").reply(None)[0].text == "Hm."
assert eng.scenes.default_negotiator() is negotiator
print(sorted(m for m in sys.modules if m.split(".")[0] in ("agents", "memory")))
"""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == "['no params here']"  # mara's negotiator params, refused by these kinds
    assert lines[1] == "['idle']"
    assert lines[2] == "[]"
