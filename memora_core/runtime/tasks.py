"""The demo's task logic without ROS: the execution monitor (retry / replan / ask), the evaluation of what a
run chose against what the task expects, and in-process memory formation from rendered demonstrations.

The ROS demo driver (ros2_ws/src/memora/memora/nodes/demo_driver.py) drives the monitor over the
ExecutePlan action; `memora sim-regression` (memora_core/runtime/regression.py) drives it on an in-process
controller. One monitor, so both report the same behaviour.
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from memora_core.schemas import Plan

log = logging.getLogger(__name__)

# Failures worth a second try of the same step (a transient physical outcome); an absent object is not.
RETRY_REASONS = frozenset({"slipped", "unreachable", "collision", "postcondition_failed"})
IGNORED_CHOICES = frozenset({"table"})  # a surface is where things go, not an object chosen for the task


class MonitorConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")
    max_retries: int = Field(default=1, ge=0)
    max_replans: int = Field(default=1, ge=0)


class MonitorOutcome(BaseModel):
    model_config = ConfigDict(extra="forbid")
    success: bool
    steps: list[dict[str, Any]] = Field(default_factory=list)     # the steps that succeeded, in order
    events: list[dict[str, Any]] = Field(default_factory=list)    # failures and what the monitor did
    question: str | None = None                                   # asked of the user when it gave up


class Attempt(BaseModel):
    """One execution the monitor starts: the first run of the plan, a retry of its failed step onward, or
    the rest of a replanned plan. A retry or replan sends only the remaining steps, which keep their
    numbers in the whole plan; `plan_steps` is the step count of that whole (current) plan."""

    model_config = ConfigDict(extra="forbid")
    number: int = Field(ge=1)
    kind: Literal["plan", "retry", "replan"]
    plan_steps: int = Field(ge=0)

    def step_label(self, step_index: int) -> str:
        """'step 6/8 (attempt 2, retry)' for the 0-based `step_index` of a step in this attempt's goal."""
        label = f"step {step_index + 1}/{self.plan_steps}"
        return label if self.number == 1 else f"{label} (attempt {self.number}, {self.kind})"


# execute(plan) -> (success, per-step result dicts with index/primitive/success/reason/object..., message)
Execute = Callable[[Plan], tuple[bool, list[dict[str, Any]], str]]
# replan(instruction) -> (ok, message, plan)
Replan = Callable[[str], tuple[bool, str, Plan]]


def _plan_steps(plan: Plan) -> int:
    # Step numbers are what people read; a plan numbered with gaps still counts up to its last step.
    return max([len(plan.steps), *(s.index + 1 for s in plan.steps)])


