"""A lowered object whose centre ended further from its aim than a plain place may land is lifted back over the rim,
shifted by the miss and lowered again (once) before it is let go; one within that tolerance is let go where it is.
Found on a perceived-pose trial: lowering into a bowl near the table's front edge re-postured the arm, the hand
turned, the tea box held off the palm swung 5.7 cm toward the robot, and was let go on the bowl's rim; it tipped off
the table. Logic only: the moves are scripted (the hand goes where it is sent; the object hangs at a fixed offset
from the palm). The real lowering runs on MuJoCo in tests/sim and `memora sim-bench`."""
from types import SimpleNamespace

import numpy as np
import pytest

from memora_core.robot.control.skills.place import PlaceSkill

GOAL = np.array([0.273, 0.036, 0.81])
TOL = 0.04


def skill(offset) -> tuple[PlaceSkill, list[tuple[str, np.ndarray]], SimpleNamespace]:
    """A place skill on a scripted robot holding an object `offset` from its palm; and the log of its moves."""
    moves: list[tuple[str, np.ndarray]] = []
    state = SimpleNamespace(hand=np.array([0.228, 0.013, 0.943]))
    robot = SimpleNamespace(
        hand_position=lambda arm=None: state.hand.copy(),
        object_pose=lambda name: (state.hand + np.asarray(offset, float), np.eye(3)),
        limits=SimpleNamespace(config=SimpleNamespace(workspace=SimpleNamespace(min=np.array([0.1, -0.6, 0.72]),
                                                                               max=np.array([0.7, 0.4, 1.3])))))

    def move(what):  # noqa: ANN001, ANN202
        def to(point, *_, **__):  # noqa: ANN001, ANN202
            moves.append((what, np.asarray(point, float)))
            state.hand = np.asarray(point, float).copy()
        return to

    s = PlaceSkill.__new__(PlaceSkill)
    s.robot = robot
    s.cfg = SimpleNamespace(motion=SimpleNamespace(place_tolerance=TOL, approach_height=0.08))
    s.c = SimpleNamespace(arm=SimpleNamespace(go=move("lift")))
    s._lower = lambda point, ignore, held, container, aim=None, guarded=True: move("lower")(point)
    return s, moves, state


def test_an_object_swung_off_its_aim_is_lifted_shifted_and_lowered_again():
    s, moves, state = skill(offset=(-0.011, 0.015, -0.105))   # the box 5.7 cm short of the bowl's centre
    before = state.hand.copy()
    s._reaim("tea box", GOAL, {"tea box", "bowl"}, "bowl")
    assert [w for w, _ in moves] == ["lift", "lower", "lower"]
    assert moves[0][1][2] > before[2] + 0.05                  # first up over the rim, where it was
    np.testing.assert_allclose(moves[0][1][:2], before[:2])
    assert moves[-1][1][2] == pytest.approx(before[2])          # back down to the same height
    landed = s.robot.object_pose("tea box")[0]
    assert np.hypot(*(landed[:2] - GOAL[:2])) < 1e-6            # now over the aim


@pytest.mark.parametrize("miss", [0.0, 0.02, 0.039])
def test_an_object_within_the_place_tolerance_is_let_go_where_it_is(miss):
    hand = np.array([0.228, 0.013, 0.943])
    s, moves, _ = skill(offset=(GOAL[0] - miss - hand[0], GOAL[1] - hand[1], -0.1))
    s._reaim("tea box", GOAL, set(), "bowl")
    assert moves == []
