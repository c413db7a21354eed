"""The flag groups several commands share: agent memory (``play``, ``run``, ``watch``,
``serve``) and the LLM endpoint (those and ``debate``). Each value is judged by the field of the
model it sets (``game.cli.flags.model_value``): ``MemorySettings``, ``MemoConfig``, ``LLMConfig``.
Only argparse is imported here; the models load when a flag is given."""

from __future__ import annotations

import argparse

from game.cli.flags import folder_value, model_value, text_value


def _memo_llm(text: str) -> list[str]:
    """argparse type: MEMO paths an LLM drives (``game.play.config.memo_llm_paths``)."""
    from game.play.config import memo_llm_paths

    try:
        return memo_llm_paths(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def memory_flags(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("memory (MEMO context optimizer)")
    g.add_argument("--no-memory", action="store_true", help="turn agent memory off (faster, no embedder)")
    g.add_argument(
        "--embedder",
        choices=("minilm", "hash"),
        default=None,
        help="minilm (default; bundled all-MiniLM-L6-v2) or hash (deterministic, no model)",
    )
    g.add_argument(
        "--store",
        choices=("flat", "chroma"),
        default=None,
        help="vector store: flat numpy index (default) or a Chroma collection (in memory, or on "
        "the server --chroma-host names)",
    )
    g.add_argument(
        "--chroma-host",
        metavar="H",
        type=model_value("game.play.config:MemorySettings", "chroma_host"),
        default=None,
        help="a Chroma server (chroma run ...); each game gets its own collection there (implies --store chroma)",
    )
    g.add_argument(
        "--chroma-port",
        metavar="P",
        type=model_value("game.play.config:MemorySettings", "chroma_port"),
        default=None,
        help="the Chroma server's port (default 8000)",
    )
    g.add_argument(
        "--budget",
        type=model_value("memory.config:MemoConfig", "budget", "tokens"),
        default=None,
        help="context token budget per agent turn (default 400, at least 16)",
    )
    g.add_argument(
        "--insights",
        metavar="FILE",
        type=text_value,
        default=None,
        help="insight bank carried across games (default: <saves>/insights.json)",
    )
    g.add_argument("--no-insights", action="store_true", help="neither read nor update the insight bank")
    g.add_argument(
        "--memo-llm",
        metavar="PATHS",
        type=_memo_llm,
        default=[],
        help="let the LLM (--llm) summarise old memories, write reflections, rate importance and/or "
        "distil insights: a comma list of summarise,reflect,importance,insights, or all "
        "(default: none; rule-based). Each is extra LLM calls; a bad reply falls back to the rules",
    )


def llm_flags(p: argparse.ArgumentParser, scene: bool = False) -> None:
    g = p.add_argument_group("LLM agents (any OpenAI-compatible endpoint: OpenAI, Ollama, vLLM, llama.cpp, LM Studio)")
    g.add_argument(
        "--llm",
        metavar="URL",
        default=None,
        help="'local': the bundled model (no key, no network; 'local:PATH.gguf' for another GGUF file); "
        "or an endpoint base URL, e.g. http://localhost:11434/v1 (Ollama) or https://api.openai.com/v1; "
        "'env' takes $OPENAI_BASE_URL. The key comes from $OPENAI_API_KEY and is never saved",
    )
    g.add_argument(
        "--model",
        type=model_value("agents.llm.config:LLMConfig", "model"),
        default=None,
        help="model name (default $PARLEY_MODEL, else gpt-4o-mini)",
    )
    if not scene:
        g.add_argument(
            "--llm-npcs",
            metavar="IDS",
            type=text_value,
            default="all",
            help="comma-separated NPC ids the LLM drives (default: all; 'none' for none); the rest keep "
            "their configured kinds",
        )
    g.add_argument(
        "--llm-timeout",
        type=model_value("agents.llm.config:LLMConfig", "timeout", "seconds"),
        default=None,
        metavar="S",
        help="seconds per request (default 30, at most 3600)",
    )
    g.add_argument(
        "--llm-retries",
        type=model_value("agents.llm.config:LLMConfig", "max_retries"),
        default=None,
        metavar="N",
        help="retries on 429, 5xx, timeouts and dropped connections (default 4, with backoff)",
    )
    if not scene:
        g.add_argument(
            "--llm-jury",
            action="store_true",
            help="the consistency gate also asks the LLM whether each NPC claim fits what is known "
            "(3 samples per batch of claims)",
        )
    g.add_argument(
        "--llm-cache",
        metavar="DIR",
        type=folder_value,
        default=None,
        help="cache replies on disk here; a re-run with the same prompts makes no requests",
    )
