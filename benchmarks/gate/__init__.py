"""The gate benchmark's parts (``benchmarks.gate_bench``): the seeded world and its write stream
(text, render, writes, classes, stream), the baselines, running the gate, metrics and the report; ``reading`` measures how the claim extractor
reads the stream's sentences."""
