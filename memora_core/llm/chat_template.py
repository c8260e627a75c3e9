"""A GGUF model's own chat template, read from its metadata and rendered with sandboxed Jinja.

Backends that take a raw prompt (gpt4all's llama.cpp) need the exact text the model was trained on.
The template ships inside the GGUF (`tokenizer.chat_template`); it is rendered the way Hugging Face
renders it: sandboxed, `trim_blocks`/`lstrip_blocks`, a `tojson` that does not HTML-escape, and
`raise_exception`. A template that takes `tools` (Qwen2.5's) renders the tool schemas itself; one that
does not (SmolLM2's) gets them described in the system message. A GGUF without a template falls back
to ChatML, which both supported families use.
"""
from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CHATML = ("{% for m in messages %}{{ '<|im_start|>' + m['role'] + '\n' + m['content'] + '<|im_end|>\n' }}"
          "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")
_TEMPLATE_KEY = "tokenizer.chat_template"
_EOS_KEY = "tokenizer.ggml.eos_token_id"


class TemplateError(ValueError):
    """The chat template could not be read or rendered."""


def _template_exception(message: str) -> None:
    raise TemplateError(message)


def _tojson(value: Any, indent: int | None = None, ensure_ascii: bool = False, **_: Any) -> str:
    return json.dumps(value, indent=indent, ensure_ascii=ensure_ascii)


@dataclass(frozen=True)
class GGUFChat:
    """The parts of a GGUF's metadata a raw-prompt backend needs."""

    template: str
    eos_text: str | None  # the end-of-turn token as text (a stop string), when the vocabulary names it
    from_file: bool       # False: the file had no template, ChatML was used

    @property
    def takes_tools(self) -> bool:
        return "tools" in self.template

    def render(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> str:
        from jinja2 import TemplateError as JinjaError
        from jinja2.sandbox import ImmutableSandboxedEnvironment

        if tools and not self.takes_tools:
            messages = with_tools_described(messages, tools)
            tools = None
        env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
        env.filters["tojson"] = _tojson
        env.globals["raise_exception"] = _template_exception
        env.globals["strftime_now"] = lambda fmt: _dt.datetime.now().strftime(fmt)
        try:
            return env.from_string(self.template).render(messages=messages, tools=tools or None,
                                                         add_generation_prompt=True)
        except JinjaError as exc:
            raise TemplateError(f"chat template failed to render: {exc}") from exc


def with_tools_described(messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """For a template without tool support: the tool names and the call format in the system message."""
    names = ", ".join(t.get("function", {}).get("name", "?") for t in tools)
    note = f'Tools: {names}. Call one as JSON {{"name": <tool>, "arguments": {{...}}}}.'
    if messages and messages[0].get("role") == "system":
        return [{**messages[0], "content": f"{messages[0]['content']}\n{note}"}, *messages[1:]]
    return [{"role": "system", "content": note}, *messages]


def _field_str(reader: Any, key: str) -> str | None:
    field = reader.fields.get(key)
    if field is None or not field.data:
        return None
    return bytes(field.parts[field.data[0]]).decode("utf-8", errors="replace")


def read_gguf_chat(path: Path) -> GGUFChat:
    """The chat template and end-of-turn token of a GGUF file (memory-mapped; nothing else is loaded)."""
    from gguf import GGUFReader

    try:
        reader = GGUFReader(str(path))
    except (OSError, ValueError) as exc:
        raise TemplateError(f"{path}: not a readable GGUF file ({type(exc).__name__})") from exc
    template = _field_str(reader, _TEMPLATE_KEY)
    eos_text = None
    eos = reader.fields.get(_EOS_KEY)
    tokens = reader.fields.get("tokenizer.ggml.tokens")
    if eos is not None and tokens is not None:
        idx = int(eos.parts[eos.data[0]][0])
        if 0 <= idx < len(tokens.data):
            eos_text = bytes(tokens.parts[tokens.data[idx]]).decode("utf-8", errors="replace")
    return GGUFChat(template=template or CHATML, eos_text=eos_text, from_file=template is not None)
