"""The parts of ``benchmarks.llm_bench``: the endpoint and the per-move meter (``common``), the
LLM seats (``seats``), the negotiation part (``negotiation``), the adventure player at a forced
context limit (``adventure``) and the tables (``report``)."""
