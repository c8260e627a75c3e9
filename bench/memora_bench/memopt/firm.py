"""FIRM: the per-token reward F x I x R, as a TRL reward function that also keeps the token-level rewards.

TRL calls a reward function once per generation batch and wants one number per completion; `FirmReward` returns
each candidate's mean token reward (what TRL logs as `reward`) and keeps the (token) rewards of the batch in
`last_token_rewards` for `MemOptTrainer`, which turns them into token advantages.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import torch

from memora_core.schemas import SegmentObservation
from memora_core.store.embedding import Embedder

from memora_bench.memlife.types import EntryKey, Interval, SegmentInput
from memora_bench.memopt.replay_cache import ReplayCache
from memora_bench.memopt.rewards.faithfulness import token_faithfulness
from memora_bench.memopt.rewards.informativeness import informativeness
from memora_bench.memopt.rewards.retrievability import retrievability


def source_text(seg: SegmentInput) -> str:
    """What the evaluators see of a segment: its perception (null fields dropped) and transcript."""
    obs = SegmentObservation.model_validate_json(seg.perception_json)
    perception = obs.model_dump_json(exclude_none=True, exclude_defaults=True)
    return f"PERCEPTION: {perception}\nTRANSCRIPT: {seg.transcript.strip() or '(nothing said)'}"


def key_str(key: EntryKey) -> str:
    return json.dumps(list(key))


def completion_text(completion) -> str:
    if isinstance(completion, list):  # conversational: [{"role": "assistant", "content": ...}]
        return "".join(m.get("content", "") for m in completion if isinstance(m, dict))
    return str(completion)


@dataclass
class FirmReward:
    evaluator: object  # frozen causal LM judging faithfulness
    tokenizer: object
    embedder: Embedder
    sources: dict[str, str]              # key_str -> source text
    intervals: dict[str, Interval]       # key_str -> the segment's global interval
    facts: dict[str, list[str]]          # key_str -> key facts of the training questions it is evidence for
    max_prompt_tokens: int = 1024
    initial_writer: object = None        # frozen copy of the initial writer (informativeness); None: the evaluator
    cache: ReplayCache | None = None     # set at each epoch start
    last_token_rewards: list[torch.Tensor] = field(default_factory=list)
    last_components: dict[str, float] = field(default_factory=dict)

    def score(self, key: str, text: str, ids: list[int]) -> tuple[torch.Tensor, float, float, float]:
        """(token rewards, mean F, I, R) of one candidate."""
        f = token_faithfulness(self.evaluator, self.tokenizer, self.sources[key], text, ids, self.max_prompt_tokens)
        i = informativeness(self.initial_writer or self.evaluator, self.tokenizer, text, self.facts.get(key, []))
        r = 1.0
        if self.cache is not None:
            vec = np.asarray(self.embedder.embed([text])[0], dtype=np.float32)
            r = retrievability(self.cache, tuple(json.loads(key)), self.intervals[key], vec)
        return f * i * r, float(f.mean()) if len(f) else 0.0, i, r

    def __call__(self, prompts, completions, completion_ids, seg_key, **_) -> list[float]:
        self.last_token_rewards, sums = [], {"faithfulness": 0.0, "informativeness": 0.0, "retrievability": 0.0}
        means = []
        for comp, ids, key in zip(completions, completion_ids, seg_key):
            tok, f, i, r = self.score(key, completion_text(comp), list(ids))
            self.last_token_rewards.append(tok)
            means.append(float(tok.mean()) if len(tok) else 0.0)
            sums["faithfulness"] += f
            sums["informativeness"] += i
            sums["retrievability"] += r
        n = max(len(means), 1)
        self.last_components = {k: v / n for k, v in sums.items()}
        return means
