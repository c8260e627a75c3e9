"""OpenAI-compatible HTTP backend (a vLLM server is the production path), via the real `openai` client."""
from __future__ import annotations

import os
from typing import Any

from memora_core.llm.base import LLMBackend, LLMConfig, LLMReply, register_backend
from memora_core.llm.parsing import parse_api_tool_calls, parse_tool_calls


class OpenAIHTTPBackend(LLMBackend):
    name = "openai_http"

    def __init__(self, config: LLMConfig) -> None:
        from openai import OpenAI

        self.config = config
        c = config.openai_http
        # vLLM accepts any key; a hosted endpoint reads it from the configured environment variable
        self.client = OpenAI(base_url=c.base_url, api_key=os.environ.get(c.api_key_env, "EMPTY"),
                             timeout=c.timeout_s, max_retries=1)

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             *, max_new_tokens: int | None = None) -> LLMReply:
        c = self.config.openai_http
        kwargs: dict[str, Any] = {"model": c.model, "messages": messages, "temperature": self.config.temperature,
                                  "max_tokens": max_new_tokens or self.config.max_new_tokens}
        if tools and c.native_tools:
            kwargs["tools"] = tools
        try:
            resp = self.client.chat.completions.create(**kwargs)
        except Exception as exc:  # network/server errors become a reply the agent can record, not a crash
            raise RuntimeError(f"openai_http request to {c.base_url} failed: {exc}") from exc
        if not resp.choices:
            return LLMReply(text="", finish_reason="empty")
        msg = resp.choices[0].message
        text = msg.content or ""
        calls = parse_api_tool_calls(getattr(msg, "tool_calls", None))
        if not calls and tools:
            calls = parse_tool_calls(text)
        return LLMReply(text=text, tool_calls=calls, finish_reason=resp.choices[0].finish_reason)


@register_backend("openai_http")
def _make(config: LLMConfig) -> LLMBackend:
    return OpenAIHTTPBackend(config)
