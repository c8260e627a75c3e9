"""The rule-based controller on real MuJoCo: succeeds, and fails for the right reasons."""
import numpy as np
import pytest

from memora_core.robot import make_robot, parse_step
from memora_core.robot.control import FailureReason, PrimitiveFailure, RuleBasedController
from memora_core.robot.limits import EStopActive, LimitViolation
from memora_core.robot.primitives import UnknownPrimitive
from memora_core.schemas import PlanStep
from sim.scene import Layout
from tests.sim.staging import refuse_first_pour

pytestmark = pytest.mark.sim

OBJS = {"coca-cola bottle": (0.40, -0.25, 0.0), "fanta can": (0.40, -0.05, 0.0),
        "orange cup": (0.52, -0.20, 0.0), "yellow bowl": (0.45, -0.40, 0.0)}


def _robot(poses=OBJS):
    return make_robot("sim_g1", layout=Layout(seed=0, poses=poses))


def _controller(robot):
    return RuleBasedController(robot, robot.scene.table.height, robot.scene.regions)


def test_pick_and_place_in_succeeds_and_leaves_distractor_alone():
    robot = _robot()
    ctl = _controller(robot)
    fanta_before = robot.object_pose("fanta can")[0]
    res = ctl.execute_step(PlanStep(index=0, action="pick", object="coke"))
    assert res.success, res.detail
    assert robot.held_object() == "coca-cola bottle"
    assert robot.object_pose("coca-cola bottle")[0][2] > robot.scene.table.height + 0.2  # lifted
    res = ctl.execute_step(PlanStep(index=1, action="put", object="coca-cola bottle", target="in yellow bowl"))
    assert res.success, res.detail
    assert res.placement_error_m is not None and res.placement_error_m < 0.03
    assert robot.held_object() is None
    pos = robot.object_pose("coca-cola bottle")[0]
    bowl = robot.object_pose("yellow bowl")[0]
    assert np.hypot(*(pos - bowl)[:2]) < 0.05
    assert np.linalg.norm(robot.object_pose("fanta can")[0] - fanta_before) < 0.01


def test_missing_object_and_unreachable_target_fail_with_reason():
    poses = dict(OBJS)
    poses["bread"] = (0.76, 0.35, 0.0)  # far corner of the table: beyond the right arm
    robot = _robot(poses)
    ctl = _controller(robot)
    res = ctl.execute_step(PlanStep(index=0, action="pick", object="cinnamon tea box"))  # not in this scene
    assert not res.success and res.reason is FailureReason.OBJECT_MISSING
    res = ctl.execute_step(PlanStep(index=1, action="pick", object="bread"))
    assert not res.success and res.reason is FailureReason.UNREACHABLE, res.detail
    res = ctl.execute_step(PlanStep(index=2, action="dance", object="bread"))
    assert not res.success and res.reason is FailureReason.NOT_ALLOWED


def test_limits_reject_bad_commands_and_estop_stops():
    robot = _robot()
    before = robot.joint_positions()
    with pytest.raises(LimitViolation):
        robot.command({"right_elbow_joint": 5.0}, 5.0)          # outside the joint range
    with pytest.raises(LimitViolation):
        robot.command({"right_elbow_joint": before["right_elbow_joint"] - 1.0}, 0.05)  # too fast
    with pytest.raises(LimitViolation):
        robot.command({"no_such_joint": 0.0}, 1.0)
    with pytest.raises(LimitViolation):
        robot.limits.check_workspace((2.0, 0.0, 1.0))
    assert robot.joint_positions()["right_elbow_joint"] == pytest.approx(before["right_elbow_joint"], abs=0.01)
    robot.emergency_stop()
    with pytest.raises(EStopActive):
        robot.command({"right_elbow_joint": 1.0}, 1.0)
    ctl = _controller(robot)
    res = ctl.execute_step(PlanStep(index=0, action="pick", object="coca-cola bottle"))
    assert not res.success and res.reason is FailureReason.ESTOP


def test_plan_step_parsing_is_a_whitelist():
    call = parse_step(PlanStep(index=0, action="place", object="spoon", target="in the yellow bowl"))
    assert call.primitive.value == "place" and call.relation == "in" and call.target == "the yellow bowl"
    assert parse_step(PlanStep(index=0, action="hand over", object="bread")).primitive.value == "give"
    with pytest.raises(UnknownPrimitive):
        parse_step(PlanStep(index=0, action="open", object="fridge"))


