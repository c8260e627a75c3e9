"""Open container or closed cylinder, from the points of one object: a rim is a ring of top points with an empty
middle; a closed top seen from afar is a sparse disc (few pixels cover few cells of it), which the low cover alone
took for a rim, so a Coca-Cola bottle at the back of the table went unnamed."""
import numpy as np

from memora_core.perception.scene.estimate import estimate
from memora_core.perception.scene.segment import Blob
from memora_core.perception.scene.types import Shape

RNG = np.random.default_rng(0)


def _object(top_xy: np.ndarray, radius: float, height: float, side_points: int = 400) -> np.ndarray:
    """Points of an upright round object at the origin: its near half side (as the head camera sees it) + its top."""
    a = RNG.uniform(np.pi / 2, 3 * np.pi / 2, side_points)
    z = RNG.uniform(0.0, height - 0.01, side_points)
    side = np.column_stack([radius * np.cos(a), radius * np.sin(a), z])
    top = np.column_stack([top_xy, np.full(len(top_xy), height)])
    return np.vstack([side, top])


def _shape(points: np.ndarray) -> Shape:
    blob = Blob(index=np.arange(len(points)), heights=points[:, 2])
    return estimate(points, blob, np.array([0.0, 0.0, 1.0]), table_z=0.0).shape


def test_a_sparse_closed_top_is_a_cylinder_and_a_rim_a_container():
    r = 0.031
    disc = RNG.uniform(-r, r, (120, 2))
    disc = disc[np.linalg.norm(disc, axis=1) < r][:40]          # a few points over the whole top: low cover
    a = RNG.uniform(0, 2 * np.pi, 200)
    ring = np.column_stack([r * np.cos(a), r * np.sin(a)]) * RNG.uniform(0.9, 1.0, (200, 1))
    assert _shape(_object(disc, r, 0.22)) is Shape.CYLINDER
    assert _shape(_object(ring, r, 0.10)) is Shape.CONTAINER


def _flat(xy: np.ndarray, height: float = 0.008) -> np.ndarray:
    return np.column_stack([xy, RNG.uniform(0.0, height, len(xy))])


def test_a_long_thin_footprint_that_is_no_box_still_gives_its_long_axis():
    # a spoon lying at 60 deg: a 9 cm handle 1.2 cm wide, a 4.5 cm bowl 3.5 cm wide at one end (not box-filled)
    handle = np.column_stack([RNG.uniform(-0.06, 0.03, 600), RNG.uniform(-0.006, 0.006, 600)])
    a = RNG.uniform(0, 2 * np.pi, 600)
    rr = np.sqrt(RNG.uniform(0, 1, 600))
    bowl = np.column_stack([0.05 + 0.0225 * rr * np.cos(a), 0.0175 * rr * np.sin(a)])
    turn = np.radians(60.0)
    rot = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    points = _flat(np.vstack([handle, bowl]) @ rot.T)
    blob = Blob(index=np.arange(len(points)), heights=points[:, 2])
    seen = estimate(points, blob, np.array([0.0, 0.0, 1.0]), table_z=0.0)
    assert seen.shape is not Shape.BOX
    assert seen.yaw is not None and abs(np.degrees(seen.yaw) - 60.0) < 5.0


def test_a_round_footprint_has_no_yaw():
    a = RNG.uniform(0, 2 * np.pi, 800)
    rr = 0.04 * np.sqrt(RNG.uniform(0, 1, 800))
    points = _flat(np.column_stack([rr * np.cos(a), rr * np.sin(a)]))
    blob = Blob(index=np.arange(len(points)), heights=points[:, 2])
    assert estimate(points, blob, np.array([0.0, 0.0, 1.0]), table_z=0.0).yaw is None
