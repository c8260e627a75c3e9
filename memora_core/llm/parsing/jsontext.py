"""JSON inside model replies, read in linear time with bounded depth.

`json.loads` recurses once per level of nesting, so nothing reaches it before a linear pre-scan has
checked the depth (`MAX_JSON_DEPTH`). Balanced {...}/[...] spans are found in one pass over the
structural characters only. Values come back sanitised (`clean_value`): strings cleaned and capped,
lists/objects capped at `MAX_ITEMS`, `NaN`/`Infinity`, floats that overflow and integers of more than
18 digits become null. The lenient retry (single quotes, trailing commas, Python's True/False/None)
is a single regex tokenisation, linear even on unterminated strings.
"""
from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from itertools import accumulate, islice
from typing import Any

from memora_core.llm.parsing.limits import (
    CHECK_EVERY,
    MAX_ITEMS,
    MAX_JSON_CANDIDATES,
    MAX_JSON_DEPTH,
    ParseBudget,
    ParseFailure,
    bounded_reply,
    guarded,
)
from memora_core.schemas.clean import clean_text

FAIL = object()  # "no JSON here" (None is JSON null)
_INT_LIMIT = 10 ** 18
_MAX_NODES = 20_000  # values visited by one clean_value


def _int(s: str) -> int | None:
    return int(s) if len(s.lstrip("-")) <= 18 else None


def _float(s: str) -> float | None:
    f = float(s)
    return f if math.isfinite(f) else None


_DECODER = json.JSONDecoder(parse_int=_int, parse_float=_float, parse_constant=lambda _c: None)


def clean_value(value: Any, _depth: int = 0, _left: list[int] | None = None) -> Any:
    """JSON-like data made safe for pydantic: see the module docstring. Bounded in depth and size."""
    left = _left if _left is not None else [_MAX_NODES]
    left[0] -= 1
    if left[0] < 0:
        return None
    if isinstance(value, str):
        return clean_text(value)
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value if -_INT_LIMIT < value < _INT_LIMIT else None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if _depth >= MAX_JSON_DEPTH:
        return None
    if isinstance(value, dict):
        out = {}
        for k, v in islice(value.items(), MAX_ITEMS):
            out[clean_text(str(k), 256)] = clean_value(v, _depth + 1, left)
        return out
    if isinstance(value, (list, tuple)):
        return [clean_value(v, _depth + 1, left) for v in islice(value, MAX_ITEMS)]
    return None  # anything else is not data


# a JSON string, running to the end when unterminated (so that a scan over it stays linear)
_STRING = r'"(?:[^"\\]|\\.)*+\\?(?:"|\Z)'
_NOT_BRACKET = re.compile(_STRING + r'|[^\[\]{}"]++', re.S)
_DEPTH_STEP = {"{": 1, "[": 1, "}": -1, "]": -1}
_SPAN_OPEN = re.compile(r"[\[{]")
_SPAN_TOKEN = re.compile(_STRING + r"|[\[\]{}]", re.S)


def depth_within(text: str, limit: int = MAX_JSON_DEPTH) -> bool:
    """Whether json.loads(text) could nest deeper than `limit`, decided without recursion in C-speed passes:
    strings and everything but brackets are deleted, then the running depth is summed. json.loads never
    reads past a closer without an opener, so only the depths before the first dip below 0 count."""
    brackets = _NOT_BRACKET.sub("", text)
    if len(brackets) <= limit:
        return True
    depths = list(accumulate(map(_DEPTH_STEP.__getitem__, brackets)))
    if min(depths) < 0:
        depths = depths[:depths.index(-1)]
    return not depths or max(depths) <= limit


