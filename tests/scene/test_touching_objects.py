"""Touching objects kept apart by the depth segmentation (`perception/scene/split.py`): a spoon lying against a bowl
was one blob with it, so the spoon was never seen and the bowl was sized and placed wrong. A group of cells is cut
where its height jumps, and the pieces that are one object's parts (a cup's floor seen past its wall, a bottle's cap)
are joined back. Synthetic height maps for each rule, and one rendered frame."""
import numpy as np
import pytest

from memora_core.perception.scene.segment import SegmentSettings
from memora_core.perception.scene.split import split_group

MIN_CELLS = 12


def _disc(centre, radius, shape=(120, 120)):
    i, j = np.mgrid[0:shape[0], 0:shape[1]]
    return np.hypot(i - centre[0], j - centre[1])


def _group(height: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    cells = np.argwhere(height > 0)
    return cells, height[cells[:, 0], cells[:, 1]].astype(float)


def _bowl(h: np.ndarray, centre=(60, 60), radius=27, rim=0.07, floor=0.007) -> np.ndarray:
    """A bowl seen from above: its floor, a wall rising evenly to the rim at its outline."""
    r = _disc(centre, radius, h.shape)
    inside = r <= radius
    h[inside] = np.maximum(h[inside], floor + (rim - floor) * (r[inside] / radius) ** 2)
    return h


def _pieces_of(height: np.ndarray) -> int:
    cells, tops = _group(height)
    return len(np.unique(split_group(cells, tops, MIN_CELLS)))


def test_a_spoon_lying_against_a_bowl_is_its_own_piece():
    h = _bowl(np.zeros((120, 120)))
    h[86:90, 30:80] = 0.015  # the spoon, 1.5 cm high, touching the rim from outside
    cells, tops = _group(h)
    label = split_group(cells, tops, MIN_CELLS)
    assert len(np.unique(label)) == 2
    spoon = label[(cells[:, 0] >= 88) & (cells[:, 1] < 40)][0]
    assert set(cells[label == spoon][:, 0]) <= {86, 87, 88, 89}  # the spoon alone, no rim cell taken


def test_a_cups_floor_seen_past_its_wall_is_the_cup():
    h = np.zeros((120, 120))
    r = _disc((60, 60), 20)
    h[r <= 20] = 0.005  # the floor
    h[(r > 17) & (r <= 20)] = 0.10  # a straight wall: the height jumps 9.5 cm from floor to rim
    assert _pieces_of(h) == 1


def test_a_bottles_cap_above_its_shoulders_is_the_bottle():
    h = np.zeros((120, 120))
    r = _disc((60, 60), 12)
    h[r <= 12] = 0.19 - 0.02 * r[r <= 12] / 12  # shoulders
    h[r <= 5] = 0.22  # the cap, 3 cm above them
    assert _pieces_of(h) == 1


def test_a_box_standing_in_a_bowl_is_apart_from_it():
    h = _bowl(np.zeros((120, 120)))
    h[52:68, 55:65] = 0.13  # the box rises above the rim
    cells, tops = _group(h)
    label = split_group(cells, tops, MIN_CELLS)
    assert len(np.unique(label)) == 2
    box = label[(cells[:, 0] == 60) & (cells[:, 1] == 60)][0]
    assert (label == box).sum() == 16 * 10


def test_a_stray_cell_joins_the_piece_of_its_height():
    h = _bowl(np.zeros((120, 120)))
    h[86:90, 30:80] = 0.015
    h[85, 60] = 0.068  # one cell of the bowl's side, next to the spoon and the rim
    cells, tops = _group(h)
    label = split_group(cells, tops, MIN_CELLS)
    stray = label[(cells[:, 0] == 85) & (cells[:, 1] == 60)][0]
    rim = label[(cells[:, 0] == 60) & (cells[:, 1] == 60)][0]
    assert stray == rim


@pytest.mark.sim
def test_a_rendered_spoon_against_the_bowl_is_seen_and_named():
    from memora_core.perception.scene import SceneModeller
    from memora_core.perception.scene.model import entity_from_object
    from memora_core.robot import load_robot_config, make_robot
    from sim.head_camera import HeadRGBD
    from sim.scene import Layout

    robot = make_robot(load_robot_config("sim_g1"), layout=Layout(seed=0, poses={
        "yellow bowl": (0.50, 0.05, 0.0), "yellow spoon": (0.50, -0.035, 0.0), "orange cup": (0.40, 0.25, 0.0)}))
    cam = HeadRGBD(robot.model, seed=1)
    try:
        bowl = next(o for o in robot.scene_objects() if o.name == "yellow bowl")
        spoon = next(o for o in robot.scene_objects() if o.name == "yellow spoon")
        gap = abs(spoon.position[1] - bowl.position[1]) - bowl.radius - min(spoon.extent)
        assert gap < 0.012, gap  # the spoon lies against the bowl's base, under its rim
        entities = [entity_from_object(o.name, o.category, o.colour, o.half_height, o.radius, o.extent, o.container,
                                       o.label) for o in robot.scene_objects()]
        frame = cam.render(robot.data)
        scene = SceneModeller(entities).observe(frame)
        for o in (bowl, spoon):
            seen = scene.get(o.name)
            assert seen is not None, (o.name, [(p.name, p.position) for p in scene.objects])
            assert np.linalg.norm(np.array(seen.position[:2]) - np.array(o.position[:2])) < 0.015, o.name
        # The control: without the cut, the spoon is not seen as itself
        joined = SceneModeller(entities, segment_settings=SegmentSettings(split=None)).observe(frame)
        assert joined.get("yellow spoon") is None or np.linalg.norm(
            np.array(joined.get("yellow spoon").position[:2]) - np.array(spoon.position[:2])) >= 0.015
    finally:
        cam.close()
        robot.close()


def test_inside_share_is_opencvs_point_in_polygon_test():
    """The vectorised share of a piece inside a neighbour's outline counts exactly the cells that OpenCV's
    point-in-polygon test puts inside or on the edge, for outlines of one, two (a line) and many corners."""
    import cv2

    from memora_core.perception.scene.split import _inside_share, _outline

    rng = np.random.default_rng(7)
    for k in range(300):
        corners = rng.integers(0, 30, size=(int(rng.integers(1, 25)), 2))
        if k % 4 == 0:
            corners[:, 1] = 5  # all on one line
        outline = _outline(corners)
        piece = np.vstack([rng.integers(-3, 33, size=(int(rng.integers(1, 120)), 2)), corners])
        expected = np.mean([cv2.pointPolygonTest(outline, (float(j), float(i)), False) >= 0 for i, j in piece])
        assert _inside_share(piece, outline) == pytest.approx(expected, abs=1e-12)
