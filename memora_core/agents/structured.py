"""Deterministic planner and answerer, one per memory family, each reading only its condition's tools.

They are the CPU default (no LLM) and use the same budget as the ReAct agents (at most
`max_iterations` tool calls to plan, `max_answer_searches` to answer). Families:
- memora: best routine -> relevant preferences -> every object grounded through Entity/Environment
  memory; falls back to the best-matching recalled episode when no routine fits.
- memora (episodic): best-matching episode from Activity Memory, procedure around it, objects grounded.
- flat1d: keyword search of the log, read the log around the best line, procedure around it.
- graph2d: event search, temporal neighbours of the best event, entities grounded as graph nodes.
- parametric: the task text alone (configured templates); answers E (no memory to support a choice).

The planner lives in memora_core.agents.planning (one file per concept) and the answerer in
memora_core.agents.answering; this module keeps the names importable from here.
"""
from memora_core.agents.answering import AnswerResult, StructuredAnswerer
from memora_core.agents.planning import (
    StructuredPlanner, coverage, merge_with_prior, object_heads, procedure_around, relevance, split_label, subtasks,
)

__all__ = ["AnswerResult", "StructuredAnswerer", "StructuredPlanner", "coverage", "merge_with_prior", "object_heads",
           "procedure_around", "relevance", "split_label", "subtasks"]