def json_spans(text: str, budget: ParseBudget) -> Iterator[str]:
    """Balanced top-level {...} / [...] substrings in order of appearance (at most MAX_JSON_CANDIDATES).
    Nesting deeper than MAX_JSON_DEPTH ends the scan (TOO_DEEP noted: the rest of the reply is refused);
    a mismatched closer drops the open span. Quotes only open strings inside a span (prose apostrophes
    and quotes are not JSON). One pass: between spans the next opener is searched for, inside a span
    whole strings are single tokens."""
    closers: list[str] = []
    start, found, pos, k = 0, 0, 0, 0
    while True:
        k += 1
        if k % CHECK_EVERY == 0:
            budget.check()
        m = (_SPAN_TOKEN if closers else _SPAN_OPEN).search(text, pos)
        if m is None:
            return
        pos, tok = m.end(), m.group()
        if tok in ("{", "["):
            if not closers:
                start = m.start()
            closers.append("}" if tok == "{" else "]")
            if len(closers) > MAX_JSON_DEPTH:
                budget.note(ParseFailure.TOO_DEEP)
                return
        elif tok in ("}", "]"):
            if tok != closers.pop():
                closers.clear()
            elif not closers:
                yield text[start:pos]
                found += 1
                if found >= MAX_JSON_CANDIDATES:
                    return


def load_strict(text: str, budget: ParseBudget) -> Any:
    """json.loads with the depth pre-check and sanitised values; FAIL when it is not JSON."""
    budget.check()
    if not depth_within(text):
        budget.note(ParseFailure.TOO_DEEP)
        return FAIL
    try:
        return clean_value(_DECODER.decode(text))
    except ValueError:
        return FAIL


# what the repair may change (single-quoted strings, trailing commas, Python literals), and double-quoted
# strings, matched whole so that nothing inside them is touched
_TOKEN = re.compile(_STRING + r"|'(?:[^'\\]|\\.)*+\\?(?:'|\Z)|(?P<trail>,(?=\s*+[}\]]))|\b(?:True|False|None)\b",
                    re.S)
_SQ_BODY = re.compile(r"\\.|\"", re.S)
_JSON_LITERAL = {"True": "true", "False": "false", "None": "null"}


def _sq_body(m: re.Match) -> str:
    tok = m.group()
    return '\\"' if tok == '"' else "'" if tok == "\\'" else tok


def _repair_token(m: re.Match) -> str:
    tok = m.group()
    head = tok[0]
    if head == '"':
        return tok
    if head == "'":
        body = tok[1:-1] if len(tok) > 1 and tok.endswith("'") else tok[1:]
        return '"' + _SQ_BODY.sub(_sq_body, body) + '"'
    if m.group("trail"):
        return ""
    return _JSON_LITERAL[tok]


def repair(text: str) -> str:
    """Single-quoted strings -> double-quoted, trailing commas dropped, True/False/None -> JSON. Linear."""
    return _TOKEN.sub(_repair_token, text)


def lenient(text: str, budget: ParseBudget) -> Any:
    """load_strict, then once more on the repaired text; FAIL when neither is JSON."""
    value = load_strict(text, budget)
    if value is FAIL:
        budget.check()
        value = load_strict(repair(text), budget)
    return value


@guarded(lambda: None)
def loads_lenient(text: Any, *, budget: ParseBudget) -> Any:
    """A JSON value from text (repaired once if needed), or None when it is not JSON."""
    value = lenient(bounded_reply(text, budget), budget)
    return None if value is FAIL else value


@guarded(lambda: None)
def parse_json_object(text: Any, *, budget: ParseBudget) -> dict[str, Any] | None:
    """The first JSON object found in the text, or None."""
    for span in json_spans(bounded_reply(text, budget), budget):
        value = lenient(span, budget)
        if isinstance(value, dict):
            return value
    return None


def _fenced(text: str) -> str | None:
    """The body of the first ```...``` (or ```json ...```) block, or None."""
    start = text.find("```")
    if start == -1:
        return None
    body = start + 3
    if text.startswith("json", body):
        body += 4
    end = text.find("```", body)
    return text[body:end].strip() if end != -1 else None


def first_json_value(text: Any, budget: ParseBudget) -> Any:
    """A whole reply (or its first fenced block) as JSON, else the first JSON object inside it; FAIL if none.
    May raise limits.ParseTimeout (the caller turns it into its typed failure)."""
    text = bounded_reply(text, budget).strip()
    fenced = _fenced(text)
    if fenced is not None:
        text = fenced
    value = load_strict(text, budget)
    if value is not FAIL:
        return value
    for span in json_spans(text, budget):
        value = lenient(span, budget)
        if isinstance(value, dict):
            return value
    return FAIL


__all__ = ["FAIL", "clean_value", "depth_within", "first_json_value", "json_spans", "lenient",
           "load_strict", "loads_lenient", "parse_json_object", "repair"]
