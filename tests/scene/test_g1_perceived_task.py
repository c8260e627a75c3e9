"""One full task on the G1 path from perceived poses: the `unitree_g1` Robot over DDS (LowCmd/LowState, Dex3
HandCmd/HandState) against the sim bridge, its objects from the head RGB-D scene model (depth segmentation and
matching on a rendered frame, fed to the object tracker), a finger grasp, and the bottle set down on the table
centre. The bridge's ground truth only scores the outcome."""

import pytest

from tests.dds_domains import unitree_domain
from tests.fresh_process import run_in_fresh_process

pytest.importorskip("unitree_sdk2py")
# solo: a sim bridge keeping real time against deadlines (TEST_WORKERS=N make test runs it alone, after the workers)
pytestmark = [pytest.mark.sim, pytest.mark.slow, pytest.mark.solo]

BOTTLE, CUP = "coca-cola bottle", "orange cup"
POSES = {BOTTLE: (0.40, -0.20, 0.0), CUP: (0.52, 0.05, 0.0)}


def test_g1_picks_and_places_from_perceived_poses_with_a_finger_grasp():
    run_in_fresh_process("tests.scene.test_g1_perceived_task", "_task", timeout_s=400)


def _perceived_tracker():
    """The tracker fed by the scene model of one head RGB-D frame of the kitchen as the bridge starts it."""
    from memora_core.perception.scene import SceneModeller
    from memora_core.perception.scene.objects import entities
    from memora_core.perception.scene.tracker import ObjectTracker
    from memora_core.robot import make_robot
    from sim.head_camera import HeadRGBD
    from sim.scene import Layout

    view = make_robot("sim_g1", layout=Layout(seed=0, poses=POSES))
    catalogue = [o.model_copy(update={"position": None}) for o in view.scene_objects()]  # identity only
    tracker = ObjectTracker(catalogue)
    frame = HeadRGBD(view.model, seed=1).render(view.data)
    assert sorted(tracker.update(SceneModeller(entities(catalogue)).observe(frame))) == sorted(POSES)
    view.close()
    return tracker


def _task() -> None:
    import numpy as np

    from memora_core.robot import make_robot
    from memora_core.robot.control import RuleBasedController
    from memora_core.robot.primitives import Primitive, PrimitiveCall
    from sim.scene.config import load_scene_config
    from tests.scene.bridge_process import bridge_with

    tracker = _perceived_tracker()
    with bridge_with(POSES) as bridge:
        robot = make_robot("unitree_g1", domain=unitree_domain(), interface="lo", state_timeout_s=60, objects=tracker)
        assert robot.config.grasp.mode == "fingers"
        scene = load_scene_config(robot.config.scene_path())
        ctl = RuleBasedController(robot, scene.table.height, scene.regions)
        pick = ctl.execute(PrimitiveCall(primitive=Primitive.PICK, object=BOTTLE))
        assert pick.success, pick.detail
        assert robot.held_object() == BOTTLE and robot.hands[robot.arm].grasping()  # the finger state says so
        place = ctl.execute(PrimitiveCall(primitive=Primitive.PLACE, object=BOTTLE, target="table center",
                                          relation="on"))
        assert place.success, place.detail
        assert robot.held_object() is None
        robot.close()
    seen = bridge["truth"]
    assert seen["held"] is None
    goal = np.array(scene.regions["table center"][:2])
    bottle = np.array(seen["objects"][BOTTLE])
    assert np.linalg.norm(bottle[:2] - goal) < robot.config.motion.place_tolerance, seen  # where it was asked
    assert abs(bottle[2] - 0.85) < 0.01, seen                                               # standing
    assert np.linalg.norm(np.array(seen["objects"][CUP][:2]) - POSES[CUP][:2]) < 0.01, seen  # the cup untouched
