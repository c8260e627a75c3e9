"""When no grasp candidate clears, the chooser names the neighbours to set aside (making room's list). A candidate
that the robot's own body is in the way of as well (the arm pressed into the torso reaching an object close in front
of it) is not freed by moving its neighbours, so they are not named for it. Logic only: the candidates and their
refusals are scripted (the real checks run on MuJoCo in tests/sim)."""
from types import SimpleNamespace

import numpy as np
import pytest

from memora_core.robot.control.failures import FailureCause, PrimitiveFailure
from memora_core.robot.control.grasping import GraspChooser
from memora_core.robot.motion.failures import is_robot_link


class ScriptedArm:
    """Refuses every solve of candidate i (the palm point 0.8 + 0.01 i high) with `refusals[i]`, reporting as the
    blocked posture which seed it was solved from."""

    def __init__(self, refusals: list[list[str]]) -> None:
        self.refusals = {round(0.8 + 0.01 * i, 3): hits for i, hits in enumerate(refusals)}
        self.seeds = []

    def cruise_z(self) -> float:
        return 1.1

    def rest_posture(self, arm: str) -> dict[str, float]:
        return {f"{arm}_elbow_joint": 1.0}

    def plan_line(self, point, ignore, what, start=None, start_xyz=None):  # noqa: ANN001, ANN201 - ArmMotion's shape
        self.seeds.append(start)
        hits = self.refusals[round(float(point[2]), 3)]
        raise PrimitiveFailure.blocked(what, point, hits, [h for h in hits if not is_robot_link(h)],
                                       arm_posture={"seed_is_rest": float(start is not None)})


def chooser(refusals: list[list[str]], joints: dict[str, float] | None = None) -> GraspChooser:
    """`joints`: the arm's measured posture (default: away from rest)."""
    now = {"right_elbow_joint": 0.2} if joints is None else joints
    robot = SimpleNamespace(arm="right", use_arm=lambda arm: None, joint_positions=lambda: dict(now))
    c = SimpleNamespace(arm=ScriptedArm(refusals), state=SimpleNamespace(pose=None), robot=robot,
                        cfg=SimpleNamespace(motion=SimpleNamespace(approach_height=0.1)))
    g = GraspChooser.__new__(GraspChooser)
    g.c, g.robot, g.cfg = c, robot, c.cfg
    points = [np.array([0.3, 0.0, 0.8 + 0.01 * i]) for i in range(len(refusals))]
    pose = SimpleNamespace(name="forward")
    g.candidates = lambda obj, pts, arms, top, skip: [("right", pose, p) for p in points]
    return g


OBJ = SimpleNamespace(name="tea box")


def names(refusals: list[list[str]]) -> tuple[str, ...]:
    with pytest.raises(PrimitiveFailure) as none:
        chooser(refusals).choose(OBJ, [], set())
    assert none.value.cause is FailureCause.NO_GRASP
    return none.value.blockers


def test_neighbours_beside_the_body_are_not_named_for_making_room():
    assert names([["orange cup", "robot:torso_link"], ["green cup", "robot:left_shoulder_roll_link"]]) == ()


def test_neighbours_alone_in_the_way_are_named_most_blocking_first():
    # The control: without the body in the way, the same neighbours are named.
    assert names([["orange cup"], ["green cup", "orange cup"]]) == ("orange cup", "green cup")
    # Mixed: only the candidates the body leaves free count.
    assert names([["orange cup", "robot:torso_link"], ["green cup"]]) == ("green cup",)


def test_by_body_and_self_only():
    p = np.zeros(3)
    both = PrimitiveFailure.blocked("approach", p, ["orange cup", "robot:torso_link"], ["orange cup"])
    assert both.by_body and not both.self_only
    alone = PrimitiveFailure.blocked("approach", p, ["robot:torso_link"], [])
    assert alone.by_body and alone.self_only
    neighbour = PrimitiveFailure.blocked("approach", p, ["orange cup", "table"], ["orange cup"])
    assert not neighbour.by_body and not neighbour.self_only
    nothing = PrimitiveFailure.blocked("lower", p, [], [])  # no posture found: nothing named
    assert not nothing.by_body and not nothing.self_only


def test_the_candidate_freed_by_the_fewest_moves_names_its_neighbours_first():
    # The bowl blocks most candidates, but always with another neighbour; the jug alone keeps one candidate from
    # clearing: setting the jug aside frees a grasp in one move, so it comes first.
    assert names([["bowl", "cup"], ["bowl", "can"], ["jug"], ["bowl", "cup"]]) == ("jug", "bowl", "cup", "can")
    # Between candidates blocked by as many, the one whose neighbour blocks more candidates first.
    assert names([["cup"], ["bowl"], ["bowl", "can"]]) == ("bowl", "cup", "can")


def test_blocked_grasps_carry_the_rest_seeded_posture_and_what_blocked_it():
    g = chooser([["bowl", "cup"], ["jug", "robot:torso_link"], ["can"]])
    with pytest.raises(PrimitiveFailure) as none:
        g.choose(OBJ, [], set())
    # Each candidate is solved from the arm's rest posture first, then from where the arm is.
    assert g.c.arm.seeds == [{"right_elbow_joint": 1.0}, None] * 3
    grasps = none.value.blocked_grasps
    # The body-blocked candidate is left out (moving the jug would not free it); the posture kept is the rest-seeded
    # one, which does not depend on where earlier moves left the arm.
    assert [(b.arm, b.blockers, b.posture) for b in grasps] == [
        ("right", ("bowl", "cup"), {"seed_is_rest": 1.0}), ("right", ("can",), {"seed_is_rest": 1.0})]


def test_an_arm_at_rest_is_solved_once_per_candidate():
    g = chooser([["bowl"], ["can"]], joints={"right_elbow_joint": 1.0})
    with pytest.raises(PrimitiveFailure):
        g.choose(OBJ, [], set())
    assert g.c.arm.seeds == [{"right_elbow_joint": 1.0}] * 2
