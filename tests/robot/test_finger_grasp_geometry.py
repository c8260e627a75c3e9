"""Finger grasps without a simulator: where the palm goes for a grip point, the hand's closing/opening
commands, and robot config variants that state only their differences (`extends`)."""
import numpy as np
import pytest

from memora_core.robot import load_robot_config
from memora_core.robot.control.geometry import (finger_grasp_point, half_width, lowest_reach, palm_inner_direction,
                                                 palm_rotation)
from memora_core.robot.hand import HandPostures, closing_digits, is_grasping, opening_path, thumb_sweep
from memora_core.robot.config import RobotConfig, _robot_yaml

TOP = np.array([0.40, -0.20, 0.96])


def test_level_grip_puts_the_palm_behind_and_outside_the_object():
    right = finger_grasp_point(TOP, "right", 0.0, 0.0, (0.045, 0.05, 0.03), half_up=0.11)
    assert np.allclose(right, [0.355, -0.25, 0.93])          # behind (x), out to the right (-y), 3 cm below the top
    left = finger_grasp_point(TOP * [1, -1, 1], "left", 0.0, 0.0, (0.045, 0.05, 0.03), half_up=0.11)
    assert np.allclose(left, [0.355, 0.25, 0.93])            # mirrored


@pytest.mark.parametrize("arm", ["right", "left"])
@pytest.mark.parametrize("yaw, pitch", [(0, 0), (45, 0), (90, 0), (-45, 0), (0, 90), (90, 90), (30, 45)])
def test_the_grip_point_is_along_the_fingers_and_toward_the_inner_palm_at_any_pose(arm, yaw, pitch):
    palm = finger_grasp_point(TOP, arm, yaw, pitch, (0.045, 0.05, 0.03), half_up=0.11)
    grip = TOP - [0, 0, 0.03]
    local = palm_rotation(yaw, pitch, arm).T @ (grip - palm)  # in the hand's frame
    assert np.allclose(local, [0.045, 0.05 if arm == "right" else -0.05, 0.0], atol=1e-9)


def test_the_grip_point_goes_no_lower_than_a_low_object_s_middle():
    palm = finger_grasp_point(TOP, "right", 0.0, 90.0, (0.045, 0.05, 0.03), half_up=0.01)
    assert palm[2] == pytest.approx(TOP[2] - 0.01 + 0.045)  # fingers down: palm 4.5 cm above the grip point


def test_closing_is_read_from_the_command_and_opening_is_smooth():
    p = HandPostures()
    for side in ("left", "right"):
        assert is_grasping(closing_digits(side, p.closed(side), p))
        assert closing_digits(side, p.open(side), p) == set()
        path = opening_path(side, p.closed(side), p, steps=5)
        assert len(path) == 5 and np.allclose(path[-1], p.open(side))
        steps = np.abs(np.diff(np.array([p.closed(side)] + path), axis=0)).max()
        total = np.abs(np.array(p.closed(side)) - np.array(p.open(side))).max()
        assert steps == pytest.approx(total / 5)  # equal steps, never a jump


def test_a_config_variant_states_only_its_differences(tmp_path):
    base, variant = load_robot_config("sim_g1"), load_robot_config("sim_g1_dex3")
    assert variant.grasp.mode == "fingers" and base.grasp.mode == "palm"
    assert variant.motion.speed == base.motion.speed and variant.limits == base.limits   # inherited
    assert all(p.finger_offset is not None for p in variant.motion.grasp_poses)          # lists replace
    loop = tmp_path / "loop.yaml"
    loop.write_text(f"extends: {loop}\n")
    with pytest.raises(ValueError):
        _robot_yaml(loop)
    assert isinstance(RobotConfig.model_validate(_robot_yaml("sim_g1_dex3")), RobotConfig)


def test_half_width_is_the_radius_or_the_box_support_in_that_direction():
    assert half_width(0.03, [], np.array([0.0, 1.0, 0.0])) == pytest.approx(0.03)
    axes = [(np.array([1.0, 0.0, 0.0]), 0.045), (np.array([0.0, 1.0, 0.0]), 0.02)]
    assert half_width(0.05, axes, np.array([0.0, -1.0, 0.0])) == pytest.approx(0.02)   # across its narrow side
    diag = np.array([1.0, 1.0, 0.3])                                                  # only the horizontal part counts
    assert half_width(0.05, axes, diag) == pytest.approx((0.045 + 0.02) / np.sqrt(2))


@pytest.mark.parametrize("arm", ["right", "left"])
def test_a_wider_object_keeps_the_palm_the_same_gap_from_its_face(arm):
    top = TOP * ([1, -1, 1] if arm == "left" else 1)
    thin = finger_grasp_point(top, arm, 45.0, 0.0, (0.045, 0.02, 0.03), half_up=0.11, half_wide=0.01)
    wide = finger_grasp_point(top, arm, 45.0, 0.0, (0.045, 0.02, 0.03), half_up=0.11, half_wide=0.04)
    inner = palm_inner_direction(45.0, 0.0, arm)
    assert np.allclose(thin - wide, 0.03 * inner)              # moved out by the extra half width only
    assert np.dot(top - wide, inner) > np.dot(top - thin, inner)


