"""Defensive parsing of model output: tool calls, plans and multiple-choice letters.

Nothing here raises on bad input: malformed output yields an empty list or None, and the caller
records the failure. Formats understood:
- tool calls: Qwen `<tool_call>{...}</tool_call>` blocks (terminated or not), fenced or bare JSON
  objects/lists ({"name", "arguments"|"args"|"parameters"}, {"tool", "args"}, {"function": {...}}),
  ReAct `Action: name` + `Action Input: {...}`, and OpenAI API function calls (arguments as JSON text);
- plans: a JSON {"plan"|"steps": [...]}, numbered lines ("1." "2)" "Step 3:"), bullets, or a `Plan:` block;
- answers: one letter A-E from "Answer: B", "(C)", "option D", {"answer": "A"}, a lone letter, or the
  text of exactly one choice; the article "A" in prose ("A person ...") is not a letter.
"""
from __future__ import annotations

import json
import re
from typing import Any

from memora_core.llm.base import ToolCall

LETTERS = "ABCDE"


# ------------------------------------------------------------------ JSON helpers
def _json_candidates(text: str) -> list[str]:
    """Balanced {...} / [...] substrings, outermost first, in order of appearance."""
    out, stack, start, in_str, esc = [], [], None, False, False
    for i, ch in enumerate(text):
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
            continue
        if ch == '"' and stack:
            in_str = True
        elif ch in "{[":
            if not stack:
                start = i
            stack.append("}" if ch == "{" else "]")
        elif ch in "}]" and stack:
            if ch != stack[-1]:
                stack, start = [], None
                continue
            stack.pop()
            if not stack and start is not None:
                out.append(text[start:i + 1])
                start = None
    return out


def loads_lenient(text: str) -> Any:
    """json.loads, then one retry with trailing commas and single quotes repaired; None on failure."""
    for attempt in (text, re.sub(r",\s*([}\]])", r"\1", text).replace("'", '"')):
        try:
            return json.loads(attempt)
        except (ValueError, TypeError, RecursionError):
            continue
    return None


