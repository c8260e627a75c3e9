"""The per-step contact check of the simulated G1 (`SimRobot._hard_contacts`) on real MuJoCo contacts: an object the
hand is pressed into is named, an object resting on the table is not, the held object itself is not, and what the
held object is pressed into is."""
from __future__ import annotations

import mujoco
import pytest

from memora_core.robot import make_robot
from sim.scene import Layout
from sim.scene.builder import HAND_BODY

OBJS = {"orange cup": (0.40, -0.20, 0.0), "yellow bowl": (0.42, 0.15, 0.0)}


@pytest.fixture
def robot():
    r = make_robot("sim_g1", layout=Layout(seed=0, poses=OBJS))
    # 1 N instead of the config's 40: an object set into the hand by hand-written qpos pushes with a few newtons,
    # and what is checked here is which contacts count, not the threshold (this robot's own config copy)
    r.config.motion.collision_force = 1.0
    for _ in range(100):  # let the objects settle on the table
        r._step()
    yield r
    r.close()


def _put_at_hand(robot, name: str, offset=(0.0, 0.0, 0.0)) -> None:
    """Move object `name`'s free joint so its centre sits at the right hand (plus `offset`), deep in it."""
    m, d = robot.model, robot.data
    hand = d.xpos[m.body(HAND_BODY["right"]).id]
    adr = m.jnt_qposadr[m.body_jntadr[robot._object_body[name]]]
    d.qpos[adr:adr + 3] = hand + offset
    mujoco.mj_forward(m, d)


def test_objects_at_rest_are_not_hits(robot):
    mujoco.mj_forward(robot.model, robot.data)
    assert robot.config.motion.collision_force == 1.0
    assert robot.data.ncon > 0  # feet, objects on the table: contacts the check must pass over
    assert robot._hard_contacts() == set()


def test_an_object_pressed_by_the_hand_is_named(robot):
    _put_at_hand(robot, "orange cup")
    assert robot._hard_contacts() == {"orange cup"}


def test_the_held_object_is_not_a_hit_but_what_it_is_pressed_into_is(robot):
    _put_at_hand(robot, "orange cup")
    robot._held = "orange cup"
    assert robot._hard_contacts() == set()  # the hand holds it: no hit
    _put_at_hand(robot, "yellow bowl", offset=(0.0, 0.0, -0.02))  # the bowl into the held cup (and the hand)
    assert robot._hard_contacts() == {"yellow bowl"}
