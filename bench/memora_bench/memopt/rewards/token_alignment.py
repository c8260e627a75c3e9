"""Faithfulness across tokenizers: a frozen evaluator of another model family (e.g. Qwen2.5 judging a SmolLM2
writer) cannot be teacher-forced on the writer's token ids. The candidate text is re-tokenised with the
evaluator's tokenizer, scored there, and each writer token takes the lowest score of the evaluator tokens whose
character spans overlap its own (a writer token is as faithful as its least supported piece).

Character spans:
- writer tokens: the growth of the decoded prefix, decode(ids[:t + 1]) vs decode(ids[:t]) (a token that adds no
  characters, e.g. half of a multi-byte character, gets an empty span at that position);
- evaluator tokens: the fast tokenizer's offset mapping over the same decoded text.
"""
from __future__ import annotations

import torch

Span = tuple[int, int]


def writer_spans(tokenizer, ids: list[int]) -> tuple[str, list[Span]]:
    """(decoded text, per-token character span) of a writer completion; special tokens decode to nothing."""
    spans, prev = [], 0
    for t in range(len(ids)):
        end = len(tokenizer.decode(ids[:t + 1], skip_special_tokens=True))
        end = max(end, prev)
        spans.append((prev, end))
        prev = end
    return tokenizer.decode(ids, skip_special_tokens=True), spans


def evaluator_tokens(tokenizer, text: str) -> tuple[list[int], list[Span]]:
    """The evaluator's token ids for `text` and their character spans (no special tokens added)."""
    enc = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)
    return list(enc["input_ids"]), [(int(a), int(b)) for a, b in enc["offset_mapping"]]


def align_scores(targets: list[Span], sources: list[Span], scores: torch.Tensor) -> torch.Tensor:
    """Per target span, the minimum score of the source spans that overlap it. An empty target span takes the
    source span that contains its position (the one ending there when none does); 1.0 when no source span is
    near (nothing to judge). Two-pointer walk: linear in the number of spans."""
    out = torch.ones(len(targets))
    j = 0
    for i, (a, b) in enumerate(targets):
        while j < len(sources) and sources[j][1] <= a:
            j += 1
        if a == b:  # no characters of its own: judged with the piece it sits in
            k = j if j < len(sources) and sources[j][0] <= a else j - 1
            if 0 <= k < len(sources):
                out[i] = scores[k]
            continue
        k, lo = j, None
        while k < len(sources) and sources[k][0] < b:
            if sources[k][1] > a:
                lo = scores[k] if lo is None else min(lo, scores[k])
            k += 1
        if lo is not None:
            out[i] = lo
    return out
