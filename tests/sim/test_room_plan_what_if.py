"""Making room planned by what-ifs on the MuJoCo Dex3 robot (sim_g1_dex3, the layout of dev sim-bench 100805,
rounded): a cinnamon tea box that no finger grasp reaches clear among eleven neighbours. Planning its grasp again as
if a neighbour were gone names which ones free it (the orange cup in front of it does; the lipton tea box at the far
corner does not), nothing on the table moves while it is asked, and the plan for it keeps to the budget and picks
only neighbours the hand can take as they stand (with the rim pinch the cup in front is one of them; without it no
single move will do). Real MuJoCo, ground-truth poses."""
import numpy as np
import pytest

from memora_core.robot import make_robot
from memora_core.robot.control import RuleBasedController
from memora_core.robot.control.room_plan import freeing_sets, pickable, room_plan
from sim.scene import Layout

pytestmark = pytest.mark.sim

TEA = "cinnamon tea box"
LAYOUT = {"coca-cola bottle": (0.278, -0.09, 2.603), "fanta can": (0.547, 0.026, -0.034),
          "orange cup": (0.31, 0.022, 2.999), "blue cup": (0.275, 0.197, -1.434), "green cup": (0.28, -0.376, -1.535),
          "yellow bowl": (0.546, -0.159, 2.08), "grey bowl": (0.433, 0.11, 0.465), TEA: (0.441, -0.049, -0.545),
          "lipton tea box": (0.551, 0.313, -2.251), "yellow spoon": (0.342, -0.221, -3.02),
          "metal spoon": (0.405, 0.283, -1.248), "bread": (0.534, -0.319, -2.827)}


@pytest.fixture(scope="module")
def crowded():
    robot = make_robot("sim_g1_dex3", layout=Layout(seed=0, poses=LAYOUT))
    yield robot, RuleBasedController(robot, robot.scene.table.height, robot.scene.regions).c
    robot.close()


def test_what_ifs_name_the_neighbours_that_free_the_grasp_and_move_nothing(crowded):
    robot, c = crowded
    tea = c.resolver.resolve(TEA)
    before = {n: robot.object_pose(n)[0].copy() for n in LAYOUT}
    pose = c.state.pose
    blockers = c.grasps.blockers_of(tea)
    assert blockers and "orange cup" in blockers and "lipton tea box" not in blockers
    assert c.grasps.blockers_of(tea, {"orange cup"}) is None
    assert c.grasps.blockers_of(tea, {"lipton tea box"})  # not in the way: its absence frees nothing
    singles = dict(freeing_sets(c, tea, list(blockers)))
    assert ("orange cup",) in singles and all(len(s) == 1 for s in singles)
    # each with the grasp it frees: a whole checked path, ending at the grasp, clear of the other neighbours
    arm, end, names, path = singles[("orange cup",)]
    assert names == ("orange cup",) and len(path) > 1 and path[-1] == end
    assert not any(set(robot.clearance(q, {TEA, "orange cup"})) - {"table"} for q in path)  # fingers low at the grasp
    assert c.state.pose is pose
    moved = max(float(np.linalg.norm(robot.object_pose(n)[0] - p)) for n, p in before.items())
    assert moved < 0.002


def test_the_plan_keeps_to_the_budget_and_takes_only_what_the_hand_can_pick(crowded):
    robot, c = crowded
    tea = c.resolver.resolve(TEA)
    blockers = list(c.grasps.blockers_of(tea))
    moves = room_plan(c, tea, blockers, {TEA}, 3, lambda name, keep_open: True)
    assert moves is not None and 1 <= len(moves) <= 3
    first = moves[0].name
    assert pickable(c, first)  # the first move is one the hand can make now
    # Within a single move: a neighbour that alone frees the tea box and that the hand takes as it stands (the orange
    # cup, by its rim: tests/sim/test_finger_rim_pinch.py).
    one = room_plan(c, tea, blockers, {TEA}, 1, lambda name, keep_open: True)
    assert one is not None and len(one) == 1 and pickable(c, one[0].name)
    assert (one[0].name,) in dict(freeing_sets(c, tea, blockers))


def test_without_the_rim_hand_no_single_move_frees_it():
    """Without the rim pinch every neighbour that alone frees the tea box is hemmed in itself: no plan in one move."""
    from tests.sim.staging import without_poses

    robot = make_robot(without_poses("sim_g1_dex3", lambda p: p.rim_above is not None),
                       layout=Layout(seed=0, poses=LAYOUT))
    try:
        c = RuleBasedController(robot, robot.scene.table.height, robot.scene.regions).c
        tea = c.resolver.resolve(TEA)
        blockers = list(c.grasps.blockers_of(tea))
        assert room_plan(c, tea, blockers, {TEA}, 1, lambda name, keep_open: True) is None
        assert not any(pickable(c, s[0]) for s, _ in freeing_sets(c, tea, blockers))
    finally:
        robot.close()


def test_the_grasp_the_hand_would_take_of_a_free_neighbour_is_a_what_if_too(crowded):
    robot, c = crowded
    before = {n: robot.object_pose(n)[0].copy() for n in LAYOUT}
    assert c.grasps.open_grasp(c.resolver.resolve(TEA)) is None  # no grasp of the crowded tea box is clear
    free = next(n for n in LAYOUT if n != TEA and pickable(c, n))
    arm, path = c.grasps.open_grasp(c.resolver.resolve(free))
    assert arm in ("left", "right") and all(any(j.startswith(arm) for j in q) for q in path)
    # every posture down to the grasp is clear of everything but the object it grasps
    assert all(set(robot.clearance(q, {free})) <= {free} for q in path)
    assert max(float(np.linalg.norm(robot.object_pose(n)[0] - p)) for n, p in before.items()) < 0.002
