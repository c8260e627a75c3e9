"""Faithfulness (token level): does a frozen evaluator, asked to reproduce the candidate where the source
segment supports it and minimally correct unsupported spans, keep each candidate token?

Teacher-forced on the candidate, token t scores p(token_t) / max_v p(v) under the evaluator: 1 when the token is
the evaluator's most probable continuation, falling towards 0 as the evaluator prefers a correction.
"""
from __future__ import annotations

import torch

from memora_bench.memopt.lm import batched_continuation_logits, prompt_ids
from memora_bench.memopt.rewards.token_alignment import align_scores, evaluator_tokens, writer_spans

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
    return token_faithfulness_batch(model, tokenizer, [source], [candidate_text], [completion_ids],
                                    max_prompt_tokens)[0]


def token_faithfulness_batch(model, tokenizer, sources: list[str], candidate_texts: list[str],
                             completion_ids: list[list[int]], max_prompt_tokens: int = 1536,
                             batch: int = 8, evaluator_tokenizer=None) -> list[torch.Tensor]:
    """`token_faithfulness` of many candidates, the evaluator's forward passes batched. `tokenizer` made
    `completion_ids` (the writer's); `evaluator_tokenizer` (None: the same) is the evaluator's: when it differs,
    the candidate is re-tokenised for the evaluator and its scores mapped back onto the writer's tokens
    (rewards/token_alignment.py)."""
    judge_tok = evaluator_tokenizer if evaluator_tokenizer is not None else tokenizer
    out: list[torch.Tensor | None] = [torch.zeros(0) if not ids else None for ids in completion_ids]
    todo = [i for i, ids in enumerate(completion_ids) if ids]
    prompts = [prompt_ids(judge_tok, evaluator_messages(sources[i], candidate_texts[i]), max_prompt_tokens)
               for i in todo]
    if judge_tok is tokenizer:
        comps = [list(completion_ids[i]) for i in todo]
    else:
        spans = [writer_spans(tokenizer, list(completion_ids[i])) for i in todo]
        judged = [evaluator_tokens(judge_tok, text) for text, _ in spans]
        comps = [ids for ids, _ in judged]
    logits = batched_continuation_logits(model, prompts, comps, judge_tok.pad_token_id or 0, batch)
    for n, (i, lg, c) in enumerate(zip(todo, logits, comps)):
        scores = ratio_to_max(lg, torch.tensor(c, dtype=torch.long)) if c else torch.zeros(0)
        out[i] = scores if judge_tok is tokenizer else align_scores(spans[n][1], judged[n][1], scores)
    return out  # type: ignore[return-value]
