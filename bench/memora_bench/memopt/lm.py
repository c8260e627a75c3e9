"""Small causal-LM helpers shared by the frozen evaluators: chat prompts as ids, teacher forcing, greedy text."""
from __future__ import annotations

import torch


def prompt_ids(tokenizer, messages: list[dict], max_prompt_tokens: int) -> list[int]:
    """The chat prompt (with the assistant turn opened) as token ids, keeping its last `max_prompt_tokens`."""
    ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
    if isinstance(ids, dict) or hasattr(ids, "input_ids"):
        ids = ids["input_ids"]
    return list(ids)[-max_prompt_tokens:]


def _left_padded(rows: list[list[int]], pad_id: int, device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """Left-padded (ids, attention mask, position ids): every row's last token sits in the last column."""
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, width - len(r):] = torch.tensor(r, dtype=torch.long)
        mask[i, width - len(r):] = 1
    pos = (mask.cumsum(dim=1) - 1).clamp(min=0)
    return ids.to(device), mask.to(device), pos.to(device)


@torch.no_grad()
def batched_continuation_logits(model, prompts: list[list[int]], completions: list[list[int]], pad_id: int,
                                batch: int = 8) -> list[torch.Tensor]:
    """Teacher forcing: per (prompt, completion), (len(completion), vocab) logits, row t predicting completion[t]
    after prompt + completion[:t]; `batch` rows per forward pass (left padding; only the completion positions
    go through the LM head)."""
    out: list[torch.Tensor] = []
    for s in range(0, len(prompts), batch):
        ps, cs = prompts[s:s + batch], completions[s:s + batch]
        keep = max(len(c) for c in cs) + 1
        ids, mask, pos = _left_padded([p + c for p, c in zip(ps, cs)], pad_id, model.device)
        logits = model(input_ids=ids, attention_mask=mask, position_ids=pos, logits_to_keep=keep).logits.float()
        for i, c in enumerate(cs):
            first = keep - 1 - len(c)
            out.append(logits[i, first:first + len(c)].cpu() if c else torch.zeros(0, logits.shape[-1]))
    return out


@torch.no_grad()
def batched_next_token_logits(model, prompts: list[list[int]], pad_id: int, batch: int = 8) -> torch.Tensor:
    """(len(prompts), vocab) next-token logits, `batch` prompts per forward pass (left padding)."""
    rows = []
    for s in range(0, len(prompts), batch):
        ids, mask, pos = _left_padded(prompts[s:s + batch], pad_id, model.device)
        rows.append(model(input_ids=ids, attention_mask=mask, position_ids=pos, logits_to_keep=1).logits[:, -1]
                    .float().cpu())
    return torch.cat(rows) if rows else torch.zeros(0)


@torch.no_grad()
def greedy_batch(model, tokenizer, prompts: list[list[int]], max_new_tokens: int, batch: int = 8) -> list[str]:
    """Greedy decoding of at most `max_new_tokens` per prompt (special tokens dropped), `batch` prompts per
    `generate` call (left padding)."""
    out: list[str] = []
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else tokenizer.eos_token_id
    for s in range(0, len(prompts), batch):
        ids, mask, _ = _left_padded(prompts[s:s + batch], pad, model.device)
        gen = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=max_new_tokens, do_sample=False,
                             pad_token_id=pad)
        out += [tokenizer.decode(row, skip_special_tokens=True).strip() for row in gen[:, ids.shape[1]:]]
    return out
