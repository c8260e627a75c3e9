"""MemOpt's held-out MEMORA-Bench scoring (memopt/benchmark.py): a writer model's memory over the participant's
whole history, read and scored exactly as the memlife condition; entries are cached and reused."""
from __future__ import annotations

import pytest

from memora_core.config import EmbeddingConfig

from memora_bench.data import BenchData
from memora_bench.memlife.condition import run_memlife
from memora_bench.memlife.config import MemLifeConfig
from memora_bench.memlife.writer import TemplateWriter
from memora_bench.memopt.benchmark import benchmark_scores
from memora_bench.memopt.config import EvalConfig, MemOptConfig
from memora_bench.memopt.models import smollm2_tokenizer, tiny_model


@pytest.mark.slow
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


def test_report_page_with_and_without_benchmark_figures(tmp_path):
    from memora_bench.memopt.data import MemOptData
    from memora_bench.memopt.report import write_report

    scores = {"accuracy": 0.25, "recall": 0.5, "oracle_accuracy": 0.75}
    tlog = {"steps": [{"step": i, "reward": 0.1 * i, "faithfulness": 0.9, "informativeness": 0.5,
                       "retrievability": 1.0, "kl": 0.0, "loss": 0.0} for i in (1, 2)]}
    data = MemOptData(seed=0, splits={}, train=[], validation=[], test=[])
    result = {"test_participants": ["P02"], "untrained": scores, "trained": scores}
    page = write_report(tmp_path, MemOptConfig(), tlog, result, data, {}, {}).read_text()
    assert "benchmark-P28" not in page and "reward_curve.png" in page
    bench = {"P28": {"untrained": {**scores, "n": 164}, "trained": {**scores, "accuracy": 0.125, "n": 164}}}
    page = write_report(tmp_path, MemOptConfig(), tlog, {**result, "benchmark": bench}, data, {}, {}).read_text()
    assert "benchmark-P28" in page and "164 items" in page and "0.125" in page
