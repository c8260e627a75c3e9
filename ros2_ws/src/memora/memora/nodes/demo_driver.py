"""Demo driver node: waits until the demonstrations are in memory and consolidated, then gives each
instruction (text through SendInstruction, voice through the ASR node on a speech file), executes the plan
on the ExecutePlan action under an execution monitor, and writes summary.json + plans.json.

Execution monitor: every step's postcondition is checked by the controller (PrimitiveResult). On a failed
step the monitor retries it (slip, unreachable, collision, postcondition), replans from memory when the
object is missing, and otherwise — or when retries/replans run out — asks the user (the question is
printed and recorded) and ends the task as failed. It never continues past a failed step.
Exit code: 0 when every task succeeded, 1 otherwise (the supervisor then reports the graph as failed).
"""
from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from rclpy.action import ActionClient
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

from memora.common import declare_params, run_node
from memora.conversions import plan_from_msg, plan_to_msg
from memora_core.runtime.progress_wait import IdleTimeout, ProgressWait
from memora_core.runtime.supervisor import EXIT_COMPLETED_WITH_FAILURES, OUTCOME_PREFIX
from memora_core.runtime.tasks import Attempt, MonitorConfig, chosen_objects, run_monitored, task_success
from memora_core.schemas import Plan
from memora_interfaces.action import ExecutePlan
from memora_interfaces.msg import EpisodeEvent
from memora_interfaces.msg import Plan as PlanMsg
from memora_interfaces.srv import SendInstruction



class DriverParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    participant_id: str = "P01"
    tasks_json: str = Field(default="[]", description='[{"instruction", "voice_file", "expected_objects"}]')
    episodes_expected: int = Field(default=0, ge=0, description="demonstration episodes to wait for")
    out_dir: str = "runs/demo"
    memory_timeout_s: float = Field(default=240.0, gt=0)
    step_timeout_s: float = Field(default=180.0, gt=0, description=(
        "seconds without progress from the controller (a step starting or ending, a recovery starting, the "
        "`moving` heartbeat after the robot's joint moves) before a plan's execution is given up; a hung "
        "controller goes quiet"))
    max_retries: int = Field(default=1, ge=0)
    max_replans: int = Field(default=1, ge=0)
    asr_executable: str = Field(default="", description="path of the asr node; empty = next to this node")


class Task(BaseModel):
    model_config = ConfigDict(extra="forbid")
    instruction: str
    voice_file: str = ""
    expected_objects: list[str] = Field(default_factory=list)


