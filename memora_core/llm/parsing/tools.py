"""Tool calls in model output: Qwen `<tool_call>` blocks, fenced or bare JSON, ReAct `Action:` lines, and
OpenAI API function calls. Names are cleaned and at most MAX_NAME_CHARS; arguments are sanitised JSON
objects; at most MAX_ITEMS calls per reply. Linear in the (bounded) reply; never raises."""
from __future__ import annotations

import re
from typing import Any

from memora_core.llm.base import ToolCall
from memora_core.llm.parsing.jsontext import FAIL, clean_value, json_spans, lenient, parse_json_object
from memora_core.llm.parsing.limits import (
    MAX_ITEMS,
    MAX_NAME_CHARS,
    ParseBudget,
    ParseFailure,
    bounded_reply,
    guarded,
)
from memora_core.schemas.clean import clean_text

_TOOL_OPEN, _TOOL_CLOSE = "<tool_call>", "</tool_call>"
_REACT_ACTION = re.compile(r"Action\s*+:\s*+([A-Za-z_][\w\-]*+)[ \t]*+(?:\r?\n|\r|$)\s*+"
                           r"(?:Action\s*+Input\s*+:\s*+(.*))?", re.S)


def _coerce_args(raw: Any, budget: ParseBudget) -> dict[str, Any] | None:
    if raw is None:
        return {}
    if isinstance(raw, str):
        if not raw.strip():
            return {}
        raw = lenient(bounded_reply(raw, budget), budget)
        if raw is FAIL:
            return None
    elif isinstance(raw, dict):
        raw = clean_value(raw)
    return raw if isinstance(raw, dict) else None


def _call_from_obj(obj: Any, budget: ParseBudget) -> ToolCall | None:
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):
        obj = {**obj["function"], "id": obj.get("id")}
    name = obj.get("name", obj.get("tool", obj.get("tool_name", obj.get("action"))))
    if not isinstance(name, str):
        return None
    name = clean_text(name, MAX_NAME_CHARS + 1).strip()
    if not name or len(name) > MAX_NAME_CHARS:
        return None
    args = _coerce_args(obj.get("arguments", obj.get("args", obj.get("parameters", obj.get("action_input")))),
                        budget)
    if args is None:
        return None
    call_id = obj.get("id")
    call_id = clean_text(call_id, 256) if isinstance(call_id, str) else None
    return ToolCall(name=name, arguments=args, id=call_id)


def _calls_from_json_text(text: str, budget: ParseBudget) -> list[ToolCall]:
    calls = []
    for span in json_spans(text, budget):
        value = lenient(span, budget)
        for obj in value if isinstance(value, list) else [value]:
            call = _call_from_obj(obj, budget)
            if call is not None:
                calls.append(call)
        if len(calls) >= MAX_ITEMS:
            break
    return calls


def _tool_blocks(text: str) -> list[str]:
    """Bodies of `<tool_call>` blocks; the last may be unterminated (it runs to the end)."""
    blocks, pos = [], text.find(_TOOL_OPEN)
    while pos != -1 and len(blocks) < MAX_ITEMS:
        body = pos + len(_TOOL_OPEN)
        end = text.find(_TOOL_CLOSE, body)
        if end == -1:
            blocks.append(text[body:])
            break
        blocks.append(text[body:end])
        pos = text.find(_TOOL_OPEN, end + len(_TOOL_CLOSE))
    return blocks


@guarded(list)
def parse_tool_calls(text: Any, allowed: set[str] | None = None, *, budget: ParseBudget) -> list[ToolCall]:
    """Tool calls found in free text; calls to names outside `allowed` are dropped."""
    text = bounded_reply(text, budget)
    if not text.strip():
        return []
    calls: list[ToolCall] = []
    blocks = _tool_blocks(text)
    if blocks:
        for block in blocks:
            calls += _calls_from_json_text(block, budget)
    else:
        calls = _calls_from_json_text(text, budget)
        if not calls:
            m = _REACT_ACTION.search(text)
            if m and len(m.group(1)) <= MAX_NAME_CHARS:
                args = _coerce_args(parse_json_object(m.group(2) or "", budget=budget) or {}, budget)
                calls = [ToolCall(name=m.group(1), arguments=args or {})]
    if allowed is not None:
        calls = [c for c in calls if c.name in allowed]
    return calls[:MAX_ITEMS]


@guarded(list)
def parse_api_tool_calls(api_calls: Any, *, budget: ParseBudget) -> list[ToolCall]:
    """OpenAI SDK `message.tool_calls` (objects or dicts) -> ToolCall; malformed entries are skipped."""
    if not isinstance(api_calls, (list, tuple)):
        if api_calls is not None:
            budget.note(ParseFailure.NOT_TEXT)  # (None: the reply had no tool calls)
        return []
    out = []
    for item in api_calls[:MAX_ITEMS]:
        budget.check()
        if not isinstance(item, dict):
            fn = getattr(item, "function", None)
            item = {"id": getattr(item, "id", None),
                    "function": {"name": getattr(fn, "name", None), "arguments": getattr(fn, "arguments", None)}}
        call = _call_from_obj(item, budget)
        if call is not None:
            out.append(call)
    return out
