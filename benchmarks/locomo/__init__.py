"""Parts of the LoCoMo benchmark (``benchmarks.locomo_bench``): the dataset reader (``data``), the
context builders compared (``methods``) and the statistics and tables (``report``)."""
