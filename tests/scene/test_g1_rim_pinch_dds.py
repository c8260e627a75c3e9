"""The rim pinch on the G1 path: a bowl hemmed in on every side but one (tests/sim/test_finger_rim_pinch.py's crowd),
picked by the `unitree_g1` Robot over DDS against the sim bridge (LowCmd/LowState, Dex3 HandCmd/HandState), its
objects from the object tracker a head RGB-D scene model feeds. The rolled hand's fingers sweep over the rim against
the thumb until the pads feel the wall between them, and the full close grips it: the bowl comes up with the hand
(the bridge's ground truth says so) and no neighbour is knocked over."""

import pytest

from tests.dds_domains import unitree_domain
from tests.fresh_process import run_in_fresh_process

pytest.importorskip("unitree_sdk2py")
# solo: a sim bridge keeping real time against deadlines (TEST_WORKERS=N make test runs it alone, after the workers)
pytestmark = [pytest.mark.sim, pytest.mark.solo]


def test_a_hemmed_in_bowl_is_taken_by_its_rim_through_the_bridge():
    run_in_fresh_process("tests.scene.test_g1_rim_pinch_dds", "_pick", timeout_s=300)


def _pick() -> None:
    from memora_core.perception.scene.tracker import ObjectTracker, scene_catalogue
    from memora_core.perception.scene.types import PerceivedObject, SceneModel, Shape
    from memora_core.robot import load_robot_config, make_robot
    from memora_core.robot.control import RuleBasedController
    from memora_core.robot.primitives import Primitive, PrimitiveCall
    from sim.scene import Layout
    from sim.scene.config import load_scene_config
    from tests.scene.bridge_process import bridge_with
    from tests.sim.test_finger_rim_pinch import BOWL, CROWD

    # The G1's object source: a tracker that has seen every object once where it stands, as the head RGB-D scene
    # model sends them (what the head sees of a crowd depends on the view; this test is about the hand).
    cfg = load_robot_config("unitree_g1")
    view = make_robot("sim_g1", layout=Layout(seed=0, poses=CROWD))
    tracker = ObjectTracker(scene_catalogue(load_scene_config(cfg.scene_path())))
    tracker.update(SceneModel(table_z=0.74, stamp_s=1.0, objects=[PerceivedObject(
        position=tuple(o.position), yaw=None, size=(2 * o.radius, 2 * o.radius, 2 * o.half_height),
        shape=Shape.CONTAINER if o.container else Shape.CYLINDER, colour=o.colour, pixels=900, name=o.name,
        match_cost=0.1) for o in view.scene_objects()]))
    standing = {o.name: o.position[2] for o in view.scene_objects()}
    view.close()
    assert {o.name for o in tracker.objects()} == set(CROWD)
    cfg = cfg.model_copy(update={"motion": cfg.motion.model_copy(update={"pick_attempts": 1})})
    with bridge_with(CROWD, seconds=200) as bridge:
        robot = make_robot(cfg, domain=unitree_domain(), interface="lo", state_timeout_s=60, objects=tracker)
        scene = load_scene_config(cfg.scene_path())
        ctl = RuleBasedController(robot, scene.table.height, scene.regions, recoveries=[])
        result = ctl.execute(PrimitiveCall(primitive=Primitive.PICK, object=BOWL))
        assert result.success, result.detail
        assert ctl.c.state.pose.name.startswith("rim pinch") and robot.held_object() == BOWL
        assert robot.hands[robot.arm].grasping()  # the finger state says so
        robot.settle(0.3)
        robot.close()
    seen = bridge["truth"]
    assert seen["held"] == BOWL and seen["objects"][BOWL][2] > 0.775 + 0.08, seen  # up with the hand (stood at 0.775)
    for name in CROWD:
        if name != BOWL:  # the neighbours still stand (one may be nudged: the rim hand passes 1.5 cm from it)
            assert abs(seen["objects"][name][2] - standing[name]) < 0.01, (name, seen)
