"""Named grasp pose sets: robot configs with the same hands name one list (robot_configs/grasp_poses/<name>.yaml)
instead of each keeping a copy; an unknown name or a malformed set is refused with one clear error."""
import pytest

from memora_core.robot import config as robot_config
from memora_core.robot.config import grasp_pose_set, load_robot_config


def test_both_dex3_robots_grasp_with_the_one_dex3_set():
    sim, g1 = load_robot_config("sim_g1_dex3"), load_robot_config("unitree_g1")
    assert sim.motion.grasp_poses == g1.motion.grasp_poses
    names = [p.name for p in g1.motion.grasp_poses]
    assert len(names) == len(grasp_pose_set("dex3")) and len(set(names)) == len(names)
    assert any(p.roll_deg for p in g1.motion.grasp_poses)  # the rolled (sweep) pinches reach the real G1 too
    assert load_robot_config("sim_g1").motion.grasp_poses != g1.motion.grasp_poses  # the palm robot keeps its own


def test_an_unknown_set_names_the_known_ones():
    with pytest.raises(ValueError, match=r"'nope' not found .*known: .*dex3"):
        grasp_pose_set("nope")


def test_a_set_without_a_pose_list_is_refused(tmp_path, monkeypatch):
    (tmp_path / "bad.yaml").write_text("poses: {name: beside}\n")
    monkeypatch.setattr(robot_config, "GRASP_POSE_DIR", tmp_path)
    with pytest.raises(ValueError, match="must be a list"):
        grasp_pose_set("bad")


def test_a_yaw_range_that_runs_backwards_is_refused():
    from memora_core.robot.config import GraspPose

    with pytest.raises(ValueError, match="runs backwards"):
        GraspPose(name="pinch", pitch_deg=0, orientation_cost=0.5, along_long_axis=True, yaw_range=(120, -120))
    assert GraspPose(name="pinch", pitch_deg=0, orientation_cost=0.5, yaw_range=(-120, 120)).yaw_range == (-120, 120)
