"""vLLM in-process, for GPU hosts only. Optional extra (`pip install vllm==0.31.0`, which matches
torch==2.13.0); imported lazily so CPU machines never need it."""
from __future__ import annotations

from typing import Any

from memora_core.llm.base import LLMBackend, LLMConfig, LLMReply, register_backend
from memora_core.llm.parsing import parse_tool_calls


class VLLMBackend(LLMBackend):
    name = "vllm_inprocess"

    def __init__(self, config: LLMConfig) -> None:
        try:
            from vllm import LLM, SamplingParams
        except ImportError as exc:
            raise RuntimeError("backend vllm_inprocess needs the optional extra vllm==0.31.0 on a GPU host") from exc
        c = config.vllm_inprocess
        self.config = config
        self.llm = LLM(model=c.model, gpu_memory_utilization=c.gpu_memory_utilization, max_model_len=c.max_model_len)
        self._params = SamplingParams

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             *, max_new_tokens: int | None = None) -> LLMReply:
        params = self._params(temperature=self.config.temperature,
                              max_tokens=max_new_tokens or self.config.max_new_tokens)
        out = self.llm.chat(messages, params, tools=tools or None)
        text = out[0].outputs[0].text if out and out[0].outputs else ""
        return LLMReply(text=text, tool_calls=parse_tool_calls(text) if tools else [], finish_reason="stop")


@register_backend("vllm_inprocess")
def _make(config: LLMConfig) -> LLMBackend:
    return VLLMBackend(config)
