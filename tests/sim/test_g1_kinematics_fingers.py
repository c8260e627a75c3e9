"""The G1 backend's kinematic model (backends/g1_kinematics.py) has the Dex3 fingers where the hands report them,
and each thread computes on its own MjData.

- The clearance check sees the hand as it is shaped: an object at the open hand's index tip is named while the hand
  reports open, and the same posture is clear once the hand reports closed (the fingers curled away from it).
  Before, the fingers sat at the model's zero posture whatever the hands did.
- Forward kinematics on another thread (the object tracker asking where the hands are, on the scene-model
  subscription's thread) does not change the posture the controller's thread has just set up."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from memora_core.robot.hand import FINGER_JOINTS, HandPostures, Side, joint_name
from memora_core.robot.robot import SceneObject
from tests.sim.g1_loopback import posture as _posture
from tests.sim.g1_loopback import seeing_g1

pytestmark = pytest.mark.sim

TABLE_Z = 0.75


class ReportingHand:
    """A Dex3 hand's state as the backend reads it (`side`, `q()`, `target`), reporting a fixed posture."""

    def __init__(self, side: str, q: list[float]) -> None:
        self.side, self._q, self.target = Side(side), list(q), list(q)

    def q(self) -> list[float]:
        return list(self._q)


@pytest.fixture(scope="module")
def g1():
    pytest.importorskip("unitree_sdk2py")
    robot, seen = seeing_g1()
    yield robot, seen
    robot.close()


def _pebble(xyz) -> SceneObject:
    r = 0.012
    return SceneObject(name="pebble", category="box", colour="grey", material="stone", half_height=r, radius=r,
                       position=tuple(float(v) for v in xyz))


def test_the_clearance_check_sees_the_fingers_as_the_hand_reports_them(g1):
    robot, seen = g1
    postures = HandPostures()
    target = _posture(robot, (0.38, -0.18, TABLE_Z + 0.15))
    robot.hands = {"right": ReportingHand("right", postures.open(Side.RIGHT))}
    try:
        robot._fk(target)
        for j, v in zip(FINGER_JOINTS, postures.open(Side.RIGHT)):
            assert robot.data.qpos[robot.model.joint(joint_name("right", j)).qposadr[0]] == pytest.approx(v)
        tip = robot.data.body("right_hand_index_1_link").xpos.copy()
        seen[:] = [_pebble(tip)]
        assert robot.clearance(target, set()) == ["pebble"]      # the open hand's index is on it
        robot.hands = {"right": ReportingHand("right", postures.closed(Side.RIGHT))}
        robot._fk(target)
        assert np.linalg.norm(robot.data.body("right_hand_index_1_link").xpos - tip) > 0.03  # curled away
        assert robot.clearance(target, set()) == []               # the closed hand clears it
    finally:
        robot.hands = {}
        seen.clear()


def test_forward_kinematics_on_another_thread_leaves_this_thread_s_posture(g1):
    robot, _ = g1
    palm = np.array([0.38, -0.18, TABLE_Z + 0.20])
    target = _posture(robot, palm)
    robot._fk(target)
    here = robot.data.site("right_palm").xpos.copy()
    assert np.linalg.norm(here - palm) < 0.01
    other: list[np.ndarray] = []
    worker = threading.Thread(target=lambda: other.append(robot.hand_position("right")))  # at the measured joints
    worker.start()
    worker.join()
    assert np.linalg.norm(other[0] - palm) > 0.05                 # the measured arm is elsewhere (home)
    assert np.allclose(robot.data.site("right_palm").xpos, here)  # this thread's posture is untouched
