"""Making room keeps what it sets aside off the grasp it makes room for. Three parts, on real MuJoCo:
- the clearance check's what-if (`placed`): an object put elsewhere in thought only, the arm posture checked
  against it there, nothing moved;
- `Putdown.grasp_left_open`: an aside spot is refused where the object would stand in the way of every grasp it
  blocked with the fewest other neighbours, and accepted where it leaves one open;
- the grasp chooser solves a candidate's posture from the arm's rest posture first, so the posture it reports (and
  the what-if checks) is the same wherever earlier moves left the arm."""
import numpy as np
import pytest

from memora_core.robot.control.failures import BlockedGrasp
from memora_core.robot.robot import SceneObject

pytestmark = pytest.mark.sim

OBJS = {"orange cup": (0.33, -0.22, 0.0), "coca-cola bottle": (0.47, 0.05, 0.0)}


def cup_grasp(c, point: bool = False):
    """(arm, checked descent) of the grasp the chooser picks for the orange cup (and its palm point with `point`)."""
    cup = c.resolver.require("orange cup")
    pos, rot = c.robot.object_pose("orange cup")
    top = pos + np.array([0, 0, cup.half_up(rot)])
    arm, _, at, path = c.grasps.choose(cup, c.grasps.points(cup, top, rot), {"orange cup"}, top=top)
    return (arm, path, at) if point else (arm, path)


def standing_at(c, name: str, xy) -> dict[str, np.ndarray]:
    obj = c.resolver.require(name)
    return {name: np.array([xy[0], xy[1], c.table_z + obj.half_height])}


def test_the_what_if_places_an_object_without_moving_it(ctl):
    robot, c = ctl.robot, ctl.c
    _, path = cup_grasp(c)
    at_grasp = path[-1]
    before = robot.object_pose("coca-cola bottle")[0].copy()
    cup_xy = robot.object_pose("orange cup")[0][:2]
    assert "coca-cola bottle" not in robot.clearance(at_grasp, {"orange cup"})
    # The (taller) bottle, thought to stand where the cup is, is in the way of the hand at the cup's grasp ...
    assert "coca-cola bottle" in robot.clearance(at_grasp, {"orange cup"}, placed=standing_at(c, "coca-cola bottle", cup_xy))
    # ... and the cup, thought to stand far off, is no longer near it.
    assert "orange cup" in robot.clearance(at_grasp, set())
    assert "orange cup" not in robot.clearance(at_grasp, set(), placed=standing_at(c, "orange cup", (0.5, 0.25)))
    # Nothing moved.
    assert np.allclose(robot.object_pose("coca-cola bottle")[0], before)
    assert "orange cup" in robot.clearance(at_grasp, set())


def test_an_aside_spot_must_leave_open_a_grasp_the_object_blocked(ctl):
    robot, c = ctl.robot, ctl.c
    arm, path = cup_grasp(c)
    bottle = SceneObject.from_spec(robot.scene.object("coca-cola bottle"))
    cup_xy = robot.object_pose("orange cup")[0][:2]
    blocked = [BlockedGrasp(arm, path[-1], ("coca-cola bottle",))]
    open_way = c.putdown.grasp_left_open(bottle, blocked)
    assert not open_way(cup_xy)                     # where the hand closes on the cup
    assert open_way(np.array([0.5, 0.25]))          # far from it
    # A second way the bottle blocked with as few others, left open by the cup's spot too: one open way is enough.
    other = BlockedGrasp(arm, robot.joint_positions(), ("coca-cola bottle",))
    assert c.putdown.grasp_left_open(bottle, blocked + [other])(cup_xy)
    # Grasps the bottle did not block (or blocked with more neighbours than the fewest) do not constrain it.
    assert c.putdown.grasp_left_open(bottle, [BlockedGrasp(arm, path[-1], ("green cup",))])(cup_xy)
    two = [BlockedGrasp(arm, robot.joint_positions(), ("coca-cola bottle",)),
           BlockedGrasp(arm, path[-1], ("coca-cola bottle", "green cup"))]
    assert c.putdown.grasp_left_open(bottle, two)(cup_xy)


def test_a_grasp_posture_does_not_depend_on_where_the_arm_was(ctl):
    robot, c = ctl.robot, ctl.c
    arm, first = cup_grasp(c)
    cup_at = robot.object_pose("orange cup")[0].copy()
    robot.use_arm(arm)
    c.arm.go(np.array([0.25, -0.05, 1.05]), set(), "up", exact=False)  # the arm raised over the table, off the cup
    moved = max(abs(robot.joint_positions()[k] - v) for k, v in c.arm.rest_posture(arm).items())
    assert moved > 0.1 and np.allclose(robot.object_pose("orange cup")[0], cup_at, atol=1e-3)
    _, again, at = cup_grasp(c, point=True)
    assert max(abs(again[-1][k] - v) for k, v in first[-1].items()) < 1e-4
    # The control: solved from where the arm now is, the same palm point takes another posture.
    from_here = c.arm.plan_line(at, {"orange cup"}, "approach", start_xyz=at)[-1]
    from_rest = c.arm.plan_line(at, {"orange cup"}, "approach", start=c.arm.rest_posture(arm), start_xyz=at)[-1]
    assert max(abs(from_here[k] - v) for k, v in from_rest.items()) > 0.05
