"""`memora-bench memopt` end to end with a tiny model built in code: outputs in their schema, a rerun resumes
from the last checkpoint (no new steps) instead of training again; a bad config is one line and exit 1."""
from __future__ import annotations

import json

import pytest

from memora_bench.cli import main

TINY_YAML = """name: unit-tiny
model: {source: tiny_random}
data:
  segments: {train: 2, validation: 2, test: 2}
  max_prompt_json_chars: 300
rewards: {fact_max_new_tokens: 6, max_prompt_tokens: 256, embedder: hashing}
grpo: {num_generations: 2, max_completion_length: 6, segments_per_step: 2, epochs: 2, learning_rate: 1.0e-3}
reader: {search_k: 1}
eval: {write_max_new_tokens: 6, html_entries: 2}
"""


@pytest.mark.slow
def test_memopt_cli_end_to_end_and_resume(shared_data, tmp_path, capsys):
    cfg = tmp_path / "tiny.yaml"
    cfg.write_text(TINY_YAML)
    out = tmp_path / "run"
    argv = ["memopt", "--config", str(cfg), "--out", str(out), "--data", str(shared_data), "--no-progress"]
    assert main(argv) == 0
    log = json.loads((out / "train_log.json").read_text())
    assert [s["step"] for s in log["steps"]] == [1, 2]
    for s in log["steps"]:
        assert set(s) == {"step", "reward", "faithfulness", "informativeness", "retrievability", "validity", "kl",
                          "loss"}
        assert all(v is not None for v in s.values())
    ev = json.loads((out / "eval.json").read_text())
    for side in ("untrained", "trained"):
        assert all(0.0 <= ev[side][k] <= 1.0 for k in ("accuracy", "recall", "oracle_accuracy"))
    assert (out / "reward_curve.png").stat().st_size > 1000
    page = (out / "report.html").read_text()
    assert "untrained writer" in page and "trained writer" in page and "reward_curve.png" in page
    assert json.loads((out / "best.json").read_text())["history"]
    first = (out / "train_log.json").read_text()
    assert main(argv) == 0  # resumes from checkpoint-2: nothing left to train, same log
    assert json.loads((out / "train_log.json").read_text()) == json.loads(first)


def test_memopt_cli_bad_config_is_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("grpo: {num_generations: 1}\n")
    assert main(["memopt", "--config", str(bad), "--out", str(tmp_path / "o")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("memora-bench memopt: error:")
    assert f"{bad}: grpo.num_generations:" in err[0]
    assert main(["memopt", "--config", "no-such-config", "--out", str(tmp_path / "o")]) == 1
    assert not (tmp_path / "o").exists()
