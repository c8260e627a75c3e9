"""A spoon beside a bowl, picked by the Dex3 fingers in MuJoCo (sim_g1_dex3, no recoveries; the layout of dev
sim-bench 96024). Every level sweep pinch that the arm can make there puts the forearm into the bowl's rim, so the
pick used to be refused and making room could not move the bowl (hemmed in by a second bowl). The same pinch pitched
15 deg (fingers down, `tried_last`) raises the wrist over the rim, and thumb and fingers take the spoon. Control:
without the pitched poses the same pick is refused as no_grasp, the spoon untouched. On a lone spoon the level pinches
still come first."""
import pytest

from tests.sim.staging import assert_refused_untouched, assert_taken_by_fingers, finger_picked, without_poses

pytestmark = pytest.mark.sim

SPOON = "yellow spoon"
LAYOUT = {"coca-cola bottle": (0.551, -0.21, -0.696), "fanta can": (0.412, -0.015, 0.574),
          "orange cup": (0.535, -0.05, -0.203), "blue cup": (0.269, 0.128, 1.331),
          "green cup": (0.299, -0.336, 2.448), "yellow bowl": (0.436, 0.137, 1.28),
          "grey bowl": (0.292, 0.313, 0.748), "cinnamon tea box": (0.532, -0.361, 2.967),
          "lipton tea box": (0.271, -0.132, 3.013), SPOON: (0.536, 0.309, -0.03),
          "metal spoon": (0.401, -0.207, -0.05), "bread": (0.273, -0.003, -1.262)}
# The same table with the spoon alone in the middle and the metal spoon in its place (no neighbour within 14 cm of it).
LONE = {**LAYOUT, SPOON: (0.41, -0.22, -0.05), "metal spoon": (0.536, 0.309, -0.03)}


def _pick(layout: dict, pitched: bool):
    cfg = "sim_g1_dex3" if pitched else without_poses("sim_g1_dex3", lambda p: "pitched" in p.name)
    return finger_picked(cfg, layout, SPOON)


def test_the_pitched_pinch_takes_a_spoon_beside_a_bowl():
    with _pick(LAYOUT, pitched=True) as (robot, ctl, result, before):
        assert_taken_by_fingers(robot, ctl, result, before, SPOON, LAYOUT, "flat pinch pitched", lift=0.05,
                                thumb_and_finger=False)


def test_control_without_the_pitched_pinch_the_spoon_is_refused():
    with _pick(LAYOUT, pitched=False) as (robot, _, result, before):
        assert_refused_untouched(robot, result, before, SPOON)


def test_a_lone_spoon_is_still_taken_by_a_level_pinch():
    with _pick(LONE, pitched=True) as (_, ctl, result, _before):
        assert result.success, result.detail
        assert ctl.c.state.pose.name.startswith("flat pinch") and "pitched" not in ctl.c.state.pose.name
