"""What the camera backend carries from one view of the kitchen to the next: the printed products it read clearly
(products.py: an unread label reads a known product, a product's look pools over videos), the attributes a name
leaves unsaid (name_votes.py), and no report of an object seen once (`min_report_seen`)."""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from memora_core.perception import PerceptionConfig, PerceptionInput
from memora_core.perception.camera.backend import CameraPerception
from memora_core.perception.camera.labels import NO_LABEL
from memora_core.perception.camera.name_votes import NameVotes
from memora_core.perception.camera.products import ProductBook
from memora_core.perception.camera.tracks import Sighting, Track
from memora_core.schemas import Segment


def _onehot(classes: list[str], name: str) -> np.ndarray:
    return np.eye(len(classes))[classes.index(name)]


def _label_vec(classes: list[str], **shares: float) -> np.ndarray:
    v = np.zeros(len(classes))
    for name, share in shares.items():
        v[classes.index(NO_LABEL if name == "none" else name)] = share
    return v


@pytest.fixture(scope="module")
def kinds(camera_model):
    labels = camera_model.forests["label"].classes
    printed = [c for c in labels if c != NO_LABEL]
    assert len(printed) >= 2, labels
    return labels, printed[0], printed[1], camera_model.forests["category"].classes, \
        camera_model.forests["material"].classes


def _track(kinds, tid: int, label: np.ndarray, seen: int = 5, colours: Counter | None = None) -> Track:
    labels, _, _, cats, mats = kinds
    return Track(id=tid, pos=np.zeros(2), first_seen=0.0, state="resting", seen=seen, label=label,
                 name_colours=colours or Counter(yellow=3), category=_onehot(cats, cats[0]),
                 material=_onehot(mats, mats[0]))


def _tracker(*tracks: Track):
    from memora_core.perception.camera.tracker import VideoTracker

    tk = VideoTracker(320, 240, 0.06, 2, 2.5, 1.0, 0.09, is_container=lambda t: False)
    tk.tracks.extend(tracks)
    return tk


def test_an_unread_label_reads_a_product_the_kitchen_showed_before(camera_model, kinds) -> None:
    labels, known, other, _, _ = kinds
    be = CameraPerception(model=camera_model)
    be._begin_naming("v1", _tracker(_track(kinds, 0, _onehot(labels, known) * 5)))
    be._begin_naming("v2", _tracker())
    ratio = be.cfg.label_prior_ratio
    # no label 0.5, the known product 0.45 (at least the ratio): the product
    assert be._read_label(_track(kinds, 1, _label_vec(labels, none=0.5, **{known: 0.45}))) == known
    # the known product below the ratio of the no-label evidence: unread
    low = _label_vec(labels, none=0.5, **{known: 0.5 * ratio - 0.05})
    assert be._read_label(_track(kinds, 2, low)) == NO_LABEL
    # a label the kitchen never showed clearly is not read into an unread track, however close
    assert be._read_label(_track(kinds, 3, _label_vec(labels, none=0.5, **{other: 0.49}))) == NO_LABEL
    # off: labels as read
    be.cfg = be.cfg.model_copy(update={"label_prior_ratio": None})
    assert be._read_label(_track(kinds, 1, _label_vec(labels, none=0.5, **{known: 0.45}))) == NO_LABEL


def test_a_label_is_known_only_once_read_in_enough_sightings(camera_model, kinds) -> None:
    labels, known, _, _, _ = kinds
    book = ProductBook(min_seen=3)
    be = CameraPerception(model=camera_model)
    book.learn("v1", [_track(kinds, 0, _onehot(labels, known), seen=2)], be._label)
    assert book.known() == set()
    book.learn("v1", [_track(kinds, 0, _onehot(labels, known), seen=3)], be._label)  # replaces v1's entry
    assert book.known() == {known} and book.known(but="v1") == set()


def test_a_product_is_named_with_the_colour_seen_in_earlier_videos(camera_model, kinds) -> None:
    labels, known, _, _, _ = kinds
    be = CameraPerception(model=camera_model)
    be._begin_naming("v1", _tracker(_track(kinds, 0, _onehot(labels, known) * 9, seen=9,
                                           colours=Counter(yellow=9))))
    poorly_seen = _track(kinds, 1, _onehot(labels, known), seen=2, colours=Counter(brown=2))
    tk = _tracker(poorly_seen)
    be._begin_naming("v2", tk)
    assert be._attrs(poorly_seen)["colour"] == "brown"  # without a tracker: this track alone
    attrs = be._attrs(poorly_seen, tk)
    assert attrs["colour"] == "yellow" and attrs["label"] == known.lower()


def test_name_votes_steady_what_a_name_leaves_unsaid() -> None:
    votes = NameVotes()
    bread = dict(category="bread", material="food", label=None)
    for _ in range(3):
        assert votes.settle("bread", {**bread, "colour": "brown"})["colour"] == "brown"
    assert votes.settle("bread", {**bread, "colour": "yellow"})["colour"] == "brown"  # one misreading is outvoted
    bowl = dict(category="bowl", colour="yellow", label=None)
    assert votes.settle("yellow bowl", {**bowl, "material": "ceramic"})["material"] == "ceramic"
    # the colour is in the name "yellow bowl": never voted away, whatever earlier reports said
    out = votes.settle("yellow bowl", {**bowl, "material": "plastic"})
    assert out["colour"] == "yellow" and out["material"] == "ceramic"


def test_an_object_seen_fewer_than_min_report_seen_times_is_not_reported(camera_model, kinds) -> None:
    """Through `observe`: a region seen at rest fewer times than `min_report_seen` (a misreading more often than an
    object) is not an object of the segment; one seen in every frame is."""
    _, _, _, cats, mats = kinds
    be = CameraPerception(PerceptionConfig(backend="camera"), model=camera_model)
    be.cfg = be.cfg.model_copy(update={"transcribe": False, "min_report_seen": 4})
    times = [0.5 * i for i in range(8)]

    def sight(at: tuple[int, int], cat: str, colour: str, t: float) -> Sighting:
        return Sighting(t=t, centre=np.array(at, float), box=(at[0] - 8, at[1] - 8, 16, 16), colour=colour,
                        category=_onehot(cats, cat), material=_onehot(mats, "ceramic" if "ceramic" in mats
                                                                             else mats[0]),
                        touches_hand=False, label=_onehot(kinds[0], NO_LABEL))

    steady, once = cats[1], cats[-1]

    def sightings(rgb, t):
        out = [sight((100, 120), steady, "blue", t)]
        if t in times[3:6]:  # three sightings
            out.append(sight((220, 60), once, "red", t))
        return out, 0.5, np.zeros(rgb.shape[:2], bool)

    be.sightings = sightings
    seg = Segment(participant_id="P01", video_id="v1", index=0, start_s=0.0, end_s=4.0, frame_times_s=times)
    obs = be.observe(PerceptionInput(segment=seg, frames=[np.zeros((240, 320, 3), np.uint8)] * len(times)))
    names = {o.name for o in obs.objects}
    assert any(n.endswith(steady) for n in names), names
    assert not any(n.endswith(once) for n in names), names
    be.cfg = be.cfg.model_copy(update={"min_report_seen": 3})
    seg2 = seg.model_copy(update={"video_id": "v2"})
    obs = be.observe(PerceptionInput(segment=seg2, frames=[np.zeros((240, 320, 3), np.uint8)] * len(times)))
    assert any(o.name.endswith(once) for o in obs.objects), [o.name for o in obs.objects]
