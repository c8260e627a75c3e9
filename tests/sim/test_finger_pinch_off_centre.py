"""A spoon whose middle is hemmed in by two cups, one on either side, picked by the Dex3 fingers in MuJoCo
(sim_g1_dex3, no recoveries). Every pinch at the spoon's middle puts the thumb or the fingers into a cup; a long
object's grasp points run toward either end too (`geometry.points_along`), and at the end away from the cups the
sweep pinch closes on the spoon and lifts it. Control: with grasps at the middle only, the pick is refused."""
import numpy as np
import pytest

import memora_core.robot.control.grasping as grasping
from tests.sim.staging import assert_refused_untouched, assert_taken_by_fingers, finger_pick

pytestmark = pytest.mark.sim

SPOON = "yellow spoon"
CENTRE = np.array([0.42, 0.05])
# The spoon lies along x; the cups' centres are 7.5 cm back from its middle, 7 cm to either side. The rest of the
# kitchen stands well away along the table's sides.
LAYOUT = {SPOON: (0.42, 0.05, 0.0), "orange cup": (0.345, 0.12, 0.0), "blue cup": (0.345, -0.02, 0.0),
          "coca-cola bottle": (0.30, -0.36, 0.0), "fanta can": (0.40, -0.36, 0.0), "green cup": (0.50, -0.36, 0.0),
          "yellow bowl": (0.30, 0.30, 0.0), "grey bowl": (0.50, 0.32, 0.0), "cinnamon tea box": (0.26, -0.22, 0.0),
          "lipton tea box": (0.56, -0.22, 0.0), "metal spoon": (0.30, -0.12, 0.0), "bread": (0.56, -0.10, 0.0)}


def test_the_spoon_is_pinched_toward_its_free_end():
    robot, ctl, result, before = finger_pick("sim_g1_dex3", LAYOUT, SPOON)
    try:
        assert_taken_by_fingers(robot, ctl, result, before, SPOON, LAYOUT, "flat pinch", lift=0.05,
                                thumb_and_finger=False)
        # Taken at the end away from the cups: the pick's grasp point lies beyond the spoon's middle.
        grasp = ctl.c.state.lift_clear.xy
        assert grasp[0] > CENTRE[0] + 0.02
    finally:
        robot.close()


def test_control_grasps_at_the_middle_only_are_refused(monkeypatch):
    monkeypatch.setattr(grasping, "points_along", lambda centre, axes, longest, m: [centre])
    robot, _, result, before = finger_pick("sim_g1_dex3", LAYOUT, SPOON)
    try:
        assert_refused_untouched(robot, result, before, SPOON)
    finally:
        robot.close()
