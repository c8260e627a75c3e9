"""Actions timed by the hand (camera/hand_timing.py): picks at grasps, puts at releases, one action per moment,
moves with no moment dropped, and the put a hold implies when the tracker saw none. The hand's moments are given
(the reader's own reading is tested in test_holding.py)."""
from __future__ import annotations

from types import SimpleNamespace

from memora_core.perception.camera.hand_timing import HandTiming
from memora_core.perception.camera.holding import HoldReader
from memora_core.perception.camera.tracks import Event


def timing(transitions, drop=True) -> HandTiming:
    reader = HoldReader(forest=None)
    reader.transitions = list(transitions)
    return HandTiming(reader, within_s=2.5, drop_unmatched=drop, wait_s=6.0, pour_by_hand=False)


TRACKER = SimpleNamespace(tracks=[SimpleNamespace(inside=None), SimpleNamespace(inside=None),
                                  SimpleNamespace(inside=0)])


def test_pick_and_put_take_the_moments_of_the_hand():
    t = timing([(2.75, "grasp"), (6.25, "release")])
    out = t.timed([Event("pick", 1, 3.5, 3.5, 3.5), Event("put", 1, 7.5, 7.5, 7.5)], TRACKER)
    assert [(e.kind, e.key_s) for e in out] == [("pick", 2.75), ("put", 6.25)]


def test_picks_and_puts_lie_at_their_moments_so_memory_keeps_their_order():
    """Memory orders a video's actions by their start: the tracker's put starts where it saw the object leave (here
    before the grasp), so a put keeping that start would come before its own pick, and one spanning its hold before
    the pour in it. Each lies at its moment: the pick at the grasp, the pour in the tilt, the put at the release."""
    t = timing([(2.75, "grasp"), (9.25, "release")])
    t.reader.tilted = [5.0, 5.5, 6.5]
    out = t.timed([Event("pick", 1, 3.5, 2.0, 3.5), Event("pour", 1, 5.5, 5.0, 6.5, target=0),
                   Event("put", 1, 9.5, 2.0, 9.5)], TRACKER)
    assert [(e.kind, e.start_s, e.end_s) for e in out] == [("pick", 2.75, 2.75), ("pour", 5.0, 6.5),
                                                            ("put", 9.25, 9.25)]
    assert [e.kind for e in sorted(out, key=lambda e: (e.start_s, e.end_s))] == ["pick", "pour", "put"]


def test_a_put_read_late_takes_the_release_that_ended_its_hold():
    t = timing([(2.75, "grasp"), (6.25, "release"), (12.25, "grasp")])
    out = t.timed([Event("pick", 1, 3.0, 3.0, 3.0), Event("put", 1, 10.0, 10.0, 10.0)], TRACKER)
    assert [(e.kind, e.key_s) for e in out] == [("pick", 2.75), ("put", 6.25)]


def test_each_moment_times_one_action_and_moves_without_one_are_dropped():
    t = timing([(2.75, "grasp"), (6.25, "release")])
    out = t.timed([Event("pick", 1, 3.0, 3.0, 3.0), Event("pick", 0, 3.2, 3.2, 3.2),
                   Event("put", 1, 6.0, 6.0, 6.0), Event("put", 0, 6.5, 6.5, 6.5)], TRACKER)
    assert [(e.kind, e.track) for e in out] == [("pick", 1), ("put", 1)]
    kept = timing([(2.75, "grasp")], drop=False).timed([Event("put", 0, 20.0, 20.0, 20.0)], TRACKER)
    assert [(e.kind, e.key_s) for e in kept] == [("put", 20.0)]


def test_a_hold_with_no_put_read_ends_in_a_put_where_the_object_lies():
    t = timing([(2.75, "grasp"), (6.25, "release")])
    out = t.timed([Event("pick", 2, 3.0, 3.0, 3.0)], TRACKER)
    assert [(e.kind, e.track, e.key_s, e.target) for e in out] == [("pick", 2, 2.75, None), ("put", 2, 6.25, 0)]


def test_pours_keep_their_time_without_tilted_frames():
    t = timing([(2.75, "grasp"), (9.25, "release")])
    out = t.timed([Event("pick", 1, 3.0, 3.0, 3.0), Event("pour", 1, 5.5, 4.0, 7.0, target=0),
                   Event("put", 1, 9.0, 9.0, 9.0)], TRACKER)
    assert [(e.kind, e.key_s) for e in out] == [("pick", 2.75), ("pour", 5.5), ("put", 9.25)]


