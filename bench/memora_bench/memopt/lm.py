"""Small causal-LM helpers shared by the frozen evaluators: chat prompts as ids, teacher forcing, greedy text."""
from __future__ import annotations

import torch


def prompt_ids(tokenizer, messages: list[dict], max_prompt_tokens: int) -> list[int]:
    """The chat prompt (with the assistant turn opened) as token ids, keeping its last `max_prompt_tokens`."""
    ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
    if isinstance(ids, dict) or hasattr(ids, "input_ids"):
        ids = ids["input_ids"]
    return list(ids)[-max_prompt_tokens:]


@torch.no_grad()
def continuation_logits(model, prompt: list[int], completion: list[int]) -> torch.Tensor:
    """Teacher forcing: (len(completion), vocab) logits, row t predicting completion[t] after prompt + completion[:t]."""
    if not completion:
        return torch.zeros(0, model.config.vocab_size)
    ids = torch.tensor([prompt + completion], dtype=torch.long, device=model.device)
    logits = model(input_ids=ids).logits[0].float()
    return logits[len(prompt) - 1: len(prompt) - 1 + len(completion)].cpu()


@torch.no_grad()
def next_token_logits(model, prompt: list[int]) -> torch.Tensor:
    """(vocab,) logits of the token after `prompt`."""
    ids = torch.tensor([prompt], dtype=torch.long, device=model.device)
    return model(input_ids=ids).logits[0, -1].float().cpu()


@torch.no_grad()
def greedy(model, tokenizer, prompt: list[int], max_new_tokens: int) -> str:
    """Greedy decoding of at most `max_new_tokens`, special tokens dropped."""
    ids = torch.tensor([prompt], dtype=torch.long, device=model.device)
    out = model.generate(input_ids=ids, attention_mask=torch.ones_like(ids), max_new_tokens=max_new_tokens,
                         do_sample=False, pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id)
    return tokenizer.decode(out[0, len(prompt):], skip_special_tokens=True).strip()
