"""The seven memory conditions, each built from the same stored observations, each with its own tools.

Contract (other packages code against it):
- `CONDITION_IDS`: ('parametric', 'flat1d_raw', 'flat1d_processed', 'graph2d_raw', 'graph2d_processed',
  'memora_episodic', 'memora').
- `build_condition(condition_id, store, participant_id, *, bank_store=None) -> ConditionMemory`.
  `store` is the participant's MemoryStore (processed: entities/activities/knowledge tables);
  `bank_store` is where the raw, append-only perception records (`segment_observations`) are read
  from when they live in a different store; it defaults to `store`.
- `ConditionMemory.condition_id`, `.tool_specs()`, `.call(tool_name, args) -> ToolResult`.
"""
from __future__ import annotations

from memora_core.conditions.base import CONDITION_IDS, ConditionMemory, ParametricMemory
from memora_core.conditions.flat1d import Flat1DMemory, processed_lines, raw_lines
from memora_core.conditions.graph2d import Graph2DMemory, processed_graph, raw_graph
from memora_core.conditions.memora_typed import MemoraMemory
from memora_core.store.sqlite_store import SQLiteStore


def build_condition(condition_id: str, store: SQLiteStore, participant_id: str, *,
                    bank_store: SQLiteStore | None = None) -> ConditionMemory:
    bank = bank_store or store
    if condition_id == "parametric":
        return ParametricMemory(participant_id)
    if condition_id == "flat1d_raw":
        return Flat1DMemory(condition_id, participant_id, raw_lines(bank, participant_id))
    if condition_id == "flat1d_processed":
        return Flat1DMemory(condition_id, participant_id, processed_lines(store, participant_id))
    if condition_id == "graph2d_raw":
        return Graph2DMemory(condition_id, participant_id, *raw_graph(bank, participant_id))
    if condition_id == "graph2d_processed":
        return Graph2DMemory(condition_id, participant_id, *processed_graph(store, participant_id))
    if condition_id in ("memora_episodic", "memora"):
        return MemoraMemory(condition_id, store, participant_id)
    raise ValueError(f"unknown condition {condition_id!r}; expected one of {', '.join(CONDITION_IDS)}")


__all__ = ["CONDITION_IDS", "ConditionMemory", "build_condition"]
