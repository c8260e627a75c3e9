"""How the demo reports progress and its end.

- Progress lines number steps against the whole current plan and name the monitor's attempt: a retry or a
  replan sends only the remaining steps, so the goal's own step count is not the denominator ("step 6/3").
- A demo driver that completes with failed tasks is an outcome, not a crash: the supervisor reports
  "demo finished: N/M tasks failed" and exits non-zero; an exception or a signal is still a crash.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from memora_core.runtime.graph import ProcessSpec
from memora_core.runtime.supervisor import EXIT_COMPLETED_WITH_FAILURES, OUTCOME_PREFIX, Supervisor, SupervisorConfig
from memora_core.runtime.tasks import Attempt, MonitorConfig, run_monitored
from memora_core.schemas import Plan, PlanStep

REPO = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------------------------------ progress labels
def _plan(n: int, start: int = 0, obj: str = "yellow bowl") -> Plan:
    return Plan(participant_id="P01", instruction="Make my breakfast.", planner="test",
                steps=[PlanStep(index=i, action="pick" if i % 2 == 0 else "put", object=obj,
                                target=None if i % 2 == 0 else "on table") for i in range(start, n)])


class _ScriptedExecutor:
    """Stands in for the ExecutePlan action so the monitor's numbering is checked deterministically: fails
    the step with index `fail_at` with `reason` on the first call, succeeds on later calls."""

    def __init__(self, fail_at: int, reason: str):
        self.fail_at, self.reason, self.calls = fail_at, reason, 0
        self.labels: list[str] = []
        self.attempt: Attempt | None = None

    def on_attempt(self, attempt: Attempt) -> None:
        self.attempt = attempt

    def __call__(self, plan: Plan):
        self.calls += 1
        results = []
        for step in plan.steps:
            assert self.attempt is not None, "the monitor announces each attempt before executing it"
            self.labels.append(self.attempt.step_label(step.index))  # what the driver prints per feedback
            ok = not (self.calls == 1 and step.index == self.fail_at)
            results.append({"index": step.index, "primitive": step.action, "success": ok, "object": step.object,
                            "reason": None if ok else self.reason})
            if not ok:
                return False, results, f"step {step.index} failed"
        return True, results, "done"


def test_retry_numbers_steps_against_the_whole_plan():
    ex = _ScriptedExecutor(fail_at=5, reason="slipped")
    said: list[str] = []
    out = run_monitored(_plan(8), ex, lambda _i: (False, "unused", _plan(0)), MonitorConfig(max_retries=1),
                        say=said.append, on_attempt=ex.on_attempt)
    assert out.success and ex.calls == 2
    assert ex.labels[:6] == [f"step {i}/8" for i in range(1, 7)]
    # The retry sends steps 6..8 (3 steps); they are still steps 6..8 of 8, in attempt 2.
    assert ex.labels[6:] == [f"step {i}/8 (attempt 2, retry)" for i in (6, 7, 8)]
    assert "  monitor: attempt 2 (retry): steps 6-8 of 8" in said
    assert not any("/3" in label for label in ex.labels)


def test_replan_numbers_steps_against_the_new_plan():
    ex = _ScriptedExecutor(fail_at=2, reason="object_missing")
    new = _plan(6, obj="grey bowl")  # memory's second answer: six steps, the first two already done
    said: list[str] = []
    out = run_monitored(_plan(4), ex, lambda _i: (True, "grounded", new), MonitorConfig(max_replans=1),
                        say=said.append, on_attempt=ex.on_attempt)
    assert out.success and [e["action"] for e in out.events] == ["replan"]
    assert ex.labels == ["step 1/4", "step 2/4", "step 3/4",
                         "step 3/6 (attempt 2, replan)", "step 4/6 (attempt 2, replan)",
                         "step 5/6 (attempt 2, replan)", "step 6/6 (attempt 2, replan)"]
    assert "  monitor: attempt 2 (replan): steps 3-6 of 6" in said


def test_step_label_of_a_first_attempt_is_plain():
    assert Attempt(number=1, kind="plan", plan_steps=3).step_label(0) == "step 1/3"


# --------------------------------------------------------------------------- supervisor: outcome vs crash
def _py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def _supervise(tmp_path: Path, driver: list[str]) -> tuple[object, str]:
    """A long-running 'node' plus a graph-ending 'driver', both real processes under the supervisor."""
    specs = [ProcessSpec(name="worker", argv=_py("import time; time.sleep(60)")),
             ProcessSpec(name="demo_driver", argv=driver, ends_graph=True)]
    out_path = tmp_path / "out.txt"
    with out_path.open("w") as out:
        report = Supervisor(specs, SupervisorConfig(sigint_grace_s=3, sigterm_grace_s=1), out=out).run()
    return report, out_path.read_text()


def test_driver_with_failed_tasks_is_reported_as_finished_not_crashed(tmp_path):
    report, out = _supervise(tmp_path, _py(
        f"import sys; print('[demo] FAIL task'); print({OUTCOME_PREFIX + 'demo finished: 1/2 tasks failed'!r});"
        f" sys.exit({EXIT_COMPLETED_WITH_FAILURES})"))
    assert report.exit_code == EXIT_COMPLETED_WITH_FAILURES != 0
    assert report.reason.startswith("demo finished: 1/2 tasks failed"), report.reason
    assert "crash" not in out and report.failed == []
    driver = next(p for p in report.processes if p.name == "demo_driver")
    assert driver.outcome == "demo finished: 1/2 tasks failed"
    worker = next(p for p in report.processes if p.name == "worker")
    assert worker.returncode is not None and not worker.killed  # the rest of the graph was shut down


def test_driver_exception_is_still_a_crash(tmp_path):
    report, out = _supervise(tmp_path, _py("raise RuntimeError('planner service absent')"))
    assert report.exit_code == 1 and report.failed == ["demo_driver"]
    assert "node demo_driver crashed (exited with code 1)" in report.reason
    assert "planner service absent" in out  # its last output is shown


def test_driver_killed_by_a_signal_is_a_crash(tmp_path):
    report, _ = _supervise(tmp_path, _py("import os, signal, time; time.sleep(0.5); os.kill(os.getpid(), signal.SIGKILL)"))
    assert report.exit_code == 1 and report.failed == ["demo_driver"]
    assert "crashed (was killed by SIGKILL)" in report.reason


def test_failure_code_without_ends_graph_is_a_crash(tmp_path):
    """Exit code 3 means 'completed with failures' only for a node declared to end the graph."""
    specs = [ProcessSpec(name="worker", argv=_py("import time; time.sleep(60)")),
             ProcessSpec(name="camera", argv=_py(f"import sys; sys.exit({EXIT_COMPLETED_WITH_FAILURES})"))]
    with (tmp_path / "out.txt").open("w") as out:
        report = Supervisor(specs, SupervisorConfig(sigint_grace_s=3, sigterm_grace_s=1), out=out).run()
    assert report.exit_code == 1 and report.failed == ["camera"] and "crashed" in report.reason


# ------------------------------------------------------------------ the real driver node under `memora launch`
def _graph(tmp_path: Path, tasks: str) -> Path:
    store = tmp_path / "empty_memory"
    graph = {"arguments": {"tasks": {"default": tasks}},
             "params_dirs": [str(REPO / "robot_configs" / "ros")],
             "supervisor": {"sigint_grace_s": 8.0, "sigterm_grace_s": 2.0},
             "nodes": [
                 {"name": "planner", "executable": "planner", "params": ["common.yaml", "planner.yaml"],
                  "set": {"store_dir": str(store)}},
                 {"name": "demo_driver", "executable": "demo_driver", "params": ["common.yaml"],
                  "set": {"out_dir": str(tmp_path / "run"), "tasks_json": "{tasks}"}, "ends_graph": True}]}
    path = tmp_path / "graph.yaml"
    path.write_text(yaml.safe_dump(graph))
    return path


def _launch(env, graph: Path, report: Path) -> tuple[subprocess.CompletedProcess, dict]:
    res = subprocess.run([sys.executable, "-m", "memora_core.cli.main", "launch", "--graph", str(graph),
                          "--report", str(report)], env=env, capture_output=True, text=True, timeout=150)
    return res, json.loads(report.read_text())


@pytest.mark.ros
def test_real_driver_with_an_ungroundable_task_finishes_with_failures(ros_env, tmp_path):
    # Empty memory: the planner cannot ground the instruction, the task fails, the driver completes.
    tasks = json.dumps([{"instruction": "Prepare my drink.", "expected_objects": ["coca-cola bottle"]}])
    t0 = time.monotonic()
    res, report = _launch(ros_env, _graph(tmp_path, tasks), tmp_path / "report.json")
    out = res.stdout + res.stderr
    assert res.returncode == EXIT_COMPLETED_WITH_FAILURES, out
    assert "[supervisor] demo finished: 1/1 tasks failed" in out
    assert "crashed" not in out and report["failed"] == []
    summary = json.loads((tmp_path / "run" / "driver_summary.json").read_text())
    assert summary["all_success"] is False and len(summary["tasks"]) == 1
    assert time.monotonic() - t0 < 120


@pytest.mark.ros
def test_real_driver_that_fails_to_start_is_a_crash(ros_env, tmp_path):
    res, report = _launch(ros_env, _graph(tmp_path, '[{"no_instruction": 1}]'), tmp_path / "report.json")
    out = res.stdout + res.stderr
    assert res.returncode == 1, out
    assert "node demo_driver crashed (exited with code 1)" in out
    assert report["failed"] == ["demo_driver"]