def test_give_far_left_object_reaches_the_person_spot():
    """An object at the far left is picked with the left arm (or passed between the arms) and handed over
    at the person's spot at the right front corner."""
    poses = {"bread": (0.42, 0.22, 0.0), "coca-cola bottle": (0.35, 0.05, 0.0),
             "yellow bowl": (0.45, -0.20, 0.0), "fanta can": (0.50, -0.32, 0.0)}
    robot = _robot(poses)
    ctl = _controller(robot)
    coke = robot.object_pose("coca-cola bottle")[0]
    res = ctl.execute_step(PlanStep(index=0, action="hand over", object="bread"))
    assert res.success, res.detail
    person = robot.scene.regions["person"]
    pos = robot.object_pose("bread")[0]
    assert np.hypot(pos[0] - person[0], pos[1] - person[1]) < 0.04
    assert robot.held_object() is None
    assert np.linalg.norm(robot.object_pose("coca-cola bottle")[0] - coke) < 0.01  # tall neighbour untouched


def test_spoon_among_neighbours_is_taken_along_its_long_axis():
    """Seeded layout 16: the yellow spoon lies between neighbours ~15 cm away where no fixed-yaw hand fits
    (the level hand's wrist/elbow hits one, steeper hands cannot get low enough to close on a flat spoon).
    A hand turned along the spoon's long axis fits; the pick succeeds and the neighbours stay put."""
    robot = make_robot("sim_g1", seed=16)
    ctl = _controller(robot)
    before = {o.name: np.array(o.position) for o in robot.scene_objects() if o.name != "yellow spoon"}
    res = ctl.execute_step(PlanStep(index=0, action="pick", object="yellow spoon"))
    assert res.success, res.detail
    assert robot.held_object() == "yellow spoon"
    assert ctl.c.state.pose.along_long_axis  # the fixed-yaw poses (tried first) were all blocked
    _, rot = robot.object_pose("yellow spoon")
    axis = np.degrees(np.arctan2(rot[1, 0], rot[0, 0]))
    palm = robot.hand_rotation()
    fingers = np.degrees(np.arctan2(palm[1, 0], palm[0, 0]))
    assert min(abs((fingers - axis + 90) % 180 - 90), 90) < 35  # fingers roughly along the spoon
    for name, pos in before.items():
        assert np.linalg.norm(robot.object_pose(name)[0][:2] - pos[:2]) < 0.02, name


def test_second_object_into_a_bowl_lands_on_top_of_the_first():
    # Task B's crowded bowl: the tea box is already in it, the spoon must still go in (let go above the box).
    robot = _robot({"yellow bowl": (0.40, -0.15, 0.0), "cinnamon tea box": (0.45, 0.05, 0.3),
                    "yellow spoon": (0.30, 0.10, 0.0)})
    ctl = _controller(robot)
    for i, (obj, target) in enumerate([("cinnamon tea box", "yellow bowl"), ("yellow spoon", "yellow bowl")]):
        assert ctl.execute_step(PlanStep(index=2 * i, action="pick", object=obj)).success
        res = ctl.execute_step(PlanStep(index=2 * i + 1, action="place", object=obj, target=target))
        assert res.success, res.detail
    bowl = robot.object_pose("yellow bowl")[0]
    for obj in ("cinnamon tea box", "yellow spoon"):
        pos = robot.object_pose(obj)[0]
        assert np.hypot(*(pos - bowl)[:2]) < robot.scene.object("yellow bowl").size[0]  # inside the footprint
        assert pos[2] > robot.scene.table.height  # in the bowl, not beside it on the table


def test_blocked_lift_puts_object_back_and_picks_with_next_grasp():
    """A lift the clearance check passed but the arm could not finish (injected once, as a neighbour the
    plan missed would) makes the pick let go, stow and take the object with another grasp candidate."""
    robot = _robot()
    ctl = _controller(robot)
    real_lift, chosen = ctl.skills.pick.lift, []

    def lift_blocked_once(obj):
        chosen.append((robot.arm, robot.hand_position().round(3).tolist()))
        if len(chosen) == 1:
            raise PrimitiveFailure.short_of("lift", 0.05)
        real_lift(obj)

    ctl.skills.pick.lift = lift_blocked_once
    res = ctl.execute_step(PlanStep(index=0, action="pick", object="fanta can"))
    assert res.success, res.detail
    assert len(chosen) == 2 and chosen[0] != chosen[1]  # a different arm or grasp point the second time
    assert robot.held_object() == "fanta can"
    assert robot.object_pose("fanta can")[0][2] > robot.scene.table.height + 0.1


def test_pick_gives_up_after_configured_attempts():
    robot = _robot()
    ctl = _controller(robot)
    calls = []

    def always_blocked(obj):
        calls.append(1)
        raise PrimitiveFailure.short_of("lift", 0.05)

    ctl.skills.pick.lift = always_blocked
    res = ctl.execute_step(PlanStep(index=0, action="pick", object="fanta can"))
    assert not res.success and res.reason is FailureReason.COLLISION
    assert 1 < len(calls) <= ctl.cfg.motion.pick_attempts  # retried, never beyond the limit
    assert robot.held_object() is None


