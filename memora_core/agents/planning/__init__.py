"""The structured (deterministic, CPU) planner, one file per concept:

- labels: step labels as text (split, heads, dedupe, merge with the task's frame)
- relevance: how well recalled steps fit a task
- base: shared state, tool budget, templates, routines read, transfer
- tasks: instruction -> tasks (implicit needs, object words resolved, sub-tasks)
- recall: episodic recall through each family's own tools
- routine_knowledge: the person's routine and its tools completing a plan (full MEMORA)
- compose: object-by-object planning of what memory does not cover as a whole
- preferences: preferences and habits applied to a plan
- grounding: objects grounded and located in memory
- planner: StructuredPlanner, which puts them together
"""
from memora_core.agents.planning.labels import dedupe_labels, merge_with_prior, object_heads, split_label
from memora_core.agents.planning.planner import StructuredPlanner
from memora_core.agents.planning.relevance import coverage, procedure_around, relevance
from memora_core.agents.planning.tasks import subtasks

__all__ = ["StructuredPlanner", "coverage", "dedupe_labels", "merge_with_prior", "object_heads",
           "procedure_around", "relevance", "split_label", "subtasks"]
