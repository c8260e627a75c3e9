"""Table-space geometry of the controller (plain numpy, no MuJoCo): hand orientation, footprint gaps, free
table spots, aside/hand-off/pour spots and grasp points, on the real robot config's distances."""
import numpy as np
import pytest

from memora_core.robot import load_robot_config
from memora_core.robot.control.geometry import (aligned_yaws, aside_spots, corridor_clear, edge_gap, grasp_points,
                                                grid, handoff_spots, palm_rotation, points_along, pour_spots,
                                                reach_corridors, segment_distance, table_spots)


@pytest.fixture(scope="module")
def m():
    return load_robot_config("sim_g1").motion


def test_palm_rotation_points_fingers_down_and_mirrors_the_yaw_between_arms():
    down = palm_rotation(0.0, 90.0, "right") @ np.array([1.0, 0.0, 0.0])
    assert np.allclose(down, [0.0, 0.0, -1.0], atol=1e-9)
    right = palm_rotation(90.0, 0.0, "right") @ np.array([1.0, 0.0, 0.0])
    left = palm_rotation(90.0, 0.0, "left") @ np.array([1.0, 0.0, 0.0])
    assert np.allclose(right, [0.0, 1.0, 0.0], atol=1e-9)   # the right hand turns toward the midline (+y)
    assert np.allclose(left, [0.0, -1.0, 0.0], atol=1e-9)
    r = palm_rotation(33.0, 47.0, "left")
    assert np.allclose(r @ r.T, np.eye(3), atol=1e-9) and np.isclose(np.linalg.det(r), 1.0)


def test_edge_gap_and_grid():
    fp = [(np.array([0.0, 0.0]), 0.05), (np.array([0.3, 0.0]), 0.02)]
    assert edge_gap(np.array([0.1, 0.0]), 0.01, fp) == pytest.approx(0.04)
    assert edge_gap(np.array([0.1, 0.0]), 0.01, []) == 1.0
    pts = grid(((0.0, 0.0), (0.1, 0.2)), 0.05)
    assert len(pts) == 3 * 5 and all(0 <= p[0] <= 0.1 and 0 <= p[1] <= 0.2 for p in pts)


def test_table_spots_keep_the_gap_stay_in_the_zone_and_come_nearest_first(m):
    near = np.array([0.40, -0.10])
    fp = [(np.array([0.40, -0.10]), 0.04), (np.array([0.45, -0.02]), 0.03)]
    spots = table_spots(near, 0.03, fp, m)
    assert spots, "a half-empty table has room"
    lo, hi = np.array(m.table_zone[0]), np.array(m.table_zone[1])
    for s in spots:
        assert np.all(s >= lo) and np.all(s <= hi)
        assert all(np.linalg.norm(s - p) >= r + 0.03 + m.beside_gap - 1e-9 for p, r in fp)
    d = [round(float(np.linalg.norm(s - near)), 4) for s in spots]
    assert d == sorted(d) and len(spots) <= m.table_spot_tries
    # 'next to': on the ring, no further out than beside_reach
    ring = 0.04 + 0.03 + m.beside_gap
    beside = table_spots(near, 0.03, fp, m, min_dist=ring)
    assert beside and all(ring - 1e-9 <= np.linalg.norm(s - near) <= ring + m.beside_reach for s in beside)


def test_table_spots_on_a_full_table_are_none(m):
    fp = [(p, 0.05) for p in grid(m.table_zone, 0.05)]
    assert table_spots(np.array([0.4, 0.0]), 0.03, fp, m) == []


def test_aside_spots_keep_away_from_the_work_and_out_of_its_front(m):
    work = [np.array([0.45, 0.0])]
    origin = np.array([0.40, 0.10, 0.8])
    spots = aside_spots(0.03, [(np.array([0.45, 0.0]), 0.05)], work, m, origin)
    assert spots
    for s in spots:
        assert np.linalg.norm(s - work[0]) >= m.aside_distance
        assert not (s[0] < work[0][0] and abs(s[1] - work[0][1]) < m.aside_distance)
        assert np.linalg.norm(s - origin[:2]) >= m.aside_min_move