def _upright(robot, name):
    return robot.object_pose(name)[1][2, 2] > 0.9


def test_a_blocking_neighbour_is_set_aside_and_the_step_then_succeeds():
    """The yellow bowl is ringed by the Coca-Cola bottle (on the robot's side), the Fanta, and both tea boxes,
    each about 12 cm from its centre, so no hand reaches its rim. The controller sets the bottle aside (upright)
    and takes the bowl; with making room switched off the same pick fails and names the bottle. (Layout 1001's
    bottle, which this test used to rely on, no longer blocks the bowl once picks came over at the highest
    reachable level: a staged ring keeps the test about making room, not about one layout.)"""
    ring = {"yellow bowl": (0.50, 0.0, 0.0), "coca-cola bottle": (0.39, 0.0, 0.0), "fanta can": (0.50, -0.115, 0.0),
            "lipton tea box": (0.50, 0.12, 0.0), "cinnamon tea box": (0.62, 0.0, 0.0)}
    step = PlanStep(index=0, action="pick", object="yellow bowl")
    robot = _robot(ring)
    res = _controller(robot).execute_step(step)
    assert res.success, res.detail
    assert res.moved_aside == ["coca-cola bottle"] and "aside" in res.detail
    assert _upright(robot, "coca-cola bottle")
    assert robot.held_object() == "yellow bowl"
    robot.close()

    robot = _robot(ring)
    ctl = _controller(robot)
    ctl.cfg.motion.clear_moves = 0
    res = ctl.execute_step(step)
    assert not res.success and res.reason is FailureReason.COLLISION and "coca-cola bottle" in res.detail
    assert not res.moved_aside
    robot.close()


@pytest.mark.slow
def test_pour_into_a_cup_at_the_far_edge_sets_the_bottle_down_and_tries_afresh(monkeypatch):
    """Seeded layout 1015: the orange cup stands at the table's left edge. Before the workspace box covered a pour
    there, the arm holding the bottle could not hold it beside the cup with its wrist free to roll; that first
    refusal is made so here. The pour sets the bottle down, sets the cup down at least `aside_min_move` away,
    nearer the work area, grasps the bottle afresh and pours (the tilt is checked by the primitive); the bottle
    ends up back where it stood (or next to it) and nothing falls over."""
    robot = make_robot("sim_g1", seed=1015)
    ctl = _controller(robot)
    bottle_before = robot.object_pose("coca-cola bottle")[0].copy()
    cup_before = robot.object_pose("orange cup")[0].copy()
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="coca-cola bottle")).success
    tried = refuse_first_pour(monkeypatch, ctl)
    res = ctl.execute_step(PlanStep(index=1, action="pour", object="coca-cola bottle", target="orange cup"))
    assert res.success, res.detail
    assert tried
    assert np.linalg.norm(robot.object_pose("orange cup")[0][:2] - cup_before[:2]) >= ctl.cfg.motion.aside_min_move - 0.01
    assert robot.held_object() is None
    assert np.linalg.norm(robot.object_pose("coca-cola bottle")[0][:2] - bottle_before[:2]) \
        <= ctl.cfg.motion.table_spot_radius + 0.02
    assert all(_upright(robot, o.name) for o in robot.scene_objects() if "spoon" not in o.name)
    robot.close()


def _lay_on_side(robot, name: str) -> None:
    """Knock `name` over: turned 90 degrees about the world x axis, resting on the table on its side."""
    body = robot.model.body(robot.scene.object(name).body_name)
    adr = robot.model.jnt_qposadr[body.jntadr[0]]
    obj = next(o for o in robot.scene_objects() if o.name == name)
    side = obj.extent[1] if obj.extent else obj.radius  # a box's own y, or a cylinder's radius, now points up
    robot.data.qpos[adr + 2] = robot.scene.table.height + side + 0.002
    robot.data.qpos[adr + 3:adr + 7] = [np.cos(np.pi / 4), np.sin(np.pi / 4), 0.0, 0.0]
    robot.data.qvel[robot.model.jnt_dofadr[body.jntadr[0]]:][:6] = 0.0
    robot.settle(0.5)


