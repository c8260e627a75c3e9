"""A small OpenAI-compatible chat client for the generators, and defensive JSON extraction."""
from __future__ import annotations

import json
import logging
import os
import re
from typing import Any, Protocol

from memora_bench.config import LlmConfig

log = logging.getLogger(__name__)


class Chat(Protocol):
    def complete(self, model: str, messages: list[dict[str, str]]) -> str: ...


class OpenAIChat:
    """Any OpenAI-compatible endpoint (vLLM, llama.cpp server, OpenAI)."""

    def __init__(self, cfg: LlmConfig) -> None:
        if not cfg.base_url:
            raise ValueError("llm.base_url is not set in bench.yaml: the LLM generator path needs an endpoint")
        from openai import OpenAI

        self.cfg = cfg
        self.client = OpenAI(base_url=cfg.base_url, api_key=os.environ.get(cfg.api_key_env, "none"),
                             timeout=cfg.timeout_s, max_retries=cfg.max_retries)

    def complete(self, model: str, messages: list[dict[str, str]]) -> str:
        reply = self.client.chat.completions.create(model=model, messages=messages,
                                                    temperature=self.cfg.temperature)
        return reply.choices[0].message.content or ""


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def extract_json(text: str) -> Any | None:
    """The first JSON value in a model reply (fenced or bare); None when there is none."""
    if not text:
        return None
    candidates = _FENCE.findall(text) + [text]
    for cand in candidates:
        cand = cand.strip()
        for opener, closer in (("[", "]"), ("{", "}")):
            start, end = cand.find(opener), cand.rfind(closer)
            if start >= 0 and end > start:
                try:
                    return json.loads(cand[start:end + 1])
                except json.JSONDecodeError:
                    continue
    return None
