"""The scripted demonstrator: a kinematic person (mocap hand + mocap head with the egocentric camera)
acting a routine in the MuJoCo kitchen, with the G1 absent (the person stands where the robot would).

Gripping is simulated by a weld between the hand and the object, created inactive for every object when
the scene is built and switched on (at the current relative pose) when the palm is on the object, off
on release, after which the object falls and settles under physics. The hand moves along minimum-jerk
paths; the head looks towards what the hand is about to do (its gaze lags with a first-order filter, so
it leads the slower hand), leans a little towards it and sways slightly.

Every video frame: the head camera is rendered and the simulator state is appended to the trace. The
event log is written from what the performer did (start, key moment, end of every pick/put/pour)."""
from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import mujoco
import numpy as np

from sim.demonstrator.config import RenderConfig, Step
from sim.demonstrator.geometry import axis_quat, look_at_quat, min_jerk, mul_quat, quat_to_mat, slerp, yaw_quat
from sim.demonstrator.trace import DemoEvent, DemoTrace
from sim.scene.builder import DEMO_CAMERA, DEMO_HAND, DEMO_HEAD, build_spec
from sim.scene.config import SceneConfig
from sim.scene.layout import Layout

log = logging.getLogger(__name__)

FrameSink = Callable[[np.ndarray], None]


class DemoError(RuntimeError):
    """The routine cannot be performed as written (e.g. put without holding the object)."""


def demo_weld_name(body_name: str) -> str:
    return f"demo_grip_{body_name}"


def build_demo_model(scene: SceneConfig, layout: Layout, cfg: RenderConfig) -> mujoco.MjModel:
    """The kitchen without the robot, with the demonstrator's hand and head, plus one inactive
    hand-object weld per object (the grip stand-in)."""
    spec = build_spec(scene, layout, with_robot=False)
    for name in layout.poses:
        body = scene.object(name).body_name
        eq = spec.add_equality(name=demo_weld_name(body), type=mujoco.mjtEq.mjEQ_WELD, name1=DEMO_HAND,
                               name2=body, objtype=mujoco.mjtObj.mjOBJ_BODY, active=False)
        eq.solref = list(cfg.weld_solref)
    model = spec.compile()
    model.cam_fovy[model.camera(DEMO_CAMERA).id] = cfg.head.fovy_deg
    # multisampling is most of the software renderer's cost; the builder's value serves other cameras
    model.vis.quality.offsamples = cfg.video.offsamples
    return model


@dataclass
class _TraceRows:
    t: list[float] = field(default_factory=list)
    obj_pos: list[np.ndarray] = field(default_factory=list)
    obj_quat: list[np.ndarray] = field(default_factory=list)
    attached: list[int] = field(default_factory=list)
    hand_pos: list[np.ndarray] = field(default_factory=list)
    hand_quat: list[np.ndarray] = field(default_factory=list)
    head_pos: list[np.ndarray] = field(default_factory=list)
    head_quat: list[np.ndarray] = field(default_factory=list)

    def to_trace(self) -> DemoTrace:
        return DemoTrace(t=np.array(self.t), obj_pos=np.array(self.obj_pos), obj_quat=np.array(self.obj_quat),
                         attached=np.array(self.attached, dtype=np.int32), hand_pos=np.array(self.hand_pos),
                         hand_quat=np.array(self.hand_quat), head_pos=np.array(self.head_pos),
                         head_quat=np.array(self.head_quat))


