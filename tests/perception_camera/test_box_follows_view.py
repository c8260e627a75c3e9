"""A track's box moves with the view (tracks.Track.move_to): while an object is hidden its box stays where the
object lies in the latest frame, not where it was last seen, so what is inside a container and what the hand lies
over are judged in one frame's pixels."""
from __future__ import annotations

import numpy as np

from memora_core.perception.camera.tracks import Track


def test_the_box_keeps_its_size_and_follows_the_place_in_whole_pixels_without_drifting():
    tr = Track(id=0, pos=np.array([100.0, 100.0]), first_seen=0.0, box=(90, 90, 20, 20))
    for _ in range(200):  # the view turns 0.3 px a frame: 60 px in all, never rounded away
        tr.move_to(tr.pos + np.array([0.3, -0.3]))
    assert np.allclose(tr.pos, [160.0, 40.0])
    assert tr.box == (150, 30, 20, 20)


def test_a_tracker_carries_hidden_boxes_with_the_view():
    from memora_core.perception.camera.tracker import Sighting, VideoTracker

    tk = VideoTracker(320, 240, place_tol=0.06, rest_frames=2, moved_confirm_s=2.5, pour_min_s=1.0, beside_tol=0.09,
                      is_container=lambda tr: True)
    s = lambda t, x: Sighting(t=t, centre=np.array([x, 120.0]), box=(int(x) - 10, 110, 20, 20), colour="orange",  # noqa: E731
                              category=np.array([1.0]), material=np.ones(1), touches_hand=False)
    for k in range(4):
        tk.step(0.5 * k, [s(0.5 * k, 100.0)])
    tr = tk.tracks[0]
    assert tr.state == "resting" and tr.box == (90, 110, 20, 20)
    tk.motion.update = lambda grey, hand: np.array([[1.0, 0, 40], [0, 1, 0], [0, 0, 1]])  # the head turns 40 px
    tk.step(2.0, [], np.zeros((240, 320), np.uint8), np.zeros((240, 320), bool))  # the cup hidden in this frame
    assert np.allclose(tr.pos, [140.0, 120.0], atol=1.0)
    assert tr.box == (130, 110, 20, 20)


def test_a_place_that_is_not_a_number_leaves_the_box_where_it_was():
    tr = Track(id=0, pos=np.array([100.0, 100.0]), first_seen=0.0, box=(90, 90, 20, 20))
    tr.move_to(np.array([np.nan, 100.0]))
    assert tr.box == (90, 90, 20, 20)
