"""One object per hold (camera/hold_object.py, through hand_timing.py): the pick, pours and put a grasp and its
release timed name one object, and a hold's events wait until its put is known."""
from __future__ import annotations

from types import SimpleNamespace

from memora_core.perception.camera.hand_timing import HandTiming
from memora_core.perception.camera.hold_object import held_track, one_object
from memora_core.perception.camera.holding import HoldReader
from memora_core.perception.camera.tracks import Event

CONTAINERS = {0, 5}  # track ids that are containers in these cases


def make_tracker(t: float) -> SimpleNamespace:
    """What HandTiming reads of the tracker at time `t`: tracks (0 and 5 containers), none a double of another."""
    return SimpleNamespace(t=t, tracks=[SimpleNamespace(id=i, inside=None) for i in range(8)],
                           is_container=lambda tr: tr.id in CONTAINERS, doubles=lambda a, b: False)


def timing(transitions) -> HandTiming:
    reader = HoldReader(forest=None)
    reader.transitions = list(transitions)
    return HandTiming(reader, within_s=2.5, drop_unmatched=True, wait_s=6.0, pour_by_hand=False)


def open_hold(track: int, now: float) -> HandTiming:
    """A hand that took hold at 2.75 s (pick of `track` read, not let out: the hold is not over) and let go at
    6.25 s, as known at `now`."""
    t = timing([(2.75, "grasp")])
    assert t.timed([Event("pick", track, 3.0, 2.5, 3.0, taken_s=3.0)], make_tracker(now)) == []
    t.reader.transitions.append((6.25, "release"))
    return t


def test_what_the_object_was_put_into_is_not_the_object_held():
    # a bowl (0) read as taken at the grasp, the box (3) read put into it: the hand held the box
    events = [Event("pick", 0, 13.75, 13.0, 13.75, taken_s=13.7), Event("put", 3, 16.75, 14.0, 16.75, target=0,
                                                                         taken_s=14.0)]
    assert held_track(events, 13.75, lambda a, b: False) == 3
    out = one_object(events, 13.75, lambda i: i in CONTAINERS, lambda a, b: False)
    assert [(e.kind, e.track, e.target) for e in out] == [("pick", 3, None), ("put", 3, 0)]


def test_a_container_read_as_moved_when_the_hand_let_go_becomes_the_puts_target():
    # the box (2) taken at the grasp; the bowl (5) went missing when the box was put into it and read as moved
    events = [Event("pick", 2, 12.75, 12.0, 12.75, taken_s=12.0), Event("put", 5, 15.75, 15.0, 15.75, target=4,
                                                                         taken_s=15.0)]
    out = one_object(events, 12.75, lambda i: i in CONTAINERS, lambda a, b: False)
    assert [(e.kind, e.track, e.target) for e in out] == [("pick", 2, None), ("put", 2, 5)]


def test_the_track_seen_moved_and_poured_outweighs_one_only_seen_to_go_missing():
    events = [Event("pick", 1, 9.75, 9.5, 9.75, taken_s=10.0), Event("pour", 6, 13.5, 12.0, 14.0, target=0,
                                                                      taken_s=10.5),
              Event("put", 6, 18.75, 15.0, 18.75, taken_s=15.25)]
    assert {e.track for e in one_object(events, 9.75, lambda i: i in CONTAINERS, lambda a, b: False)} == {6}


def test_one_track_is_left_alone():
    events = [Event("pick", 1, 3.0, 3.0, 3.0), Event("put", 1, 6.0, 6.0, 6.0)]
    assert one_object(events, 3.0, lambda i: False, lambda a, b: False) == events


def test_a_holds_pick_waits_for_its_put_and_both_name_one_object():
    t = open_hold(0, now=4.0)
    out = t.timed([Event("put", 3, 7.0, 3.2, 7.0, target=0, taken_s=3.2)], make_tracker(9.0))
    assert [(e.kind, e.track, e.key_s, e.target) for e in out] == [("pick", 3, 2.75, None), ("put", 3, 6.25, 0)]


def test_a_hold_whose_put_is_never_read_ends_in_a_put_at_its_release():
    t = open_hold(1, now=4.0)
    assert t.timed([], make_tracker(9.0)) == []  # released 2.75 s ago: the tracker may still read the put
    out = t.timed([], make_tracker(12.5))
    assert [(e.kind, e.track, e.key_s) for e in out] == [("pick", 1, 2.75), ("put", 1, 6.25)]


def test_the_end_of_the_video_lets_out_what_waits():
    t = open_hold(1, now=3.5)
    assert [(e.kind, e.key_s) for e in t.flush(make_tracker(7.0))] == [("pick", 2.75), ("put", 6.25)]