class DemoDriver(Node):
    def __init__(self) -> None:
        super().__init__("demo_driver")
        self.p: DriverParams = declare_params(self, DriverParams)
        self.tasks = [Task.model_validate(t) for t in json.loads(self.p.tasks_json)]
        group = ReentrantCallbackGroup()
        latched = QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.written: set[str] = set()
        self.reports = 0
        self.voice_plans: list[tuple[float, Plan]] = []
        self._cv = threading.Condition()
        self.create_subscription(EpisodeEvent, "/memora/memory/episode", self._on_written, latched, callback_group=group)
        self.create_subscription(String, "/memora/consolidation/report", self._on_report, latched, callback_group=group)
        self.create_subscription(PlanMsg, "/memora/plan", self._on_plan, latched, callback_group=group)
        self.plan_client = self.create_client(SendInstruction, "/memora/send_instruction", callback_group=group)
        self.action = ActionClient(self, ExecutePlan, "/memora/execute_plan", callback_group=group)
        self.result: dict[str, Any] | None = None
        self.failure: BaseException | None = None
        self._attempt: Attempt | None = None  # the monitor's current attempt (numbers the progress lines)
        self.goals_accepted = 0  # counts as the controller does: its key frames are plan<goal>_step<index>_*.png
        threading.Thread(target=self._main, daemon=True).start()
        self.create_timer(0.2, self._check)

    # ------------------------------------------------------------------ plumbing
    def _check(self) -> None:
        if self.failure is not None:
            raise RuntimeError(f"demo driver failed: {self.failure}") from self.failure
        if self.result is not None:
            # Finished with failed tasks is an outcome, not a crash: the supervisor / launch file tell the two
            # apart by this exit code (a crash exits 1 through run_node, a signal kills the process).
            raise SystemExit(0 if self.result["all_success"] else EXIT_COMPLETED_WITH_FAILURES)

    def _on_attempt(self, attempt: Attempt) -> None:
        self._attempt = attempt

    def _on_written(self, msg: EpisodeEvent) -> None:
        with self._cv:
            self.written.add(msg.video_id)
            self._cv.notify_all()

    def _on_report(self, _msg: String) -> None:
        with self._cv:
            self.reports += 1
            self._cv.notify_all()

    def _on_plan(self, msg: PlanMsg) -> None:
        with self._cv:
            self.voice_plans.append((time.monotonic(), plan_from_msg(msg)))
            self._cv.notify_all()

    def _wait(self, future: Any, timeout: float) -> Any:
        """The future's result within `timeout` (a wait nothing reports progress to: IdleTimeout after it)."""
        return self._wait_progress(future, ProgressWait(timeout))

    def _wait_progress(self, future: Any, progress: ProgressWait) -> Any:
        done = threading.Event()
        future.add_done_callback(lambda _f: done.set())
        progress.wait(done)
        return future.result()

    def say(self, text: str) -> None:
        print(f"[demo] {text}", flush=True)

    # ------------------------------------------------------------------ phases
    def _wait_memory(self) -> float:
        t0 = time.monotonic()
        with self._cv:
            ok = self._cv.wait_for(lambda: len(self.written) >= self.p.episodes_expected
                                   and self.reports >= self.p.episodes_expected, timeout=self.p.memory_timeout_s)
        if not ok:
            raise TimeoutError(f"memory not formed in {self.p.memory_timeout_s:.0f} s: {len(self.written)} of "
                               f"{self.p.episodes_expected} episodes written, {self.reports} consolidations")
        self.say(f"memory formed from {len(self.written)} demonstrations and consolidated")
        return time.monotonic() - t0

    def _plan_text(self, text: str) -> tuple[bool, str, Plan]:
        if not self.plan_client.wait_for_service(timeout_sec=30.0):
            raise RuntimeError("planner service absent")
        resp = self._wait(self.plan_client.call_async(
            SendInstruction.Request(participant_id=self.p.participant_id, text=text)), 60.0)
        return resp.ok, resp.message, plan_from_msg(resp.plan)

    def _plan_voice(self, wav: str) -> tuple[str, Plan | None, float]:
        exe = self.p.asr_executable or str(Path(sys.argv[0]).resolve().with_name("asr"))
        t0 = time.monotonic()
        proc = subprocess.run([exe, "--ros-args", "-p", f"audio_file:={wav}", "-p",
                               f"participant_id:={self.p.participant_id}"], capture_output=True, text=True, timeout=120)
        if proc.returncode != 0:
            return f"(asr exit {proc.returncode})", None, time.monotonic() - t0
        with self._cv:
            self._cv.wait_for(lambda: any(t >= t0 for t, _ in self.voice_plans), timeout=60.0)
            plan = next((p for t, p in self.voice_plans if t >= t0), None)
        return (plan.instruction if plan else ""), plan, time.monotonic() - t0

    def _execute(self, plan: Plan, t_instr: float, record: dict[str, Any]) -> tuple[bool, list[dict], str]:
        """One ExecutePlan goal; returns success, per-step results, failure reason."""
        if not self.action.wait_for_server(timeout_sec=30.0):
            raise RuntimeError("ExecutePlan action server absent")
        first = {"t": None}
        started: dict[int, float] = {}  # step index -> when the controller started it
        progress = ProgressWait(self.p.step_timeout_s)

        def on_fb(fb: Any) -> None:
            progress.touch()
            f = fb.feedback
            if f.status == ExecutePlan.Feedback.STATUS_MOVING:
                return  # a heartbeat: progress, nothing to say
            if f.status == ExecutePlan.Feedback.STATUS_STARTED:
                started.setdefault(f.step_index, time.monotonic())
            if f.status == ExecutePlan.Feedback.STATUS_STARTED and first["t"] is None:
                first["t"] = time.monotonic()
            # A retry / replan goal holds only the remaining steps, numbered as in the whole plan: count
            # against that plan (the monitor's attempt), not the goal's own total_steps.
            attempt = self._attempt or Attempt(number=1, kind="plan", plan_steps=f.total_steps)
            self.say(f"  {attempt.step_label(f.step_index)} {f.status}: {f.step_text}")

        handle = self._wait(self.action.send_goal_async(ExecutePlan.Goal(plan=plan_to_msg(plan)),
                                                        feedback_callback=on_fb), 30.0)
        if not handle.accepted:
            return False, [], "goal rejected"
        self.goals_accepted += 1
        goal = self.goals_accepted
        try:
            res = self._wait_progress(handle.get_result_async(), progress).result
        except IdleTimeout as exc:
            # The task fails with what was heard; the goal is cancelled and the other tasks still run and report.
            handle.cancel_goal_async()
            return False, [], f"controller silent: {exc}"
        if record.get("first_motion_s") is None and first["t"] is not None:
            record["first_motion_s"] = round(first["t"] - t_instr, 3)
        # goal + index name the step's key frame; started_s: seconds from the instruction (for the report)
        steps = [{"index": r.step_index, "primitive": r.primitive, "success": r.success, "message": r.message,
                  "duration_s": round(r.duration_s, 3), "goal": goal,
                  "started_s": round(started[r.step_index] - t_instr, 3) if r.step_index in started else None,
                  **json.loads(r.details_json or "{}")} for r in res.step_results]
        return res.success, steps, res.message

    def _monitored(self, plan: Plan, t_instr: float, record: dict[str, Any]) -> bool:
        """The shared execution monitor (memora_core.runtime.tasks) over the ExecutePlan action."""
        out = run_monitored(plan, lambda p: self._execute(p, t_instr, record), self._plan_text,
                            MonitorConfig(max_retries=self.p.max_retries, max_replans=self.p.max_replans), say=self.say,
                            on_attempt=self._on_attempt)
        record["steps"] += out.steps
        record["events"] += out.events
        if out.question:
            record["question"] = out.question
        return out.success

    def _task(self, task: Task) -> dict[str, Any]:
        record: dict[str, Any] = {"instruction": task.instruction, "expected_objects": task.expected_objects,
                                  "steps": [], "events": [], "first_motion_s": None}
        if task.voice_file:
            heard, vplan, vt = self._plan_voice(task.voice_file)
            record["voice"] = {"heard": heard, "plan_s": round(vt, 3),
                               "steps": [s.render() for s in vplan.steps] if vplan else []}
            self.say(f"voice: heard {heard!r}")
        t0 = time.monotonic()
        ok, message, plan = self._plan_text(task.instruction)
        record["plan_s"] = round(time.monotonic() - t0, 3)
        record["plan"] = plan.model_dump(mode="json")
        if "voice" in record:
            record["voice"]["same_plan"] = record["voice"]["steps"] == [s.render() for s in plan.steps]
        self.say(f"instruction {task.instruction!r}: {message}")
        if not ok:
            record.update(success=False, answer=message, chosen_objects=[])
            return record
        for s in plan.steps:
            self.say(f"  plan {s.index + 1}. {s.render()}  (evidence: {', '.join(e.video_id for e in s.evidence[:2])})")
        t_exec = time.monotonic()
        executed = self._monitored(plan, t0, record)
        record["execute_s"] = round(time.monotonic() - t_exec, 3)
        record["chosen_objects"] = chosen_objects(record["steps"])
        record["step_order"] = [f"{s['primitive']} {s.get('resolved_object')}" + (
            f" -> {s['resolved_target']}" if s.get("resolved_target") else "") for s in record["steps"]]
        record["success"] = task_success(executed, task.expected_objects, record["chosen_objects"],
                                         task.expected_objects)
        return record

    def _main(self) -> None:
        try:
            t0 = time.monotonic()
            memory_s = self._wait_memory() if self.p.episodes_expected else 0.0
            records = [self._task(t) for t in self.tasks]
            out = Path(self.p.out_dir)
            out.mkdir(parents=True, exist_ok=True)
            (out / "plans.json").write_text(json.dumps([{"instruction": r["instruction"], "plan": r.get("plan")}
                                                        for r in records], indent=1))
            summary = {"tasks": [{k: v for k, v in r.items() if k != "plan"} for r in records],
                       "memory_wait_s": round(memory_s, 3), "driver_s": round(time.monotonic() - t0, 3),
                       "all_success": all(r["success"] for r in records)}
            (out / "driver_summary.json").write_text(json.dumps(summary, indent=1))
            for r in records:
                self.say(f"{'OK ' if r['success'] else 'FAIL'} {r['instruction']!r}: chose {r['chosen_objects']} "
                         f"(expected {r['expected_objects']}), first motion {r['first_motion_s']} s")
            failed = sum(not r["success"] for r in records)
            # The one-line outcome the supervisor reports when the graph ends (memora_core.runtime.supervisor).
            print(f"{OUTCOME_PREFIX}demo finished: {failed}/{len(records)} tasks failed", flush=True)
            self.result = summary
        except BaseException as exc:
            self.failure = exc


def main(argv: list[str] | None = None) -> int:
    # single-threaded executor: SystemExit from the timer must reach run_node (the work runs on its own thread)
    return run_node(DemoDriver, argv)


if __name__ == "__main__":
    sys.exit(main())