def test_aside_spots_at_a_shorter_distance_find_room_on_a_crowded_table(m):
    work = [np.array([0.42, 0.0])]
    # Everything further than 16 cm from the work point is taken: no spot at the full aside distance.
    crowd = [(c, 0.03) for c in grid(m.table_zone, 0.03) if np.linalg.norm(c - work[0]) > 0.16]
    assert aside_spots(0.02, crowd, work, m) == []
    half = m.aside_distance / 2
    spots = aside_spots(0.02, crowd, work, m, distance=half)
    assert spots
    for s in spots:
        assert half <= np.linalg.norm(s - work[0]) and edge_gap(s, 0.02, crowd) >= m.aside_gap
        assert not (s[0] < work[0][0] and abs(s[1] - work[0][1]) < half)


def test_segment_distance():
    a, b = np.array([0.0, 0.0]), np.array([1.0, 0.0])
    assert segment_distance(np.array([0.5, 0.2]), a, b) == pytest.approx(0.2)
    assert segment_distance(np.array([-0.3, 0.4]), a, b) == pytest.approx(0.5)   # beyond an end: to the end
    assert segment_distance(np.array([0.3, 0.4]), a, a) == pytest.approx(0.5)    # a point segment


def test_aside_spots_keep_off_the_forearms_way_to_the_work(m):
    # Work out on the right: the right arm reaches it from its base, over the strip in between.
    work = [np.array([0.54, -0.36])]
    (base, end), = reach_corridors(work, m)
    assert np.allclose(base, m.arm_bases["right"]) and np.allclose(end, work[0])
    m_all = m.model_copy(update={"table_spot_tries": 10_000})  # every spot, not the few tried
    spots = aside_spots(0.04, [], work, m_all, distance=0.075)
    assert spots and not any(segment_distance(s, base, end) < 0.04 + m.arm_corridor for s in spots)
    # Without the corridor rule an empty table has spots on that way.
    every = aside_spots(0.04, [], work, m_all, corridors=False, distance=0.075)
    assert any(segment_distance(s, base, end) < 0.04 + m.arm_corridor for s in every)


def test_aside_spots_look_in_the_given_zone_and_take_only_accepted_spots(m):
    work = [np.array([0.42, 0.0])]
    wide = ((0.26, -0.42), (0.68, 0.33))
    spots = aside_spots(0.03, [], work, m.model_copy(update={"table_spot_tries": 10_000}), zone=wide,
                        accept=lambda c: c[0] > 0.6)
    assert spots and all(0.6 < s[0] <= 0.68 + 1e-9 for s in spots)
    assert aside_spots(0.03, [], work, m, zone=wide, accept=lambda c: False) == []


def test_corridor_clear_sees_an_object_on_the_forearms_way(m):
    base, spot = np.array(m.arm_bases["left"]), np.array([0.45, -0.2])
    on_way = [(base + 0.5 * (spot - base), 0.04)]
    assert not corridor_clear(spot, base, 0.03, on_way, m)
    assert corridor_clear(spot, base, 0.03, [(np.array([0.30, 0.30]), 0.04)], m)
    assert corridor_clear(spot, base, 0.03, [(spot.copy(), 0.03)], m)  # the object's own footprint does not count


def test_handoff_spots_put_the_preferred_first(m):
    fp = [(c, 0.03) for c in grid(m.handoff_zone, 0.03)]   # a full hand-off zone: spots come from the table zone
    plain = handoff_spots(0.03, fp, m)
    preferred = handoff_spots(0.03, fp, m, prefer=lambda c: c[1] > 0.2)
    assert plain and preferred and preferred[0][1] > 0.2 and not plain[0][1] > 0.2


def test_handoff_spots_are_clear_and_start_in_the_handoff_zone(m):
    spots = handoff_spots(0.03, [(np.array([0.40, -0.05]), 0.04)], m)
    assert spots and len(spots) <= m.handoff_tries
    lo, hi = np.array(m.handoff_zone[0]), np.array(m.handoff_zone[1])
    assert np.all(spots[0] >= lo - 1e-9) and np.all(spots[0] <= hi + 1e-9)
    assert all(edge_gap(s, 0.03, [(np.array([0.40, -0.05]), 0.04)]) >= m.handoff_gap for s in spots)


