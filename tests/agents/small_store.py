"""A small real memory for the LLM-path tests: the first shared EPIC narrations through the real writer,
consolidated (bench/benchmarks/fuzz_bench.build_store), under the `memora` condition."""
from __future__ import annotations

import importlib.util
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memora_core.conditions import build_condition

_BENCH = Path(__file__).resolve().parents[2] / "bench" / "benchmarks" / "fuzz_bench.py"


@contextmanager
def small_memory(rows: int = 150) -> Iterator[object]:
    spec = importlib.util.spec_from_file_location("fuzz_bench_store", _BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with tempfile.TemporaryDirectory() as tmp:
        store = module.build_store(Path(tmp), rows=rows)
        try:
            yield build_condition("memora", store, module.PID)
        finally:
            store.close()
