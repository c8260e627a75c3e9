"""The writer policy's starting point: materialised once as a Hugging Face folder (<out>/initial_writer), so the
policy, TRL's frozen reference (KL) and the frozen evaluators all load the same initial weights from disk."""
from __future__ import annotations

import functools
from pathlib import Path

import torch

from memora_bench.memopt.config import ModelConfig

TINY = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
            num_key_value_heads=2, max_position_embeddings=4096)


@functools.lru_cache(maxsize=1)
def smollm2_tokenizer():
    """SmolLM2's tokenizer from the GGUF (parsed once per process: the GGUF read takes seconds)."""
    from transformers import AutoTokenizer

    from memora_core.llm.transformers_local import smollm2_gguf

    g = smollm2_gguf()
    tok = AutoTokenizer.from_pretrained(g.parent, gguf_file=g.name)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    return tok


def tiny_model(tokenizer, seed: int = 0):
    """A tiny randomly initialised Llama over SmolLM2's vocabulary (unit tests: seconds, no download)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=len(tokenizer), bos_token_id=tokenizer.bos_token_id,
                      eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id, **TINY)
    return LlamaForCausalLM(cfg)


def dequantised_copy(model):
    """A GGUF-loaded model is flagged quantised and refuses save_pretrained: the same (already de-quantised)
    weights in a plain model of the same config."""
    from transformers import AutoModelForCausalLM

    cfg = model.config
    if hasattr(cfg, "quantization_config"):
        del cfg.quantization_config
    plain = AutoModelForCausalLM.from_config(cfg, dtype=model.dtype)
    plain.load_state_dict(model.state_dict(), strict=True)
    return plain


def materialise_initial_writer(cfg: ModelConfig, out: Path) -> Path:
    """<out>/initial_writer (model + tokenizer), written once; returns the folder."""
    folder = out / "initial_writer"
    if (folder / "config.json").exists():
        return folder
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if cfg.source == "pretrained":
        if not cfg.path:
            raise ValueError("model.path is required for source=pretrained")
        tok = AutoTokenizer.from_pretrained(cfg.path)
        model = AutoModelForCausalLM.from_pretrained(cfg.path, dtype=getattr(torch, cfg.dtype))
    else:
        tok = smollm2_tokenizer()
        if cfg.source == "tiny_random":
            model = tiny_model(tok)
        else:
            from memora_core.llm.transformers_local import smollm2_gguf

            g = smollm2_gguf()
            gguf = AutoModelForCausalLM.from_pretrained(g.parent, gguf_file=g.name, dtype=getattr(torch, cfg.dtype))
            model = dequantised_copy(gguf)
    if tok.pad_token is None:
        tok.pad_token = tok.eos_token
    model.generation_config.pad_token_id = tok.pad_token_id
    tmp = folder.with_name(".initial_writer.tmp")
    model.save_pretrained(tmp)
    tok.save_pretrained(tmp)
    tmp.replace(folder)
    return folder


def load_frozen(folder: Path | str, dtype: str = "float32"):
    """(model, tokenizer) in eval mode with gradients off, on the GPU when there is one."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=getattr(torch, dtype)).eval()
    model.to("cuda" if torch.cuda.is_available() else "cpu")
    for p in model.parameters():
        p.requires_grad_(False)
    return model, tok
