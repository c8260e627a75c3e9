"""The frozen FIRM evaluator ("judge"): which model scores faithfulness and, optionally, informativeness.

`rewards.evaluator` (memopt/config.py) picks it:
- initial_writer: the frozen copy of the initial writer (shares the writer's tokenizer);
- pretrained: a local Hugging Face folder (`rewards.evaluator_path`);
- gguf: a local GGUF file (`rewards.evaluator_path`, e.g. models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf made by
  scripts/fetch_qwen_gguf.sh), loaded through transformers (`gguf_file=`; the weights are de-quantised to torch).
A judge of another model family has its own tokenizer: faithfulness maps its token scores back onto the writer's
tokens (rewards/token_alignment.py). Nothing is downloaded: a missing file raises `EvaluatorNotFound`.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import torch

from memora_core.config import REPO_ROOT

from memora_bench.memopt.config import RewardConfig


class EvaluatorNotFound(FileNotFoundError):
    """The configured evaluator file or folder does not exist on this machine."""


@dataclass(frozen=True)
class Judge:
    model: object       # frozen causal LM, eval mode, gradients off
    tokenizer: object   # its own tokenizer (pad token set)
    label: str          # what it is, for logs and reports


def evaluator_location(cfg: RewardConfig) -> Path:
    """The evaluator's file/folder; a relative path is taken from the repository root."""
    if not cfg.evaluator_path:
        raise ValueError(f"rewards.evaluator_path is required for rewards.evaluator={cfg.evaluator}")
    path = Path(cfg.evaluator_path)
    return path if path.is_absolute() else REPO_ROOT / path


def freeze(model, tokenizer, label: str) -> Judge:
    model.eval()
    model.to("cuda" if torch.cuda.is_available() else "cpu")
    for p in model.parameters():
        p.requires_grad_(False)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return Judge(model=model, tokenizer=tokenizer, label=label)


def load_judge(cfg: RewardConfig, initial: Judge, dtype: str = "float32") -> Judge:
    """The configured judge; `initial` (the frozen initial writer) is returned for evaluator=initial_writer."""
    if cfg.evaluator == "initial_writer":
        return initial
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = evaluator_location(cfg)
    if cfg.evaluator == "gguf":
        if not path.is_file():
            raise EvaluatorNotFound(f"{path}: no such GGUF evaluator (make it with scripts/fetch_qwen_gguf.sh)")
        tok = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
        model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=getattr(torch, dtype))
    else:
        if not (path / "config.json").is_file():
            raise EvaluatorNotFound(f"{path}: no Hugging Face model folder (config.json) for the evaluator")
        tok = AutoTokenizer.from_pretrained(path)
        model = AutoModelForCausalLM.from_pretrained(path, dtype=getattr(torch, dtype))
    return freeze(model, tok, f"{cfg.evaluator}:{path.name}")
