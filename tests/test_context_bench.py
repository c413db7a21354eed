"""Smoke test of benchmarks/context_bench.py: a 50-turn harbor log, tiny latency and write parts."""

from __future__ import annotations

import importlib.util
import io
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.embeddings

ROOT = Path(__file__).resolve().parents[1]


def _bench():
    spec = importlib.util.spec_from_file_location("context_bench", ROOT / "benchmarks" / "context_bench.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["context_bench"] = mod  # dataclasses resolve annotations through sys.modules
    spec.loader.exec_module(mod)
    return mod


def test_context_bench_smoke():
    cb = _bench()
    budget = 400
    report = cb.run([str(ROOT / "worlds" / "harbor")], [50], budget, seed=0,
                    latency_sizes=(1_000,), latency_queries=10, write_texts=64)
    out = io.StringIO()
    printed = cb.print_report(report, out=out)
    text = out.getvalue()
    for heading in ("Part 1", "Part 2", "Part 3", "Goals"):
        assert heading in text

    (lg,) = report["logs"]
    assert lg.length == 50 and lg.plants >= 8 and lg.decisions
    assert all(p > 0 for p in lg.full_tokens.values())
    # 50 turns is also the sweep length here, so every budget of the sweep is measured
    budgets = cb.budgets_for(50, budget, 50)
    for d in lg.decisions:
        assert {m for m, _ in d.results} >= set(cb.METHODS)
        for (method, b), r in d.results.items():
            assert r["hit"] in (True, False)
            assert r["tokens"] <= b or method.startswith("MEMO")
            if method == "MEMO":
                assert r["tokens"] <= b, "MEMO exceeded its budget"

    summary = printed["summary"]
    for m in cb.METHODS:
        for b in budgets:
            row = summary[(50, m, b)]
            assert 0.0 <= row["recall"] <= 1.0
            assert 0.0 < row["share"] <= 1.0
    lat = report["latency"]["rows"]
    assert lat[0]["size"] == 1_000 and lat[0]["build_p95"] > 0 and lat[0]["store_p95"] > 0
    assert report["write"]["ratio"] > 0
    assert len(printed["goals"]) >= 4
