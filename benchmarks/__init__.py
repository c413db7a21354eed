"""Parley's benchmarks: speed, and how well the memory mechanisms and agents do, each against a
baseline measured in the same run.

Run one from the repository root as a module::

    python -m benchmarks.NAME --help

The runnable benchmarks are the modules at this level: ``engine_bench`` (engine throughput),
``agents_bench`` (negotiator round robin), ``tournament_bench`` (Parley against NegMAS),
``tournament_scaling``, ``autopilot_bench``, ``trust_bench`` (with ``trust_settings``; ``trust_page`` writes
its docs page, not run itself) and ``trust_e2e_bench`` (Sigma-Mem),
``gate_bench`` (the consistency gate), ``context_bench`` and ``context_latency`` (MEMO),
``locomo_bench`` (MEMO on the LoCoMo conversations, data not included),
``council_bench`` (council debates), ``memory_cost_bench``, ``store_bench``, ``tui_bench``,
``client_overhead``, ``textarena_bench`` and ``gym_soak``.

The subpackages hold what they share and are not run themselves: ``lib`` (statistics on scipy,
seed lists and JSON output), and the parts of the larger benchmarks, ``context``, ``gate``,
``council`` and ``locomo``. ``context_bench`` writes its results under ``benchmarks/results/`` (ignored by git).
"""
