"""The gate benchmark's parts (``benchmarks.gate_bench``): the seeded world and its write stream
(text, render, writes, classes, stream), the world file the gate's lexicon comes from (world/),
running the gate (run), the costs and the baselines tuned on them (costs, baselines, tuning), the
oracle bound (oracle), the wording split (wording), metrics, trade-off curves (tradeoff), the
report and page (tables, report, page), and how the claim extractor reads the stream's sentences
(reading, run by ``benchmarks.gate_reading``)."""
