"""The kinematic clearance check keeps the robot's links above the forearms (upper arm, shoulder, torso) at the
larger body margin from objects (`motion.body_clearance_margin`, set for the Dex3 finger robots), whatever smaller
margin a move asks for, while the hand may come as close as the move's own margin; with no body margin (the palm
robot) every link keeps the move's margin only. Real MuJoCo kinematics on the robot's own checker: a bottle set a
chosen distance from a link."""
import mujoco
import numpy as np
import pytest

pytestmark = pytest.mark.sim

OBJS = {"coca-cola bottle": (0.40, -0.15, 0.0)}
NAME = "coca-cola bottle"


def _robot(config: str):
    from memora_core.robot import make_robot
    from sim.scene import Layout

    return make_robot(config, layout=Layout(seed=0, poses=OBJS))


@pytest.fixture
def robot():
    r = _robot("sim_g1_dex3")
    yield r
    r.close()


def bottle_beside(robot, link: str, gap: float) -> np.ndarray:
    """The robot's qpos with the bottle beside `link` on the right arm's outer side (-y), its nearest surface
    `gap` m from the link's geoms (found by bisection on MuJoCo's own geom distance)."""
    check = robot._check
    m, d = check.model, check.data
    qpos = robot.data.qpos.copy()
    body = m.body(link).id
    link_geoms = [g for g in range(m.ngeom) if m.geom_bodyid[g] == body and m.geom_contype[g]]
    bottle = robot._object_body[NAME]
    bottle_geoms = [g for g in range(m.ngeom) if m.geom_bodyid[g] == bottle]
    adr = m.jnt_qposadr[m.body_jntadr[bottle]]
    d.qpos[:] = qpos
    mujoco.mj_kinematics(m, d)
    centre = d.xpos[body].copy()

    def distance(drop: float) -> float:
        d.qpos[adr:adr + 3] = centre - [0.0, drop, 0.0]
        d.qpos[adr + 3:adr + 7] = [1.0, 0.0, 0.0, 0.0]
        mujoco.mj_kinematics(m, d)
        return min(mujoco.mj_geomDistance(m, d, a, b, 1.0, None) for a in link_geoms for b in bottle_geoms)

    lo, hi = 0.0, 1.0  # shift of the bottle's centre: overlapping at lo, far at hi
    for _ in range(40):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if distance(mid) < gap else (lo, mid)
    assert abs(distance(hi) - gap) < 1e-3
    out = qpos.copy()
    out[adr:adr + 3] = centre - [0.0, hi, 0.0]
    out[adr + 3:adr + 7] = [1.0, 0.0, 0.0, 0.0]
    return out


def test_the_upper_arm_keeps_the_body_margin(robot):
    margin, body = robot.config.motion.clearance_margin, robot.config.motion.body_clearance_margin
    assert margin < 0.012 < body
    qpos = bottle_beside(robot, "right_shoulder_yaw_link", 0.012)
    assert robot._check.touching(qpos, set(), None, margin) == [NAME]
    assert robot._check.touching(bottle_beside(robot, "right_shoulder_yaw_link", body + 0.005), set(), None,
                                 margin) == []


def test_the_hand_keeps_only_the_moves_margin(robot):
    margin = robot.config.motion.clearance_margin
    assert robot._check.touching(bottle_beside(robot, "right_wrist_yaw_link", 0.012), set(), None, margin) == []
    assert robot._check.touching(bottle_beside(robot, "right_wrist_yaw_link", margin / 2), set(), None,
                                 margin) == [NAME]


def test_without_a_body_margin_the_upper_arm_keeps_the_moves_margin():
    r = _robot("sim_g1")
    try:
        margin = r.config.motion.clearance_margin
        assert r.config.motion.body_clearance_margin == 0.0
        assert r._check.touching(bottle_beside(r, "right_shoulder_yaw_link", 0.012), set(), None, margin) == []
        assert r._check.touching(bottle_beside(r, "right_shoulder_yaw_link", margin / 2), set(), None,
                                 margin) == [NAME]
    finally:
        r.close()
