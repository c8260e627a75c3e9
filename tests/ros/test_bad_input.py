"""Bad input for the execution monitor on real MuJoCo: an object memory planned with is gone from the scene.
The monitor must replan or ask — never grasp a look-alike (the Fanta for the Coca-Cola) and never continue
past the failed step. (Ungroundable instructions: tests/ros/test_nodes.py; a crashed node: test_runner.py.)"""
from __future__ import annotations

import numpy as np
import pytest

from memora_core.runtime.regression import InProcessExecutor
from memora_core.runtime.tasks import MonitorConfig, run_monitored
from memora_core.schemas import Plan, PlanStep

pytestmark = pytest.mark.sim
POSES = {"coca-cola bottle": (0.40, -0.25, 0.0), "fanta can": (0.40, -0.05, 0.0),
         "orange cup": (0.52, -0.20, 0.0), "yellow bowl": (0.45, -0.40, 0.0)}


def _controller(poses):
    from memora_core.robot import make_robot
    from memora_core.robot.control import RuleBasedController
    from sim.scene import Layout

    robot = make_robot("sim_g1", layout=Layout(seed=0, poses=poses))
    return robot, RuleBasedController(robot, robot.scene.table.height, robot.scene.regions)


def _drink_plan() -> Plan:
    return Plan(participant_id="P01", instruction="Prepare my drink.", planner="test", steps=[
        PlanStep(index=0, action="pick", object="coca-cola bottle"),
        PlanStep(index=1, action="pour", object="coca-cola bottle", target="into orange cup")])


def test_object_gone_from_the_scene_makes_the_monitor_replan_then_ask():
    # The bottle was in the scene memory saw; it is removed from the simulated kitchen before execution.
    robot, controller = _controller({k: v for k, v in POSES.items() if k != "coca-cola bottle"})
    fanta_before = robot.object_pose("fanta can")[0].copy()
    replans: list[str] = []

    def replan(instruction: str):
        # memory still says the same (the planner's answer, fixed for determinism)
        replans.append(instruction)
        return True, "grounded", _drink_plan()

    said: list[str] = []
    out = run_monitored(_drink_plan(), InProcessExecutor(controller), replan, MonitorConfig(max_retries=1, max_replans=1),
                        say=said.append)
    assert not out.success
    assert replans == ["Prepare my drink."]                        # replanned from memory first
    assert [e["action"] for e in out.events] == ["replan_same"]    # same plan: no blind second attempt
    assert out.events[0]["failed"]["reason"] == "object_missing"
    assert out.question and "coca-cola bottle" in out.question     # ... then asks the user
    assert out.steps == []                                          # never continued to the pour
    assert robot.held_object() is None                              # no wrong grasp
    assert np.allclose(robot.object_pose("fanta can")[0], fanta_before, atol=1e-3)
    assert any("asks the user" in s for s in said)


def test_replan_with_another_plan_is_executed():
    # Memory offers a different plan after the failure (e.g. another known place/object): the monitor runs it.
    robot, controller = _controller({k: v for k, v in POSES.items() if k != "coca-cola bottle"})
    alt = Plan(participant_id="P01", instruction="Prepare my drink.", planner="test", steps=[
        PlanStep(index=0, action="pick", object="orange cup"), PlanStep(index=1, action="put", object="orange cup",
                                                                      target="on the table")])
    execute = InProcessExecutor(controller)
    ran: list[list[str]] = []

    def recording(plan: Plan):
        ran.append([s.render() for s in plan.steps])
        return execute(plan)

    out = run_monitored(_drink_plan(), recording, lambda _i: (True, "grounded", alt), MonitorConfig(max_replans=1),
                        say=lambda _s: None)
    assert out.events[0]["action"] == "replan"
    assert ran[1] == [s.render() for s in alt.steps]  # the new plan ran, not the stale one again
    assert all(s.get("object") != "coca-cola bottle" for s in out.steps)
