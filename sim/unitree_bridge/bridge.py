"""Sim bridge process: subscribes `rt/lowcmd` (unitree_hg LowCmd_), applies the 29 body motors' position
targets to the simulated G1's position servos, steps physics and publishes `rt/lowstate` (LowState_, with
CRC) at the physics rate. Domain 1 on `lo` in simulation; the real G1 uses domain 0 on its interface.

    python -m sim.unitree_bridge.bridge --domain 1 --interface lo --seconds 30
"""
from __future__ import annotations

import argparse
import logging
import signal
import threading
import time
from dataclasses import dataclass

log = logging.getLogger(__name__)


@dataclass
class BridgeStats:
    """Live counters of a running bridge: another thread (e.g. the ROS `sim_bridge` node) may read them."""

    published: int = 0  # LowState frames written
    commands: int = 0   # LowCmd frames accepted (CRC ok)
    rejected: int = 0   # LowCmd frames dropped for a bad CRC
    started: float = 0.0  # time.monotonic() when the loop started

    def rate_hz(self) -> float:
        elapsed = time.monotonic() - self.started
        return self.published / elapsed if self.started and elapsed > 0 else 0.0


def run(domain: int, interface: str, seconds: float, seed: int = 0, real_time: bool = True,
        stop: threading.Event | None = None, stats: BridgeStats | None = None,
        robot_config: str = "sim_g1") -> dict:
    """Bridge until `seconds` pass or `stop` is set. Without `stop` (a plain process) SIGINT sets one;
    a caller running this off the main thread passes its own, since only the main thread may own signals."""
    import mujoco
    from unitree_sdk2py.core.channel import ChannelFactoryInitialize, ChannelPublisher, ChannelSubscriber
    from unitree_sdk2py.idl.default import unitree_hg_msg_dds__LowState_
    from unitree_sdk2py.idl.unitree_hg.msg.dds_ import LowCmd_, LowState_
    from unitree_sdk2py.utils.crc import CRC

    from memora_core.robot import make_robot
    from sim.g1 import BODY_JOINTS_29

    robot = make_robot(robot_config, seed=seed, objects=[])  # the bridge drives the body; objects are irrelevant
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
            stats.commands += 1

    ChannelFactoryInitialize(domain, interface)
    pub = ChannelPublisher("rt/lowstate", LowState_)
    pub.Init()
    sub = ChannelSubscriber("rt/lowcmd", LowCmd_)
    sub.Init(on_cmd, 10)
    state = unitree_hg_msg_dds__LowState_()
    t_end = time.monotonic() + seconds
    published = 0
    t0 = stats.started = time.monotonic()
    if stop is None:
        stop = threading.Event()
        signal.signal(signal.SIGINT, lambda *_: stop.set())  # SIGINT ends the bridge cleanly, with statistics
    while time.monotonic() < t_end and not stop.is_set():
        with lock:
            q = latest.get("q")
            mode = latest.get("mode")
            tau = latest.get("tau")
        if q is not None:
            for i, a in enumerate(act):
                if mode[i]:  # mode 0: motor disabled, hold the current target
                    d.ctrl[a] = q[i]
                    d.qfrc_applied[vadr[i]] = tau[i]  # the command's feed-forward torque, as the drivers add it
        mujoco.mj_step(m, d)
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
        published += 1
        stats.published = published
    rate = published / (time.monotonic() - t0)
    sub.Close()
    pub.Close()
    log.info("bridge: %d LowState at %.0f Hz, %d LowCmd received", published, rate, stats.commands)
    return {"published": published, "rate_hz": rate, "commands": stats.commands}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Unitree G1 DDS bridge over the MuJoCo simulation")
    p.add_argument("--domain", type=int, default=1)
    p.add_argument("--interface", default="lo")
    p.add_argument("--seconds", type=float, default=3600.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--free-run", action="store_true", help="step physics as fast as possible (not real time)")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    stats = run(args.domain, args.interface, args.seconds, args.seed, real_time=not args.free_run)
    print(f"published {stats['published']} LowState at {stats['rate_hz']:.0f} Hz; received {stats['commands']} LowCmd")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
