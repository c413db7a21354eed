"""The council benchmark's parts (``benchmarks.council_bench``): LLM members (``llm``)."""