class Performer:
    def __init__(self, scene: SceneConfig, layout: Layout, cfg: RenderConfig, rng: np.random.Generator,
                 sink: FrameSink | None = None, render: bool = True) -> None:
        self.scene, self.layout, self.cfg, self.rng = scene, layout, cfg, rng
        self.model = build_demo_model(scene, layout, cfg)
        self.data = mujoco.MjData(self.model)
        self.names = list(layout.poses)
        self._body = {n: self.model.body(scene.object(n).body_name).id for n in self.names}
        self._weld = {n: self.model.equality(demo_weld_name(scene.object(n).body_name)).id for n in self.names}
        self._hand_body = self.model.body(DEMO_HAND).id
        self._head_body = self.model.body(DEMO_HEAD).id
        self._hand_mocap = int(self.model.body_mocapid[self._hand_body])
        self._head_mocap = int(self.model.body_mocapid[self._head_body])
        self.dt = float(self.model.opt.timestep)
        v = cfg.video
        self._renderer = mujoco.Renderer(self.model, v.height, v.width) if render else None
        self.sink = sink
        hz = np.asarray(cfg.head.sway_hz, float)
        self._sway_f = hz
        self._sway_phase = rng.uniform(0, 2 * math.pi, size=(6, len(hz)))
        self.hand_p = self._rest_point()
        self.hand_q = yaw_quat(self._yaw_to(self.hand_p))
        self.gaze = self._table_centre()
        self.gaze_goal = self.gaze.copy()
        self.attached: str | None = None
        self.events: list[DemoEvent] = []
        self.rows = _TraceRows()
        self._t0 = 0.0
        self._next_frame = 0
        self._origin: dict[str, np.ndarray] = {}
        self._settle()

    # ------------------------------------------------------------------ clock, head, frames
    @property
    def t(self) -> float:
        return float(self.data.time - self._t0)

    def _settle(self) -> None:
        self._apply_mocap(head=True)
        mujoco.mj_forward(self.model, self.data)
        for _ in range(int(self.cfg.timing.settle_s / self.dt)):
            self._apply_mocap()
            mujoco.mj_step(self.model, self.data)
        self._t0 = float(self.data.time)
        self._capture()

    def _sway(self, row: int, t: float) -> float:
        return float(np.mean(np.sin(2 * math.pi * self._sway_f * t + self._sway_phase[row])))

    def _head_pose(self) -> tuple[np.ndarray, np.ndarray]:
        h = self.cfg.head
        t = self.t
        gaze = self.gaze + h.sway_gaze_m * np.array([self._sway(3, t), self._sway(4, t), 0.3 * self._sway(5, t)])
        eye0 = np.asarray(h.eye, float)
        eye = eye0.copy()
        eye[:2] += h.lean * (gaze[:2] - eye0[:2])  # lean towards what one looks at
        eye += h.sway_pos_m * np.array([self._sway(0, t), self._sway(1, t), self._sway(2, t)])
        return eye, look_at_quat(eye, gaze)

    def _apply_mocap(self, head: bool = False) -> None:
        self.data.mocap_pos[self._hand_mocap] = self.hand_p
        self.data.mocap_quat[self._hand_mocap] = self.hand_q
        if head:  # the head touches nothing: it only matters when a frame is taken
            eye, q = self._head_pose()
            self.data.mocap_pos[self._head_mocap] = eye
            self.data.mocap_quat[self._head_mocap] = q

    def _tick(self) -> None:
        alpha = min(1.0, self.dt / self.cfg.head.gaze_tau_s)
        self.gaze = self.gaze + alpha * (self.gaze_goal - self.gaze)
        self._apply_mocap()
        mujoco.mj_step(self.model, self.data)
        if self.t + 1e-9 >= self._next_frame / self.cfg.video.fps:
            self._capture()

    def _capture(self) -> None:
        d = self.data
        # current head pose, and kinematics of the state just integrated, so frame and trace agree
        self._apply_mocap(head=True)
        mujoco.mj_kinematics(self.model, d)
        mujoco.mj_camlight(self.model, d)
        r = self.rows
        r.t.append(self.t)
        r.obj_pos.append(np.array([d.xpos[self._body[n]] for n in self.names]))
        r.obj_quat.append(np.array([d.xquat[self._body[n]] for n in self.names]))
        r.attached.append(self.names.index(self.attached) if self.attached else -1)
        r.hand_pos.append(d.xpos[self._hand_body].copy())
        r.hand_quat.append(d.xquat[self._hand_body].copy())
        r.head_pos.append(d.xpos[self._head_body].copy())
        r.head_quat.append(d.xquat[self._head_body].copy())
        if self._renderer is not None:
            self._renderer.update_scene(d, camera=DEMO_CAMERA)
            frame = self._renderer.render()
            if self.sink is not None:
                self.sink(frame)
        self._next_frame += 1

    @property
    def frames(self) -> int:
        return self._next_frame

    # ------------------------------------------------------------------ motion
    def _dur(self, base: float) -> float:
        j = self.cfg.timing.jitter
        return base * float(self.rng.uniform(1 - j, 1 + j))

    def move(self, duration_s: float, hand_p: np.ndarray | None = None, hand_q: np.ndarray | None = None,
             gaze: np.ndarray | None = None) -> None:
        p0, q0 = self.hand_p.copy(), self.hand_q.copy()
        p1 = p0 if hand_p is None else np.asarray(hand_p, float)
        q1 = q0 if hand_q is None else np.asarray(hand_q, float)
        if gaze is not None:
            self.gaze_goal = np.asarray(gaze, float)
        n = max(1, int(round(duration_s / self.dt)))
        for k in range(n):
            s = min_jerk((k + 1) / n)
            self.hand_p = p0 + (p1 - p0) * s
            self.hand_q = slerp(q0, q1, s)
            self._tick()

    def hold(self, duration_s: float, gaze: np.ndarray | None = None) -> None:
        self.move(duration_s, gaze=gaze)

    # ------------------------------------------------------------------ scene queries
    def pos(self, name: str) -> np.ndarray:
        return self.data.xpos[self._body[name]].copy()

    def _top(self, name: str) -> np.ndarray:
        spec = self.scene.object(name)
        return self.pos(name) + quat_to_mat(self.data.xquat[self._body[name]]) @ np.array([0, 0, spec.half_height])

    def _table_centre(self) -> np.ndarray:
        t = self.scene.table
        return np.array([t.center[0], t.center[1], t.height])

    def _rest_point(self) -> np.ndarray:
        j = self.cfg.hand.rest_jitter_m
        return np.asarray(self.cfg.hand.rest, float) + self.rng.uniform(-j, j, size=3)

    def _yaw_to(self, point: np.ndarray) -> float:
        s = self.cfg.hand.shoulder
        return math.atan2(point[1] - s[1], point[0] - s[0])

    def _aim(self, point: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Hand orientation pointing from the shoulder at `point` (palm down), and the rotation about the
        vertical from the current hand yaw to it."""
        yaw = self._yaw_to(point)
        m = quat_to_mat(self.hand_q)
        d = yaw - math.atan2(m[1, 0], m[0, 0])
        c, s = math.cos(d), math.sin(d)
        return yaw_quat(yaw), np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])

    def _contents_top(self, container: str, exclude: str) -> float:
        """Highest top among objects lying in the container (things are stacked on what is there)."""
        c = self.pos(container)
        spec = self.scene.object(container)
        top = c[2] - spec.half_height + 0.006
        for n in self.names:
            if n in (container, exclude):
                continue
            p = self.pos(n)
            if np.hypot(*(p[:2] - c[:2])) < spec.size[0] and c[2] - spec.half_height - 0.01 < p[2] < c[2] + 0.1:
                top = max(top, p[2] + self.scene.object(n).half_height)
        return top

    def free_spot(self, near: np.ndarray, moving: str) -> np.ndarray:
        """The free table point nearest to `near` with room for `moving` (footprints + clearance)."""
        t, pc = self.scene.table, self.cfg.place
        r = self.scene.object(moving).footprint_radius
        xs = np.arange(t.center[0] - t.size[0] / 2 + pc.margin_m, t.center[0] + t.size[0] / 2 - pc.margin_m, pc.grid_step_m)
        ys = np.arange(t.center[1] - t.size[1] / 2 + pc.margin_m, t.center[1] + t.size[1] / 2 - pc.margin_m, pc.grid_step_m)
        grid = np.array([(x, y) for x in xs for y in ys])
        ok = np.ones(len(grid), bool)
        for n in self.names:
            if n == moving:
                continue
            p = self.pos(n)
            ok &= np.hypot(grid[:, 0] - p[0], grid[:, 1] - p[1]) >= r + self.scene.object(n).footprint_radius + pc.clearance_m
        if not ok.any():
            raise DemoError(f"no free spot on the table for {moving!r}")
        cand = grid[ok]
        best = cand[int(np.argmin(np.hypot(cand[:, 0] - near[0], cand[:, 1] - near[1])))]
        return np.array([best[0], best[1], t.height])

    def _near_point(self, near: str | None, moving: str) -> np.ndarray:
        if near is None:
            return self._table_centre()
        if near == "origin":
            return self._origin.get(moving, self._table_centre())
        if near in self.scene.regions:
            r = self.scene.regions[near]
            return np.array([r[0], r[1], self.scene.table.height])
        if near in self._body:
            return self.pos(near)
        raise DemoError(f"unknown place {near!r}: not an object or region")

    # ------------------------------------------------------------------ grip
    def _attach(self, name: str) -> None:
        eq = self._weld[name]
        hpos, hquat = self.data.xpos[self._hand_body], self.data.xquat[self._hand_body]
        opos, oquat = self.data.xpos[self._body[name]], self.data.xquat[self._body[name]]
        inv = np.zeros(4)
        mujoco.mju_negQuat(inv, hquat)
        relpos, relquat = np.zeros(3), np.zeros(4)
        mujoco.mju_rotVecQuat(relpos, opos - hpos, inv)
        mujoco.mju_mulQuat(relquat, inv, oquat)
        # eq_data of a weld: anchor(3), relative position(3), relative quaternion(4), torque scale
        self.model.eq_data[eq, 0:3] = 0.0
        self.model.eq_data[eq, 3:6] = relpos
        self.model.eq_data[eq, 6:10] = relquat
        self.model.eq_data[eq, 10] = 1.0
        self.data.eq_active[eq] = 1
        self.attached = name

    def _detach(self) -> None:
        if self.attached is not None:
            self.data.eq_active[self._weld[self.attached]] = 0
        self.attached = None

    def _event(self, kind: str, name: str, target: str | None, start: float, key: float, end: float) -> None:
        self.events.append(DemoEvent(index=len(self.events), kind=kind, object=name,
                                     object_body=self.scene.object(name).body_name, target=target,
                                     start_s=round(start, 4), end_s=round(end, 4), key_s=round(key, 4)))

    # ------------------------------------------------------------------ primitives
    def do(self, step: Step) -> None:
        if step.object is not None and step.object not in self._body:
            raise DemoError(f"{step.do}: {step.object!r} is not in this scene")
        if step.do == "pick":
            self.pick(step.object)
        elif step.do == "put":
            self.put(step.object, step.target, step.near)
        elif step.do == "pour":
            self.pour(step.object, step.target)
        elif step.do == "look":
            self.hold(step.duration_s or self._dur(self.cfg.timing.look_s), gaze=self.pos(step.object))
        else:
            self.rest(step.duration_s)

    def pick(self, name: str) -> None:
        if self.attached is not None:
            raise DemoError(f"pick {name}: the hand already holds {self.attached}")
        h, tm = self.cfg.hand, self.cfg.timing
        start = self.t
        self._origin[name] = self.pos(name)
        top = self._top(name)
        q = yaw_quat(self._yaw_to(top))
        self.move(self._dur(tm.approach_s), top + [0, 0, h.grip_m + h.pre_grasp_m], q, gaze=self.pos(name))
        top = self._top(name)
        self.move(self._dur(tm.descend_s), top + [0, 0, h.grip_m])
        self._attach(name)
        key = self.t
        self.hold(self._dur(tm.grasp_hold_s))
        self.move(self._dur(tm.lift_s), self.hand_p + [0, 0, h.lift_m])
        self._event("pick", name, None, start, key, self.t)

    def _require_held(self, name: str, what: str) -> None:
        if self.attached != name:
            raise DemoError(f"{what} {name}: the hand holds {self.attached!r}")

    def put(self, name: str, target: str, near: str | None = None) -> None:
        self._require_held(name, "put")
        h, tm = self.cfg.hand, self.cfg.timing
        spec = self.scene.object(name)
        if target == "table":
            dest = self.free_spot(self._near_point(near, name), name)
            rest_z = self.scene.table.height + spec.half_height
        else:
            if target not in self._body or not self.scene.object(target).container:
                raise DemoError(f"put {name}: {target!r} is not a container in this scene")
            dest = self.pos(target)
            rest_z = self._contents_top(target, name) + spec.half_height
        # the forearm turns to point at the destination; the held object turns with the hand
        q, turn = self._aim(dest)
        offset = turn @ (self.hand_p - self.pos(name))
        carry_z = self.scene.table.height + h.carry_clearance_m + spec.half_height
        start = self.t
        self.move(self._dur(tm.carry_s), np.array([dest[0], dest[1], carry_z]) + offset, q, gaze=dest)
        self.move(self._dur(tm.lower_s), np.array([dest[0], dest[1], rest_z + h.drop_m]) + offset)
        self._detach()
        key = self.t
        self._event("put", name, target, start, key, key)  # a put ends when the object is let go
        self.hold(self._dur(tm.release_hold_s))
        self.move(self._dur(tm.retract_s), self.hand_p + [0, 0, h.pre_grasp_m])

    def pour(self, name: str, container: str) -> None:
        self._require_held(name, "pour")
        if container not in self._body or not self.scene.object(container).container:
            raise DemoError(f"pour {name}: {container!r} is not a container in this scene")
        h, tm = self.cfg.hand, self.cfg.timing
        spec, cspec = self.scene.object(name), self.scene.object(container)
        c = self.pos(container)
        rim = c[2] + cspec.half_height
        high = rim + 2 * spec.half_height + h.grip_m + 0.03  # the upright object clears the rim
        upright, _ = self._aim(c)
        # tilt about the hand's forward axis, so the object's body swings sideways, its mouth down
        tilted = mul_quat(upright, axis_quat((1.0, 0.0, 0.0), math.radians(h.pour_tilt_deg)))
        self.move(self._dur(tm.pour_move_s), np.array([c[0], c[1], high]), gaze=c)
        start = self.t
        self.move(self._dur(tm.pour_tilt_s), np.array([c[0], c[1], high]), tilted)
        self.move(self._dur(tm.pour_tilt_s) * 0.6, np.array([c[0], c[1], rim + h.pour_height_m]))
        hold = self._dur(tm.pour_hold_s)
        key = self.t + hold / 2
        self.hold(hold)
        self.move(self._dur(tm.pour_tilt_s), np.array([c[0], c[1], high]), upright)
        self._event("pour", name, container, start, key, self.t)

    def rest(self, duration_s: float | None = None) -> None:
        p = self._rest_point()
        self.move(duration_s or self._dur(self.cfg.timing.to_rest_s), p, yaw_quat(self._yaw_to(p)))

    def look_around(self, duration_s: float) -> None:
        """Idle glances at random objects on the table (what a person does before/after a task)."""
        end = self.t + duration_s
        while self.t < end - 1e-6:
            name = self.names[int(self.rng.integers(len(self.names)))]
            self.hold(min(end - self.t, float(self.rng.uniform(0.7, 1.5))), gaze=self.pos(name))

    def pause(self) -> None:
        lo, hi = self.cfg.timing.pause_s
        self.hold(float(self.rng.uniform(lo, hi)))

    def trace(self) -> DemoTrace:
        return self.rows.to_trace()

    def close(self) -> None:
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