def test_a_pour_is_timed_by_the_tilted_frames_of_its_hold():
    t = timing([(2.75, "grasp"), (9.25, "release")])
    t.reader.tilted = [5.0, 5.5, 6.5]
    out = t.timed([Event("pick", 1, 3.0, 3.0, 3.0), Event("pour", 1, 7.5, 7.0, 8.0, target=0),
                   Event("put", 1, 9.0, 9.0, 9.0)], TRACKER)
    assert [(e.kind, e.key_s, e.target) for e in out] == [("pick", 2.75, None), ("pour", 5.75, 0), ("put", 9.25, None)]


def test_a_hold_with_tilted_frames_and_no_pour_read_pours_into_the_container_under_the_hand():
    t = timing([(2.75, "grasp"), (9.25, "release")])
    t.reader.tilted = [5.0, 5.5, 6.5]
    t.over = [(4.5, None), (5.0, 2), (5.5, 2), (6.0, 0), (6.5, 2), (7.0, None)]
    out = t.timed([Event("pick", 1, 3.0, 3.0, 3.0), Event("put", 1, 9.0, 9.0, 9.0)], TRACKER)
    assert [(e.kind, e.key_s, e.target) for e in out] == [("pick", 2.75, None), ("pour", 5.75, 2), ("put", 9.25, None)]
    still = timing([(2.75, "grasp"), (9.25, "release")])  # no tilted frame: no pour
    assert [e.kind for e in still.timed([Event("pick", 1, 3.0, 3.0, 3.0), Event("put", 1, 9.0, 9.0, 9.0)],
                                        TRACKER)] == ["pick", "put"]


def test_the_move_read_nearest_a_moment_gets_it():
    t = timing([(6.25, "grasp"), (9.25, "release")])
    out = t.timed([Event("pick", 0, 5.5, 5.5, 5.5), Event("pick", 1, 6.0, 6.0, 6.0),
                   Event("put", 0, 6.5, 6.5, 6.5), Event("put", 1, 8.5, 8.5, 8.5)], TRACKER)
    assert [(e.kind, e.track, e.key_s) for e in out] == [("pick", 1, 6.25), ("put", 1, 9.25)]


def track(id_, missing_since, seen=10, hand=True, inside=None):
    return SimpleNamespace(id=id_, missing_since=missing_since, hand_at_miss=hand, seen=seen, inside=inside)


def test_a_hold_no_move_was_read_for_takes_what_went_missing_as_the_hand_took_hold():
    tracker = SimpleNamespace(stable_seen=6, tracks=[track(0, None), track(1, 13.5, seen=40), track(2, 14.0, seen=8),
                                                     track(3, 13.0, seen=3), track(4, 13.2, hand=False)])
    t = timing([(2.75, "grasp"), (6.25, "release"), (12.75, "grasp"), (16.25, "release")])
    t.timed([Event("pick", 0, 3.0, 3.0, 3.0), Event("put", 0, 6.0, 6.0, 6.0)], tracker)
    out = t.unread_holds(tracker)
    assert [(e.kind, e.track, e.key_s) for e in out] == [("pick", 1, 12.75), ("put", 1, 16.25)]
    assert t.unread_holds(tracker) == []  # each hold once


def test_a_pour_read_without_tilted_frames_goes_into_the_container_under_the_hand_and_names_its_hold():
    t = timing([(2.75, "grasp"), (9.25, "release")])
    t.pour_by_hand = True
    t.over = [(4.0, 0), (5.0, 2), (5.5, 2), (6.0, 2), (6.5, None), (8.5, 0)]  # the hand over cup 2 as it poured
    tracker = SimpleNamespace(t=10.0, tracks=[SimpleNamespace(inside=None) for _ in range(3)],
                              is_container=lambda tr: True, doubles=lambda a, b: False)
    out = t.timed([Event("pick", 1, 3.0, 3.0, 3.0, taken_s=3.0), Event("pour", 0, 5.5, 4.75, 6.25, target=0),
                   Event("put", 1, 9.0, 9.0, 9.0, taken_s=3.0)], tracker)
    assert [(e.kind, e.track, e.target) for e in out] == [("pick", 1, None), ("pour", 1, 2), ("put", 1, None)]
    t.pour_by_hand = False  # the tracker's own target
    t2 = timing([(2.75, "grasp"), (9.25, "release")])
    t2.over = t.over
    tracker.t = 20.0  # the hold ended long ago: its events wait no longer for a put
    out = t2.timed([Event("pour", 1, 5.5, 4.75, 6.25, target=0)], tracker)
    assert [(e.kind, e.target) for e in out] == [("pour", 0)]
