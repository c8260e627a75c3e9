"""A flat pinch on the G1 path (the `unitree_g1` Robot over DDS against the sim bridge, Dex3 HandCmd/HandState): a
spoon lying on the table, turned across the reach, is swept against the pre-closed thumb by the index and middle,
and the sweep stops as soon as the tactile pads read the thumb and a finger on it; the full close then grips it
and it comes up with the hand (the bridge's ground truth says so).
Control: the same pick with the sweep run to its end whatever the pads read (as the backend did before) slides
the thin spoon out between the fingers and the thumb, and the fingers close on nothing."""

import pytest

from tests.dds_domains import unitree_domain
from tests.fresh_process import run_in_fresh_process

pytest.importorskip("unitree_sdk2py")
# solo: a sim bridge keeping real time against deadlines (TEST_WORKERS=N make test runs it alone, after the workers)
pytestmark = [pytest.mark.sim, pytest.mark.solo]

SPOON, AT = "yellow spoon", (0.554, -0.284, 2.2)  # right of the midline, its handle pointing back and to the right


def test_the_sweep_stops_once_the_pads_feel_the_pinch_and_the_spoon_is_lifted():
    run_in_fresh_process("tests.scene.test_g1_sweep_stops_on_pinch", "_pinched", timeout_s=300)


def test_control_a_sweep_run_to_its_end_slides_the_spoon_out():
    run_in_fresh_process("tests.scene.test_g1_sweep_stops_on_pinch", "_swept_through", timeout_s=300)


def _pick():
    """Pick the spoon once (no second grasp candidate, no recoveries); (result, pose name, truth at the end)."""
    from memora_core.perception.scene.types import Shape
    from memora_core.robot import load_robot_config, make_robot
    from memora_core.robot.control import RuleBasedController
    from memora_core.robot.primitives import Primitive, PrimitiveCall
    from sim.scene.config import load_scene_config
    from tests.scene.bridge_process import bridge_with
    from tests.scene.test_dex3_dds import _tracker_seeing

    cfg = load_robot_config("unitree_g1")
    cfg = cfg.model_copy(update={"motion": cfg.motion.model_copy(update={"pick_attempts": 1})})
    scene = load_scene_config(cfg.scene_path())
    tracker = _tracker_seeing(SPOON, (AT[0], AT[1], 0.748), AT[2], (0.14, 0.024, 0.016), Shape.BOX, "yellow")
    with bridge_with({SPOON: AT}, seconds=200) as bridge:
        robot = make_robot(cfg, domain=unitree_domain(), interface="lo", state_timeout_s=60, objects=tracker)
        ctl = RuleBasedController(robot, scene.table.height, scene.regions, recoveries=[])
        result = ctl.execute(PrimitiveCall(primitive=Primitive.PICK, object=SPOON))
        pose, held = ctl.c.state.pose.name, robot.held_object()
        robot.settle(0.3)
        robot.close()
    return result, pose, held, bridge["truth"]


def _pinched() -> None:
    result, pose, held, truth = _pick()
    assert result.success, result.detail
    assert pose.startswith("flat pinch") and held == SPOON
    assert truth["held"] == SPOON and truth["objects"][SPOON][2] > 0.85, truth  # up with the hand


def _swept_through() -> None:
    import memora_core.robot.backends.unitree_g1 as g1

    g1.is_grasping = lambda digits: False  # the backend's own reading of its pads, during the sweep, ignored
    result, pose, held, truth = _pick()
    assert pose.startswith("flat pinch")
    assert not result.success and held is None
    assert truth["held"] is None and truth["objects"][SPOON][2] < 0.76, truth  # still on the table