def parse_json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object found in the text, or None."""
    if not isinstance(text, str):
        return None
    for cand in _json_candidates(text):
        value = loads_lenient(cand)
        if isinstance(value, dict):
            return value
    return None


# ------------------------------------------------------------------ tool calls
def _coerce_args(raw: Any) -> dict[str, Any] | None:
    if raw is None:
        return {}
    if isinstance(raw, str):
        raw = loads_lenient(raw) if raw.strip() else {}
    return raw if isinstance(raw, dict) else None


def _call_from_obj(obj: Any) -> ToolCall | None:
    if not isinstance(obj, dict):
        return None
    if isinstance(obj.get("function"), dict):
        obj = {**obj["function"], "id": obj.get("id")}
    name = obj.get("name", obj.get("tool", obj.get("tool_name", obj.get("action"))))
    if not isinstance(name, str) or not name.strip():
        return None
    args = _coerce_args(obj.get("arguments", obj.get("args", obj.get("parameters", obj.get("action_input")))))
    if args is None:
        return None
    call_id = obj.get("id")
    return ToolCall(name=name.strip(), arguments=args, id=call_id if isinstance(call_id, str) else None)


def _calls_from_json_text(text: str) -> list[ToolCall]:
    calls = []
    for cand in _json_candidates(text):
        value = loads_lenient(cand)
        for obj in value if isinstance(value, list) else [value]:
            call = _call_from_obj(obj)
            if call is not None:
                calls.append(call)
    return calls


_TOOL_BLOCK = re.compile(r"<tool_call>(.*?)(?:</tool_call>|$)", re.S)
_REACT_ACTION = re.compile(r"Action\s*:\s*([A-Za-z_][\w\-]*)\s*(?:\n|\r|$)\s*(?:Action\s*Input\s*:\s*(.*))?", re.S)


def parse_tool_calls(text: Any, allowed: set[str] | None = None) -> list[ToolCall]:
    """Tool calls found in free text; calls to names outside `allowed` are dropped."""
    if not isinstance(text, str) or not text.strip():
        return []
    calls: list[ToolCall] = []
    blocks = _TOOL_BLOCK.findall(text)
    if blocks:
        for block in blocks:
            calls += _calls_from_json_text(block)
    else:
        calls = _calls_from_json_text(text)
        if not calls:
            m = _REACT_ACTION.search(text)
            if m:
                args = _coerce_args((parse_json_object(m.group(2) or "") or {}))
                calls = [ToolCall(name=m.group(1), arguments=args or {})]
    if allowed is not None:
        calls = [c for c in calls if c.name in allowed]
    return calls


def parse_api_tool_calls(api_calls: Any) -> list[ToolCall]:
    """OpenAI SDK `message.tool_calls` (objects or dicts) -> ToolCall; malformed entries are skipped."""
    out = []
    for item in api_calls or []:
        if not isinstance(item, dict):
            fn = getattr(item, "function", None)
            item = {"id": getattr(item, "id", None),
                    "function": {"name": getattr(fn, "name", None), "arguments": getattr(fn, "arguments", None)}}
        call = _call_from_obj(item)
        if call is not None:
            out.append(call)
    return out


# ------------------------------------------------------------------ plans
_NUMBERED = re.compile(r"^\s*(?:step\s*)?\(?(\d{1,2})\s*[.):\-]\s*(.+?)\s*$", re.I)
_BULLET = re.compile(r"^\s*[-*\u2022+]\s+(.+?)\s*$")
_PLAN_HDR = re.compile(r"(?:final\s+)?plan\s*:", re.I)


def _clean_step(s: str) -> str:
    s = re.sub(r"[*_`#]+", "", s).strip().strip(".").strip()
    return " ".join(s.split())


def parse_plan(text: Any) -> list[str]:
    """Ordered step texts, or [] when nothing plan-like is found."""
    if not isinstance(text, str) or not text.strip():
        return []
    obj = parse_json_object(text)
    if obj is not None:
        steps = obj.get("plan", obj.get("steps"))
        if isinstance(steps, list):
            out = []
            for s in steps:
                if isinstance(s, dict):
                    s = s.get("text") or " ".join(str(s[k]) for k in ("action", "object", "target") if s.get(k))
                if isinstance(s, (str, int, float)) and _clean_step(str(s)):
                    out.append(_clean_step(str(s)))
            if out:
                return out
    headers = list(_PLAN_HDR.finditer(text))
    body = text[headers[-1].end():] if headers else text
    numbered, bullets = [], []
    for line in body.splitlines():
        m = _NUMBERED.match(line)
        if m and _clean_step(m.group(2)):
            numbered.append(_clean_step(m.group(2)))
            continue
        m = _BULLET.match(line)
        if m and _clean_step(m.group(1)):
            bullets.append(_clean_step(m.group(1)))
    if numbered or bullets:
        return numbered if len(numbered) >= len(bullets) else bullets
    if headers:
        first = body.strip().splitlines()[0] if body.strip() else ""
        parts = [_clean_step(p) for p in re.split(r";|->|\u2192|,\s*then\s+", first)]
        return [p for p in parts if p]
    return []


# ------------------------------------------------------------------ answers
_CUE = re.compile(r"(?:answer|option|choice|choose|select|pick)\w*\s*(?:is|:|=|would be)?\s*[\(\[\*\"']*([A-E])(?![A-Za-z])"
                  r"(\s+[a-z]\w*)?", re.I)
_LEAD = re.compile(r"^\s*[\(\[\*]*([A-E])\s*(?:[\)\]\.:]|\*\*)(?:\s|$)")
_PAREN = re.compile(r"\(([A-E])\)")
_CONNECTIVES = {"because", "since", "as", "given", "based", "which", "from", "per"}


def parse_answer(text: Any, choices: dict[str, str] | None = None) -> str | None:
    """One letter A-E, or None when the output states none unambiguously."""
    if not isinstance(text, str) or not text.strip():
        return None
    t = text.strip()
    obj = parse_json_object(t)
    if obj is not None:
        val = obj.get("answer", obj.get("letter", obj.get("choice")))
        if isinstance(val, str) and val.strip()[:1].upper() in LETTERS and (len(val.strip()) == 1 or
                                                                           not val.strip()[1:2].isalpha()):
            return val.strip()[0].upper()
    bare = re.fullmatch(r"[\s\(\[\*\"']*([A-Ea-e])[\s\)\]\.\*\"'!]*", t)
    if bare:
        return bare.group(1).upper()
    found = []
    for m in _CUE.finditer(t):
        letter, follow = m.group(1), (m.group(2) or "").strip().lower()
        if letter.upper() == "A" and follow and follow not in _CONNECTIVES:
            continue  # "the answer is A kettle" / "answer is a kettle": the article, not the letter
        found.append(letter.upper())
    if found:
        return found[-1]
    m = _LEAD.match(t)
    if m:
        return m.group(1)
    parens = set(_PAREN.findall(t))
    if len(parens) == 1:
        return parens.pop()
    if choices:
        low = t.lower()
        hits = [k for k, v in choices.items() if isinstance(v, str) and v.strip() and v.strip().lower() in low]
        if len(hits) == 1 and hits[0].upper() in LETTERS:
            return hits[0].upper()
    return None
