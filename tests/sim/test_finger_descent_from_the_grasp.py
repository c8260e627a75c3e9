"""A spoon between a tea box, a bottle and a cup, picked by the Dex3 fingers in MuJoCo (sim_g1_dex3, no recoveries;
the layout of dev sim-bench 77009). The rolled sweep pinch's grasp posture is clear of every neighbour, but the arm's
descent solved down from cruise height (IK chained from the posture above) brings the elbow into the tea box 2 cm
above the grasp; solved up from the clear grasp posture and run backwards it stays clear, and the spoon is taken.
Control: with only the descent solved from above, the same pick is refused as no_grasp (the pinches pitched 15 deg left
out: tried last, their raised wrist also clears the tea box from above; and the pinches held to the usual yaws: one
pointing away from the midline also reaches it from above)."""
import pytest

from memora_core.robot.control.grasping import GraspChooser
from tests.sim.staging import (assert_refused_untouched, assert_taken_by_fingers, finger_pick, usual_yaws,
                               without_poses)

pytestmark = pytest.mark.sim

SPOON = "metal spoon"
LAYOUT = {"coca-cola bottle": (0.264, -0.09, 0.098), "fanta can": (0.426, 0.125, -2.629),
          "orange cup": (0.283, -0.374, 1.572), "blue cup": (0.435, -0.171, 3.032),
          "green cup": (0.543, -0.097, 0.474), "yellow bowl": (0.339, 0.256, 2.253),
          "grey bowl": (0.536, 0.21, -0.784), "cinnamon tea box": (0.265, 0.099, 0.575),
          "lipton tea box": (0.293, -0.222, 0.784), "yellow spoon": (0.524, -0.296, 2.067),
          SPOON: (0.386, -0.011, -0.391), "bread": (0.53, 0.032, 2.482)}


def _pick(cfg="sim_g1_dex3"):
    return finger_pick(cfg, LAYOUT, SPOON)


def test_the_descent_solved_up_from_the_grasp_takes_the_spoon():
    robot, ctl, result, before = _pick()
    try:
        assert_taken_by_fingers(robot, ctl, result, before, SPOON, LAYOUT, "flat pinch", lift=0.05)
    finally:
        robot.close()


def test_control_only_the_descent_from_above_is_refused(monkeypatch):
    def from_above(self, grasp_pt, pre, above, ignore, free, at_grasp, seed=None):
        arm = self.c.arm
        path = arm.plan_line(above, free, "above", start=seed, start_xyz=above)
        path += arm.plan_line(pre, free, "pre-grasp", path[-1], above)
        return path + arm.plan_line(grasp_pt, ignore, "approach", path[-1], pre)

    monkeypatch.setattr(GraspChooser, "descent", from_above)
    robot, _, result, before = _pick(usual_yaws(without_poses("sim_g1_dex3", lambda p: "pitched" in p.name)))
    try:
        assert_refused_untouched(robot, result, before, SPOON)
    finally:
        robot.close()
