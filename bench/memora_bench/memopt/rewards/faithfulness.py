"""Faithfulness (token level): does a frozen evaluator, asked to reproduce the candidate where the source
segment supports it and minimally correct unsupported spans, keep each candidate token?

Teacher-forced on the candidate, token t scores p(token_t) / max_v p(v) under the evaluator: 1 when the token is
the evaluator's most probable continuation, falling towards 0 as the evaluator prefers a correction.
"""
from __future__ import annotations

import torch

from memora_bench.memopt.lm import continuation_logits, prompt_ids

EVALUATOR_SYSTEM = ("You check a first-person memory entry against the source it was written from. Reproduce the "
                    "entry word for word wherever the source supports it; where a span is not supported, replace "
                    "only that span with the minimal correction the source supports. Output only the entry.")


def evaluator_messages(source: str, candidate: str) -> list[dict]:
    """The evaluator's chat prompt: source and entry shown; the entry is then teacher-forced as the reply."""
    user = f"SOURCE:\n{source}\n\nENTRY:\n{candidate}\n\nChecked entry:"
    return [{"role": "system", "content": EVALUATOR_SYSTEM}, {"role": "user", "content": user}]


def ratio_to_max(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """(T, V) logits, (T,) target ids -> (T,) p(target) / max p, in (0, 1]."""
    logp = torch.log_softmax(logits.float(), dim=-1)
    chosen = logp.gather(1, targets.view(-1, 1)).squeeze(1)
    return torch.exp(chosen - logp.max(dim=-1).values)


def token_faithfulness(model, tokenizer, source: str, candidate_text: str, completion_ids: list[int],
                       max_prompt_tokens: int = 1536) -> torch.Tensor:
    """(len(completion_ids),) faithfulness of each candidate token under the frozen evaluator `model`."""
    if not completion_ids:
        return torch.zeros(0)
    prompt = prompt_ids(tokenizer, evaluator_messages(source, candidate_text), max_prompt_tokens)
    logits = continuation_logits(model, prompt, list(completion_ids))
    return ratio_to_max(logits, torch.tensor(list(completion_ids), dtype=torch.long))
