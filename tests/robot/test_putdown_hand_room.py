"""Where a held object is put down: the nearest free spots first, as ever; then, for when every one of those fails
(on a crowded table each may leave the hand on a neighbour), more free spots further out where the hand holding
the object (as it hangs now) and the forearm reaching to it pass the neighbours. Geometry only, without MuJoCo: the
scene is a table of footprints and the hand's offset from the object."""
from types import SimpleNamespace

import numpy as np

from memora_core.robot import load_robot_config
from memora_core.robot.control.geometry import corridor_clear, table_spots
from memora_core.robot.control.putdown import PutDown
from memora_core.robot.robot import SceneObject

LOAF = SceneObject(name="loaf", category="bread", colour="brown", material="bread", radius=0.045, half_height=0.025)
BOWL_XY, BOWL_R = np.array([0.44, -0.07]), 0.075
SIDE_HOLD = np.array([-0.055, 0.057])  # palm behind and left of the loaf's centre: taken from its side


class Scene:
    def __init__(self, hang_xy):
        self.hang_xy = np.asarray(hang_xy, float)

    def footprints(self, *exclude):
        return [(BOWL_XY, BOWL_R)]

    def hang(self, name):
        return np.array([*self.hang_xy, 0.02])

    def held_half_up(self, obj):
        return obj.half_height


def setup(hang_xy, arm="left", held=True):
    cfg = load_robot_config("sim_g1_dex3")
    robot = SimpleNamespace(arm=arm, held_object=lambda: LOAF.name if held else None)
    c = SimpleNamespace(robot=robot, cfg=cfg, scene=Scene(hang_xy), reach=None, table_z=0.78)
    ring = BOWL_R + LOAF.radius + cfg.motion.beside_gap
    return PutDown(c), cfg.motion, ring


def has_room(spot, hang_xy, arm, m) -> bool:
    base = np.asarray(m.arm_bases[arm], float)
    return corridor_clear(np.asarray(spot) + hang_xy, base, 0.0, [(BOWL_XY, BOWL_R)], m)


def test_the_nearest_spots_come_first_then_further_ones_where_the_hand_has_room():
    putdown, m, ring = setup(SIDE_HOLD)
    got = putdown.spots_near(LOAF, BOWL_XY, min_dist=ring)
    nearest = table_spots(BOWL_XY, LOAF.radius, [(BOWL_XY, BOWL_R)], m, min_dist=ring)
    n = m.table_spot_tries
    assert [tuple(s) for s in got[:n]] == [tuple(s) for s in nearest]  # the first tries as they always were
    # Held from its side, some of those nearest put the palm over the bowl's rim...
    assert not all(has_room(s, SIDE_HOLD, "left", m) for s in nearest)
    # ...the further ones that follow leave the hand and forearm clear of it, and are still next to the bowl.
    further = got[n:]
    assert 0 < len(further) <= n
    assert all(has_room(s, SIDE_HOLD, "left", m) for s in further)
    assert all(ring - 1e-9 <= np.linalg.norm(s - BOWL_XY) <= ring + m.beside_reach + 1e-9 for s in further)
    assert not any(any(np.allclose(s, t) for t in nearest) for s in further)


def test_the_hand_as_it_hangs_decides_the_room():
    fp = [(BOWL_XY, BOWL_R)]
    over, m, ring = setup(np.zeros(2))
    beside = BOWL_XY + [0.0, ring]  # on the bowl's left, next to it (the left arm's side)
    assert over.hand_has_room(LOAF, fp)(beside)  # the hand above the loaf: clear of the bowl
    towards, _, _ = setup([0.0, -0.06])          # the palm 6 cm off the loaf towards the bowl: over its rim
    assert not towards.hand_has_room(LOAF, fp)(beside)
    away, _, _ = setup([0.0, 0.06])              # off its other side: clear
    assert away.hand_has_room(LOAF, fp)(beside)


def test_an_object_not_in_the_hand_gets_the_nearest_spots_only():
    putdown, m, ring = setup(SIDE_HOLD, held=False)
    got = putdown.spots_near(LOAF, BOWL_XY, min_dist=ring)
    nearest = table_spots(BOWL_XY, LOAF.radius, [(BOWL_XY, BOWL_R)], m, min_dist=ring)
    assert [tuple(s) for s in got] == [tuple(s) for s in nearest]
