"""Defensive parsing of model output: tool calls, plans, answer letters and JSON.

Everything a model writes is untrusted. Every public parser here:
- never raises on any input: malformed output yields an empty list or None, and the caller records it;
- reads at most MAX_REPLY_CHARS of a reply (limits.bounded_reply, the one place replies are cut and
  sanitised) and is linear in it: no regex here backtracks more than a bounded amount per position;
- never recurses on untrusted depth: JSON deeper than MAX_JSON_DEPTH is refused by a linear pre-scan
  before json.loads sees it; decoded strings are sanitised (lone surrogates, control characters, size)
  before any pydantic model does;
- takes an optional `budget=ParseBudget(...)`: a deadline checked in its loops; a parse past it returns
  empty and the budget records the typed failure (ParseFailure.TIMEOUT, also TRUNCATED, TOO_DEEP, ...).

Formats: see tools.py (tool calls), plans.py (plans), answers.py (letters), jsontext.py (JSON).
"""
from memora_core.llm.parsing.answers import LETTERS, parse_answer
from memora_core.llm.parsing.jsontext import loads_lenient, parse_json_object
from memora_core.llm.parsing.limits import (
    MAX_JSON_DEPTH,
    MAX_REPLY_CHARS,
    PARSE_BUDGET_S,
    ParseBudget,
    ParseFailure,
    ReplyParseError,
    bounded_reply,
)
from memora_core.llm.parsing.plans import parse_plan
from memora_core.llm.parsing.tools import parse_api_tool_calls, parse_tool_calls

__all__ = [
    "LETTERS", "MAX_JSON_DEPTH", "MAX_REPLY_CHARS", "PARSE_BUDGET_S", "ParseBudget", "ParseFailure",
    "ReplyParseError", "bounded_reply", "loads_lenient", "parse_answer", "parse_api_tool_calls",
    "parse_json_object", "parse_plan", "parse_tool_calls",
]
