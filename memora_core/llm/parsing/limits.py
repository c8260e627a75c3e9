"""The bounds every parse of model output runs under, and how a parse that hits one is recorded.

- A reply longer than `MAX_REPLY_CHARS` is cut to that prefix in one place, `bounded_reply`, which also
  sanitises it (lone surrogates, control characters: memora_core.schemas.clean); the cut is recorded
  as `ParseFailure.TRUNCATED`. 32 Ki characters is eight times the longest configured reply
  (robot_configs: llm 384, editor 256, perception 1024 tokens of about 4 characters).
- JSON nested deeper than `MAX_JSON_DEPTH` is refused before `json.loads` sees it (`TOO_DEEP`); so is
  the rest of a reply once a {...}/[...] span in it nests that deep.
- A `ParseBudget` is one reply's time budget: a deadline that the parsing loops check; a parse that
  runs past it stops, returns nothing, and records `TIMEOUT`. The agents give each reply a fresh one.
All parses are linear in the (bounded) reply, so the budget is a second line, not the first.
"""
from __future__ import annotations

import functools
import time
from collections.abc import Callable
from enum import Enum
from typing import Any

from memora_core.schemas.clean import clean_text

MAX_REPLY_CHARS = 32_768     # one model reply; longer replies are parsed as this prefix
MAX_JSON_DEPTH = 32          # nesting of [ and { in one JSON value
MAX_JSON_CANDIDATES = 64     # balanced {...}/[...] spans tried per reply
MAX_ITEMS = 256              # entries kept per JSON list/object, steps per plan, calls per reply
MAX_NAME_CHARS = 64          # a tool name
PARSE_BUDGET_S = 0.5         # wall-clock budget for parsing one reply (all parsers together)
CHECK_EVERY = 1024           # loop iterations between deadline checks


class ParseFailure(str, Enum):
    """Why a parse of model output came back empty or partial."""

    NOT_TEXT = "not_text"        # the reply was not a string
    TRUNCATED = "truncated"      # longer than MAX_REPLY_CHARS: only the prefix was parsed
    TOO_DEEP = "too_deep"        # JSON nested deeper than MAX_JSON_DEPTH: refused
    TIMEOUT = "timeout"          # the reply's ParseBudget ran out: the parse stopped
    NO_JSON = "no_json"          # no JSON value could be read
    NOT_OBJECT = "not_object"    # JSON, but not the object that was asked for


class ParseTimeout(Exception):
    """Raised inside the parsers when the budget's deadline has passed; never escapes a public parser."""


class ReplyParseError(ValueError):
    """A reply that had to be one JSON object and was not; `failure` says why."""

    def __init__(self, failure: ParseFailure, detail: str = "") -> None:
        super().__init__(f"{failure.value}: {detail}" if detail else failure.value)
        self.failure = failure


class ParseBudget:
    """One reply's deadline plus the failures its parses met (each kind once, in order)."""

    __slots__ = ("deadline", "failures")

    def __init__(self, seconds: float = PARSE_BUDGET_S) -> None:
        self.deadline = time.perf_counter() + seconds
        self.failures: list[ParseFailure] = []

    def note(self, failure: ParseFailure) -> None:
        if failure not in self.failures:
            self.failures.append(failure)

    def check(self) -> None:
        if time.perf_counter() > self.deadline:
            self.note(ParseFailure.TIMEOUT)
            raise ParseTimeout

    @property
    def timed_out(self) -> bool:
        return ParseFailure.TIMEOUT in self.failures


def bounded_reply(text: Any, budget: ParseBudget) -> str:
    """The one place a reply is bounded: non-text -> "", cut to MAX_REPLY_CHARS, sanitised."""
    if not isinstance(text, str):
        budget.note(ParseFailure.NOT_TEXT)
        return ""
    if len(text) > MAX_REPLY_CHARS:
        budget.note(ParseFailure.TRUNCATED)
    return clean_text(text, MAX_REPLY_CHARS)


def guarded(default: Callable[[], Any]) -> Callable:
    """A public parser: gets a fresh ParseBudget unless given one (`budget=`), and a parse that runs out
    of it returns `default()` (the TIMEOUT is on the budget) instead of raising."""
    def deco(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(text: Any, *args: Any, budget: ParseBudget | None = None, **kwargs: Any) -> Any:
            budget = budget if budget is not None else ParseBudget()
            try:
                budget.check()
                return fn(text, *args, budget=budget, **kwargs)
            except ParseTimeout:
                return default()
        return wrapper
    return deco
