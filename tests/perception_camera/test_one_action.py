"""The backend reports one action per action: one object followed as two tracks (its parts, or itself seen twice)
that both move gives two events of one kind on one name close in time; they are one action, at their mean time,
and one already reported in an earlier segment is not reported again. Built on tracks by hand (the logic alone:
a stand-in model names the tracks by colour and category)."""
from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import numpy as np

from memora_core.perception import PerceptionConfig
from memora_core.perception.camera.backend import CameraPerception
from memora_core.perception.camera.model import CameraModel
from memora_core.perception.camera.tracker import Event, Track, VideoTracker

CATS = ["bowl", "cup"]


def _model() -> CameraModel:
    forest = lambda classes: SimpleNamespace(classes=classes)  # noqa: E731
    return CameraModel(lut=np.zeros(1, np.uint8), forests={"category": forest(CATS), "material": forest(["ceramic"]),
                                                           "label": forest([""])})


def _track(i: int, colour: str, cat: str) -> Track:
    tr = Track(id=i, pos=np.zeros(2), first_seen=0.0, state="resting", colours=Counter({colour: 3}))
    tr.category = np.eye(len(CATS), dtype=np.float32)[CATS.index(cat)]
    tr.material = np.ones(1, np.float32)
    return tr


def _setup(same_action_s: float = 1.0) -> tuple[CameraPerception, VideoTracker]:
    cfg = PerceptionConfig(backend="camera")
    cfg = cfg.model_copy(update={"camera": cfg.camera.model_copy(update={"same_action_s": same_action_s})})
    cam = CameraPerception(cfg, model=_model())
    tracker = VideoTracker(320, 240, 0.06, 2, 2.5, 1.0, 0.09, is_container=lambda tr: False)
    # two tracks of one yellow bowl (its parts), a blue cup
    tracker.tracks = [_track(0, "yellow", "bowl"), _track(1, "yellow", "bowl"), _track(2, "blue", "cup")]
    return cam, tracker


def test_two_tracks_of_one_object_moved_together_are_one_pick_and_one_put() -> None:
    cam, tracker = _setup()
    events = [Event("pick", 0, 2.0, 1.5, 2.0), Event("pick", 1, 2.5, 2.0, 2.5),
              Event("put", 0, 5.0, 2.0, 5.0), Event("put", 1, 5.8, 2.5, 5.8),
              Event("pick", 2, 2.4, 2.0, 2.4)]  # another object at the same time: its own action
    out = cam._once(events, tracker, "v")
    got = sorted((e.kind, e.track, e.key_s) for e in out)
    assert got == [("pick", 0, 2.25), ("pick", 2, 2.4), ("put", 0, 5.4)]
    put = next(e for e in out if e.kind == "put")
    assert put.start_s == 2.0 and put.end_s == 5.8
    # the same object's pick again in a later segment, within the window of the one reported: not again
    assert cam._once([Event("pick", 1, 3.0, 2.5, 3.0)], tracker, "v") == []
    # later than the window: a new action; and another video has its own record
    assert [e.key_s for e in cam._once([Event("pick", 1, 9.0, 8.5, 9.0)], tracker, "v")] == [9.0]
    assert [e.key_s for e in cam._once([Event("pick", 1, 3.0, 2.5, 3.0)], tracker, "w")] == [3.0]


def test_farther_apart_than_the_window_are_two_actions() -> None:
    cam, tracker = _setup(same_action_s=0.3)
    events = [Event("pick", 0, 2.0, 1.5, 2.0), Event("pick", 1, 2.5, 2.0, 2.5)]
    assert [e.key_s for e in cam._once(events, tracker, "v")] == [2.0, 2.5]
