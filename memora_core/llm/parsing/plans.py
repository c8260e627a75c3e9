"""Plans in model output: a JSON {"plan"|"steps": [...]}, numbered lines ("1." "2)" "Step 3:"), bullets, or
a `Plan:` block. Every pattern is anchored or possessive and captures a line's rest with `(.*)` (no lazy
capture followed by `\\s*$`, which was quadratic on long whitespace), so a parse is linear. At most
MAX_ITEMS steps of at most MAX_STEP_CHARS each; never raises."""
from __future__ import annotations

import re
from typing import Any

from memora_core.llm.parsing.jsontext import parse_json_object
from memora_core.llm.parsing.limits import CHECK_EVERY, MAX_ITEMS, ParseBudget, bounded_reply, guarded

MAX_STEP_CHARS = 300

_NUMBERED = re.compile(r"\s*+(?:step\s*+)?\(?(\d{1,2})\s*+[.):\-]\s*+(.*)", re.I)
_BULLET = re.compile(r"\s*+[-*\u2022+]\s++(.*)")
_PLAN_HDR = re.compile(r"(?:final\s++)?plan\s*+:", re.I)
_MARKUP = re.compile(r"[*_`#\ufffd]++")  # markup, and what sanitising put in place of lone surrogates
_SEPARATORS = re.compile(r";|->|\u2192|,\s*+then\s++")


def _clean_step(s: str) -> str:
    s = _MARKUP.sub("", s).strip().strip(".").strip()
    return " ".join(s.split())[:MAX_STEP_CHARS]


def _json_steps(obj: dict[str, Any]) -> list[str]:
    steps = obj.get("plan", obj.get("steps"))
    out: list[str] = []
    if not isinstance(steps, list):
        return out
    for s in steps:
        if isinstance(s, dict):
            s = s.get("text") or " ".join(str(s[k]) for k in ("action", "object", "target") if s.get(k))
        if isinstance(s, (str, int, float)) and not isinstance(s, bool):
            step = _clean_step(str(s))
            if step:
                out.append(step)
    return out


@guarded(list)
def parse_plan(text: Any, *, budget: ParseBudget) -> list[str]:
    """Ordered step texts, or [] when nothing plan-like is found."""
    text = bounded_reply(text, budget)
    if not text.strip():
        return []
    obj = parse_json_object(text, budget=budget)
    if obj is not None:
        out = _json_steps(obj)
        if out:
            return out[:MAX_ITEMS]
    header = None
    for header in _PLAN_HDR.finditer(text):
        pass
    body = text[header.end():] if header else text
    numbered: list[str] = []
    bullets: list[str] = []
    for k, line in enumerate(body.splitlines()):
        if k % CHECK_EVERY == 0:
            budget.check()
        if len(numbered) >= MAX_ITEMS or len(bullets) >= MAX_ITEMS:
            break
        m = _NUMBERED.match(line)
        if m and _clean_step(m.group(2)):
            numbered.append(_clean_step(m.group(2)))
            continue
        m = _BULLET.match(line)
        if m and _clean_step(m.group(1)):
            bullets.append(_clean_step(m.group(1)))
    if numbered or bullets:
        return (numbered if len(numbered) >= len(bullets) else bullets)[:MAX_ITEMS]
    if header:
        lines = body.strip().splitlines()
        parts = [_clean_step(p) for p in _SEPARATORS.split(lines[0] if lines else "")]
        return [p for p in parts if p][:MAX_ITEMS]
    return []
