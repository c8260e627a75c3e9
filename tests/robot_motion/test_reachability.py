"""The reachability map on the real G1 kinematics: the arm in front of whose shoulder a point lies reaches
it, points far off reach nothing, and the map is cached to a file and read back the same."""
from __future__ import annotations

import numpy as np
import pytest

from memora_core.robot.motion import PlannerConfig, ReachGridConfig
from memora_core.robot.motion.reachability import ReachabilityMap
from sim.planning_world import reachability_map


@pytest.fixture(scope="module")
def reach(kitchen, tmp_path_factory):
    kitchen.reset()
    cfg = PlannerConfig(cache_dir=str(tmp_path_factory.mktemp("reach")),
                        reach_grid=ReachGridConfig(x_range=(0.2, 0.6), y_range=(-0.5, 0.4), z_range=(0.86, 1.02),
                                                   step=0.08))
    return cfg, reachability_map(kitchen, cfg)


def test_points_in_front_of_a_shoulder_go_to_that_arm(reach):
    _, m = reach
    right_shoulder = np.array([0.40, -0.12, 0.94])  # the G1 shoulders sit at y = -/+0.10, z = 1.09
    left_shoulder = np.array([0.40, 0.12, 0.94])
    assert m.reachable(right_shoulder, "right") and m.best_arm(right_shoulder) == "right"
    assert m.reachable(left_shoulder, "left") and m.best_arm(left_shoulder) == "left"


def test_points_out_of_reach_or_off_the_grid_are_not_reachable(reach):
    _, m = reach
    assert m.best_arm([0.95, -0.1, 0.9]) is None           # off the grid
    assert not m.reachable([0.6, 0.4, 0.86], "right")       # far across the body, at the grid's edge
    assert np.isinf(m.residual_at([2.0, 0.0, 0.9], "left"))


def test_map_is_cached_and_read_back_identical(reach, kitchen):
    cfg, m = reach
    files = list(cfg.cache_path().glob("reach_*.npz"))
    assert len(files) == 1
    again = ReachabilityMap.load(files[0])
    for arm in m.arms:
        np.testing.assert_array_equal(again.residual[arm], m.residual[arm])
    assert reachability_map(kitchen, cfg).arms == m.arms  # from the cache: no second file
    assert len(list(cfg.cache_path().glob("reach_*.npz"))) == 1