def run_monitored(plan: Plan, execute: Execute, replan: Replan, cfg: MonitorConfig | None = None,
                  say: Callable[[str], None] = log.info,
                  on_attempt: Callable[[Attempt], None] | None = None) -> MonitorOutcome:
    """Run `plan`, checking each step's reported postcondition. A failed step is retried (transient
    reasons), replanned from memory (object missing: memory may know another place or object), or the user
    is asked; the monitor never continues past a failed step. `on_attempt` hears of each execution before
    it starts (to number progress against the whole plan, not the remaining steps sent)."""
    cfg = cfg or MonitorConfig()
    out = MonitorOutcome(success=False)
    retries = replans = 0
    remaining = plan
    attempt = Attempt(number=1, kind="plan", plan_steps=_plan_steps(plan))
    while True:
        if on_attempt is not None:
            on_attempt(attempt)
        if attempt.number > 1 and remaining.steps:
            first, last = remaining.steps[0].index + 1, remaining.steps[-1].index + 1
            say(f"  monitor: attempt {attempt.number} ({attempt.kind}): steps {first}-{last} of {attempt.plan_steps}")
        ok, steps, message = execute(remaining)
        out.steps += [s for s in steps if s.get("success")]
        if ok:
            out.success = True
            return out
        failed = next((s for s in steps if not s.get("success")), None)
        reason = (failed or {}).get("reason") or ""
        if failed is None:
            out.events.append({"failed": None, "message": message, "action": "ask"})
            out.question = f"The robot could not run the plan ({message}). What should I do?"
            break
        done = {s["index"] for s in steps if s.get("success")}
        rest = [s for s in remaining.steps if s.index not in done]
        if reason in RETRY_REASONS and retries < cfg.max_retries:
            retries += 1
            out.events.append({"failed": failed, "message": message, "action": "retry"})
            say(f"  monitor: step failed ({reason}); retrying it ({retries}/{cfg.max_retries})")
            remaining = remaining.model_copy(update={"steps": rest})
            attempt = Attempt(number=attempt.number + 1, kind="retry", plan_steps=attempt.plan_steps)
            continue
        if reason == "object_missing" and replans < cfg.max_replans:
            replans += 1
            say(f"  monitor: {failed.get('object')!r} is not where memory says; replanning from memory")
            ok_plan, _why, new = replan(plan.instruction)
            n_done = len(plan.steps) - len(rest)
            new_rest = new.steps[n_done:] if ok_plan else []
            if new_rest and [s.render() for s in new_rest] != [s.render() for s in rest]:
                out.events.append({"failed": failed, "message": message, "action": "replan"})
                remaining = new.model_copy(update={"steps": new_rest})
                attempt = Attempt(number=attempt.number + 1, kind="replan", plan_steps=_plan_steps(new))
                continue
            out.events.append({"failed": failed, "message": message, "action": "replan_same"})
        else:
            out.events.append({"failed": failed, "message": message, "action": "ask"})
        out.question = (f"I cannot {failed.get('primitive')} the {failed.get('object')} ({reason or message}). "
                        f"Where is it, or what should I use instead?")
        break
    say(f"  monitor asks the user: {out.question}")
    return out


def chosen_objects(steps: Sequence[dict[str, Any]]) -> list[str]:
    """The scene objects a run really handled: what it picked, and what it put or poured into / next to."""
    picked = [s.get("resolved_object") for s in steps if s.get("primitive") == "pick"]
    targets = [s.get("resolved_target") for s in steps if s.get("primitive") in ("place", "pour")]
    return list(dict.fromkeys(o for o in picked + targets if o))


def task_success(executed: bool, expected: Sequence[str], chosen: Sequence[str],
                 order: Sequence[str] = ()) -> bool:
    """Executed to the end, every expected object used, no other object touched (a distractor is a
    failure), and the `order` objects first picked in that order."""
    if not executed or not set(expected) <= set(chosen) or set(chosen) - set(expected) - IGNORED_CHOICES:
        return False
    seq = [o for o in chosen if o in order]
    return seq == [o for o in order if o in seq]


# ---------------------------------------------------------------------------------------- memory formation
def form_memory(demo_root: Path, store_dir: Path, participant: str, video_ids: Sequence[str] | None = None,
                progress: bool = False) -> dict[str, int]:
    """The demonstrations under `demo_root` through the `sim` perception backend and the online editor into
    a store at `store_dir`, then consolidation. The same path as the memory-writer node, in one process."""
    import sim.perception  # noqa: F401 - registers the `sim` backend
    from memora_core.config import load_config
    from memora_core.consolidation import consolidate
    from memora_core.editing import MemoryWriter, load_editor_config, make_decider
    from memora_core.perception.base import PerceptionConfig, make_perception
    from memora_core.store import MemoryStore
    from sim.demonstrator.trace import find_sessions
    from sim.perception import demo_inputs

    core = load_config()
    ecfg = load_editor_config()
    ecfg = ecfg.model_copy(update={"candidates": ecfg.candidates.model_copy(update={"embedder": "hashing"})})
    store = MemoryStore.open(store_dir, core)
    perception = make_perception(PerceptionConfig(backend="sim", options={"demo_root": str(demo_root)}))
    writer = MemoryWriter(store, perception, make_decider(ecfg), config=ecfg)
    sessions = [s for s in find_sessions(demo_root) if video_ids is None or s.video_id in video_ids]
    segments = 0
    try:
        for s in sessions:
            for item in demo_inputs(s, participant, core.segmenting):
                writer.process(item)
                segments += 1
        writer.flush()
        routines, prefs = consolidate(store, participant)
    finally:
        perception.close()
        store.close()
    return {"episodes": len(sessions), "segments": segments, "routines": len(routines), "preferences": len(prefs)}
