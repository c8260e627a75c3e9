"""What the arm sweeps on its way, on real MuJoCo with constructed layouts: a hand rising out of the tuck keeps
clear of every object, the one it is about to pick too (a bottle by the table's edge was swept over by it), and
the level carry of a held object goes slowly enough that the palm's sag behind its plan stays within the
carry's clearance margin."""
import numpy as np
import pytest

from memora_core.robot.control import FailureCause, PrimitiveFailure
from memora_core.schemas import PlanStep

pytestmark = pytest.mark.sim

# A bottle by the table's front edge, right beside where the left hand rises from the hip; a box to carry.
OBJS = {"coca-cola bottle": (0.264, 0.313, 0.0), "lipton tea box": (0.55, -0.34, 0.7),
        "fanta can": (0.45, -0.05, 0.0)}


def _robot_touches(robot, name: str) -> bool:
    m, d = robot.model, robot.data
    body = robot._object_body[name]
    for i in range(d.ncon):
        b1, b2 = int(m.geom_bodyid[d.contact[i].geom1]), int(m.geom_bodyid[d.contact[i].geom2])
        if (b1 == body and b2 in robot._robot_bodies) or (b2 == body and b1 in robot._robot_bodies):
            return True
    return False


def test_rising_out_of_the_tuck_is_checked_all_along_and_keeps_clear_of_the_object_to_pick(ctl):
    robot, transit = ctl.robot, ctl.c.transit
    rising, touched, checked, sent = [False], [], [], []
    arm = ctl.c.arm
    real_tuck, real_clear, real_follow = transit._out_of_tuck, arm.robot.clearance, arm.follow

    def out_of_tuck(*args, **kwargs):
        rising[0] = True
        try:
            return real_tuck(*args, **kwargs)
        finally:
            rising[0] = False

    def clearance(q, ignore, *args, **kwargs):
        hits = real_clear(q, ignore, *args, **kwargs)
        if rising[0]:
            checked.append((dict(q), set(ignore), hits))
        return hits

    def follow(path, *args, **kwargs):
        if rising[0]:
            sent.append((arm.robot.joint_positions(), [dict(t) for t in path]))
        return real_follow(path, *args, **kwargs)

    transit._out_of_tuck, arm.robot.clearance, arm.follow = out_of_tuck, clearance, follow
    robot.step_observers.append(
        lambda r: touched.append(r.sim_time_s) if rising[0] and _robot_touches(r, "coca-cola bottle") else None)
    robot.use_arm("left")
    transit.stow("left")
    assert robot.hand_position()[0] < ctl.cfg.motion.stow_x - 0.02, "the hand is not tucked"
    res = ctl.execute_step(PlanStep(index=0, action="pick", object="coca-cola bottle"))
    assert sent, "the hand never rose out of the tuck"
    # Every posture sent was checked clear, with the bottle counted, and none is farther than a joint step from
    # the one before it (no unchecked swing between far-apart waypoints).
    step = ctl.cfg.motion.joint_step + 1e-6
    for start, targets in sent:
        prev = start
        for q in targets:
            assert any(c == q and not hits and "coca-cola bottle" not in ign for c, ign, hits in checked), (
                q, prev, [(c, ign, hits) for c, ign, hits in checked][-3:])
            assert max(abs(v - prev[k]) for k, v in q.items()) <= step
            prev = {**prev, **q}
    assert not touched, f"the rising hand touched the bottle at t={touched[0]:.2f} s"
    assert robot.object_pose("coca-cola bottle")[1][2, 2] > 0.95, "the bottle was knocked over"
    assert res.success or res.cause is not None, res.detail  # done, or a typed failure


def test_a_held_carry_sags_less_than_its_margin(ctl):
    robot, c = ctl.robot, ctl.c
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="lipton tea box")).success
    sags = {}
    for speed in (ctl.cfg.motion.speed, c.guarded.settings.held_carry_speed):
        c.guarded.settings = c.guarded.settings.model_copy(update={"held_carry_speed": speed})
        start = robot.hand_position().copy()
        goal_xy = np.array([0.40, 0.25]) if start[1] < 0 else np.array([0.50, -0.30])
        lowest = [np.inf]
        robot.step_observers.append(lambda r: lowest.__setitem__(0, min(lowest[0], r.hand_position()[2])))
        c.transit._carry_at(goal_xy, start[2], set())
        robot.step_observers.pop()
        sags[speed] = start[2] - lowest[0]
        assert np.linalg.norm(robot.hand_position()[:2] - goal_xy) < 0.03
    slow = c.guarded.settings.held_carry_speed
    assert sags[slow] < c.arm.transit_margin, sags
    assert sags[slow] < sags[ctl.cfg.motion.speed], sags  # the slower carry is what keeps the sag down


def test_a_held_carry_whose_line_clears_only_without_the_sag_is_refused(ctl):
    robot, c = ctl.robot, ctl.c
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="lipton tea box")).success
    pos, rot = robot.object_pose("lipton tea box")
    below = robot.hand_position()[2] - (pos[2] - c.resolver.require("lipton tea box").half_up(rot))
    can_top = robot.object_pose("fanta can")[0][2] + c.resolver.require("fanta can").half_height
    # A level over the can where the box clears it by 1 cm more than the carry's margin: the level line passes.
    level = can_top + below + c.arm.transit_margin + 0.01
    goal_xy = np.array([0.35, 0.24])  # the straight carry there passes over the can
    hand = robot.hand_position().copy()
    c.guarded.settings = c.guarded.settings.model_copy(update={"held_carry_drop": 0.06})
    with pytest.raises(PrimitiveFailure) as refused:
        c.transit._carry_at(goal_xy, level, set())
    assert refused.value.cause is FailureCause.PATH_BLOCKED and "fanta can" in refused.value.blockers
    assert np.linalg.norm(robot.hand_position() - hand) < 0.01, "it moved before refusing"
    c.guarded.settings = c.guarded.settings.model_copy(update={"held_carry_drop": 0.0})
    c.transit._carry_at(goal_xy, level, set())  # unchecked for the sag, the same carry is taken
    assert np.linalg.norm(robot.hand_position()[:2] - goal_xy) < 0.03
