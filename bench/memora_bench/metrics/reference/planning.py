"""RGP as the reference aggregates it (yuzihaowashu/MEMORA @ 9c80048,
`scripts/paper_results/planning_metrics.py`: `compute_planning_metrics`).

Per task, on the plan's step texts as the agent produced them: OrderExec, KeyObj, PrefAdh (and Exec, the
share of executable steps, reported beside). Empty plans are skipped (counted as n_empty). Each axis is the
mean over the scored tasks where it is defined; RGP is the unweighted mean of the three axis means, and
undefined (None) when any axis is (the reference stops with an error there).
"""
from __future__ import annotations

from statistics import mean
from typing import Any, Iterable

from pydantic import BaseModel

from memora_bench.metrics.reference.key_objects import keyobj
from memora_bench.metrics.reference.memory_view import MemoryView
from memora_bench.metrics.reference.order_exec import order_exec
from memora_bench.metrics.reference.preferences import prefadh
from memora_bench.metrics.reference.step_checks import exec_rate

AXES = ("order_exec", "keyobj", "prefadh")


class RefTaskScore(BaseModel):
    task_id: str
    participant_id: str
    split: str
    empty: bool
    order_exec: float | None
    keyobj: float | None
    prefadh: float | None
    exec: float | None


def score_task(*, task_id: str, participant_id: str, split: str, plan: list[str], query: str,
               ground_truth: list[str], memory: MemoryView) -> RefTaskScore:
    """`plan`: the step texts; `ground_truth`: the reference step texts (narrations / reference sentences),
    stripped, blank ones dropped (`_ground_truth_steps`)."""
    plan = list(plan)  # as produced: the reference neither strips nor drops plan steps
    truth = [s.strip() for s in ground_truth if s and s.strip()]
    return RefTaskScore(
        task_id=task_id, participant_id=participant_id, split=split, empty=not plan,
        order_exec=order_exec(plan, truth),
        keyobj=keyobj(plan, split=split, query=query, ground_truth=truth, memory=memory),
        prefadh=prefadh(plan, query, memory.preferences), exec=exec_rate(plan))


def _mean(values: Iterable[float | None]) -> float | None:
    vals = [v for v in values if v is not None]
    return mean(vals) if vals else None


def aggregate(scores: list[RefTaskScore]) -> dict[str, Any]:
    scored = [s for s in scores if not s.empty]
    out: dict[str, Any] = {a: _mean(getattr(s, a) for s in scored) for a in (*AXES, "exec")}
    axes = [out[a] for a in AXES]
    out["rgp"] = None if any(v is None for v in axes) else mean(axes)
    out["n_tasks"] = len(scores)
    out["n_scored"] = len(scored)
    out["n_empty"] = len(scores) - len(scored)
    for a in AXES:
        out[f"n_{a}_defined"] = sum(1 for s in scored if getattr(s, a) is not None)
    return out
