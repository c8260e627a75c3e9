"""What several sim tests stage the same way: a held object made to lean by rolling the wrist (as a relaxed carry
leaves it), a Dex3 finger pick on a fixed layout with the checks that it really took the object, and a pour whose
first try is refused (so that its fall-back runs)."""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from memora_core.robot import load_robot_config, make_robot
from memora_core.robot.control import RuleBasedController
from memora_core.robot.control.failures import FailureCause, FailureReason, PrimitiveFailure
from memora_core.robot.control.geometry import angle_deg
from memora_core.robot.monitor import toppled
from memora_core.robot.primitives import Primitive, PrimitiveCall
from sim.scene import Layout


def lean_deg(robot, name: str) -> float:
    """How far `name` leans from upright, in degrees (ground truth)."""
    return angle_deg(robot.ground_truth_pose(name)[1][:, 2], np.array([0.0, 0.0, 1.0]))


def roll_held(ctl, roll: float = -0.35) -> None:
    """Roll the holding hand's wrist by `roll` rad; the controller keeps the orientation it now has, as after a
    relaxed carry."""
    robot, c = ctl.robot, ctl.c
    joint = f"{robot.arm}_wrist_roll_joint"
    robot.command({joint: robot.joint_positions()[joint] + roll}, 0.6)
    robot.settle(0.2)
    c.state.held_rot, c.state.held_cost = robot.hand_rotation(), c.cfg.motion.relaxed_held_orientation_cost


def without_poses(robot_cfg: str, drop) -> object:
    """Robot config `robot_cfg` with the grasp poses for which `drop(pose)` is true left out (a test's control)."""
    cfg = load_robot_config(robot_cfg)
    poses = [p for p in cfg.motion.grasp_poses if not drop(p)]
    return cfg.model_copy(update={"motion": cfg.motion.model_copy(update={"grasp_poses": poses})})


def usual_yaws(cfg) -> object:
    """Robot config model `cfg` with every hand held to `motion.aligned_yaw_range` (no pose's own `yaw_range`): a
    control written before the palm-down pinches could point away from the midline."""
    poses = [p.model_copy(update={"yaw_range": None}) for p in cfg.motion.grasp_poses]
    return cfg.model_copy(update={"motion": cfg.motion.model_copy(update={"grasp_poses": poses})})


def finger_pick(cfg, layout: dict, name: str):
    """Pick `name` with the robot config `cfg` (name or model) on `layout`, no recoveries.
    Returns (robot, controller, result, position before)."""
    robot = make_robot(cfg, layout=Layout(seed=0, poses=layout))
    ctl = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions, recoveries=[])
    before = robot.object_pose(name)[0]
    return robot, ctl, ctl.execute(PrimitiveCall(primitive=Primitive.PICK, object=name)), before


@contextmanager
def finger_picked(cfg, layout: dict, name: str):
    """`finger_pick` as a context: yields (robot, controller, result, position before) and closes the robot after."""
    robot, ctl, result, before = finger_pick(cfg, layout, name)
    try:
        yield robot, ctl, result, before
    finally:
        robot.close()


def assert_taken_by_fingers(robot, ctl, result, before, name: str, layout: dict, pose: str, lift: float,
                            thumb_and_finger: bool = True) -> None:
    """The pick succeeded with a grasp pose named `pose…`, thumb and a finger on the object (or, with
    `thumb_and_finger` False, some digit still on it: the grasp itself needed thumb and a finger, sim.dex3), lifted
    by `lift` m, no neighbour knocked over."""
    assert result.success, result.detail
    assert ctl.c.state.pose.name.startswith(pose)
    assert robot.held_object() == name
    touching = robot._dex3[robot.arm].touching(robot.model.body(robot.scene.object(name).body_name).id)
    assert ("thumb" in touching and touching & {"index", "middle"}) if thumb_and_finger else touching
    assert robot.object_pose(name)[0][2] - before[2] > lift
    assert not toppled({n: robot.object_pose(n)[1] for n in layout}, exclude={name})


def assert_refused_untouched(robot, result, before, name: str) -> None:
    """The pick was refused as no_grasp before the hand moved the object (within 5 mm)."""
    assert not result.success
    assert result.cause is FailureCause.NO_GRASP, result.detail
    assert np.linalg.norm(robot.object_pose(name)[0] - before) < 0.005


def refuse_first_pour(monkeypatch, ctl) -> list[str]:
    """Make the controller's first pour try refused as out of the workspace (the later ones run as they are);
    the list of cups refused so far."""
    pour, refused = ctl.c.skills.pour.pour_with_this_arm, []

    def first_refused(obj, cup):
        if not refused:
            refused.append(cup.name)
            raise PrimitiveFailure(FailureReason.UNREACHABLE, "carry: hand target outside the workspace",
                                   cause=FailureCause.OUT_OF_WORKSPACE)
        return pour(obj, cup)

    monkeypatch.setattr(ctl.c.skills.pour, "pour_with_this_arm", first_refused)
    return refused
