"""`sim` perception: what the simulator knows about a recorded demonstration, as a SegmentObservation.

- Objects: a segmentation render of the demonstration's scene, restored from the per-frame trace at
  the segment's sample times, gives the objects the head camera sees (at least `min_pixels` pixels).
  Dense by design: every visible object of every segment is listed, with the scene's canonical name
  and its colour, material, label and category from the scene description, so look-alikes (coca-cola
  bottle / fanta can, yellow / metal spoon) stay apart. Location is what the object is in or on, from
  its pose: a container (the container's name), the table, or the floor; a held object has state
  'held'. An object's location/state is as of its last sighting in the segment.
- Actions: from the hand-object weld (the grip) in the trace: weld on → pick up X; weld off → put X
  in/on where it came to rest; tilted past `pour_tilt_deg` over a container while held → pour X into Y.
  An action belongs to the segment containing its key moment (grasp, release, deepest pour).

Input: `PerceptionInput(segment, payload=DemoSession | path to its .meta.json or directory)`, or no
payload and `options.demo_root` set, where the session is found by the segment's video_id.
Registered as backend `sim` (robot_configs/perception.yaml: `plugins.sim: sim.perception`).
"""
from __future__ import annotations

import logging
import math
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import mujoco
import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from memora_core.config import CONFIG_DIR, SegmentingConfig, load_config, load_yaml
from memora_core.consolidation.speech import spoken
from memora_core.ingest.segments import plan_segments, sample_times
from memora_core.perception.base import (
    PerceptionBackend,
    PerceptionConfig,
    PerceptionError,
    PerceptionInput,
    register_backend,
)
from memora_core.schemas import ActionObservation, ObjectObservation, Segment, SegmentObservation
from sim.demonstrator.config import RenderConfig
from sim.demonstrator.geometry import quat_to_mat
from sim.demonstrator.performer import build_demo_model
from sim.demonstrator.trace import DemoMeta, DemoSession, DemoTrace, find_sessions
from sim.scene.builder import DEMO_CAMERA, DEMO_HAND, DEMO_HEAD
from sim.scene.config import SceneConfig, load_scene_config

log = logging.getLogger(__name__)

DEFAULT_SIM_PERCEPTION = CONFIG_DIR / "demos" / "sim_perception.yaml"


class SimPerceptionConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    min_pixels: int = Field(default=30, ge=1)         # an object this many pixels on screen is seen
    width: int | None = Field(default=None, ge=32)    # segmentation size; None: the video's size
    height: int | None = Field(default=None, ge=24)
    demo_root: str | None = None                      # where to find sessions by video_id
    container_margin_m: float = Field(default=0.01, ge=0)
    table_tolerance_m: float = Field(default=0.03, ge=0)
    floor_below_m: float = Field(default=0.2, gt=0)   # this far below the table top: on the floor
    lift_m: float = Field(default=0.03, gt=0)         # a pick ends when the object is this high
    settle_s: float = Field(default=0.6, ge=0)        # where a released object is judged after this
    pour_tilt_deg: float = Field(default=70.0, gt=0, lt=180)
    pour_plateau_deg: float = Field(default=5.0, ge=0)  # frames this close to the deepest tilt: the pour
    pour_margin_m: float = Field(default=0.05, ge=0)  # the mouth within container radius + this
    approach_eps_m: float = Field(default=0.0002, ge=0)  # a hand still closing in by more than this per frame
    still_m: float = Field(default=0.0005, ge=0)       # a held object moving less than this in a window is still
    still_window_s: float = Field(default=0.15, gt=0)
    near_m: float = Field(default=0.02, ge=0)         # this close to its goal the hand is still approaching
    tilt_eps_deg: float = Field(default=0.5, ge=0)    # still tilting by more than this per frame
    verbs: dict[str, str] = Field(default_factory=lambda: {"pick": "pick up", "put": "put", "pour": "pour"})
    held_state: str = "held"
    # A put on the table this close (edge to edge) to an object handled earlier in the episode is reported
    # as 'next to' it: the way a person describes arranging things together.
    beside_m: float = Field(default=0.05, ge=0)
    # Surfaces that are scene geoms, not objects, reported when seen (geom name -> object name).
    surfaces: dict[str, str] = Field(default_factory=lambda: {"table_top": "table"})
    surface_category: str = "furniture"
    speech: bool = True                               # report what the person said as the transcript
    # Demonstrations kept open (scene model + segmentation renderer, ~100 MB each); the least recently used
    # is closed beyond this, so a long-running writer seeing many sessions stays bounded.
    max_views: int = Field(default=2, ge=1)