def test_pour_spots_leave_room_beside_the_cup_and_come_nearest_the_work_first(m):
    work = np.array([0.45, -0.10])
    fp = [(np.array([0.45, -0.10]), 0.05)]
    spots = pour_spots(0.04, 0.03, fp, work, m)
    assert spots
    side = np.array([0.0, 0.04 + 0.03 + 0.01])
    for s in spots:
        assert edge_gap(s, 0.04, fp) >= m.aside_gap
        assert max(edge_gap(s + side, 0.03, fp), edge_gap(s - side, 0.03, fp)) >= m.aside_gap
    d = [np.linalg.norm(s - work) for s in spots]
    assert d == sorted(d)


def test_pour_spots_move_the_cup_and_keep_only_sides_the_bottle_fits(m):
    work = np.array([0.45, -0.10])
    here = np.array([0.30, 0.30])
    spots = pour_spots(0.04, 0.03, [], work, m, away_from=here)
    assert spots and all(np.linalg.norm(s - here) >= m.aside_min_move for s in spots)
    near_here = pour_spots(0.04, 0.03, [], here, m)
    assert np.linalg.norm(near_here[0] - here) < m.aside_min_move  # without `away_from` the cup's own place leads
    # the bottle may only stand at y <= 0.2 (the hand beyond that would leave the workspace): a spot counts when
    # one of its sides lies there, so none is as far out as the cup's own place
    side = 0.04 + 0.03 + 0.01
    fits = pour_spots(0.04, 0.03, [], here, m, bottle_fits=lambda b: b[1] <= 0.2)
    assert fits and all(s[1] - side <= 0.2 + 1e-9 for s in fits)
    assert not pour_spots(0.04, 0.03, [], work, m, bottle_fits=lambda b: False)


def test_grasp_points_add_points_along_a_long_object_only(m):
    top = np.array([0.4, 0.0, 0.85])
    assert len(grasp_points(top, 0.02, 0.04, None, m)) == 1
    axes = [(np.array([1.0, 0.0, 0.0]), 0.09), (np.array([0.0, 1.0, 0.0]), 0.01)]  # a spoon along x
    pts = grasp_points(top, 0.02, 0.04, axes, m)
    assert len(pts) == 3
    assert np.allclose(pts[0], top + [0, 0, 0.02])
    assert np.allclose(pts[1][1:], pts[0][1:]) and pts[1][0] > pts[0][0] > pts[2][0]  # along x, both ways


def test_points_along_reach_grasp_end_margin_inside_either_end_without_a_cap(m):
    centre = np.array([0.4, 0.0, 0.76])
    axes = [(np.array([0.0, 1.0, 0.0]), 0.07), (np.array([1.0, 0.0, 0.0]), 0.012)]  # a spoon along y
    pts = points_along(centre, axes, np.inf, m)
    assert len(pts) == 3 and np.allclose(pts[0], centre)
    assert np.allclose(pts[1], centre + [0, 0.07 - m.grasp_end_margin, 0])
    assert np.allclose(pts[2], centre - [0, 0.07 - m.grasp_end_margin, 0])
    assert len(points_along(centre, axes, 0.01, m)) == 1  # capped below grasp_min_offset: the centre only


def test_aligned_yaws_mirror_for_the_left_arm_and_respect_the_range():
    x_axis = np.array([1.0, 0.0, 0.0])
    assert aligned_yaws(x_axis, 0.0, "right", (-60, 120)) == [0.0]       # forward; backward (180) is out of range
    assert aligned_yaws(np.array([0.0, 1.0, 0.0]), 0.0, "right", (-60, 120)) == [90.0]
    assert aligned_yaws(np.array([0.0, 1.0, 0.0]), 0.0, "left", (-60, 120)) == [90.0]  # -y end for the left hand
    assert aligned_yaws(x_axis, 0.0, "right", (10, 20)) == []