def test_the_thumb_reaches_little_below_a_level_palm_and_far_below_a_palm_with_fingers_down():
    for arm in ("right", "left"):
        level = lowest_reach(thumb_sweep(arm), 0.0, 0.0, arm)
        down = lowest_reach(thumb_sweep(arm), 90.0, 90.0, arm)
        assert level == pytest.approx(0.013) and down == pytest.approx(0.045)


def test_the_hand_preshapes_as_far_closed_as_keeps_it_off_the_object():
    """A thin object lets the thumb close further before the approach than a wide one; none at all when even
    the open thumb would touch it. Boxes by their footprint in the hand's frame."""
    from memora_core.robot.control.geometry import hand_frame_footprint, preshape
    from memora_core.robot.hand import PRESHAPES, RIGHT_FINGER_OUTLINES, RIGHT_THUMB_OUTLINES

    outlines = (RIGHT_THUMB_OUTLINES, RIGHT_FINGER_OUTLINES)
    thumbs = [preshape(outlines, PRESHAPES, (0.045, 0.02 + r), r, [], 0.006)[0] for r in (0.02, 0.033, 0.04, 0.06)]
    assert thumbs == sorted(thumbs, reverse=True) and thumbs[0] > 0.3 and thumbs[-1] == 0.0
    box = [(np.array([1.0, 0.0, 0.0]), 0.06), (np.array([0.0, 1.0, 0.0]), 0.025)]
    for arm in ("right", "left"):
        # the long side along the fingers reaches back over the thumb: open; across them the thumb may close
        centre, axes = hand_frame_footprint(arm, 0, 0, (0.045, 0.02, 0.03), 0.025, box)
        along = preshape(outlines, PRESHAPES, centre, 0.0, axes, 0.006)
        centre, axes = hand_frame_footprint(arm, 90, 0, (0.045, 0.02, 0.03), 0.06, box)
        across = preshape(outlines, PRESHAPES, centre, 0.0, axes, 0.006)
        assert along == (0.0, 0.0) and across[0] > 0.0, (arm, along, across)



@pytest.mark.parametrize("arm", ["left", "right"])
def test_a_tilted_hand_lets_go_thumb_first_and_a_level_one_fingers_first(arm):
    from memora_core.robot.hand import FINGER_JOINTS, lets_go_thumb_first, letting_go_path

    assert not lets_go_thumb_first(palm_rotation(0.0, 0.0, arm))       # level: fingers forward
    assert lets_go_thumb_first(palm_rotation(45.0, 40.0, arm))         # the tilted poses (fingers 40 deg down)
    assert lets_go_thumb_first(palm_rotation(0.0, 90.0, arm))          # fingers straight down
    held = HandPostures().closed(arm)
    thumb = [i for i, j in enumerate(FINGER_JOINTS) if j.startswith("thumb")]
    path = letting_go_path(arm, held, thumb_first=True)
    assert path[0] == held                                             # first the digits stop pressing
    moved_first = [i for i in range(7) if abs(path[1][i] - held[i]) > 1e-9]
    assert moved_first and set(moved_first) <= set(thumb)
    assert np.allclose(path[-1], HandPostures().open(arm))


@pytest.mark.parametrize("arm", ["left", "right"])
def test_only_a_hand_rolled_palm_down_closes_by_a_sweep_that_keeps_the_thumb(arm):
    from memora_core.robot.hand import FINGER_JOINTS, closes_by_sweep, sweep_path

    assert closes_by_sweep(arm, palm_rotation(90.0, 0.0, arm, 75.0))          # the flat pinch
    assert closes_by_sweep(arm, palm_rotation(-40.0, 0.0, arm, 90.0))
    for yaw, pitch in [(0.0, 0.0), (90.0, 0.0), (45.0, 40.0), (0.0, 90.0), (-90.0, 40.0)]:
        assert not closes_by_sweep(arm, palm_rotation(yaw, pitch, arm))      # level, tilted, fingers down
    # palm_rotation's roll turns the palm's inner side (where the thumb closes) down, on either hand
    assert palm_inner_direction(0.0, 0.0, arm, 90.0)[2] == pytest.approx(-1.0)
    start = HandPostures().shaped(arm, 0.4, 0.0)
    path = sweep_path(arm, start, steps=20)
    thumb = [i for i, j in enumerate(FINGER_JOINTS) if j.startswith("thumb")]
    assert len(path) == 20 and all(q[i] == start[i] for q in path for i in thumb)
    fingers = [i for i in range(7) if i not in thumb]
    closed = HandPostures().closed(arm)
    assert np.allclose([path[-1][i] for i in fingers], [closed[i] for i in fingers])
    assert np.allclose([path[9][i] for i in fingers], [(start[i] + closed[i]) / 2 for i in fingers])
