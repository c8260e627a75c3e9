"""`make sim-regression`'s two ways of running a seed: each task on a fresh kitchen (default), or all tasks in one
kitchen one after the other, as the demo runs them (`--in-sequence`). Only the kitchen bookkeeping is checked here
(robot construction is replaced by a counter); the regression itself runs the real robot in
tests/ros/test_regression.py."""
from __future__ import annotations

from types import SimpleNamespace

import memora_core.robot as robot_pkg
import memora_core.robot.control as control_pkg
from memora_core.runtime.regression import run_seed
from memora_core.runtime.tasks import MonitorConfig


def _run(monkeypatch, in_sequence: bool) -> tuple[list[dict], list[int]]:
    built: list[int] = []

    def make_robot(name, layout):  # noqa: ANN001, ANN202
        built.append(layout.seed if hasattr(layout, "seed") else 0)
        return SimpleNamespace(scene=SimpleNamespace(table=SimpleNamespace(height=0.8), regions={}))

    monkeypatch.setattr(robot_pkg, "make_robot", make_robot)
    monkeypatch.setattr(control_pkg, "RuleBasedController", lambda robot, z, regions: SimpleNamespace(robot=robot))
    tasks = [SimpleNamespace(instruction="Bring the thing.", expected_objects=["thing"]),
             SimpleNamespace(instruction="Tidy up.", expected_objects=["cup"])]
    rows = run_seed(3, tasks, lambda text: (False, "no plan", None), "sim_g1", MonitorConfig(), in_sequence=in_sequence)
    return rows, built


def test_each_task_gets_a_fresh_kitchen_by_default(monkeypatch) -> None:
    rows, built = _run(monkeypatch, in_sequence=False)
    assert len(built) == 2 and [r["instruction"] for r in rows] == ["Bring the thing.", "Tidy up."]
    assert all(r["seed"] == 3 and r["success"] is False for r in rows)


def test_in_sequence_runs_every_task_in_one_kitchen(monkeypatch) -> None:
    rows, built = _run(monkeypatch, in_sequence=True)
    assert len(built) == 1 and len(rows) == 2
