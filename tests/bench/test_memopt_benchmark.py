"""MemOpt's held-out MEMORA-Bench scoring (memopt/benchmark.py): a writer model's memory over the participant's
whole history, read and scored exactly as the memlife condition; entries are cached and reused."""
from __future__ import annotations

from memora_core.config import EmbeddingConfig

from memora_bench.data import BenchData
from memora_bench.memlife.condition import run_memlife
from memora_bench.memlife.config import MemLifeConfig
from memora_bench.memlife.writer import TemplateWriter
from memora_bench.memopt.benchmark import benchmark_scores
from memora_bench.memopt.config import EvalConfig, MemOptConfig
from memora_bench.memopt.models import smollm2_tokenizer, tiny_model


def test_benchmark_scores_are_the_memlife_condition_figures(compact_root, tmp_path):
    tok = smollm2_tokenizer()
    model = tiny_model(tok).eval()
    cfg = MemOptConfig(eval=EvalConfig(write_max_new_tokens=4))
    mcfg = MemLifeConfig(embedding=EmbeddingConfig(backend="hashing"))
    got = benchmark_scores(model, tok, cfg, compact_root, "PX1", tmp_path, "untrained", mcfg)
    assert got["n"] == 3 and got["n_answerable"] == 2 and got["entries"] == 4
    assert all(0.0 <= got[k] <= 1.0 for k in ("accuracy", "recall", "oracle_accuracy"))
    cache = tmp_path / "benchmark" / "PX1" / "untrained.jsonl"
    assert len(cache.read_text().splitlines()) == 4

    # the same entries as the template writer's -> the memlife condition's figures, from the cache (no writing)
    data = BenchData(compact_root)
    _, block = run_memlife(data, "PX1", data.eam_qa("PX1").items, tmp_path / "ml", cfg=mcfg, progress=False)
    template = (tmp_path / "ml" / "memlife" / "PX1" / "entries.jsonl").read_text()
    cache.write_text(template)

    def no_writing(*a, **k):
        raise AssertionError("cached entries must be reused")

    model.generate = no_writing
    again = benchmark_scores(model, tok, cfg, compact_root, "PX1", tmp_path, "untrained", mcfg)
    assert again["entries"] == 4 and TemplateWriter.writer_id in template
    for k in ("accuracy", "recall", "oracle_accuracy", "n", "n_answerable"):
        assert again[k] == block[k], k
