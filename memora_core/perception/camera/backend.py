"""`camera` perception: a SegmentObservation from a segment's RGB frames (and its video's audio track).

Per frame: object regions (regions.py) with their colour word and, from the trained forests, category and
material; the regions are followed across frames per video (tracker.py; the tracker persists across the
segments of a video, which arrive in order). The observation lists the objects seen in the segment under
names made from their seen attributes (naming.py), where they are (in a container, on the table, held), and
the actions completed in the segment. No simulator state is read. Scope: tabletop scenes like the demo
kitchen on a CPU; open-vocabulary footage is the `vlm` backend's job."""
from __future__ import annotations

import logging
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from memora_core.consolidation.speech import spoken
from memora_core.perception.base import PerceptionBackend, PerceptionConfig, PerceptionInput, register_backend
from memora_core.perception.camera.config import CameraPerceptionConfig
from memora_core.perception.camera.features import FEATURE_NAMES, region_vector
from memora_core.perception.camera.hand_timing import HandTiming
from memora_core.perception.camera.holding import HoldReader
from memora_core.perception.camera.labels import NO_LABEL
from memora_core.perception.camera.model import CameraModel
from memora_core.perception.camera.name_votes import NameVotes
from memora_core.perception.camera.naming import action_text, object_name
from memora_core.perception.camera.products import ProductBook, ProductLook
from memora_core.perception.camera.regions import TABLE, PalmSettings, Region, find_regions
from memora_core.perception.camera.tracker import Event, Sighting, Track, VideoTracker
from memora_core.schemas import ActionObservation, ObjectObservation, SegmentObservation

log = logging.getLogger(__name__)
SOLIDITY = FEATURE_NAMES.index("solidity")


def solid_regions(rgb: np.ndarray, regions: list[Region], min_solidity: float) -> tuple[list[Region], np.ndarray]:
    """The regions that can be objects, with their measures (features.region_vector). A region whose pixels fill
    less than `min_solidity` of its convex hull is no object: it is the fringe along the edges of several objects
    (codec halos, shading) joined into one sparse region, which spans half the table and changes from frame to
    frame; near the hand it read as objects taken and moved."""
    x = np.stack([region_vector(rgb, r) for r in regions])
    keep = x[:, SOLIDITY] >= min_solidity
    return [r for r, k in zip(regions, keep) if k], x[keep]


@dataclass
class _Frame:
    """What the hand reader (holding.py) needs of the latest frame."""
    cls: np.ndarray
    hand: np.ndarray
    touching_areas: list[int]


@dataclass
class _Seen:
    track: Track
    held: bool


