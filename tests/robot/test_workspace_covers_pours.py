"""The workspace box must hold every hand target a pour at the edge of the table zone needs: the bottle beside the
container on its outer side (the inner side can leave the wrist no roll), the hand beside the bottle. A box
narrower on one side than the other made the pour into a cup at the left edge of the table unreachable."""
import numpy as np
import pytest

from memora_core.robot import load_robot_config
from sim.scene.config import load_scene_config


@pytest.mark.parametrize("robot", ["sim_g1", "sim_g1_dex3", "unitree_g1"])
def test_a_pour_at_either_edge_of_the_table_zone_stays_in_the_workspace(robot):
    cfg = load_robot_config(robot)
    scene = load_scene_config()
    box = cfg.limits.workspace
    (x_lo, y_lo), (x_hi, y_hi) = cfg.motion.table_zone
    containers = [o for o in scene.objects if o.category in ("cup", "bowl")]
    pourers = [o for o in scene.objects if o.category in ("bottle", "can")]
    assert containers and pourers
    x = 0.5 * (x_lo + x_hi)
    for c in containers:
        for b in pourers:
            reach = c.footprint_radius + b.footprint_radius + 0.01 + b.footprint_radius + cfg.grasp.radius
            for y, out in ((y_hi, 1.0), (y_lo, -1.0)):
                hand = (x, y + out * reach, box.min[2] + 0.5 * (box.max[2] - box.min[2]))
                assert box.contains(hand), (robot, c.name, b.name, np.round(hand, 3))


def test_the_workspace_refuses_what_lies_well_off_the_table():
    box = load_robot_config("sim_g1").limits.workspace
    assert not box.contains((0.5, 0.8, 1.0)) and not box.contains((0.5, -0.8, 1.0))
