"""Agents that read memory through a condition's tools.

Contract:
- `make_planner(kind, memory, llm=None)` with kind 'structured' | 'react' -> object with
  `.plan(instruction) -> memora_core.schemas.Plan` (Plan.tool_calls records every call and the store it hit).
- `make_answerer(kind, memory, llm=None)` -> `.answer(question, choices) -> AnswerResult(letter, retrieved_evidence,
  tool_calls, raw)`; letter is 'A'..'E' or None when a model's reply could not be parsed.
'react' needs an LLM backend; 'structured' is deterministic (the CPU default) and ignores `llm`.
"""
from __future__ import annotations

from typing import Any

from memora_core.agents.calls import CallLog, store_shares
from memora_core.agents.answering import AnswerResult, StructuredAnswerer
from memora_core.agents.planning import StructuredPlanner

PLANNER_KINDS = ("structured", "react")


def make_planner(kind: str, memory: Any, llm: Any = None, config: Any = None):
    if kind == "structured":
        return StructuredPlanner(memory, config)
    if kind == "react":
        from memora_core.agents.react import ReActPlanner

        return ReActPlanner(memory, llm, config)
    raise ValueError(f"unknown planner {kind!r}; expected one of {PLANNER_KINDS}")


def make_answerer(kind: str, memory: Any, llm: Any = None, config: Any = None):
    if kind == "structured":
        return StructuredAnswerer(memory, config)
    if kind == "react":
        from memora_core.agents.react import ReActAnswerer

        return ReActAnswerer(memory, llm, config)
    raise ValueError(f"unknown answerer {kind!r}; expected one of {PLANNER_KINDS}")


__all__ = ["AnswerResult", "CallLog", "PLANNER_KINDS", "make_answerer", "make_planner", "store_shares"]
