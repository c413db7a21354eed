"""The shape of the code: how big each room (subpackage) is, which import cycles span rooms, and
which imports inside functions cross rooms.

    python -m benchmarks.layout            # this checkout
    python -m benchmarks.layout --root DIR # another checkout (e.g. an older commit, `git worktree add`)

A room is a subpackage of ``game`` (``game.engine``, ``game.play``...), or a top-level package
(``agents``, ``memory``, ``benchmarks``); modules directly under ``game/`` form the room ``game``.
Imports are read by grimp, as import-linter reads them: inside functions and ``TYPE_CHECKING``
blocks too. Lines are every line of the ``.py`` files (tests excluded).
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
from collections import Counter
from pathlib import Path

PACKAGES = ("game", "agents", "memory")


def room(module: str, packages: set[str]) -> str:
    """The room of a dotted module name: ``game.X`` when ``game/X`` is a package, else its top package."""
    parts = module.split(".")
    if parts[0] == "game" and len(parts) > 1 and f"game.{parts[1]}" in packages:
        return f"game.{parts[1]}"
    return parts[0]


def modules_of(root: Path) -> tuple[dict[str, Path], set[str]]:
    """Every module under the measured packages (and benchmarks/) by dotted name, and the package names."""
    mods: dict[str, Path] = {}
    pkgs: set[str] = set()
    for top in (*PACKAGES, "benchmarks"):
        for path in sorted((root / top).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
                pkgs.add(".".join(parts))
            mods[".".join(parts)] = path
    return mods, pkgs


def line_shares(mods: dict[str, Path], pkgs: set[str]) -> Counter[str]:
    lines: Counter[str] = Counter()
    for name, path in mods.items():
        lines[room(name, pkgs)] += path.read_text(encoding="utf-8", errors="replace").count("\n")
    return lines


def import_graph(root: Path) -> dict[str, set[str]]:
    """module -> modules it imports (inside functions and TYPE_CHECKING blocks too), in a subprocess
    whose path starts at ``root`` so the measured checkout is the one imported."""
    code = (
        "import grimp, json\n"
        f"g = grimp.build_graph(*{PACKAGES!r}, exclude_type_checking_imports=False, cache_dir=None)\n"
        "print(json.dumps({m: sorted(g.find_modules_directly_imported_by(m)) for m in g.modules}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(root), "PATH": ""},
    )
    import json

    return {k: set(v) for k, v in json.loads(out.stdout).items()}


def components(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on.add(start)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                elif nxt in on:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    m = stack.pop()
                    on.discard(m)
                    comp.append(m)
                    if m == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def absolute(node: ast.ImportFrom, module: str, path: Path) -> str:
    """The module a ``from ... import`` names, a relative one resolved against ``module``."""
    if not node.level:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def function_level_imports(mods: dict[str, Path], pkgs: set[str]) -> list[tuple[str, int, str]]:
    """(module, line, imported module) for every import inside a function that reaches another room."""
    out = []
    for name, path in mods.items():
        if name.split(".")[0] == "benchmarks":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                targets = (
                    [a.name for a in node.names]
                    if isinstance(node, ast.Import)
                    else [absolute(node, name, path)]
                    if isinstance(node, ast.ImportFrom)
                    else []
                )
                for t in targets:
                    if t.split(".")[0] in PACKAGES and room(t, pkgs) != room(name, pkgs):
                        out.append((name, node.lineno, t))
    return sorted(set(out))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--root", type=Path, default=Path.cwd(), help="the checkout to measure (default: here)")
    ap.add_argument("--top", type=int, default=8, help="rooms listed by size")
    args = ap.parse_args(argv)
    root = args.root.resolve()
    mods, pkgs = modules_of(root)
    lines = line_shares(mods, pkgs)
    total = sum(lines.values())
    print(f"{total} lines in {len(mods)} modules, {len(lines)} rooms")
    for r, n in lines.most_common(args.top):
        print(f"  {r:<22} {n:>6} lines  {n / total:6.1%}")
    graph = import_graph(root)
    spanning = [c for c in components(graph) if len({room(m, pkgs) for m in c}) > 1]
    inner = [c for c in components(graph) if len({room(m, pkgs) for m in c}) == 1]
    print(
        f"import cycles spanning rooms: {len(spanning)}"
        + (
            f" (largest: {max(map(len, spanning))} modules in "
            f"{len({room(m, pkgs) for m in max(spanning, key=len)})} rooms)"
            if spanning
            else ""
        )
    )
    for c in spanning:
        print("  " + ", ".join(c))
    print(f"import cycles inside one room: {len(inner)}")
    for c in inner:
        print("  " + ", ".join(c))
    lazy = function_level_imports(mods, pkgs)
    pairs = Counter(f"{room(m, pkgs)} -> {room(t, pkgs)}" for m, _, t in lazy)
    print(f"imports inside functions that reach another room: {len(lazy)}")
    for pair, n in pairs.most_common():
        print(f"  {pair:<36} {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
