"""Informativeness: does the candidate entail the key facts the training questions need from this segment?

A frozen copy of the initial writer (1) extracts, once per (segment, training question whose evidence is this
segment), the key fact that supports the answer (greedy, cached by the caller), and (2) judges the probability
that the candidate entails each fact: p("Yes") / (p("Yes") + p("No")) for the reply's first token. The segment's
score is the mean over its facts. Questions and answers shape the reward only: the writer never sees them.
"""
from __future__ import annotations

import torch

from memora_bench.memopt.lm import batched_next_token_logits, greedy_batch, prompt_ids

FACT_SYSTEM = ("You read what happened in a short video segment and a question about the person. State in one "
               "short sentence the fact from the segment that supports the given answer.")
ENTAIL_SYSTEM = "You judge entailment. Reply with Yes or No only."


def fact_messages(source: str, question: str, answer: str) -> list[dict]:
    return [{"role": "system", "content": FACT_SYSTEM},
            {"role": "user", "content": f"SEGMENT:\n{source}\n\nQUESTION: {question}\nANSWER: {answer}\n\nFact:"}]


def entail_messages(candidate: str, fact: str) -> list[dict]:
    return [{"role": "system", "content": ENTAIL_SYSTEM},
            {"role": "user", "content": f"MEMORY: {candidate}\nFACT: {fact}\n"
                                        "Does the memory entail the fact? Answer Yes or No."}]


def extract_key_fact(model, tokenizer, source: str, question: str, answer: str, max_new_tokens: int = 48,
                     max_prompt_tokens: int = 1536) -> str:
    """The key fact (greedy, frozen initial writer); falls back to the answer text when the model says nothing."""
    return extract_key_facts(model, tokenizer, [(source, question, answer)], max_new_tokens, max_prompt_tokens)[0]


def extract_key_facts(model, tokenizer, cases: list[tuple[str, str, str]], max_new_tokens: int = 48,
                      max_prompt_tokens: int = 1536) -> list[str]:
    """`extract_key_fact` for many (source, question, answer), the greedy decoding batched."""
    prompts = [prompt_ids(tokenizer, fact_messages(*c), max_prompt_tokens) for c in cases]
    texts = greedy_batch(model, tokenizer, prompts, max_new_tokens)
    return [t.splitlines()[0].strip() if t.strip() else c[2] for t, c in zip(texts, cases)]


def answer_token_ids(tokenizer, words: tuple[str, ...]) -> list[int]:
    """First token id of each spelling of a one-word reply (with and without a leading space)."""
    ids = {tokenizer.encode(w, add_special_tokens=False)[0] for w in words}
    return sorted(ids)


def yes_probability(logits: torch.Tensor, yes_ids: list[int], no_ids: list[int]) -> float:
    """(V,) next-token logits -> p(Yes) / (p(Yes) + p(No)), summing each side's spellings."""
    p = torch.softmax(logits.float(), dim=-1)
    yes, no = float(p[yes_ids].sum()), float(p[no_ids].sum())
    return yes / (yes + no) if yes + no > 0 else 0.5


def entailment_probability(model, tokenizer, candidate: str, fact: str, max_prompt_tokens: int = 1024) -> float:
    return entailment_probabilities(model, tokenizer, [(candidate, fact)], max_prompt_tokens)[0]


def entailment_probabilities(model, tokenizer, pairs: list[tuple[str, str]], max_prompt_tokens: int = 1024,
                             batch: int = 8) -> list[float]:
    """p(Yes) / (p(Yes) + p(No)) for each (candidate, fact), the forward passes batched."""
    if not pairs:
        return []
    prompts = [prompt_ids(tokenizer, entail_messages(c, f), max_prompt_tokens) for c, f in pairs]
    logits = batched_next_token_logits(model, prompts, tokenizer.pad_token_id or 0, batch)
    yes, no = (answer_token_ids(tokenizer, ("Yes", " Yes", "yes")), answer_token_ids(tokenizer, ("No", " No", "no")))
    return [yes_probability(row, yes, no) for row in logits]


def informativeness(model, tokenizer, candidate: str, facts: list[str]) -> float:
    """Mean entailment probability over the segment's key facts; 1.0 (neutral) when it has none."""
    return informativeness_batch(model, tokenizer, [candidate], [facts])[0]


def informativeness_batch(model, tokenizer, candidates: list[str], facts: list[list[str]],
                          max_prompt_tokens: int = 1024) -> list[float]:
    """`informativeness` of many candidates (candidate i judged against facts[i]), all entailments batched."""
    pairs = [(c, f) for c, fs in zip(candidates, facts) for f in fs]
    probs = iter(entailment_probabilities(model, tokenizer, pairs, max_prompt_tokens))
    return [sum(next(probs) for _ in fs) / len(fs) if fs else 1.0 for fs in facts]
