"""Local CPU backend: a GGUF model through gpt4all's prebuilt llama.cpp (the `gpt4all` wheel), greedy decoding.

- Nothing is ever downloaded: `allow_download=False` always, and the model is a local file resolved like
  transformers_local's (`qwen_coder_05b`: assembled and sha256-verified by scripts/fetch_qwen_gguf.sh;
  or an explicit `gguf_path`).
- The prompt is the model's own chat template from the GGUF's metadata (chat_template.py), passed to
  llama.cpp with special tokens parsed (`<|im_start|>` is one token, not text).
- Greedy: top_k=1, temperature 0, no repetition penalty; at most `max_new_tokens`, stopped at the
  model's end-of-turn token.
- Prefix reuse (`reuse_prefix`): the prompt is fed turn by turn (split before each `<|im_start|>`, where
  the tokenizer splits anyway) and the context position after each turn is kept; a later prompt that
  starts with the same turns rewinds the context there and feeds only the rest. The system prompt of
  a ReAct agent is read once per agent instead of once per turn; the reply is the same as a full
  read (greedy, same tokens).
- gpt4all's llama.cpp is older than SmolLM2: it refuses that GGUF's `smollm` pre-tokenizer (load fails,
  `ModelLoadError`); SmolLM2 runs through transformers_local instead.
Tool calls are parsed from the text (Qwen writes `<tool_call>` blocks when its template lists the tools).
`prefill_first_tool_call` starts the model's first reply of a conversation that offers tools with
`{"name": "` (the OpenAI `tool_choice="required"` idea for a raw prompt): a small model that would
answer at once must name a tool; which tool and its arguments are still the model's.
"""
from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from memora_core.errors import ExitCode, MemoraError
from memora_core.llm.base import LLMBackend, LLMConfig, LLMReply, register_backend
from memora_core.llm.chat_template import read_gguf_chat, with_tools_described
from memora_core.llm.parsing import parse_tool_calls
from memora_core.llm.transformers_local import resolve_gguf

log = logging.getLogger(__name__)
_EXTRA_STOPS = ("<|im_end|>", "<|endoftext|>")
_TURN = "<|im_start|>"
_CALL_PREFILL = '{"name": "'  # the start of a tool call, as the agents' prompts spell it


def turns(prompt: str) -> list[str]:
    """The prompt cut before each turn marker; joined back they are the prompt."""
    head, *rest = prompt.split(_TURN)
    return ([head] if head else []) + [_TURN + r for r in rest]


def _ingest_only(_token_id: int, _piece: str) -> bool:
    return False


class ModelLoadError(MemoraError):
    """The local model file exists but the backend could not load it (format, architecture, memory)."""

    exit_code: ClassVar[ExitCode] = ExitCode.BAD_INPUT


@dataclass
class GenStats:
    """Totals over every chat call: generated tokens and the seconds spent (prompt reading included)."""

    calls: int = 0
    tokens: int = 0
    seconds: float = 0.0
    prompt_chars: int = 0

    @property
    def tokens_per_s(self) -> float:
        return self.tokens / self.seconds if self.seconds > 0 else 0.0


class GPT4AllBackend(LLMBackend):
    name = "gpt4all"

    def __init__(self, config: LLMConfig) -> None:
        from gpt4all import GPT4All

        self.config = config
        c = config.gpt4all
        self.path: Path = resolve_gguf(c.model, c.gguf_path)
        if not self.path.is_file():
            raise FileNotFoundError(f"{self.path}: no such model file")
        self.chat_format = read_gguf_chat(self.path)
        self.stops = tuple(dict.fromkeys(s for s in (self.chat_format.eos_text, *_EXTRA_STOPS) if s))
        try:
            self.model = GPT4All(model_name=self.path.name, model_path=str(self.path.parent), allow_download=False,
                                 device="cpu", n_threads=c.threads, n_ctx=c.n_ctx, verbose=False)
        except Exception as exc:  # gpt4all raises a bare Exception ("Model not loaded") on a refused file
            raise ModelLoadError(f"{self.path}: gpt4all could not load this GGUF ({type(exc).__name__})") from exc
        self.stats = GenStats()
        self._fed: list[tuple[str, int]] = []  # turns in the context now, each with the position after it

    def prompt(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> str:
        if tools and not self.config.gpt4all.tools_in_template:
            return self.chat_format.render(with_tools_described(messages, tools))
        return self.chat_format.render(messages, tools)

    def generate(self, prompt: str, max_new_tokens: int) -> tuple[str, str]:
        """Greedy completion of a raw prompt: (text without the stop token, finish reason)."""
        pieces: list[str] = []
        finish = "length"
        stops = self.stops

        def on_token(_token_id: int, piece: str) -> bool:
            nonlocal finish
            pieces.append(piece)
            tail = "".join(pieces[-8:])
            if any(s in tail for s in stops):
                finish = "stop"
                return False
            return True

        t0 = time.perf_counter()
        chunks = turns(prompt) if self.config.gpt4all.reuse_prefix else [prompt]
        keep = 0
        while keep < min(len(self._fed), len(chunks) - 1) and self._fed[keep][0] == chunks[keep]:
            keep += 1
        del self._fed[keep:]
        for chunk in chunks[keep:-1]:
            self._feed(chunk, 0, _ingest_only)
            self._fed.append((chunk, self._position()))
        self._feed(chunks[-1], max_new_tokens, on_token)
        self.stats.calls += 1
        self.stats.tokens += len(pieces)
        self.stats.seconds += time.perf_counter() - t0
        self.stats.prompt_chars += len(prompt)
        text = "".join(pieces)
        for s in stops:
            text = text.split(s, 1)[0]
        if len(pieces) < max_new_tokens and finish == "length":
            finish = "stop"  # ended on the model's own end-of-sequence token
        return text, finish

    def _position(self) -> int:
        context = self.model.model.context
        return int(context.n_past) if context is not None else 0

    def _feed(self, text: str, n_predict: int, callback: Any) -> None:
        """Feed `text` after the last kept turn (a fresh context when none is kept), then generate."""
        lm = self.model.model
        start = self._fed[-1][1] if self._fed else 0
        if start and lm.context is not None:
            lm.context.n_past = start
        # "%1%2" is gpt4all's raw form (its own system-prompt ingestion uses it): the text and nothing else;
        # a bare "%1" adds a token per call, so turns fed one by one would differ from the whole prompt
        lm.prompt_model(text, "%1%2", callback, n_predict=n_predict, top_k=1, top_p=1.0, min_p=0.0, temp=0.0,
                        repeat_penalty=1.0, n_batch=self.config.gpt4all.n_batch, reset_context=not start,
                        special=True)
        if self._position() < start:  # llama.cpp shifted a full context: the kept positions are void
            self._fed.clear()

    def chat(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None,
             *, max_new_tokens: int | None = None) -> LLMReply:
        prefill = _CALL_PREFILL if tools and self.config.gpt4all.prefill_first_tool_call and not any(
            m.get("role") == "assistant" for m in messages) else ""
        text, finish = self.generate(self.prompt(messages, tools) + prefill,
                                     max_new_tokens or self.config.max_new_tokens)
        text = prefill + text
        return LLMReply(text=text, tool_calls=parse_tool_calls(text) if tools else [], finish_reason=finish)

    def close(self) -> None:
        self.model.close()


@register_backend("gpt4all")
def _make(config: LLMConfig) -> LLMBackend:
    return GPT4AllBackend(config)
