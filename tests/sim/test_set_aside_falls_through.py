"""Setting a neighbour aside passes on to the next stage's spots when the arm can lower the object onto none of the
first stage's (a neighbour in the way of the hand, not of the object): before, the first stage with any free spot
was the only one tried, and the whole make-room failed. Real MuJoCo; the failing lowerings are injected."""
import numpy as np
import pytest

from memora_core.robot.control.failures import FailureCause, FailureReason, PrimitiveFailure
from memora_core.robot.primitives import Primitive, PrimitiveCall
from memora_core.robot.robot import SceneObject

pytestmark = pytest.mark.sim

OBJS = {"orange cup": (0.33, -0.22, 0.0), "yellow bowl": (0.45, -0.05, 0.0)}


def test_set_aside_tries_the_next_stage_when_no_spot_of_the_first_takes_it(ctl):
    robot, c = ctl.robot, ctl.c
    c.skills.pick.pick(PrimitiveCall(primitive=Primitive.PICK, object="orange cup"))
    assert robot.held_object() == "orange cup"
    cup = SceneObject.from_spec(robot.scene.object("orange cup"))
    work = [c.scene.xy("yellow bowl")]
    real, tried = c.putdown.put_down_at, []
    first_stage = {tuple(np.round(s, 4)) for s in c.putdown.aside_stage_spots(cup, work)[0]}
    assert first_stage

    def put_down_at(obj, xy):
        tried.append(tuple(np.round(xy, 4)))
        if tuple(np.round(xy, 4)) in first_stage:
            raise PrimitiveFailure(FailureReason.COLLISION, "lower: blocked (injected)",
                                   cause=FailureCause.PATH_BLOCKED)
        return real(obj, xy)

    c.putdown.put_down_at = put_down_at
    c.putdown.set_aside(cup, work)
    assert robot.held_object() is None
    assert first_stage <= set(tried)              # every spot of the first stage was tried first ...
    assert tried[-1] not in first_stage           # ... and a later stage's spot took it
    assert len(tried) == len(set(tried))          # no spot tried twice
    at = robot.object_pose("orange cup")[0][:2]
    assert np.linalg.norm(at - np.asarray(tried[-1])) < c.cfg.motion.place_tolerance + 0.01


def test_set_aside_fails_with_the_first_lowering_failure_when_no_spot_takes_it(ctl):
    robot, c = ctl.robot, ctl.c
    c.skills.pick.pick(PrimitiveCall(primitive=Primitive.PICK, object="orange cup"))
    cup = SceneObject.from_spec(robot.scene.object("orange cup"))
    calls = []

    def put_down_at(obj, xy):
        calls.append(xy)
        raise PrimitiveFailure(FailureReason.COLLISION, f"lower {len(calls)}: blocked (injected)",
                               cause=FailureCause.PATH_BLOCKED)

    c.putdown.put_down_at = put_down_at
    with pytest.raises(PrimitiveFailure) as err:
        c.putdown.set_aside(cup, [c.scene.xy("yellow bowl")])
    assert err.value.cause is FailureCause.PATH_BLOCKED and err.value.detail.startswith("lower 1:")
    assert len(calls) > len(c.putdown.aside_stage_spots(cup, [c.scene.xy("yellow bowl")])[0])
    assert robot.held_object() == "orange cup"    # still held: nothing was dropped