def load_sim_perception_config(options: dict[str, Any] | None = None) -> SimPerceptionConfig:
    """Defaults from robot_configs/demos/sim_perception.yaml, overridden by `options` (or options['sim'])."""
    data = load_yaml(DEFAULT_SIM_PERCEPTION) if DEFAULT_SIM_PERCEPTION.exists() else {}
    opts = dict(options or {})
    opts = dict(opts.get("sim", opts))
    data.update(opts)
    return SimPerceptionConfig.model_validate(data)


@dataclass(frozen=True)
class SimAction:
    """An action found in a whole demonstration trace."""

    kind: str            # pick | put | pour
    object: str
    target: str | None
    start_s: float
    end_s: float
    key_s: float
    beside: str | None = None  # put on the table next to this object


def _tilt(q: np.ndarray) -> float:
    return math.degrees(math.acos(max(-1.0, min(1.0, float(quat_to_mat(q)[2, 2])))))


class DemoView:
    """One recorded demonstration made observable again: its scene rebuilt, the trace replayed into it."""

    def __init__(self, session: DemoSession, cfg: SimPerceptionConfig) -> None:
        self.session, self.cfg = session, cfg
        self.meta: DemoMeta = session.meta()
        self.trace: DemoTrace = session.trace()
        self.scene: SceneConfig = load_scene_config(CONFIG_DIR / "scenes" / f"{self.meta.scene}.yaml")
        render_cfg = RenderConfig()
        render_cfg.head.fovy_deg = self.meta.fovy_deg
        self.model = build_demo_model(self.scene, self.meta.layout, render_cfg)
        self.data = mujoco.MjData(self.model)
        self.names = self.meta.objects
        self.specs = [self.scene.object(n) for n in self.names]
        m = self.model
        self._qadr = [int(m.jnt_qposadr[m.body_jntadr[m.body(s.body_name).id]]) for s in self.specs]
        self._hand_mocap = int(m.body_mocapid[m.body(DEMO_HAND).id])
        self._head_mocap = int(m.body_mocapid[m.body(DEMO_HEAD).id])
        body_to_obj = {m.body(s.body_name).id: i for i, s in enumerate(self.specs)}
        # geom id → object index (-1: not an object: table, floor, the hand)
        self._geom_obj = np.array([body_to_obj.get(int(m.geom_bodyid[g]), -1) for g in range(m.ngeom)] + [-1])
        # surfaces (the table top) get indices after the objects
        self.surfaces = [name for geom, name in cfg.surfaces.items() if mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, geom) >= 0]
        for n, geom in enumerate(g for g in cfg.surfaces if mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, g) >= 0):
            self._geom_obj[mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, geom)] = len(self.names) + n
        w = cfg.width or self.meta.width
        h = cfg.height or self.meta.height
        self._renderer = mujoco.Renderer(m, h, w)
        self._renderer.enable_segmentation_rendering()

    # ------------------------------------------------------------------ state
    def restore(self, k: int) -> None:
        tr, d = self.trace, self.data
        for i, adr in enumerate(self._qadr):
            d.qpos[adr:adr + 3] = tr.obj_pos[k, i]
            d.qpos[adr + 3:adr + 7] = tr.obj_quat[k, i]
        d.mocap_pos[self._hand_mocap] = tr.hand_pos[k]
        d.mocap_quat[self._hand_mocap] = tr.hand_quat[k]
        d.mocap_pos[self._head_mocap] = tr.head_pos[k]
        d.mocap_quat[self._head_mocap] = tr.head_quat[k]
        mujoco.mj_kinematics(self.model, self.data)
        mujoco.mj_camlight(self.model, self.data)

    def visible(self, k: int) -> dict[int, int]:
        """Object index → pixels on screen at trace frame k."""
        self.restore(k)
        self._renderer.update_scene(self.data, camera=DEMO_CAMERA)
        seg = self._renderer.render()
        ids = seg[..., 0].ravel()
        types = seg[..., 1].ravel()
        ids = ids[(types == int(mujoco.mjtObj.mjOBJ_GEOM)) & (ids >= 0)]
        objs = self._geom_obj[ids]
        counts = np.bincount(objs[objs >= 0], minlength=len(self.names) + len(self.surfaces))
        return {i: int(c) for i, c in enumerate(counts) if c >= self.cfg.min_pixels}

    def location(self, i: int, k: int) -> str | None:
        """Container the object is in, else 'table' / 'floor' / the object it rests on; None while held."""
        if int(self.trace.attached[k]) == i:
            return None
        p = self.trace.obj_pos[k, i]
        spec = self.specs[i]
        best, best_d = None, float("inf")
        for j, c in enumerate(self.specs):
            if j == i or not c.container:
                continue
            cp = self.trace.obj_pos[k, j]
            dxy = float(np.hypot(*(p[:2] - cp[:2])))
            inside_z = cp[2] - c.half_height - 0.01 < p[2] < cp[2] + c.half_height + spec.half_height + 0.03
            if dxy < c.footprint_radius + self.cfg.container_margin_m and inside_z and dxy < best_d:
                best, best_d = c.name, dxy
        if best is not None:
            return best
        t = self.scene.table
        on_table_xy = abs(p[0] - t.center[0]) <= t.size[0] / 2 and abs(p[1] - t.center[1]) <= t.size[1] / 2
        reach = max(spec.size) if spec.shape == "box" else max(spec.size[0], spec.half_height)
        if on_table_xy and t.height - 0.01 < p[2] < t.height + reach + self.cfg.table_tolerance_m:
            return "table"
        for j, other in enumerate(self.specs):  # resting on another object
            op = self.trace.obj_pos[k, j]
            if j != i and np.hypot(*(p[:2] - op[:2])) < other.footprint_radius and p[2] > op[2]:
                return other.name
        if p[2] < t.height - self.cfg.floor_below_m:
            return "floor"
        return None

    # ------------------------------------------------------------------ actions over the whole trace
    @cached_property
    def actions(self) -> list[SimAction]:
        tr, cfg = self.trace, self.cfg
        att = tr.attached.astype(int)
        out: list[SimAction] = []
        settle = max(1, int(round(cfg.settle_s * self.meta.fps)))
        for k in range(1, len(att)):
            if att[k] == att[k - 1]:
                continue
            key = float((tr.t[k - 1] + tr.t[k]) / 2)  # the weld switched between the two frames
            if att[k - 1] >= 0:
                i = int(att[k - 1])
                rest = min(len(att) - 1, k + settle)
                dest = tr.obj_pos[rest, i]
                # the put starts where the object's last pick/pour ended (set below); this is a fallback
                start = self._approach_start(k - 1, lambda j: float(np.linalg.norm(tr.obj_pos[j, i] - dest)))
                where = self.location(i, rest)
                beside = self._beside(i, rest, k, att) if where == "table" else None
                out.append(SimAction("put", self.names[i], where, float(tr.t[start]), key, key, beside))
            if att[k] >= 0:
                i = int(att[k])
                start = self._reach_start(k)
                end = self._lift_end(k, i)
                out.append(SimAction("pick", self.names[i], None, float(tr.t[start]), float(tr.t[end]), key))
        out.extend(self._pours())
        out.sort(key=lambda a: a.key_s)
        for n, a in enumerate(out):  # carrying to the destination begins when the pick or pour is over
            if a.kind == "put":
                before = [b for b in out[:n] if b.object == a.object and b.kind in ("pick", "pour")]
                if before and before[-1].end_s <= a.key_s:
                    start = self._moves_again(before[-1].end_s, a.key_s, self.names.index(a.object))
                    out[n] = SimAction("put", a.object, a.target, start, a.end_s, a.key_s, a.beside)
        return out

    def _beside(self, i: int, rest: int, k: int, att: np.ndarray) -> str | None:
        """The object handled earlier in the episode (grasped before frame k) that object i came to rest
        next to at frame `rest` (edge gap within beside_m), or None."""
        handled = {int(a) for a in att[:k] if a >= 0 and a != i}
        p = self.trace.obj_pos[rest, i]
        best, best_gap = None, self.cfg.beside_m
        for j in handled:
            q = self.trace.obj_pos[rest, j]
            gap = float(np.hypot(*(p[:2] - q[:2]))) - self.specs[i].footprint_radius - self.specs[j].footprint_radius
            if gap <= best_gap:
                best, best_gap = self.names[j], gap
        return best

    def _approach_start(self, k: int, dist) -> int:
        """Walk back from frame k while the distance kept shrinking (or the hand was still creeping in
        close to its goal, where minimum-jerk motion is slow): where the reach/carry began."""
        j = k
        while j > 0 and (dist(j - 1) > dist(j) + self.cfg.approach_eps_m or dist(j) < self.cfg.near_m):
            j -= 1
        return j

    def _reach_start(self, k: int) -> int:
        """Walk back from the grasp at frame k while the hand kept moving: where the reach began (a person's
        hand rests before reaching; it also stops at the previous change of grip)."""
        tr, eps = self.trace, self.cfg.approach_eps_m
        j = k
        same = lambda i: tr.attached[i] == tr.attached[k - 1]  # noqa: E731
        # the last moment of the reach is a slow creep onto the object: skip it first
        while j > 0 and same(j - 1) and np.linalg.norm(tr.hand_pos[j - 1] - tr.hand_pos[k]) < self.cfg.near_m:
            j -= 1
        w = self._window
        while j > 0 and same(j - 1) and np.linalg.norm(tr.hand_pos[j] - tr.hand_pos[max(0, j - w)]) > eps:
            j -= 1
        return j

    @cached_property
    def _window(self) -> int:
        # motion is judged over a short window, not frame to frame: where two minimum-jerk moves meet
        # the hand is briefly almost still, and that must not read as a pause
        return max(1, int(round(self.cfg.still_window_s * self.meta.fps)))

    def _moves_again(self, after_s: float, before_s: float, i: int) -> float:
        """Walking back from the release at `before_s` while the held object kept moving, not past
        `after_s`: where the carry began (after the pause that follows a pick or a pour)."""
        tr = self.trace
        stop, j = tr.index_at(after_s), tr.index_at(before_s)
        w = self._window
        while j > stop and np.linalg.norm(tr.obj_pos[j, i] - tr.obj_pos[max(0, j - w), i]) > self.cfg.still_m:
            j -= 1
        return float(tr.t[j])

    def _lift_end(self, k: int, i: int) -> int:
        """From the grasp at frame k: past the hold, while the object rises; the pick ends when it stops."""
        tr, att, eps = self.trace, self.trace.attached, self.cfg.approach_eps_m
        z0 = tr.obj_pos[k, i, 2]
        j = k
        n = len(att)
        while j + 1 < n and int(att[j + 1]) == i and (tr.obj_pos[j + 1, i, 2] > tr.obj_pos[j, i, 2] + eps
                                                       or tr.obj_pos[j, i, 2] < z0 + self.cfg.lift_m):
            j += 1
        return j

    def _pours(self) -> list[SimAction]:
        tr, cfg = self.trace, self.cfg
        att = tr.attached.astype(int)
        out = []
        k = 0
        n = len(att)
        while k < n:
            i = int(att[k])
            if i < 0 or _tilt(tr.obj_quat[k, i]) < cfg.pour_tilt_deg:
                k += 1
                continue
            a = k
            while k < n and int(att[k]) == i and _tilt(tr.obj_quat[k, i]) >= cfg.pour_tilt_deg:
                k += 1
            run = list(range(a, k))
            tilts = np.array([_tilt(tr.obj_quat[j, i]) for j in run])
            plateau = [j for j, tv in zip(run, tilts) if tv >= tilts.max() - cfg.pour_plateau_deg]
            mid = plateau[len(plateau) // 2]
            # the pour began where the tilting began and ended where the object was upright again
            first, last = a, k - 1
            while first > 0 and int(att[first - 1]) == i and \
                    _tilt(tr.obj_quat[first - 1, i]) < _tilt(tr.obj_quat[first, i]) - cfg.tilt_eps_deg:
                first -= 1
            while last + 1 < n and int(att[last + 1]) == i and \
                    _tilt(tr.obj_quat[last + 1, i]) < _tilt(tr.obj_quat[last, i]) - cfg.tilt_eps_deg:
                last += 1
            target = self._container_under_mouth(i, mid)
            if target is not None:
                out.append(SimAction("pour", self.names[i], target, float(tr.t[first]), float(tr.t[last]),
                                     float(tr.t[mid])))
        return out

    def _container_under_mouth(self, i: int, k: int) -> str | None:
        spec = self.specs[i]
        mouth = self.trace.obj_pos[k, i] + quat_to_mat(self.trace.obj_quat[k, i]) @ np.array([0, 0, spec.half_height])
        best, best_d = None, float("inf")
        for j, c in enumerate(self.specs):
            if j == i or not c.container:
                continue
            dxy = float(np.hypot(*(mouth[:2] - self.trace.obj_pos[k, j, :2])))
            if dxy < c.footprint_radius + self.cfg.pour_margin_m and dxy < best_d:
                best, best_d = c.name, dxy
        return best

    def close(self) -> None:
        self._renderer.close()


def action_text(a: SimAction, verbs: dict[str, str]) -> str:
    verb = verbs.get(a.kind, a.kind)
    if a.kind == "pick":
        return f"{verb} {a.object}"
    if a.kind == "pour":
        return f"{verb} {a.object} into {a.target}"
    prep = "in" if a.target not in (None, "table", "floor") else "on"
    beside = f" next to {a.beside}" if a.beside else ""
    return f"{verb} {a.object} {prep} {a.target or 'somewhere'}{beside}"


class SimPerception(PerceptionBackend):
    name = "sim"

    def __init__(self, config: PerceptionConfig | None = None, segmenting: SegmentingConfig | None = None) -> None:
        config = config or PerceptionConfig(backend="sim")
        self.cfg = load_sim_perception_config(config.options)
        self.segmenting = segmenting or load_config().segmenting
        self._views: OrderedDict[str, DemoView] = OrderedDict()  # least recently used first

    def _session(self, item: PerceptionInput) -> DemoSession:
        p = item.payload
        if isinstance(p, DemoSession):
            return p
        if isinstance(p, (str, Path)):
            path = Path(p)
            if path.is_dir():
                found = [s for s in find_sessions(path) if s.video_id == item.segment.video_id]
                if found:
                    return found[0]
            elif path.name.endswith(".meta.json"):
                return DemoSession.from_meta_path(path)
        if p is None and self.cfg.demo_root:
            found = [s for s in find_sessions(self.cfg.demo_root) if s.video_id == item.segment.video_id]
            if found:
                return found[0]
        raise PerceptionError(f"sim perception: no recorded demonstration for video {item.segment.video_id!r} "
                              f"(payload {p!r}, demo_root {self.cfg.demo_root!r})")

    def view(self, session: DemoSession) -> DemoView:
        key = str(session.meta_path.resolve())
        v = self._views.get(key)
        if v is None:
            v = self._views[key] = DemoView(session, self.cfg)
        self._views.move_to_end(key)
        while len(self._views) > self.cfg.max_views:
            self._views.popitem(last=False)[1].close()
        return v

    def observe(self, item: PerceptionInput) -> SegmentObservation:
        seg = item.segment
        view = self.view(self._session(item))
        times = list(seg.frame_times_s) or sample_times(seg.start_s, seg.end_s, self.segmenting)
        last_seen: dict[int, int] = {}  # object index → last trace frame where it was visible
        order: list[int] = []
        for t in times:
            k = view.trace.index_at(t)
            for i in view.visible(k):
                if i not in last_seen:
                    order.append(i)
                last_seen[i] = k
        objects = []
        for i in order:
            if i >= len(view.specs):  # a surface (the table): seen, no attributes beyond its kind
                objects.append(ObjectObservation(name=view.surfaces[i - len(view.specs)],
                                                 category=self.cfg.surface_category))
                continue
            spec, k = view.specs[i], last_seen[i]
            held = int(view.trace.attached[k]) == i
            objects.append(ObjectObservation(
                name=spec.name, category=spec.category, colour=spec.colour, material=spec.material,
                label=spec.label.lower() if spec.label else None, location=view.location(i, k),
                state=self.cfg.held_state if held else None, aliases=list(spec.aliases)))
        is_last = seg.end_s >= view.meta.duration_s - 1e-6
        actions = [ActionObservation(verb=self.cfg.verbs.get(a.kind, a.kind),
                                     nouns=[a.object] + ([a.target] if a.target else []) + ([a.beside] if a.beside else []),
                                     start_s=a.start_s, end_s=max(a.start_s, a.end_s),
                                     text=action_text(a, self.cfg.verbs), source_id=f"{a.kind}@{a.key_s:.3f}")
                   for a in view.actions
                   if seg.start_s <= a.key_s < seg.end_s or (is_last and a.key_s == seg.end_s)]
        # what the person said in this segment: the transcript a microphone + ASR would give
        said = [u.text for u in view.meta.speech if self.cfg.speech and seg.start_s <= u.start_s < seg.end_s]
        if said:
            seg = seg.model_copy(update={"transcript": " ".join(said)})
        summary = "; ".join([spoken(t) for t in said] + [a.text for a in actions])
        return SegmentObservation(segment=seg, objects=objects, actions=actions, summary=summary, backend=self.name)

    def close(self) -> None:
        for v in self._views.values():
            v.close()
        self._views.clear()


def demo_segments(session: DemoSession, participant_id: str, segmenting: SegmentingConfig | None = None) -> list[Segment]:
    """The ingest segment grid over a demonstration (same windows and sample times as video ingest)."""
    segmenting = segmenting or load_config().segmenting
    meta = session.meta()
    return [Segment(participant_id=participant_id, video_id=meta.video_id, index=i, start_s=a, end_s=b,
                    frame_times_s=sample_times(a, b, segmenting))
            for i, (a, b) in enumerate(plan_segments(meta.duration_s, segmenting))]


def demo_inputs(session: DemoSession, participant_id: str,
                segmenting: SegmentingConfig | None = None) -> list[PerceptionInput]:
    return [PerceptionInput(segment=s, payload=session) for s in demo_segments(session, participant_id, segmenting)]


register_backend("sim", SimPerception)
