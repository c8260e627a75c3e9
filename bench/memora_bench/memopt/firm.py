"""FIRM: the per-token reward F x I x R, gated by entry validity V (rewards/validity.py: a copy of the structured
input is not a first-person memory entry and earns ~0), as a TRL reward function that also keeps the token-level
rewards.

TRL calls a reward function once per generation batch and wants one number per completion; `FirmReward` returns
each candidate's mean token reward (what TRL logs as `reward`) and keeps the (token) rewards of the batch in
`last_token_rewards` for `MemOptTrainer`, which turns them into token advantages.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np
import torch

from memora_core.store.embedding import Embedder

from memora_bench.memlife.types import EntryKey, Interval, SegmentInput
from memora_bench.memopt.compact import compact_perception
from memora_bench.memopt.replay_cache import ReplayCache
from memora_bench.memopt.rewards.faithfulness import token_faithfulness_batch
from memora_bench.memopt.rewards.informativeness import informativeness_batch
from memora_bench.memopt.rewards.retrievability import retrievability
from memora_bench.memopt.rewards.validity import entry_validity


def source_text(seg: SegmentInput, max_chars: int) -> str:
    """What the evaluators see of a segment: the writer's compact perception (memopt/compact.py) and transcript."""
    perception = compact_perception(seg.perception_json, max_chars)
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
    evaluator_tokenizer: object = None   # the evaluator's own tokenizer when its family differs; None: `tokenizer`
    cache: ReplayCache | None = None     # set at each epoch start
    last_token_rewards: list[torch.Tensor] = field(default_factory=list)
    last_components: dict[str, float] = field(default_factory=dict)
    last_keys: list[str] = field(default_factory=list)
    last_texts: list[str] = field(default_factory=list)
    last_validity: list[float] = field(default_factory=list)

    def score_batch(self, keys: list[str], texts: list[str], ids: list[list[int]]
                    ) -> list[tuple[torch.Tensor, float, float, float, float]]:
        """(token rewards F x I x R x V, mean F, I, R, V) of each candidate; the evaluators' passes are batched."""
        fs = token_faithfulness_batch(self.evaluator, self.tokenizer, [self.sources[k] for k in keys], texts, ids,
                                      self.max_prompt_tokens, evaluator_tokenizer=self.evaluator_tokenizer)
        info_model, info_tok = ((self.initial_writer, self.tokenizer) if self.initial_writer is not None
                                else (self.evaluator, self.evaluator_tokenizer or self.tokenizer))
        infs = informativeness_batch(info_model, info_tok, texts, [self.facts.get(k, []) for k in keys],
                                     self.max_prompt_tokens)
        rs = [1.0] * len(keys)
        if self.cache is not None and keys:
            vecs = np.asarray(self.embedder.embed(texts), dtype=np.float32)
            rs = [retrievability(self.cache, tuple(json.loads(k)), self.intervals[k], v) for k, v in zip(keys, vecs)]
        vs = [entry_validity(t).score for t in texts]
        return [(f * i * r * v, float(f.mean()) if len(f) else 0.0, i, r, v) for f, i, r, v in zip(fs, infs, rs, vs)]

    def score(self, key: str, text: str, ids: list[int]) -> tuple[torch.Tensor, float, float, float, float]:
        """(token rewards, mean F, I, R, V) of one candidate."""
        return self.score_batch([key], [text], [ids])[0]

    def __call__(self, prompts, completions, completion_ids, seg_key, **_) -> list[float]:
        texts = [completion_text(c) for c in completions]
        scored = self.score_batch(list(seg_key), texts, [list(i) for i in completion_ids])
        self.last_token_rewards, self.last_keys = [tok for tok, *_ in scored], list(seg_key)
        self.last_texts, self.last_validity = texts, [row[4] for row in scored]
        means = [float(tok.mean()) if len(tok) else 0.0 for tok in self.last_token_rewards]
        n = max(len(scored), 1)
        self.last_components = {name: sum(row[j] for row in scored) / n
                                for j, name in ((1, "faithfulness"), (2, "informativeness"), (3, "retrievability"),
                                                          (4, "validity"))}
        return means
