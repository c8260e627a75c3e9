"""The hand-off's order when the taking arm finds no grasp where the object was put down: the giving arm takes it
back and puts it down on the next hand-off spot; a failure of another kind, or one that leaves something in the
hand, stands. Logic only: putting down, the spots and the picks (real on MuJoCo in tests/sim) are a table of
outcomes."""
from types import SimpleNamespace

import numpy as np
import pytest

from memora_core.robot import load_robot_config
from memora_core.robot.control.failures import FailureCause, FailureReason, PrimitiveFailure
from memora_core.robot.control.putdown import PutDown
from memora_core.robot.robot import SceneObject

CAN = SceneObject(name="fanta can", category="can", colour="yellow", material="aluminium", radius=0.033,
                  half_height=0.062)
SPOTS = [np.array([0.40, -0.05]), np.array([0.40, 0.05]), np.array([0.34, 0.0]), np.array([0.46, 0.0])]


class Hands:
    """One robot's two arms and what the picks do: `outcomes[k]` is how the taking arm's k-th pick ends (None:
    it takes the object), a giving arm's pick always takes it back."""

    def __init__(self, outcomes: list[PrimitiveFailure | None]) -> None:
        self.arm, self.held, self.outcomes = "right", CAN.name, list(outcomes)
        self.log: list[tuple] = []

    def held_object(self):
        return self.held

    def settle(self, seconds: float) -> None:
        pass

    def pick(self, call, arms=None):
        (arm,) = arms
        self.log.append(("pick", arm))
        if arm == "left":
            outcome = self.outcomes.pop(0)
            if outcome is not None:
                raise outcome
        self.arm, self.held = arm, CAN.name


def hand_off(outcomes):
    cfg = load_robot_config("sim_g1_dex3")
    hands = Hands(outcomes)
    c = SimpleNamespace(robot=hands, cfg=cfg, skills=SimpleNamespace(pick=hands))
    putdown = PutDown(c)

    def set_down_on_first(obj, spots):
        hands.log.append(("down", tuple(spots[0])))
        hands.held = None
        return spots[0]
    putdown.set_down_on_first = set_down_on_first
    putdown.handoff_spots = lambda obj, taker: list(SPOTS)
    return putdown.hand_off(CAN), hands


def no_grasp() -> PrimitiveFailure:
    return PrimitiveFailure(FailureReason.COLLISION, "no grasp", ["grey bowl"], cause=FailureCause.NO_GRASP)


def test_the_giver_takes_it_back_and_the_next_spot_is_used():
    done, hands = hand_off([no_grasp(), None])
    assert done and hands.arm == "left" and hands.held == CAN.name
    assert hands.log == [("down", tuple(SPOTS[0])), ("pick", "left"), ("pick", "right"),
                         ("down", tuple(SPOTS[1])), ("pick", "left")]


def test_the_spots_run_out_after_handoff_tries():
    tries = load_robot_config("sim_g1_dex3").motion.handoff_tries
    done, hands = hand_off([no_grasp()] * tries)
    assert not done and hands.held == CAN.name and hands.arm == "right"
    assert [e for e in hands.log if e[0] == "down"] == [("down", tuple(s)) for s in SPOTS[:tries]]


def test_another_failure_stands():
    slipped = PrimitiveFailure(FailureReason.SLIPPED, "slipped", cause=FailureCause.SLIPPED)
    with pytest.raises(PrimitiveFailure) as raised:
        hand_off([slipped])
    assert raised.value.cause is FailureCause.SLIPPED
