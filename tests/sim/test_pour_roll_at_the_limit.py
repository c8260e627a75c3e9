"""A pour whose wrist roll has less room than the pour angle rolls to the joint's range less its margin, exactly: the
target `q + sign * room` computed in floating point can land a hair past it, which the joint limits refuse (seen on a
fresh layout with the G1's margins: "target -1.922 outside [-1.922, 1.922]"). Real MuJoCo: the bottle is picked,
the pour's posture is the arm's own with only the roll set to such a value."""
import numpy as np
import pytest

from memora_core.robot.control.failures import PrimitiveFailure
from memora_core.robot.limits import LimitCause, LimitViolation
from memora_core.robot.primitives import Primitive, PrimitiveCall

pytestmark = pytest.mark.sim

BOTTLE, CUP = "coca-cola bottle", "orange cup"


def _rounds_past(q_lo: float, q_hi: float, edge: float, sign: float) -> float:
    """A roll in [q_lo, q_hi] from which rolling by exactly the room to `edge` computes a target past `edge`."""
    for v in np.linspace(q_lo, q_hi, 20001):
        room = (edge - v) if sign > 0 else (v - edge)
        if (v + sign * room > edge) if sign > 0 else (v + sign * room < edge):
            return float(v)
    raise AssertionError("no rounding case in the interval")


def test_the_roll_target_is_clipped_into_the_range():
    from memora_core.robot import load_robot_config, make_robot
    from memora_core.robot.control import RuleBasedController
    from sim.scene import Layout

    cfg = load_robot_config("unitree_g1")  # its limits' margin; the in-process MuJoCo robot moves
    robot = make_robot(cfg.model_copy(update={"type": "sim"}),
                       layout=Layout(seed=0, poses={BOTTLE: (0.40, -0.20, 0.0), CUP: (0.52, 0.05, 0.0)}))
    try:
        ctl = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions, recoveries=[])
        ctl.c.skills.pick.pick(PrimitiveCall(primitive=Primitive.PICK, object=BOTTLE))
        assert robot.held_object() == BOTTLE
        roll = f"{robot.arm}_wrist_roll_joint"
        lo, hi = robot.limits.ranges[roll]
        m = robot.limits.config.position_margin
        sign = 1.0
        # less room than the pour angle, more than its minimum: the pour rolls all the way to the edge
        v = _rounds_past(hi - m - cfg.motion.pour_angle + 0.01, hi - m - cfg.motion.pour_min_angle - 0.01, hi - m, sign)
        with pytest.raises(LimitViolation) as refused:  # the control: the unclipped target
            robot.limits.target({roll: v + sign * (hi - m - v)})
        assert refused.value.cause is LimitCause.OUT_OF_RANGE

        pour = ctl.c.skills.pour
        q = dict(robot.joint_positions(), **{roll: v})
        pour._pour_pose = lambda obj, cup: (sign, q)
        sent = []
        command = robot.command
        robot.command = lambda target, *a, **k: sent.append(dict(target)) or command(target, *a, **k)
        try:
            pour.pour_with_this_arm(ctl.c.resolver.find(BOTTLE, "object"), ctl.c.resolver.find(CUP, "object"))
        except LimitViolation as e:  # noqa: PT017 - the failure this test is about, named
            pytest.fail(f"the pour's roll was refused: {e}")
        except PrimitiveFailure:  # the tilt or the bottle's hold may fail with the forced roll: not this test's matter
            pass
        rolls = [t[roll] for t in sent if roll in t]
        assert rolls and rolls[0] == pytest.approx(hi - m, abs=1e-12) and rolls[0] <= hi - m
    finally:
        robot.close()
