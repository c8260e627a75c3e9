"""A palm that tips the object it goes for before the hand can close stops pressing (TIPPED), and the pick backs
off and tries its next grasp. Found on a crowded table (dev regression 72009 in sequence): a palm drifting
sideways on its way down pressed a bread's edge, the weld took it 40 deg over and it was set down on its edge.
Real MuJoCo; the tipping is made by turning the bread in the simulator, since a drifting arm is hard to stage."""
import mujoco
import numpy as np
import pytest

from memora_core.robot.control.failures import FailureCause, PrimitiveFailure
from memora_core.robot.primitives import Primitive, PrimitiveCall

pytestmark = pytest.mark.sim

OBJS = {"bread": (0.50, -0.30, 0.0)}
BREAD = "bread"


def lean(robot, degrees: float) -> None:
    """Turn the bread `degrees` about the world x axis where it is (as a pressing palm would)."""
    m, d = robot.model, robot.data
    adr = m.jnt_qposadr[m.body(robot.scene.object(BREAD).body_name).jntadr[0]]
    turn, quat = np.zeros(4), np.zeros(4)
    mujoco.mju_axisAngle2Quat(turn, np.array([1.0, 0.0, 0.0]), np.radians(degrees))
    mujoco.mju_mulQuat(quat, turn, d.qpos[adr + 3:adr + 7].copy())
    d.qpos[adr + 3:adr + 7] = quat
    mujoco.mj_forward(m, d)


def begin_pick(ctl) -> None:
    """What pick_once records before the approach: how the bread stands."""
    rot = ctl.robot.object_pose(BREAD)[1]
    ctl.c.state.origin_up = rot.T @ np.array([0.0, 0.0, 1.0])


def test_a_bread_tipped_past_the_limit_stops_the_approach(ctl):
    begin_pick(ctl)
    lean(ctl.robot, ctl.c.cfg.motion.press_tilt_deg + 5.0)
    with pytest.raises(PrimitiveFailure) as e:
        ctl.c.skills.pick.stop_if_tipping(ctl.c.resolver.require(BREAD))
    assert e.value.cause is FailureCause.TIPPED and e.value.angle_deg > ctl.c.cfg.motion.press_tilt_deg


def test_a_bread_within_the_limit_is_pressed_on(ctl):
    begin_pick(ctl)
    lean(ctl.robot, ctl.c.cfg.motion.press_tilt_deg - 5.0)
    ctl.c.skills.pick.stop_if_tipping(ctl.c.resolver.require(BREAD))  # no failure


def test_a_tipped_approach_backs_off_and_takes_the_next_grasp(ctl):
    pick, tried = ctl.c.skills.pick, []
    stop = pick.stop_if_tipping

    def tips_once(obj):
        tried.append(ctl.c.state.pose)
        if len(tried) == 1:
            lean(ctl.robot, ctl.c.cfg.motion.press_tilt_deg + 5.0)
        stop(obj)

    backed = []
    back_off = pick.back_off
    pick.back_off = lambda obj: backed.append(obj.name) or back_off(obj)
    pick.stop_if_tipping = tips_once
    pick.pick(PrimitiveCall(primitive=Primitive.PICK, object=BREAD))
    assert tried and backed == [BREAD]  # the tipped attempt was given up, once
    assert ctl.robot.held_object() == BREAD
    tilt = np.degrees(np.arccos(np.clip(ctl.robot.ground_truth_pose(BREAD)[1][2, 2], -1.0, 1.0)))
    assert tilt < 5.0  # the bread fell back level when the hand backed off, and was taken so
