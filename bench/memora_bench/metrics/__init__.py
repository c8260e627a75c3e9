"""Benchmark metrics: pure functions over plans/answers and references, each checked by hand-computed tests."""
