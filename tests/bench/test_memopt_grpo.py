"""A real few-step GRPO run of MemOptTrainer (TRL GRPOTrainer subclass) with a tiny model built in code: token
advantages reach TRL's loss as (B, T), the KL to the frozen initial writer is in the loss, the weights move."""
from __future__ import annotations

import json

import pytest
import torch
from datasets import Dataset

from memora_core.store.embedding import HashingEmbedder

from memora_bench.memlife.types import Interval, MemoryEntry
from memora_bench.memopt.config import GrpoConfig, MemOptConfig, ModelConfig
from memora_bench.memopt.firm import FirmReward, key_str
from memora_bench.memopt.models import load_frozen, materialise_initial_writer
from memora_bench.memopt.replay_cache import CachedAction, QuestionReplay, ReplayCache
from memora_bench.memopt.run import grpo_args, train_log
from memora_bench.memopt.trainer import MemOptTrainer, pad_rewards


def test_pad_rewards_aligns_with_the_mask():
    mask = torch.tensor([[1, 1, 1], [1, 0, 0]])
    got = pad_rewards([torch.tensor([0.2, 0.4]), torch.tensor([1.0, 0.5, 0.5, 0.5])], mask)
    assert torch.allclose(got, torch.tensor([[0.2, 0.4, 0.3], [1.0, 0.5, 0.5]]))


class _Spy(MemOptTrainer):
    seen: list = []

    def _compute_loss(self, model, inputs):
        self.seen.append(inputs["advantages"].detach().clone())
        return super()._compute_loss(model, inputs)


def test_few_step_grpo_run(tmp_path):
    cfg = MemOptConfig(model=ModelConfig(source="tiny_random"),
                       grpo=GrpoConfig(num_generations=2, max_completion_length=6, segments_per_step=2, epochs=2,
                                       learning_rate=1e-2, beta=0.1))
    folder = materialise_initial_writer(cfg.model, tmp_path)
    evaluator, tok = load_frozen(folder)
    policy, _ = load_frozen(folder)
    for p in policy.parameters():
        p.requires_grad_(True)
    before = {n: p.detach().clone() for n, p in policy.named_parameters()}
    keys = [("P01", "P01_01", 0), ("P01", "P01_01", 1)]
    spans = [Interval(start=0, end=30), Interval(start=30, end=60)]
    entries = [MemoryEntry(participant_id=k[0], video_id=k[1], segment_index=k[2], t_start=s.start, t_end=s.end,
                           text=t, writer_id="test") for k, s, t in zip(keys, spans, ["I took the cup", "I ate"])]
    emb = HashingEmbedder()
    cache = ReplayCache(entries=entries, vectors=emb.embed([e.text for e in entries]).tolist(), questions=[
        QuestionReplay(question_id="q", evidence=[keys[0]],
                       actions=[CachedAction(kind="search", query_vec=emb.embed(["cup"])[0].tolist(), budget=1)])])
    firm = FirmReward(evaluator=evaluator, tokenizer=tok, embedder=emb,
                      sources={key_str(k): f"PERCEPTION: segment {k[2]}" for k in keys},
                      intervals={key_str(k): s for k, s in zip(keys, spans)},
                      facts={key_str(keys[0]): ["I took the cup."]}, max_prompt_tokens=256, cache=cache)
    data = Dataset.from_list([{"prompt": [{"role": "user", "content": f"Write segment {k[2]}"}],
                               "seg_key": key_str(k)} for k in keys])
    trainer = _Spy(model=policy, args=grpo_args(cfg, tmp_path, len(keys), progress=False), train_dataset=data,
                   processing_class=tok, firm=firm, kappa=cfg.grpo.kappa, reward_log=tmp_path / "rewards.jsonl")
    trainer.train()

    assert trainer.state.global_step == 2
    assert trainer.ref_model is not None  # the frozen initial writer, for the KL term in the loss
    adv = _Spy.seen[0]
    assert adv.dim() == 2 and adv.shape[0] == 4  # (B, T): token-level advantages reach TRL's loss
    assert any(not torch.equal(before[n], p.detach()) for n, p in policy.named_parameters())
    log = train_log(trainer.state.log_history)["steps"]
    assert [s["step"] for s in log] == [1, 2]
    for s in log:
        assert 0.0 <= s["reward"] <= 1.0 and s["kl"] is not None and s["loss"] is not None
        assert 0.0 <= s["faithfulness"] <= 1.0 and 0.0 <= s["informativeness"] <= 1.0
        assert 0.0 <= s["retrievability"] <= 1.0
    json.dumps(log)
    rows = [json.loads(x) for x in (tmp_path / "rewards.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [1, 2]
    for r, s in zip(rows, log):  # one line per step: each candidate's mean reward, their mean is TRL's `reward`
        assert len(r["rewards"]) == 4 and sorted(set(r["seg_keys"])) == sorted(key_str(k) for k in keys)
        assert sum(r["rewards"]) / 4 == pytest.approx(s["reward"], abs=1e-4)
        assert len(r["texts"]) == 4 and all(0.0 <= v <= 1.0 for v in r["validity_each"])
        assert sum(r["validity_each"]) / 4 == pytest.approx(s["validity"], abs=1e-4)
