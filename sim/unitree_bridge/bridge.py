"""Sim bridge process: subscribes `rt/lowcmd` (unitree_hg LowCmd_), applies the 29 body motors' position
targets to the simulated G1's position servos, steps physics and publishes `rt/lowstate` (LowState_, with
CRC) at the physics rate. Domain 1 on `lo` in simulation; the real G1 uses domain 0 on its interface.

The MuJoCo world is the kitchen with its objects laid out by a layout seed (as the controller's sim
backend lays them out), so the simulator node built on this (`memora.nodes.sim_bridge`) can publish ground
truth and a head camera from the same physics the robot moves in. Observers run on the bridge thread after
every step; the head camera renders on its own thread from a copy of the state, so a software-GL render
(~70 ms at 320x240 on this CPU) never holds up a LowState frame.

    python -m sim.unitree_bridge.bridge --domain 1 --interface lo --seconds 30 --layout-seed 1000
"""
from __future__ import annotations

import argparse
import json
import logging
import math
import signal
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

# Called on the bridge thread after each physics step with (robot, simulated seconds since the start).
# It must be quick (the loop runs at 200 Hz) and must not step physics.
StepObserver = Callable[[Any, float], None]


@dataclass
class BridgeStats:
    """Live counters of a running bridge: another thread (e.g. the ROS `sim_bridge` node) may read them."""

    published: int = 0  # LowState frames written
    commands: int = 0   # LowCmd frames accepted (CRC ok)
    rejected: int = 0   # LowCmd frames dropped for a bad CRC
    started: float = 0.0  # time.monotonic() when the loop started
    max_gap_s: float = 0.0  # longest wall time between two LowState frames since a reader last reset it

    def rate_hz(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.published / elapsed if self.started and elapsed > 0 else 0.0


def make_bridge_robot(robot_config: str = "sim_g1", layout_seed: int | None = None,
                      poses: dict[str, tuple[float, float, float]] | None = None) -> Any:
    """The simulated G1 the bridge steps: in the kitchen laid out by `layout_seed` (the controller's
    sample_layout), with the objects of `poses` at (x, y, yaw) instead when given, or alone (no objects)."""
    from memora_core.robot import load_robot_config, make_robot

    cfg = load_robot_config(robot_config)
    if poses is not None:
        from sim.scene import Layout

        return make_robot(cfg, layout=Layout(seed=layout_seed or 0, poses=poses))
    if layout_seed is None:
        return make_robot(cfg, objects=[])
    from sim.scene.config import load_scene_config
    from sim.scene.layout import sample_layout

    return make_robot(cfg, layout=sample_layout(load_scene_config(cfg.scene_path()), layout_seed))


def ground_truth(robot: Any, sim_time_s: float) -> dict:
    """What the simulator knows: object positions (world frame, m) and the held object. The same JSON the
    controller node publishes on /memora/sim/ground_truth for a simulated robot."""
    objs = {o.name: [round(v, 4) for v in o.position] for o in robot.scene_objects()}
    return {"sim_time_s": round(sim_time_s, 3), "held": robot.held_object(), "objects": objs}


class HeadCamera:
    """Head camera rendered on its own thread from a snapshot of the bridge's state.

    `request` (bridge thread) copies qpos and returns at once; the render thread poses its own MjData
    from it and renders. A request arriving while a frame renders replaces the pending one, so a slow
    renderer lowers the frame rate instead of queueing stale frames. MuJoCo releases the GIL while
    rendering, so the bridge loop keeps its pace. The GL context is made and warmed up (shader compile)
    in __init__, before the caller's loop starts."""

    def __init__(self, model: Any, width: int, height: int, on_frame: Callable[[Any, float], None],
                 hide_robot: bool = True) -> None:
        import mujoco

        self._model, self._size, self._on_frame, self._hide_robot = model, (width, height), on_frame, hide_robot
        self._data = mujoco.MjData(model)
        self._cv = threading.Condition()
        self._pending: tuple[Any, float] | None = None
        self._stop = False
        self._ready = threading.Event()
        self.error: BaseException | None = None
        self.frames = 0
        self.render_s = 0.0  # total wall time spent rendering (mean per frame = render_s / frames)
        self._thread = threading.Thread(target=self._run, name="head_camera", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self.error is not None:
            raise RuntimeError(f"head camera renderer failed to start: {self.error!r}") from self.error

    def request(self, data: Any, sim_time_s: float) -> None:
        with self._cv:
            self._pending = (data.qpos.copy(), sim_time_s)
            self._cv.notify()

    def _render(self, renderer: Any, option: Any) -> Any:
        from sim.g1 import HEAD_CAMERA

        renderer.update_scene(self._data, camera=HEAD_CAMERA, scene_option=option)
        return renderer.render()

    def _run(self) -> None:
        import mujoco

        renderer = None
        try:
            renderer = mujoco.Renderer(self._model, self._size[1], self._size[0])
            option = mujoco.MjvOption()
            option.geomgroup[2] = 0 if self._hide_robot else 1  # the robot's visual meshes are group 2
            mujoco.mj_forward(self._model, self._data)
            self._render(renderer, option)  # the first render compiles shaders: do it before the loop runs
        except BaseException as exc:  # noqa: BLE001 - handed to __init__, which raises it
            self.error = exc
        self._ready.set()
        try:
            while renderer is not None and self.error is None:
                with self._cv:
                    while self._pending is None and not self._stop:
                        self._cv.wait()
                    if self._stop:
                        return
                    qpos, sim_time_s = self._pending
                    self._pending = None
                t0 = time.perf_counter()
                self._data.qpos[:] = qpos
                mujoco.mj_forward(self._model, self._data)
                img = self._render(renderer, option)
                self.render_s += time.perf_counter() - t0
                self.frames += 1
                self._on_frame(img, sim_time_s)
        except BaseException as exc:  # noqa: BLE001 - the owner checks `error` and reports it
            self.error = exc
        finally:
            if renderer is not None:
                renderer.close()

    def close(self) -> None:
        with self._cv:
            self._stop = True
            self._cv.notify()
        self._thread.join(timeout=10)


def run(domain: int, interface: str, seconds: float, seed: int | None = None, real_time: bool = True,
        stop: threading.Event | None = None, stats: BridgeStats | None = None,
        robot_config: str = "sim_g1", robot: Any = None, observers: Sequence[StepObserver] = (),
        hands: bool = True) -> dict:
    """Bridge until `seconds` pass or `stop` is set. Without `stop` (a plain process) SIGINT sets one;
    a caller running this off the main thread passes its own, since only the main thread may own signals.

    `robot` is the simulated G1 to step (default: make_bridge_robot(robot_config, seed), seed being the
    kitchen's layout seed, None = no objects); `observers` run after every step on this thread. `hands`:
    also serve the Dex3 hands on rt/dex3/{left,right}/cmd|state (sim/unitree_bridge/dex3_bridge.py)."""
    import mujoco
    from unitree_sdk2py.core.channel import ChannelFactoryInitialize, ChannelPublisher, ChannelSubscriber
    from unitree_sdk2py.idl.default import unitree_hg_msg_dds__LowState_
    from unitree_sdk2py.idl.unitree_hg.msg.dds_ import LowCmd_, LowState_
    from unitree_sdk2py.utils.crc import CRC

    from sim.g1 import BODY_JOINTS_29

    robot = robot if robot is not None else make_bridge_robot(robot_config, seed)
    m, d = robot.model, robot.data
    act = [m.actuator(n).id for n in BODY_JOINTS_29]
    qadr = [m.joint(n).qposadr[0] for n in BODY_JOINTS_29]
    vadr = [m.joint(n).dofadr[0] for n in BODY_JOINTS_29]
    crc = CRC()
    stats = stats if stats is not None else BridgeStats()
    latest: dict = {}
    lock = threading.Lock()

    def on_cmd(msg: LowCmd_) -> None:
        if crc.Crc(msg) != msg.crc:
            log.warning("dropping LowCmd with bad CRC")
            stats.rejected += 1
            return
        with lock:
            latest["q"] = [msg.motor_cmd[i].q for i in range(len(BODY_JOINTS_29))]
            latest["mode"] = [msg.motor_cmd[i].mode for i in range(len(BODY_JOINTS_29))]
            latest["tau"] = [msg.motor_cmd[i].tau for i in range(len(BODY_JOINTS_29))]
            latest["dq"] = [msg.motor_cmd[i].dq for i in range(len(BODY_JOINTS_29))]
            stats.commands += 1

    ChannelFactoryInitialize(domain, interface)
    pub = ChannelPublisher("rt/lowstate", LowState_)
    pub.Init()
    sub = ChannelSubscriber("rt/lowcmd", LowCmd_)
    sub.Init(on_cmd, 10)
    dex3 = None
    if hands:  # the Dex3 hands' topics, served from the same physics
        from sim.unitree_bridge.dex3_bridge import Dex3Server

        dex3 = Dex3Server(robot)
        observers = [dex3, *observers]
    state = unitree_hg_msg_dds__LowState_()
    t_end = time.monotonic() + seconds
    published = 0
    t0 = last_write = stats.started = time.monotonic()
    if stop is None:
        stop = threading.Event()
        signal.signal(signal.SIGINT, lambda *_: stop.set())  # SIGINT ends the bridge cleanly, with statistics
    while time.monotonic() < t_end and not stop.is_set():
        with lock:
            q = latest.get("q")
            mode = latest.get("mode")
            tau = latest.get("tau")
            dq = latest.get("dq")
        if q is not None:
            for i, a in enumerate(act):
                if mode[i]:  # mode 0: motor disabled, hold the current target
                    # kp (q - q_m) + kd (dq - dq_m), with the model's actuator gains: the commanded velocity is a
                    # lead of kd / kp seconds on the position actuator's target (SimRobot does the same).
                    d.ctrl[a] = q[i] + robot.servo_lead_s[a] * dq[i] if math.isfinite(dq[i]) else q[i]
                    d.qfrc_applied[vadr[i]] = tau[i]  # the command's feed-forward torque, as the drivers add it
        mujoco.mj_step(m, d)
        for observer in observers:
            observer(robot, (published + 1) * m.opt.timestep)
        if real_time:  # like the robot: physics time keeps pace with wall-clock time, never runs ahead
            ahead = published * m.opt.timestep - (time.monotonic() - t0)
            if ahead > 0:
                time.sleep(ahead)
        for i in range(len(BODY_JOINTS_29)):
            state.motor_state[i].q = float(d.qpos[qadr[i]])
            state.motor_state[i].dq = float(d.qvel[vadr[i]])
        state.tick = published
        state.crc = crc.Crc(state)
        pub.Write(state)
        now = time.monotonic()
        stats.max_gap_s = max(stats.max_gap_s, now - last_write)
        last_write = now
        published += 1
        stats.published = published
    rate = published / (time.monotonic() - t0)
    sub.Close()
    pub.Close()
    if dex3 is not None:
        dex3.close()
    log.info("bridge: %d LowState at %.0f Hz, %d LowCmd received", published, rate, stats.commands)
    return {"published": published, "rate_hz": rate, "commands": stats.commands}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Unitree G1 DDS bridge over the MuJoCo simulation")
    p.add_argument("--domain", type=int, default=1)
    p.add_argument("--interface", default="lo")
    p.add_argument("--seconds", type=float, default=3600.0)
    p.add_argument("--layout-seed", type=int, default=None,
                   help="lay the kitchen's objects out with this seed (default: the robot alone, no objects)")
    p.add_argument("--poses-json", default=None,
                   help='objects at given places instead: {"name": [x, y, yaw], ...} (world frame, m, rad)')
    p.add_argument("--ground-truth-out", type=Path, default=None,
                   help="on exit, write what the simulator knows (object positions, held object) here as JSON")
    p.add_argument("--free-run", action="store_true", help="step physics as fast as possible (not real time)")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    try:
        poses = None if args.poses_json is None else {k: tuple(float(v) for v in xyz)
                                                      for k, xyz in json.loads(args.poses_json).items()}
        robot = make_bridge_robot("sim_g1", args.layout_seed, poses)
    except (ValueError, TypeError, AttributeError, KeyError) as e:
        p.error(f"--poses-json: {e}")
    stats = run(args.domain, args.interface, args.seconds, args.layout_seed, real_time=not args.free_run, robot=robot)
    if args.ground_truth_out is not None:
        args.ground_truth_out.write_text(json.dumps(ground_truth(robot, stats["published"] * robot.model.opt.timestep)))
    print(f"published {stats['published']} LowState at {stats['rate_hz']:.0f} Hz; received {stats['commands']} LowCmd")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
