"""Execution monitor: runs a plan step by step on a controller, stops at the first failure (or e-stop) and
measures what the world looks like afterwards (placement error, distractors disturbed)."""
from __future__ import annotations

from typing import Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from memora_core.robot.control import StepResult
from memora_core.schemas.plan import Plan, PlanStep


class _Controller(Protocol):
    def execute_step(self, step: PlanStep) -> StepResult: ...


class PlanOutcome(BaseModel):
    model_config = ConfigDict(extra="forbid")
    success: bool
    steps: list[StepResult] = Field(default_factory=list)
    failed_step: int | None = None


def run_plan(controller: _Controller, plan: Plan, stop_on_failure: bool = True) -> PlanOutcome:
    results: list[StepResult] = []
    for step in plan.steps:
        res = controller.execute_step(step)
        results.append(res)
        if not res.success and stop_on_failure:
            return PlanOutcome(success=False, steps=results, failed_step=step.index)
    return PlanOutcome(success=all(r.success for r in results) and bool(results), steps=results)


def disturbed(before: dict[str, np.ndarray], after: dict[str, np.ndarray], moved_m: float = 0.02,
              exclude: set[str] = frozenset()) -> list[str]:
    """Names of objects (other than `exclude`) whose position changed by more than `moved_m`."""
    return sorted(n for n, p in before.items()
                  if n not in exclude and n in after and float(np.linalg.norm(after[n] - p)) > moved_m)


def toppled(rotations: dict[str, np.ndarray], exclude: set[str] = frozenset(), min_up: float = 0.7) -> list[str]:
    """Objects whose up axis tilts beyond ~45 deg (knocked over)."""
    return sorted(n for n, r in rotations.items() if n not in exclude and float(r[2, 2]) < min_up)
