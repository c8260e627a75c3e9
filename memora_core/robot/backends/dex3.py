"""A Unitree Dex3-1 hand over the Unitree SDK (DDS): `rt/dex3/{left,right}/cmd` (unitree_hg HandCmd_, 7
motors in the SDK's order) out, `rt/dex3/{left,right}/state` (HandState_) in. Targets are clipped into the
finger joint ranges (memora_core.robot.hand) before they are sent; the grasp check reads the finger state:
the thumb and an opposing finger commanded closed but held short of it by the object.

The DDS participant must exist before a hand is made (ChannelFactoryInitialize, done by the G1 backend or
the caller: domain 0 on the robot's interface, domain 1 on `lo` with the sim bridge)."""
from __future__ import annotations

import threading
import time

from memora_core.errors import MemoraError
from memora_core.robot.hand import (FINGER_JOINTS, PRESS_PADS, TOUCH_THRESHOLD, HandPostures, Side, blocked_digits,
                                    clamp_to_ranges, grips_by_feel, touching_digits)

# Position-control gains the Dex3 takes per motor (Unitree's own examples use this order of magnitude).
KP, KD = 1.5, 0.1


class HandStateTimeout(MemoraError):
    """No HandState_ arrived from the hand within the wait."""


def motor_mode(motor: int, enable: bool = True, timeout: bool = False) -> int:
    """The HandCmd_ motor mode byte: motor id (4 bits), status (3 bits: 1 = enabled), timeout flag."""
    return (motor & 0x0F) | ((1 if enable else 0) << 4) | ((1 if timeout else 0) << 7)


def topics(side: Side | str) -> tuple[str, str]:
    s = Side(side).value
    return f"rt/dex3/{s}/cmd", f"rt/dex3/{s}/state"


class Dex3Hand:
    def __init__(self, side: Side | str, postures: HandPostures | None = None, kp: float = KP, kd: float = KD,
                 touch_threshold: float = TOUCH_THRESHOLD, press_pads: tuple[tuple[str, str], ...] = PRESS_PADS) -> None:
        from unitree_sdk2py.core.channel import ChannelPublisher, ChannelSubscriber
        from unitree_sdk2py.idl.default import unitree_hg_msg_dds__HandCmd_
        from unitree_sdk2py.idl.unitree_hg.msg.dds_ import HandCmd_, HandState_

        self.side = Side(side)
        self.postures = postures or HandPostures()
        self.kp, self.kd = kp, kd
        self.touch_threshold, self.press_pads = float(touch_threshold), tuple(tuple(p) for p in press_pads)
        cmd_topic, state_topic = topics(self.side)
        self._cmd = unitree_hg_msg_dds__HandCmd_()
        self._pub = ChannelPublisher(cmd_topic, HandCmd_)
        self._pub.Init()
        self._lock = threading.Lock()
        self._q: list[float] | None = None
        self._tau: list[float] | None = None
        self._press: list[list[float]] = []
        self.states = 0
        self.sent = 0
        self.target: list[float] | None = None
        self._sub = ChannelSubscriber(state_topic, HandState_)
        self._sub.Init(self._on_state, 10)

    def _on_state(self, msg) -> None:
        with self._lock:
            self._q = [float(msg.motor_state[i].q) for i in range(len(FINGER_JOINTS))]
            self._tau = [float(msg.motor_state[i].tau_est) for i in range(len(FINGER_JOINTS))]
            self._press = [[float(v) for v in p.pressure] for p in msg.press_sensor_state[:len(self.press_pads)]]
            self.states += 1

    # --- state ------------------------------------------------------------------------------------------
    def wait_for_state(self, timeout_s: float = 5.0) -> list[float]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            q = self.q()
            if q is not None:
                return q
            time.sleep(0.01)
        raise HandStateTimeout(f"no {topics(self.side)[1]} within {timeout_s:.1f} s")

    def q(self) -> list[float] | None:
        with self._lock:
            return None if self._q is None else list(self._q)

    def torque(self) -> list[float] | None:
        with self._lock:
            return None if self._tau is None else list(self._tau)

    # --- commands -----------------------------------------------------------------------------------------
    def command(self, q: list[float]) -> list[float]:
        """Send 7 finger targets (SDK order), clipped into the joint ranges; returns what was sent."""
        if len(q) != len(FINGER_JOINTS):
            raise ValueError(f"a Dex3 command has {len(FINGER_JOINTS)} targets, got {len(q)}")
        target = clamp_to_ranges(self.side, [float(v) for v in q], self.postures.margin)
        for i, v in enumerate(target):
            m = self._cmd.motor_cmd[i]
            m.mode, m.q, m.dq, m.tau, m.kp, m.kd = motor_mode(i), v, 0.0, 0.0, self.kp, self.kd
        self._pub.Write(self._cmd)
        self.sent += 1
        self.target = target
        return target

    def open(self) -> list[float]:
        return self.command(self.postures.open(self.side))

    def close(self) -> list[float]:
        return self.command(self.postures.closed(self.side))

    def settle(self, seconds: float, period_s: float = 0.02) -> None:
        """Keep re-sending the current target for `seconds` (the hand expects a steady command stream)."""
        end = time.monotonic() + seconds
        while self.target is not None and time.monotonic() < end:
            self.command(self.target)
            time.sleep(period_s)

    def touching(self) -> set[str]:
        """Digits whose tactile pads read contact (hand.touching_digits); none on a hand without pads."""
        with self._lock:
            press = [list(p) for p in self._press]
        return touching_digits(press, self.touch_threshold, self.press_pads)

    def blocked(self) -> set[str]:
        """Digits held short of their closing target by something between the fingers."""
        q = self.q()
        if q is None or self.target is None:
            return set()
        return blocked_digits(self.side, self.target, q)

    def grasping(self) -> bool:
        """The hand holds something, as its finger state says (hand.grips_by_feel)."""
        return grips_by_feel(self.blocked(), self.touching())

    def shutdown(self) -> None:
        self._sub.Close()
        self._pub.Close()
