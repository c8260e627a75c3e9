"""The bare-table grid of a frame (memora_core.perception.scene.bare): cells with plane points and nothing over them
are bare; a cell under an object or an arm, or one the frame did not see, is not."""
import numpy as np

from memora_core.perception.scene.bare import BareTable


def _grid_points(x0, x1, y0, y1, step=0.002):
    xs, ys = np.meshgrid(np.arange(x0, x1, step), np.arange(y0, y1, step), indexing="ij")
    return np.stack([xs.ravel(), ys.ravel()], axis=1)


def test_plane_points_with_nothing_over_them_are_bare_and_the_rest_is_not():
    table = _grid_points(0.2, 0.7, -0.3, 0.3)
    table = table[~((table[:, 0] > 0.5) & (table[:, 1] > 0.1))]          # a corner the frame did not see
    over = _grid_points(0.38, 0.42, -0.02, 0.02)                          # a can standing at (0.4, 0)
    bare = BareTable.from_points(table, over)
    assert bare.shows_bare((0.3, -0.2), 0.015)
    assert not bare.shows_bare((0.4, 0.0), 0.015)                         # under the can
    assert not bare.shows_bare((0.43, 0.0), 0.015)                        # the square reaches the can's edge
    assert not bare.shows_bare((0.6, 0.2), 0.015)                         # not seen
    assert not bare.shows_bare((1.5, 0.0), 0.015)                         # off the grid
    assert not bare.shows_bare((float("nan"), 0.0), 0.015) and not bare.shows_bare((0.3, -0.2), float("inf"))
    assert BareTable.from_points(np.empty((0, 2)), over) is None
