"""Where a closed hand pinches (memora_core/robot/hand_pinch.py): the tips' midpoint and closing direction, read by
forward kinematics from a model whose tip links stand at known places; and what it says of the held object's centre
(moved along the closing direction only, and only when it differs from the belief by more than PINCH_TRUST_M)."""
import mujoco
import numpy as np
import pytest

from memora_core.robot.hand_pinch import PINCH_TRUST_M, Pinch, pinch_from, pinched_centre


def hand_model(thumb, index, middle, side: str = "right") -> tuple[mujoco.MjModel, mujoco.MjData]:
    """A model with the three tip links of `side`'s hand, each with one small sphere at the given world place."""
    bodies = "".join(f'<body name="{side}_hand_{link}_link" pos="{p[0]} {p[1]} {p[2]}"><geom size="0.005"/></body>'
                     for link, p in (("thumb_2", thumb), ("index_1", index), ("middle_1", middle)))
    model = mujoco.MjModel.from_xml_string(f"<mujoco><worldbody>{bodies}</worldbody></mujoco>")
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    return model, data


def test_the_pinch_lies_midway_between_the_thumb_and_the_fingers_and_closes_toward_them():
    model, data = hand_model((0.40, -0.10, 0.80), (0.40, -0.04, 0.82), (0.42, -0.04, 0.78))
    pinch = pinch_from(model, data, "right")
    assert pinch.point == pytest.approx([0.405, -0.07, 0.80])
    assert pinch.closing == pytest.approx([np.sin(np.arctan2(0.01, 0.06)), np.cos(np.arctan2(0.01, 0.06)), 0.0])


def test_no_pinch_without_the_hand_or_without_a_direction_across_the_table():
    model, data = hand_model((0.4, 0.0, 0.8), (0.4, 0.0, 0.9), (0.4, 0.0, 0.9))
    assert pinch_from(model, data, "left") is None  # no such hand in the model
    assert pinch_from(model, data, "right") is None  # thumb right under the fingers: no closing direction


def test_the_fingers_move_the_believed_centre_along_the_closing_direction_only():
    pinch = Pinch(point=np.array([0.43, 0.05, 0.76]), closing=np.array([1.0, 0.0, 0.0]))
    moved = pinched_centre(np.array([0.40, 0.0, 0.80]), pinch)
    assert moved == pytest.approx([0.43, 0.0, 0.80])  # across the closing direction and in height: as believed


def test_the_fingers_leave_the_belief_where_they_agree_with_it():
    closing = np.array([np.cos(0.5), np.sin(0.5), 0.0])
    believed = np.array([0.40, 0.0, 0.80])
    near = Pinch(point=believed + (PINCH_TRUST_M - 0.001) * closing, closing=closing)
    assert pinched_centre(believed, near) is None
    far = Pinch(point=believed + (PINCH_TRUST_M + 0.01) * closing + np.array([-np.sin(0.5), np.cos(0.5), 0]) * 0.05,
                closing=closing)
    assert pinched_centre(believed, far) == pytest.approx(believed + (PINCH_TRUST_M + 0.01) * closing)
