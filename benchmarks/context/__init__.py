"""The context benchmark's parts (``benchmarks.context_bench``, ``benchmarks.context_latency``):
phrasings, seeded logs and the hit rule, the baselines, the report."""
