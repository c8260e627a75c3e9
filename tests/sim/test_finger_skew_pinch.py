"""A spoon between two cups, picked by the Dex3 fingers in MuJoCo (sim_g1_dex3, no recoveries; the layout of dev
sim-bench 77006). The rolled sweep pinch square to the spoon or 20 deg off puts the wrist into a cup (1-3 cm) with
either arm; turned 40 deg off square ("flat pinch skew") the wrist passes between the cups, and the thumb and a
finger close on the spoon and lift it. Control: without the skewed poses the same pick is refused as no_grasp (the
pinches pitched 15 deg left out too: tried last, their raised wrist passes over the cups instead)."""
import pytest

from tests.sim.staging import assert_refused_untouched, assert_taken_by_fingers, finger_picked, without_poses

pytestmark = pytest.mark.sim

SPOON = "yellow spoon"
LAYOUT = {"coca-cola bottle": (0.407, -0.302, -2.339), "fanta can": (0.511, 0.303, 0.85),
          "orange cup": (0.264, 0.161, -0.702), "blue cup": (0.407, 0.255, -0.378),
          "green cup": (0.277, 0.288, -1.986), "yellow bowl": (0.266, -0.356, 0.581),
          "grey bowl": (0.464, -0.151, -1.507), "cinnamon tea box": (0.554, -0.317, -3.132),
          "lipton tea box": (0.553, -0.024, -0.503), SPOON: (0.463, 0.117, 1.087),
          "metal spoon": (0.266, -0.027, 2.101), "bread": (0.271, -0.203, 3.044)}


def _pick(skew: bool):
    cfg = "sim_g1_dex3" if skew else without_poses("sim_g1_dex3", lambda p: "skew" in p.name or "pitched" in p.name)
    return finger_picked(cfg, LAYOUT, SPOON)


def test_the_skewed_pinch_takes_a_spoon_between_cups():
    with _pick(skew=True) as (robot, ctl, result, before):
        assert_taken_by_fingers(robot, ctl, result, before, SPOON, LAYOUT, "flat pinch skew", lift=0.05,
                                thumb_and_finger=False)


def test_control_without_the_skewed_pinch_the_spoon_is_refused():
    with _pick(skew=False) as (robot, _, result, before):
        assert_refused_untouched(robot, result, before, SPOON)