class CameraPerception(PerceptionBackend):
    name = "camera"

    def __init__(self, config: PerceptionConfig | None = None, model: CameraModel | None = None) -> None:
        config = config or PerceptionConfig(backend="camera")
        self.cfg: CameraPerceptionConfig = config.camera
        if self.cfg.video_root is None:  # the demo passes where its demonstrations are (options.demo_root)
            root = config.options.get("video_root") or config.options.get("demo_root")
            if root:
                self.cfg = self.cfg.model_copy(update={"video_root": str(root)})
        self._model = model
        self._trackers: OrderedDict[str, VideoTracker] = OrderedDict()
        self._reported: dict[str, int] = {}  # video -> events already reported
        self._said: dict[str, list[tuple[str, str, float]]] = {}  # video -> (kind, object name, key time) reported
        self._holds: dict[str, HandTiming] = {}  # video -> when the hand took hold and let go (hand_timing.py)
        self._frame: _Frame | None = None
        self._audio = None
        self._duration: dict[str, float] = {}  # video -> duration, when known (set_duration)
        self._products = ProductBook(self.cfg.product_min_seen)  # labels read clearly, over the videos seen
        self._known: set[str] = set()  # the labels known while the current segment is named
        self._video: str | None = None  # the video being named
        self._votes = NameVotes()  # each name's unsaid attributes, voted over the reports so far

    @property
    def model(self) -> CameraModel:
        if self._model is None:
            self._model = CameraModel.load(self.cfg.model_path)
        return self._model

    def _tracker(self, video_id: str, w: int, h: int) -> VideoTracker:
        tr = self._trackers.get(video_id)
        if tr is None:
            cats = self.model.forests["category"].classes
            containers = {cats.index(c) for c in self.cfg.container_categories if c in cats}
            c = self.cfg
            tr = self._trackers[video_id] = VideoTracker(
                w, h, c.place_tol, c.rest_frames, c.moved_confirm_s, c.pour_min_s, c.beside_tol,
                is_container=lambda t: t.category is not None and int(np.argmax(t.category)) in containers,
                pour_window_s=c.pour_window_s, forget_s=c.forget_s, min_carry_s=c.min_carry_s,
                reach_window_s=c.reach_window_s, put_lead_s=c.put_lead_s)
            self._reported[video_id] = 0
            self._said[video_id] = []
            if self.cfg.hand_timing and "holding" in self.model.forests:
                reader = HoldReader(self.model.forests["holding"], self.model.forests.get("pouring"))
                self._holds[video_id] = HandTiming(reader, self.cfg.hand_timing_s, self.cfg.hand_drop_unmatched,
                                                   self.cfg.hold_wait_s, self.cfg.pour_target == "hand")
            while len(self._trackers) > self.cfg.max_videos:
                old, _ = self._trackers.popitem(last=False)
                for d in (self._reported, self._said, self._holds):
                    d.pop(old, None)
        self._trackers.move_to_end(video_id)
        return tr

    def sightings(self, rgb: np.ndarray, t: float) -> tuple[list[Sighting], float, np.ndarray]:
        """Regions of one frame as sightings, the fraction of the frame that is table, the hand mask."""
        regions, cls, hand = find_regions(rgb, self.model.lut, self.cfg.min_blob_px, self.cfg.min_part_px,
                                          palm=self._palm(),
                                          context=self.model.context if self.cfg.pixel_context else None,
                                          merge=(self.model.merge, self.cfg.merge_min_p)
                                          if self.cfg.instance_merge and self.model.merge is not None else None)
        self._frame = _Frame(cls, hand, [r.area for r in regions if r.touches_hand])
        if not regions:
            return [], float((cls == TABLE).mean()), hand
        regions, x = solid_regions(rgb, regions, self.cfg.min_solidity)
        if not regions:
            return [], float((cls == TABLE).mean()), hand
        pc = self.model.forests["category"].predict_proba(x)
        pm = self.model.forests["material"].predict_proba(x)
        pl = self.model.forests["label"].predict_proba(x)
        # Two colour words per region. The tracker compares looks by the hue rule's (colour.py), as its thresholds
        # were set with; objects are named by the colour forest's where the model has one (it names the colour as
        # the scene description does more often; the hue rule otherwise).
        names = self.model.forests["colour"].predict(x)[0] if "colour" in self.model.forests else [None] * len(x)
        out = [Sighting(t=t, centre=np.array(r.centre), box=r.box, colour=r.colour, category=pc[i], material=pm[i],
                        touches_hand=r.touches_hand, label=pl[i], name_colour=names[i]) for i, r in enumerate(regions)]
        return out, float((cls == TABLE).mean()), hand

    def _palm(self) -> PalmSettings | None:
        if self.model.hand_share is None:
            return None
        return PalmSettings(self.model.hand_share, self.cfg.palm_min_share, self.cfg.palm_reach)

    def _label(self, tr: Track) -> str:
        """The label class with the most evidence (NO_LABEL when unread)."""
        return NO_LABEL if tr.label is None else self.model.forests["label"].classes[int(np.argmax(tr.label))]

    def _read_label(self, tr: Track) -> str:
        """The label a track is named by: its own strongest class, or, where that is 'no label', the strongest printed
        label when the kitchen is known to have that product and its evidence is `label_prior_ratio` of the
        no-label evidence or more (products.py)."""
        own = self._label(tr)
        if own or tr.label is None or self.cfg.label_prior_ratio is None or not self._known:
            return own
        classes = self.model.forests["label"].classes
        printed = [i for i in np.argsort(-tr.label) if classes[i] != NO_LABEL]
        if printed and classes[printed[0]] in self._known \
                and tr.label[printed[0]] >= self.cfg.label_prior_ratio * float(tr.label.max()):
            return classes[printed[0]]
        return own

    def _begin_naming(self, video_id: str, tracker: VideoTracker) -> None:
        """Before a segment's objects and actions are named: the products its video's tracks read so far go into
        the kitchen's book, and the labels known are those of every video seen."""
        self._video = video_id
        self._products.learn(video_id, tracker.tracks, self._label)
        self._known = self._products.known()

    def _attrs(self, tr: Track, tracker: VideoTracker | None = None) -> dict[str, str | None]:
        """Category, colour, material and label of a track. A printed label names one product: the tracks that
        read the same label (an object's parts split by colour, the same object seen again) pool their
        category, material and colour evidence, so they get one name."""
        label = self._read_label(tr)
        cat, mat, colours = tr.category, tr.material, tr.name_colours
        if label and tracker is not None:
            same = [tr] + [o for o in tracker.tracks if o is not tr and o.alive and o.category is not None
                           and self._read_label(o) == label]
            look = ProductLook.of(same)
            before = self._products.look(label, but=self._video) if self.cfg.label_prior_ratio is not None else None
            if before is not None and before.category.shape == look.category.shape:
                look = look.merged(before)
            cat, mat, colours = look.category, look.material, look.colours
        colour = colours.most_common(1)[0][0] if colours else None
        kind = int(np.argmax(cat))
        return {"category": self.model.forests["category"].classes[kind], "colour": colour,
                "material": self.model.forests["material"].classes[self.model.material_of(kind, mat)],
                "label": label.lower() or None}

    def track_name(self, tr: Track, tracker: VideoTracker | None = None) -> str:
        return object_name(**self._attrs(tr, tracker))

    def observe(self, item: PerceptionInput) -> SegmentObservation:
        seg = item.segment
        frames = list(item.frames)
        times = list(seg.frame_times_s)
        if len(times) != len(frames):
            n = max(1, len(frames))
            times = [seg.start_s + (seg.end_s - seg.start_s) * i / n for i in range(len(frames))]
        seen: OrderedDict[int, _Seen] = OrderedDict()
        table_seen = False
        tracker = None
        for t, rgb in zip(times, frames):
            rgb = np.ascontiguousarray(rgb[..., :3], np.uint8)
            if rgb.shape[1] != self.cfg.work_width:
                h = int(round(rgb.shape[0] * self.cfg.work_width / rgb.shape[1]))
                rgb = cv2.resize(rgb, (self.cfg.work_width, h), interpolation=cv2.INTER_AREA)
            tracker = tracker or self._tracker(seg.video_id, rgb.shape[1], rgb.shape[0])
            sights, table_frac, hand = self.sightings(rgb, t)
            table_seen |= table_frac >= self.cfg.min_surface_frac
            tracker.step(t, sights, cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY), hand)
            timing = self._holds.get(seg.video_id)
            if timing is not None and self._frame is not None:
                timing.reader.step(t, self._frame.cls, self._frame.hand, self._frame.touching_areas, tracker.view)
                timing.saw(t, hand, tracker)
            for tr in tracker.tracks:
                if tr.last_seen == t and tr.state == "resting":
                    seen[tr.id] = _Seen(tr, False)
                    seen.move_to_end(tr.id)
        objects, actions = [], []
        if tracker is not None:
            self._begin_naming(seg.video_id, tracker)
            shown = [s.track for s in seen.values() if s.track.seen >= self.cfg.min_report_seen]
            objects = self._distinct([self._object(t, tracker) for t in shown], shown)
            ended = item.payload == "end" or seg.end_s >= self._duration.get(seg.video_id, float("inf")) - 1e-6
            if ended:
                tracker.flush_all()
                if seg.video_id in self._holds:
                    self._holds[seg.video_id].reader.finish()
            new = tracker.events[self._reported[seg.video_id]:]
            self._reported[seg.video_id] = len(tracker.events)
            timed = self._hand_timed(self._once(new, tracker, seg.video_id), seg.video_id, tracker)
            if ended and seg.video_id in self._holds:
                timing = self._holds[seg.video_id]
                timed = sorted(timed + timing.flush(tracker) + timing.unread_holds(tracker), key=lambda e: e.key_s)
            actions = [self._action(e, tracker) for e in timed]
        if table_seen:
            objects.append(ObjectObservation(name=self.cfg.surface_name, category=self.cfg.surface_category))
        if not seg.transcript and self.cfg.transcribe and self.cfg.video_root:
            from memora_core.perception.camera.transcript import AudioTranscripts

            self._audio = self._audio or AudioTranscripts(self.cfg.video_root)
            said = self._audio.text(seg.video_id, seg.start_s, seg.end_s)
            if said:
                seg = seg.model_copy(update={"transcript": said})
        summary = "; ".join(([spoken(seg.transcript)] if seg.transcript else []) + [a.text for a in actions])
        return SegmentObservation(segment=seg, objects=objects, actions=actions, summary=summary, backend=self.name)

    @staticmethod
    def _held(tr: Track) -> bool:
        """Gone from its place with the hand there, not seen elsewhere yet: in the hand (as far as one can tell)."""
        return tr.state == "resting" and tr.missing_since is not None and tr.hand_at_miss

    def _distinct(self, objects: list[ObjectObservation], tracks: list[Track]) -> list[ObjectObservation]:
        """One object per name: two tracks that read the same are reported once (the one seen most; a held
        one wins, as what the hand does is the news)."""
        best: dict[str, tuple[tuple[bool, int], ObjectObservation]] = {}
        for o, tr in zip(objects, tracks):
            rank = (self._held(tr), tr.seen)
            if o.name not in best or rank > best[o.name][0]:
                best[o.name] = (rank, o)
        return [o for _, o in best.values()]

    def _object(self, tr: Track, tracker: VideoTracker) -> ObjectObservation:
        a = self._attrs(tr, tracker)
        if self.cfg.vote_unsaid:
            a = self._votes.settle(object_name(**a), a)
        held = self._held(tr)
        where = None if held else (self.track_name(tracker.tracks[tr.inside], tracker) if tr.inside is not None
                                   else self.cfg.surface_name)
        return ObjectObservation(name=object_name(**a), location=where, state=self.cfg.held_state if held else None,
                                 **a)

    def _action(self, e, tracker: VideoTracker) -> ActionObservation:
        name = lambda i: self.track_name(tracker.tracks[i], tracker) if i is not None else None  # noqa: E731
        obj, target, beside = name(e.track), name(e.target), name(e.beside)
        # a thing is not in, nor next to, something of its own name: that is the object seen twice (two tracks of one
        # object, its pieces), not a second one it was put into
        target = None if target == obj else target
        beside = None if beside == obj else beside
        if e.kind == "put" and target is None:
            target = self.cfg.surface_name
        verb = self.cfg.verbs.get(e.kind, e.kind)
        return ActionObservation(verb=verb, nouns=[obj] + ([target] if target else []) + ([beside] if beside else []),
                                 start_s=min(e.start_s, e.key_s), end_s=max(e.end_s, e.key_s),
                                 text=action_text(e.kind, verb, obj, target, beside, self.cfg.surface_name),
                                 source_id=f"{e.kind}@{e.key_s:.3f}")

    def _once(self, events: list[Event], tracker: VideoTracker, video_id: str) -> list[Event]:
        """One event per action: events of one kind on objects of one name within `same_action_s` of each other are
        one action (one object followed as two tracks, its parts or itself seen twice, both moved with it): reported
        once, at their mean time; one already reported (in an earlier segment) stands and the later are dropped."""
        said, win = self._said.setdefault(video_id, []), self.cfg.same_action_s
        groups: list[tuple[str, list[Event]]] = []
        for e in events:
            name = self.track_name(tracker.tracks[e.track], tracker)
            if any(k == e.kind and n == name and abs(t - e.key_s) <= win for k, n, t in said):
                continue
            g = next((g for n, g in groups if n == name and g[0].kind == e.kind
                      and abs(g[0].key_s - e.key_s) <= win), None)
            if g is None:
                groups.append((name, [e]))
            else:
                g.append(e)
        out = []
        for name, g in groups:
            key = sum(e.key_s for e in g) / len(g)
            out.append(replace(g[0], key_s=key, start_s=min(e.start_s for e in g), end_s=max(e.end_s for e in g)))
            said.append((g[0].kind, name, key))
        return out

    def _hand_timed(self, events: list[Event], video_id: str, tracker: VideoTracker) -> list[Event]:
        """The events timed by the hand (hand_timing.py); as read without a hand reader."""
        timing = self._holds.get(video_id)
        return events if timing is None else timing.timed(events, tracker)

    def hand_reader(self, video_id: str) -> HoldReader | None:
        """What the hand did in a video followed now, as read so far: its grasps, releases and tilted frames (None:
        no hand reader for it)."""
        timing = self._holds.get(video_id)
        return None if timing is None else timing.reader

    def set_duration(self, video_id: str, duration_s: float) -> None:
        """The video's length: its last segment reports what still waits (a put into a container)."""
        self._duration[video_id] = duration_s

    def close(self) -> None:
        self._products.clear()
        self._votes.clear()
        self._trackers.clear()
        self._reported.clear()
        self._said.clear()
        self._holds.clear()


register_backend("camera", CameraPerception)
