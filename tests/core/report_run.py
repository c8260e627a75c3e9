"""A small demo run directory, built in seconds for the report tests: a real store (the real MemoryWriter and
consolidation, tests/ros/memory_fixture.py), real mp4 demonstrations (PyAV; each frame's grey level encodes its
time), plans from the real structured planner, and task records from the real execution monitor
(memora_core.runtime.tasks) over a scripted executor that stands in for the ROS controller (the one mock: it
makes the outcome deterministic) and saves a key frame per step under the controller's file names."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

PARTICIPANT = "P01"
VIDEOS = [f"{PARTICIPANT}_drink_{v}" for v in range(3)]  # the sessions build_drink_store writes
FPS = 2
SECONDS = 30
POUR = "Pour the coca-cola into the orange cup"
TASKS = [  # instruction, expected objects, steps (goal, index) that fail once
    (POUR, ["coca cola bottle", "orange cup"], set()),
    (POUR, ["coca cola bottle", "orange cup"], {(2, 1)}),  # the pour slips once; the monitor retries it
    ("Give me the fanta can", ["fanta can"], set()),  # memory cannot ground it: no plan to run
]


def grey_at(t: float) -> int:
    """The grey level of the synthetic demonstration frame at `t` seconds."""
    return int(round(t * FPS)) * 8 % 256


def write_video(path: Path, seconds: float = SECONDS, fps: int = FPS, size: tuple[int, int] = (96, 64),
                colour: Any = None) -> Path:
    import av

    path.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(path), "w") as c:
        stream = c.add_stream("libx264", rate=fps)
        stream.width, stream.height, stream.pix_fmt = size[0], size[1], "yuv420p"
        for k in range(int(seconds * fps)):
            value = grey_at(k / fps) if colour is None else colour
            img = np.full((size[1], size[0], 3), value, dtype=np.uint8)
            for packet in stream.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
                c.mux(packet)
        for packet in stream.encode():
            c.mux(packet)
    return path


class ScriptedExecutor:
    """Runs plan steps as the controller would report them; saves a key frame after each one."""

    def __init__(self, frames_dir: Path, failures: set[tuple[int, int]]) -> None:
        self.frames_dir = frames_dir
        self.failures = failures
        self.goals = 0

    def __call__(self, plan: Any) -> tuple[bool, list[dict[str, Any]], str]:
        import cv2

        from memora_core.robot.primitives import VERBS

        self.goals += 1
        steps = []
        for s in plan.steps:
            fail = (self.goals, s.index) in self.failures
            prim = VERBS[s.action].value if s.action in VERBS else s.action
            steps.append({"index": s.index, "primitive": prim, "success": not fail,
                          "message": "slipped out of the hand" if fail else "", "duration_s": 2.5 + s.index,
                          "object": s.object, "target": s.target, "reason": "slipped" if fail else None,
                          "placement_error_m": None, "resolved_object": s.object, "resolved_target": s.target,
                          "goal": self.goals, "started_s": round(1.0 + 3.0 * len(steps), 3)})
            img = np.full((120, 160, 3), (40, 40, 200) if fail else (60, 160, 60), dtype=np.uint8)
            self.frames_dir.mkdir(parents=True, exist_ok=True)
            name = f"plan{self.goals:02d}_step{s.index:02d}_{'failed' if fail else 'ok'}.png"
            cv2.imwrite(str(self.frames_dir / name), img)
            if fail:
                return False, steps, f"step {s.index} failed: slipped"
        return True, steps, f"{len(steps)} steps done"


def build_demo_run(run_dir: Path) -> dict[str, Any]:
    """Fill `run_dir` as `make demo` leaves it (less the MCAP recording); returns the summary."""
    from memora_core.agents import make_planner
    from memora_core.conditions import build_condition
    from memora_core.demo import recording_summary
    from memora_core.runtime.tasks import MonitorConfig, chosen_objects, run_monitored, task_success
    from memora_core.store.sqlite_store import SQLiteStore
    from tests.ros.memory_fixture import build_drink_store

    build_drink_store(run_dir / "memory", PARTICIPANT)
    for vid in VIDEOS:
        write_video(run_dir / "demos" / "task_drink" / f"{vid}.mp4")
    write_video(run_dir / "execution" / "execution.mp4", seconds=4, fps=5, size=(160, 120), colour=90)
    failures = set().union(*(f for _i, _e, f in TASKS))
    execute = ScriptedExecutor(run_dir / "execution" / "frames", failures)
    store = SQLiteStore(run_dir / "memory", readonly=True)
    planner = make_planner("structured", build_condition("memora", store, PARTICIPANT))
    records, plans = [], []
    try:
        for instruction, expected, _f in TASKS:
            plan = planner.plan(instruction)
            plans.append({"instruction": instruction, "plan": plan.model_dump(mode="json")})
            record: dict[str, Any] = {"instruction": instruction, "expected_objects": expected, "steps": [],
                                      "events": [], "first_motion_s": None, "plan_s": 0.05}
            if not plan.ok:
                record.update(success=False, answer="; ".join(plan.missing), chosen_objects=[])
            else:
                out = run_monitored(plan, execute, lambda text: (True, "", planner.plan(text)), MonitorConfig(),
                                    say=lambda _s: None)
                record.update(steps=out.steps, events=out.events, first_motion_s=1.0, execute_s=9.5)
                if out.question:
                    record["question"] = out.question
                record["chosen_objects"] = chosen_objects(out.steps)
                record["success"] = task_success(out.success, expected, record["chosen_objects"], expected)
            records.append(record)
    finally:
        store.close()
    (run_dir / "plans.json").write_text(json.dumps(plans, indent=1))
    summary = {"tasks": records, "all_success": all(r["success"] for r in records), "participant": PARTICIPANT,
               "layout_seed": 1002, "wall_seconds": 1.0, "exit_code": 3, "demonstrations": VIDEOS,
               "recording": recording_summary(run_dir / "recording"),
               "execution_video": str(run_dir / "execution" / "execution.mp4")}
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary
