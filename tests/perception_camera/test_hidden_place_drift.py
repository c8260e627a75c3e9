"""A place hidden under the hand keeps where it lies among the places seen around it (tracker._correct_hidden).

The view's motion is a fit over the whole frame; where it is off, the places seen again are corrected by their
sightings each frame, and a hidden one is not. Built by hand: every object at rest shows 2 px further right in each
frame than the (identity) view motion says while the hand covers the yellow spoon; when the hand draws back, the
spoon shows where it always was among its neighbours, 24 px (1.25 place tolerances) from where an uncorrected
place would be. Control: without the correction the same sightings read as a pick and a put."""
from __future__ import annotations

from tests.perception_camera.test_tracker import SCENE, _hand_at, _kinds, _tracker

HIDDEN = [t / 2 for t in range(3, 15)]  # 1.5 .. 7.0 s: the hand over the spoon, the view's motion misread


STEP = 2.0  # px per frame: slow enough for the places seen to follow (they take a fifth of each sighting's offset)


def _frames():
    frames = [(t, SCENE(t), None) for t in (0.0, 0.5, 1.0)]
    for k, t in enumerate(HIDDEN, start=1):
        seen = [s for s in SCENE(t) if s.colour != "yellow"]
        for s in seen:
            s.centre = s.centre + [STEP * k, 0.0]
        frames.append((t, seen, _hand_at(260 + STEP * k, 200)))
    shift = STEP * len(HIDDEN)
    for t in (7.5, 8.0, 8.5, 9.0, 9.5):
        seen = SCENE(t)
        for s in seen:
            s.centre = s.centre + [shift, 0.0]
        frames.append((t, seen, _hand_at(260 + shift, 200) if t == 7.5 else None))  # the hand drawing back
    return frames


def test_a_place_hidden_while_the_view_drifts_is_found_again() -> None:
    assert _kinds(_tracker(), _frames()) == []


def test_control_without_the_correction_it_reads_as_moved() -> None:
    tracker = _tracker()
    tracker.hidden_neighbours = 0
    assert ("pick", "yellow") in _kinds(tracker, _frames())
