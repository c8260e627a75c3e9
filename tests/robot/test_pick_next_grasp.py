"""Which failed grasps make the pick skill try its next grasp candidate: one whose arm hit something on the way, and
(a finger hand) one that closed at the grasp point and took nothing or let the object slip as it lifted. A palm-reach
weld whose palm stayed short or whose object slipped, and a pick with no candidate left, end the pick. Logic only: the
grasp attempts are scripted (the real ones run on MuJoCo in tests/sim and in `memora sim-bench`)."""
from types import SimpleNamespace

import pytest

from memora_core.robot.control.failures import FailureCause, FailureReason, PrimitiveFailure
from memora_core.robot.control.skills.pick import PickSkill
from memora_core.robot.primitives import Primitive, PrimitiveCall

PALM_SHORT = PrimitiveFailure(FailureReason.UNREACHABLE, "palm stayed 10.0 cm from spoon",
                              cause=FailureCause.PALM_SHORT)
SLIPPED = PrimitiveFailure(FailureReason.SLIPPED, "spoon drifted away from the hand", cause=FailureCause.SLIPPED)
HIT = PrimitiveFailure(FailureReason.COLLISION, "arm hit cup", cause=FailureCause.ARM_HIT)
NONE_LEFT = PrimitiveFailure(FailureReason.COLLISION, "no arm/hand pose can grasp spoon", cause=FailureCause.NO_GRASP)


def skill(failures: list[PrimitiveFailure], mode: str) -> tuple[PickSkill, list[str]]:
    """A pick skill whose grasp attempts fail with `failures` in turn, then succeed; and the log of what it did."""
    did: list[str] = []
    robot = SimpleNamespace(held_object=lambda: None, look=lambda: did.append("look"))
    cfg = SimpleNamespace(motion=SimpleNamespace(pick_attempts=3), grasp=SimpleNamespace(mode=mode))
    s = PickSkill.__new__(PickSkill)
    s.robot, s.cfg = robot, cfg
    s.c = SimpleNamespace(grasps=SimpleNamespace(fingers=mode == "fingers"))
    s.find = lambda query: SimpleNamespace(name=query)
    s.twisted_out_of_reach = lambda f: False
    s.back_off = lambda obj: did.append("back off") or True
    script = list(failures)

    def pick_once(obj, arms, tried):  # noqa: ANN001, ANN202
        did.append("grasp")
        if script:
            raise script.pop(0)

    s.pick_once = pick_once
    return s, did


CALL = PrimitiveCall(primitive=Primitive.PICK, object="spoon")


@pytest.mark.parametrize("failure", [PALM_SHORT, SLIPPED], ids=["took nothing", "slipped"])
def test_a_finger_grasp_that_took_nothing_or_let_it_slip_tries_the_next_grasp(failure):
    s, did = skill([failure], "fingers")
    s.pick(CALL)
    assert did == ["grasp", "back off", "look", "grasp"]


@pytest.mark.parametrize("failure", [PALM_SHORT, SLIPPED], ids=["palm short", "slipped"])
def test_control_a_weld_ends_the_pick(failure):
    s, did = skill([failure], "palm")
    with pytest.raises(PrimitiveFailure) as f:
        s.pick(CALL)
    assert f.value.cause is failure.cause and did == ["grasp"]


def test_a_hit_tries_the_next_grasp_and_none_left_ends_it():
    for mode in ("fingers", "palm"):
        s, did = skill([HIT], mode)
        s.pick(CALL)
        assert did == ["grasp", "back off", "look", "grasp"]
        s, did = skill([NONE_LEFT], mode)
        with pytest.raises(PrimitiveFailure):
            s.pick(CALL)
        assert did == ["grasp"]


def test_the_attempts_are_bounded():
    s, did = skill([PALM_SHORT] * 5, "fingers")
    with pytest.raises(PrimitiveFailure):
        s.pick(CALL)
    assert did.count("grasp") == 3
