"""The LLM seam: one interface, backends registered by name and chosen by configuration.

Contract: `LLMBackend.chat(messages, tools=None) -> LLMReply`. `messages` are OpenAI-style dicts
(role/content); `tools` are OpenAI function-calling schemas (see memora_core.tools.registry). A
backend that has native function calling fills `LLMReply.tool_calls`; others leave them empty and
the agent parses the text (memora_core.llm.parsing). Whatever a model says is untrusted.
"""
from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from memora_core.config import CONFIG_DIR, load_yaml

log = logging.getLogger(__name__)
LLM_CONFIG = CONFIG_DIR / "llm.yaml"


class _Cfg(BaseModel):
    model_config = ConfigDict(extra="forbid")


class OpenAIHTTPConfig(_Cfg):
    base_url: str = "http://127.0.0.1:8000/v1"
    model: str = "Qwen/Qwen2.5-7B-Instruct"
    api_key_env: str = "OPENAI_API_KEY"
    timeout_s: float = Field(default=60.0, gt=0)
    native_tools: bool = True


class TransformersLocalConfig(_Cfg):
    model: str = "smollm2"
    gguf_path: str | None = None
    threads: int = Field(default=1, ge=1)


class GPT4AllConfig(_Cfg):
    """A local GGUF through gpt4all's prebuilt llama.cpp CPU backend (never downloads; see gpt4all_local)."""
    model: str = "qwen_coder_05b"
    gguf_path: str | None = None
    threads: int = Field(default=2, ge=1)
    n_ctx: int = Field(default=4096, ge=512)
    n_batch: int = Field(default=128, ge=1)
    tools_in_template: bool = True
    reuse_prefix: bool = True
    prefill_first_tool_call: bool = False


class VLLMConfig(_Cfg):
    model: str = "Qwen/Qwen2.5-7B-Instruct"
    gpu_memory_utilization: float = Field(default=0.85, gt=0, le=1)
    max_model_len: int = Field(default=8192, ge=256)


class LLMConfig(_Cfg):
    backend: Literal["none", "openai_http", "transformers_local", "gpt4all", "vllm_inprocess"] = "none"
    max_new_tokens: int = Field(default=384, ge=1)
    temperature: float = Field(default=0.0, ge=0)
    openai_http: OpenAIHTTPConfig = Field(default_factory=OpenAIHTTPConfig)
    transformers_local: TransformersLocalConfig = Field(default_factory=TransformersLocalConfig)
    gpt4all: GPT4AllConfig = Field(default_factory=GPT4AllConfig)
    vllm_inprocess: VLLMConfig = Field(default_factory=VLLMConfig)


class ToolCall(BaseModel):
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    id: str | None = None


class LLMReply(BaseModel):
    text: str = ""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    finish_reason: str | None = None


class LLMBackend(ABC):
    name: str = "base"

    @abstractmethod
    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             *, max_new_tokens: int | None = None) -> LLMReply:
        """One completion for a chat; tool schemas optional."""


_REGISTRY: dict[str, Callable[[LLMConfig], LLMBackend]] = {}
# a backend whose module is not named after it (memora_core.llm.gpt4all would shadow the gpt4all package)
_MODULES = {"gpt4all": "gpt4all_local"}


def register_backend(name: str) -> Callable:
    def deco(factory: Callable[[LLMConfig], LLMBackend]) -> Callable[[LLMConfig], LLMBackend]:
        _REGISTRY[name] = factory
        return factory
    return deco


def load_llm_config(path: Path | str | None = None) -> LLMConfig:
    path = Path(path) if path else LLM_CONFIG
    return LLMConfig.model_validate(load_yaml(path)) if path.exists() else LLMConfig()


def make_llm(config: LLMConfig | None = None) -> LLMBackend | None:
    """The configured backend, or None for `backend: none` (deterministic agents)."""
    config = config or load_llm_config()
    if config.backend == "none":
        return None
    # Importing the module registers its backend; heavy libraries are imported inside the backend.
    import importlib

    importlib.import_module(f"memora_core.llm.{_MODULES.get(config.backend, config.backend)}")
    return _REGISTRY[config.backend](config)
