"""`MemOptTrainer`: a thin TRL 1.16 `GRPOTrainer` subclass with token-level FIRM advantages.

TRL generates the G candidates per segment, computes the reference (frozen initial writer) log-probs for the KL
term (`beta`, in the loss, not the reward) and applies PPO-style ratio clipping (`epsilon`) in its loss. The only
override is `_generate_and_score_completions`: after TRL scored the batch with `FirmReward` (one mean per
candidate, which it logs), the (B,) sequence advantages are replaced by (B, T) token advantages
(advantages.token_advantages) built from the per-token FIRM rewards; TRL's loss accepts a (B, T) tensor.
"""
from __future__ import annotations

import json
from pathlib import Path

import torch
from trl import GRPOTrainer

from memora_bench.memopt.advantages import token_advantages
from memora_bench.memopt.firm import FirmReward


def pad_rewards(rows: list[torch.Tensor], mask: torch.Tensor) -> torch.Tensor:
    """Per-candidate token rewards -> (B, T) aligned with the completion mask (a row shorter than its mask is
    continued with its mean, so a token TRL keeps but the scorer did not see is neither favoured nor punished)."""
    out = torch.zeros(mask.shape, dtype=torch.float32)
    for i, r in enumerate(rows):
        n = min(len(r), mask.shape[1])
        out[i, :n] = r[:n]
        if n < mask.shape[1]:
            out[i, n:] = float(r.mean()) if len(r) else 0.0
    return out.to(mask.device)


class MemOptTrainer(GRPOTrainer):
    """`reward_log`: a jsonl file that gets, per generation batch, the step, segment keys, each candidate's mean
    FIRM reward, validity gate and text (to see what the reward pays for; a resumed step appends again: readers
    keep the last line of a step)."""

    def __init__(self, *args, firm: FirmReward, kappa: float, reward_log: Path | None = None, **kwargs) -> None:
        self.firm, self.kappa, self.reward_log = firm, kappa, reward_log
        super().__init__(*args, reward_funcs=[firm], **kwargs)

    def _generate_and_score_completions(self, inputs):
        out = super()._generate_and_score_completions(inputs)
        mode = "train" if self.model.training else "eval"
        mask = out["completion_mask"]
        rewards = pad_rewards(self.firm.last_token_rewards, mask)
        group = self.num_generations if mode == "train" else self.num_generations_eval
        out["advantages"] = token_advantages(rewards, mask, group, self.kappa)
        for name, value in self.firm.last_components.items():
            self._metrics[mode][name].append(value)
        if self.reward_log is not None and mode == "train":
            row = {"step": self.state.global_step + 1, "seg_keys": list(self.firm.last_keys),
                   "rewards": [round(float(r.mean()) if len(r) else 0.0, 5) for r in self.firm.last_token_rewards],
                   "validity_each": [round(v, 5) for v in self.firm.last_validity], "texts": self.firm.last_texts,
                   **{k: round(v, 5) for k, v in self.firm.last_components.items()}}
            with self.reward_log.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(row) + "\n")
        return out
