"""A part of an object seen beside the hand, within the object's own extent, is the object partly hidden at its place,
not the object carried (tracker._follow_held).

Built by hand: the hand reaches over the orange cup (30 px across) for 3 s; all that shows of the cup is a piece
beside the hand, 12 px (0.6 place tolerances) from the cup's centre: further than a thing at rest keeps from its place,
but inside the cup. When the hand draws back the cup shows again 10 px from its place. With the object's extent taken
into account that is no action. Control: with carried sightings counted from half a tolerance whatever the object's
size (the rule before), the same frames read as a pick and a put of the cup."""
from __future__ import annotations

from dataclasses import replace

from tests.perception_camera.test_tracker import SCENE, _hand_at, _kinds, _s, _tracker

HIDDEN = [t / 2 for t in range(3, 9)]  # 1.5 .. 4.0 s


def _frames():
    frames = [(t, SCENE(t), None) for t in (0.0, 0.5, 1.0)]
    rest = lambda t: [s for s in SCENE(t) if s.colour != "orange"]  # noqa: E731
    for t in HIDDEN:
        piece = replace(_s(t, 212, 120, "orange", "cup", 10), touches_hand=True)
        frames.append((t, rest(t) + [piece], _hand_at(200, 120)))
    frames += [(t, rest(t) + [_s(t, 210, 120, "orange", "cup", 30)], None) for t in (4.5, 5.0, 5.5, 6.0, 6.5)]
    return frames


def test_a_cup_partly_hidden_by_the_hand_is_not_moved() -> None:
    assert _kinds(_tracker(), _frames()) == []


def test_control_counting_every_piece_beside_the_hand_as_carried_reads_a_move() -> None:
    tracker = _tracker()
    tracker.carried_within_extent = False
    assert ("pick", "orange") in _kinds(tracker, _frames())
