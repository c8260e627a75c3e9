"""What the demo report shows of each task: its row in the task table, the plan with each step's evidence
(demonstration frames), and what execution did step by step (key frame, success or failure, timing, what the
execution monitor did), from summary.json, plans.json and the controller's key frames."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memora_core.report.frames import FrameSheet
from memora_core.report.memory_view import EvidenceView, evidence_view
from memora_core.schemas import Plan, PlanStep

# The controller node saves a key frame after each step as plan<goal>_step<index>_<ok|failed>.png, <goal>
# counting the ExecutePlan goals it ran (1, 2, ...) and <index> the step's index in the plan.
KEY_FRAME = re.compile(r"^plan(\d+)_step(\d+)_(ok|failed)\.png$")
TARGETED = frozenset({"place", "pour", "give", "move_to"})  # primitives whose target is where things go


@dataclass
class StepRun:
    """One step as the robot ran it (a retried step appears once per attempt)."""

    index: int
    primitive: str
    object: str | None
    target: str | None
    success: bool
    goal: int | None = None
    started_s: float | None = None  # since the instruction was given
    duration_s: float | None = None
    reason: str | None = None
    message: str = ""
    monitor: str | None = None  # what the execution monitor did after this failure
    frame: str | None = None  # the key frame, relative to the page

    @property
    def label(self) -> str:
        """'place bread → yellow bowl'; a pick names only its object (its target is where it stood)."""
        into = self.target if self.primitive in TARGETED else None
        return f"{self.primitive} {self.object or ''}" + (f" → {into}" if into else "")


@dataclass
class PlanStepView:
    step: PlanStep
    evidence: list[EvidenceView]


@dataclass
class TaskView:
    number: int
    task: dict[str, Any]
    plan: Plan | None
    steps: list[PlanStepView] = field(default_factory=list)
    runs: list[StepRun] = field(default_factory=list)

    @property
    def failures(self) -> list[str]:
        return failed_steps(self.task)


def failed_steps(task: dict[str, Any]) -> list[str]:
    """What went wrong in a task: each monitor event (failed step, reason, what the monitor did)."""
    out = []
    for e in task.get("events", []):
        f = e.get("failed") or {}
        out.append(f"{f.get('primitive')} {f.get('object')}" + (f" -> {f.get('target')}" if f.get("target") else "")
                   + f": {f.get('reason') or e.get('message')} [{e.get('action')}]")
    return out


def key_frames(frames_dir: Path, page_dir: Path) -> dict[tuple[int, int], str]:
    """(goal, step index) -> the controller's key frame, relative to the page."""
    out = {}
    for p in sorted(frames_dir.glob("*.png")) if frames_dir.is_dir() else []:
        m = KEY_FRAME.match(p.name)
        if m:
            out[(int(m.group(1)), int(m.group(2)))] = p.relative_to(page_dir).as_posix()
    return out


def _run(step: dict[str, Any], frames: dict[tuple[int, int], str], monitor: str | None = None) -> StepRun:
    goal = step.get("goal")
    index = int(step.get("index", 0))
    return StepRun(index=index, primitive=step.get("primitive") or "?", object=step.get("resolved_object")
                   or step.get("object"), target=step.get("resolved_target") or step.get("target"),
                   success=bool(step.get("success")), goal=goal, started_s=step.get("started_s"),
                   duration_s=step.get("duration_s"), reason=step.get("reason"), message=step.get("message") or "",
                   monitor=monitor, frame=frames.get((goal, index)) if goal is not None else None)


def step_runs(task: dict[str, Any], frames: dict[tuple[int, int], str]) -> list[StepRun]:
    """The steps that succeeded and the failures the monitor handled, in the order they ran."""
    runs = [_run(s, frames) for s in task.get("steps", [])]
    runs += [_run(e["failed"], frames, e.get("action")) for e in task.get("events", []) if e.get("failed")]
    return sorted(runs, key=lambda r: (r.goal if r.goal is not None else 0, r.index, not r.success))


def read_plans(path: Path) -> list[Plan | None]:
    """plans.json (one entry per task, in task order) validated as Plans; a task without a plan is None."""
    if not path.exists():
        return []
    return [Plan.model_validate(p["plan"]) if p.get("plan") else None for p in json.loads(path.read_text())]


def task_views(summary: dict[str, Any], plans: list[Plan | None], frames_dir: Path, page_dir: Path,
               sheet: FrameSheet) -> list[TaskView]:
    exec_frames = key_frames(frames_dir, page_dir)
    out = []
    for i, task in enumerate(summary.get("tasks", [])):
        plan = plans[i] if i < len(plans) else None
        steps = [PlanStepView(s, [evidence_view(e, sheet) for e in s.evidence]) for s in plan.steps] if plan else []
        out.append(TaskView(i + 1, task, plan, steps, step_runs(task, exec_frames)))
    return out