def test_a_box_knocked_onto_its_side_is_picked_as_it_lies_but_a_round_object_is_not():
    robot = _robot({"cinnamon tea box": (0.42, -0.12, 0.0), "yellow bowl": (0.45, -0.35, 0.0),
                    "coca-cola bottle": (0.45, 0.20, 0.0)})
    ctl = _controller(robot)
    _lay_on_side(robot, "cinnamon tea box")
    _lay_on_side(robot, "coca-cola bottle")
    assert robot.object_pose("cinnamon tea box")[1][2, 2] < 0.3  # really lying
    res = ctl.execute_step(PlanStep(index=0, action="pick", object="cinnamon tea box"))
    assert res.success, res.detail
    assert robot.object_pose("cinnamon tea box")[0][2] > robot.scene.table.height + 0.1  # lifted, as it lay
    res = ctl.execute_step(PlanStep(index=1, action="place", object="cinnamon tea box", target="yellow bowl"))
    assert res.success, res.detail
    box, bowl = robot.object_pose("cinnamon tea box")[0], robot.object_pose("yellow bowl")[0]
    assert np.hypot(*(box - bowl)[:2]) < 0.06
    res = ctl.execute_step(PlanStep(index=2, action="pick", object="coca-cola bottle"))
    assert not res.success and res.reason == FailureReason.UNREACHABLE and "lying over" in res.detail


@pytest.mark.slow
def test_a_held_object_is_parked_where_it_was_picked_while_room_is_made_for_its_place():
    """Layout 1001's last step: the bread is to go next to the yellow bowl in the table's corner, hemmed in by
    the Fanta, the grey bowl and the Lipton box. The hand must let go of the bread to set a neighbour aside:
    it puts it back where it took it from (free, and out of everyone's way), then finishes the step."""
    robot = _robot({"yellow bowl": (0.531, 0.292, 0.0), "fanta can": (0.549, 0.119, 0.0),
                    "grey bowl": (0.404, 0.132, 0.0), "lipton tea box": (0.352, 0.299, 0.3),
                    "bread": (0.541, -0.20, 0.0)})
    ctl = _controller(robot)
    origin = robot.object_pose("bread")[0].copy()
    released = []
    release = robot.release

    def recording_release():
        name = robot.held_object()
        out = release()
        robot.settle(0.3)
        released.append((name, robot.object_pose(name)[0].copy()))
        return out

    robot.release = recording_release
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="bread")).success
    res = ctl.execute_step(PlanStep(index=1, action="place", object="bread", target="table next to yellow bowl"))
    assert res.success, res.detail
    assert res.moved_aside, "the corner was free: the test no longer exercises making room"
    parked = next(pos for name, pos in released if name == "bread")
    assert np.hypot(*(parked - origin)[:2]) < 0.03, (parked, origin)


def test_a_carry_stopped_short_across_the_body_hands_the_object_to_the_other_arm():
    """Sequence layout 1000: the right hand carrying the tea box across the chest to the bowl stops 8 cm short
    with nothing hit (the arm presses into its own torso). Injected here as that failure of the first carry;
    the controller hands the box to the left arm, which puts it in the bowl."""
    robot = _robot({"cinnamon tea box": (0.40, -0.25, 0.0), "yellow bowl": (0.40, 0.15, 0.0)})
    ctl = _controller(robot)
    assert ctl.execute_step(PlanStep(index=0, action="pick", object="cinnamon tea box")).success
    assert robot.arm == "right"
    transit, stopped = ctl.c.transit.transit, []

    def carry_stopped_once(above_xy, ignore, min_z=0.0, **kw):
        if not stopped and robot.held_object() == "cinnamon tea box" and above_xy[1] > 0.05:
            stopped.append(above_xy)
            raise PrimitiveFailure.short_of("carry", 0.084)
        return transit(above_xy, ignore, min_z, **kw)

    ctl.c.transit.transit = carry_stopped_once
    res = ctl.execute_step(PlanStep(index=1, action="place", object="cinnamon tea box", target="yellow bowl"))
    assert stopped, "the carry to the bowl was never tried"
    assert res.success, res.detail
    assert robot.arm == "left" and robot.held_object() is None
    box, bowl = robot.object_pose("cinnamon tea box")[0], robot.object_pose("yellow bowl")[0]
    assert np.hypot(*(box - bowl)[:2]) < 0.06


def test_estop_holds_an_arm_still_converging_while_time_passes():
    """settle() under an e-stop: the servos hold the joints where they are; a target set before the e-stop is
    not followed any further."""
    robot = _robot()
    elbow = robot.model.actuator("right_elbow_joint").id
    robot.data.ctrl[elbow] = robot.data.ctrl[elbow] - 0.6  # a move under way (the servo has a target to reach)
    robot.settle(0.02)
    robot.emergency_stop()
    at_stop = robot.joint_positions()["right_elbow_joint"]
    robot.settle(1.0)
    assert abs(robot.joint_positions()["right_elbow_joint"] - at_stop) < 0.02
