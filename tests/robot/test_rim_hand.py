"""The rim hand's geometry and configuration: places evenly round a container's rim, each facing its centre; a rim
hand must be a rolled finger hand; only an upright round container gets one, each place with the fingers toward the
centre or away from it, the palm `rim_above` over the rim."""
import numpy as np
import pytest
from pydantic import ValidationError

from memora_core.robot.control.geometry import rim_points
from memora_core.robot.robot import GraspPose


def test_rim_places_are_on_the_wall_facing_the_centre():
    places = rim_points((0.4, -0.1, 0.81), 0.845, 0.075, 8)
    assert len(places) == 8
    first, inward = places[0]
    assert np.allclose(first, [0.325, -0.1, 0.845]) and np.allclose(inward, [1.0, 0.0, 0.0])  # the robot's side
    for point, inward in places:
        assert np.isclose(np.linalg.norm(point[:2] - [0.4, -0.1]), 0.075) and point[2] == 0.845
        assert np.allclose(point[:2] + 0.075 * inward[:2], [0.4, -0.1])
    angles = sorted(np.degrees(np.arctan2(p[1] + 0.1, p[0] - 0.4)) % 360 for p, _ in places)
    assert np.allclose(np.diff(angles), 45.0)


@pytest.mark.parametrize("fields", [dict(roll_deg=0.0, finger_offset=(0.03, 0, 0)),   # not rolled
                                    dict(roll_deg=75.0, finger_offset=None),          # not a finger hand
                                    dict(roll_deg=75.0, finger_offset=(0.03, 0, 0), along_long_axis=True)])
def test_a_rim_hand_must_be_a_rolled_finger_hand(fields):
    with pytest.raises(ValidationError, match="rim hand"):
        GraspPose(name="rim", pitch_deg=0.0, orientation_cost=0.5, rim_above=0.065, **fields)


def test_only_a_standing_round_container_gets_rim_places(monkeypatch):
    from memora_core.robot.control.grasping import GraspChooser
    from memora_core.robot.robot import SceneObject, load_robot_config

    cfg = load_robot_config("sim_g1_dex3")
    rim = next(p for p in cfg.motion.grasp_poses if p.rim_above is not None)
    bowl = SceneObject(name="bowl", category="bowl", colour="grey", material="ceramic", container=True,
                       half_height=0.035, radius=0.075, position=(0.4, -0.1, 0.81))
    cup_lying = bowl.model_copy(update={"name": "cup"})
    box = bowl.model_copy(update={"name": "box", "container": False, "extent": (0.03, 0.045)})
    lying = np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])
    poses = {"bowl": (np.array(bowl.position), np.eye(3)), "cup": (np.array(bowl.position), lying),
             "box": (np.array(bowl.position), np.eye(3))}

    class Robot:
        def object_pose(self, name):
            return poses[name]

    class Ctx:
        robot = Robot()

    Ctx.cfg = cfg
    chooser = GraspChooser(Ctx())
    assert rim in chooser.poses_for(bowl, "right")
    assert rim not in chooser.poses_for(cup_lying, "right") and rim not in chooser.poses_for(box, "right")
    spots = chooser.rim_spots(bowl, "right", rim)
    assert len(spots) > 8  # most places take the fingers both ways within the yaw range
    for pose, point in spots:
        fingers = np.radians(pose.yaw_deg)  # the right hand: its yaw is the fingers' world direction
        toward = np.array([0.4, -0.1]) - point[:2]
        cos = np.dot([np.cos(fingers), np.sin(fingers)], toward) / np.linalg.norm(toward)
        assert abs(abs(cos) - 1.0) < 1e-6 and np.isclose(point[2], 0.845)
