"""Per-call overhead of ``LLMClient.chat`` over the bare ``openai`` client.

Usage:  python -m benchmarks.client_overhead [--n 300]

Both clients talk to the same local ``ScriptedServer(loop=True)`` over real
HTTP with the same request (model, messages, temperature, max_tokens). Calls
are interleaved, alternating which goes first, so drift in the machine or the
server hits both alike. The overhead is the difference of the medians; the
median of the paired differences is shown too. Goal: under 1 ms per call.
"""

from __future__ import annotations

import argparse
import statistics
import time

from agents.llm.client import LLMClient
from agents.llm.config import LLMConfig
from game.testing.scripted_server import ScriptedServer

GOAL_MS = 1.0
MESSAGES = [
    {"role": "system", "content": "You are a merchant in a harbor town."},
    {"role": "user", "content": "What will you take for the brass lamp?"},
]


def _p95(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]


def measure(n: int = 300, warmup: int = 30) -> dict[str, float]:
    """Median / p95 ms per call for the raw SDK and for LLMClient, and the overhead."""
    import openai

    with ScriptedServer(["Twelve coins, and not a copper less."], loop=True) as server:
        cfg = LLMConfig(
            base_url=server.base_url,
            api_key="bench",
            model="bench-model",
            temperature=0.7,
            max_tokens=64,
            max_retries=0,
        )
        raw = openai.OpenAI(base_url=server.base_url, api_key="bench", timeout=cfg.timeout, max_retries=0)
        llm = LLMClient(cfg)

        def call_raw() -> None:
            raw.chat.completions.create(model=cfg.model, messages=MESSAGES, temperature=0.7, max_tokens=64)

        def call_llm() -> None:
            llm.chat(MESSAGES, agent="bench", turn=0)

        for _ in range(warmup):
            call_raw()
            call_llm()
        t_raw: list[float] = []
        t_llm: list[float] = []
        clock = time.perf_counter
        for i in range(n):
            pair = ((call_raw, t_raw), (call_llm, t_llm))
            for fn, out in pair if i % 2 == 0 else pair[::-1]:
                t0 = clock()
                fn()
                out.append((clock() - t0) * 1000.0)
        raw.close()
        llm.close()
    raw_med, llm_med = statistics.median(t_raw), statistics.median(t_llm)
    return {
        "n": n,
        "raw_median_ms": raw_med,
        "raw_p95_ms": _p95(t_raw),
        "client_median_ms": llm_med,
        "client_p95_ms": _p95(t_llm),
        "overhead_ms": llm_med - raw_med,
        "paired_overhead_ms": statistics.median(b - a for a, b in zip(t_raw, t_llm)),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=300, help="calls per client")
    args = ap.parse_args(argv)
    r = measure(args.n)
    print(f"LLM client overhead, {r['n']} interleaved calls each, local ScriptedServer over HTTP")
    print(f"{'':22}{'median ms':>11}{'p95 ms':>10}")
    print(f"{'openai (raw)':22}{r['raw_median_ms']:11.3f}{r['raw_p95_ms']:10.3f}")
    print(f"{'LLMClient.chat':22}{r['client_median_ms']:11.3f}{r['client_p95_ms']:10.3f}")
    print(f"overhead (median diff): {r['overhead_ms']:.3f} ms; paired median diff: {r['paired_overhead_ms']:.3f} ms")
    ok = r["overhead_ms"] < GOAL_MS
    print(f"goal: overhead < {GOAL_MS:g} ms per call: {'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
