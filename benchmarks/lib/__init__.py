"""What the benchmarks share: statistics (``stats``) and command-line helpers (``cli``)."""
