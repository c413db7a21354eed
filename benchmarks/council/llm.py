"""The council benchmark with LLM members (``python -m benchmarks.council_bench --llm URL``): the same held-out
hidden-profile tasks, budget and council rules, every member an LLM debater, for the masking modes
an LLM council can use (``subjective`` included). Sequential: one request per statement (and, for
``subjective``, one labelling request per member and round)."""

from __future__ import annotations

from typing import Any

import numpy as np

LLM_MODES = ("none", "window", "dedupe", "memo", "subjective")


def llm_client(url: str, model: str | None, cache: str | None = None) -> Any:
    from agents.llm.client import LLMClient
    from agents.llm.config import LLMConfig

    return LLMClient(LLMConfig.from_env(base_url=url, model=model, cache_dir=cache))


def run_llm(
    client: Any, seeds: range, modes: dict[str, Any], council: Any, fields: tuple[str, ...]
) -> dict[str, dict[str, np.ndarray]]:
    """Every mode on every task with LLM members; {mode: {field: array over tasks}}."""
    from rich.progress import Progress

    from game.council.context import SubjectiveMaskingConfig
    from game.council.llm import llm_council
    from game.council.tasks import hidden_profile_task
    from game.play.debates import run_debate

    budget = modes["memo"].budget
    configs = {
        **{k: v for k, v in modes.items() if k in LLM_MODES},
        "subjective": SubjectiveMaskingConfig(budget=budget),
    }
    rows: dict[str, list[dict[str, float]]] = {k: [] for k in configs}
    with Progress(transient=True) as bar:
        job = bar.add_task("LLM debates", total=len(configs) * len(seeds))
        for seed in seeds:
            task = hidden_profile_task(seed)
            for name, masking in configs.items():
                _, m = run_debate(task, council.model_copy(update={"seed": seed}), masking, llm_council(task, client))
                assert m is not None
                rows[name].append({f: float(getattr(m, f) or 0.0) for f in fields})
                bar.advance(job)
    return {k: {f: np.array([r[f] for r in v]) for f in fields} for k, v in rows.items()}
