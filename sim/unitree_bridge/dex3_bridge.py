"""The sim bridge's Dex3 side: serves `rt/dex3/{left,right}/cmd` (unitree_hg HandCmd_) by driving the
simulated hands' finger actuators (sim.dex3.Dex3Sim: torque-limited, within the joint ranges) and publishes
`rt/dex3/{left,right}/state` (HandState_: q, dq, tau_est per motor) from the simulated fingers, with the
tactile pads (press_sensor_state, hand.PRESS_PADS) reading the contact force on their links in N, spread evenly
over each pad's cells.

It runs as a bridge step observer (on the bridge thread, after each physics step): the latest command per
hand is applied to the actuators' targets, and the state goes out every `state_every` steps. A motor whose
mode byte does not say "enabled" keeps its previous target, as on the hand.

Grip: a real hand holds what it closes on by friction; the simulated fingers, position-servoed and
torque-limited, let objects slip. So when a hand is commanded closed and its thumb and an opposing finger
touch an object, the bridge holds that object with the scene's weld (SimRobot.palm_grasp, on that hand's arm),
and lets go when the hand is commanded open again; while the weld holds, the fingers press with at most
sim.dex3.HOLD_TORQUE_LIMIT (pressing harder they would twist the object in the soft weld). Nothing else makes a
grasp: no finger contact, no hold."""
from __future__ import annotations

import threading
from typing import Any

from memora_core.robot.backends.dex3 import topics
from memora_core.robot.hand import FINGER_JOINTS, Side, closing_digits, is_grasping
from sim.dex3 import HOLD_TORQUE_LIMIT, Dex3Sim


def _enabled(mode: int) -> bool:
    return bool((mode >> 4) & 0x07)


class Dex3Server:
    def __init__(self, robot: Any, state_every: int = 4) -> None:
        """Needs the DDS participant (ChannelFactoryInitialize) already made, as the bridge does first."""
        from unitree_sdk2py.core.channel import ChannelPublisher, ChannelSubscriber
        from unitree_sdk2py.idl.default import unitree_hg_msg_dds__HandState_
        from unitree_sdk2py.idl.unitree_hg.msg.dds_ import HandCmd_, HandState_

        self.hands = {side: Dex3Sim(robot.model, robot.data, side) for side in Side}
        layout = getattr(robot, "layout", None)
        names = list(layout.poses) if layout is not None else []
        self._object_of = {robot.model.body(robot.scene.object(n).body_name).id: n for n in names}
        self.held_by: Side | None = None  # the hand whose grip holds the robot's held object
        self.state_every = max(1, state_every)
        self._lock = threading.Lock()
        self._pending: dict[Side, list[tuple[bool, float]]] = {}
        self.commands = {side: 0 for side in Side}
        self._steps = 0
        self._pubs, self._subs, self._states = {}, {}, {}
        for side in Side:
            cmd_topic, state_topic = topics(side)
            pub = ChannelPublisher(state_topic, HandState_)
            pub.Init()
            sub = ChannelSubscriber(cmd_topic, HandCmd_)
            sub.Init(lambda msg, s=side: self._on_cmd(s, msg), 10)
            self._pubs[side], self._subs[side] = pub, sub
            self._states[side] = unitree_hg_msg_dds__HandState_()

    def _on_cmd(self, side: Side, msg: Any) -> None:
        cmd = [(_enabled(msg.motor_cmd[i].mode), float(msg.motor_cmd[i].q)) for i in range(len(FINGER_JOINTS))]
        with self._lock:
            self._pending[side] = cmd
            self.commands[side] += 1

    def __call__(self, robot: Any, sim_time_s: float) -> None:
        with self._lock:
            pending, self._pending = self._pending, {}
        for side, cmd in pending.items():
            hand = self.hands[side]
            hand.command([q if on else old for (on, q), old in zip(cmd, hand.target)])
        self._steps += 1
        if self._steps % self.state_every:
            return
        for side, hand in self.hands.items():
            self._grip(robot, side, hand)
        for side, hand in self.hands.items():
            state = self._states[side]
            q, dq, tau = hand.q(), hand.dq(), hand.torque()
            for i in range(len(FINGER_JOINTS)):
                m = state.motor_state[i]
                m.q, m.dq, m.tau_est = float(q[i]), float(dq[i]), float(tau[i])
            for pad, force in zip(state.press_sensor_state, hand.pad_forces()):
                pad.pressure = [force / len(pad.pressure)] * len(pad.pressure)
            self._pubs[side].Write(state)

    def _grip(self, robot: Any, side: Side, hand: Dex3Sim) -> None:
        """Hold what a closing hand has its thumb and a finger on; let go when that hand opens."""
        closing = is_grasping(closing_digits(side, hand.target, hand.postures))
        if self.held_by is side and not closing:
            robot.release()
            hand.limit_torque(hand.torque_limit)
            self.held_by = None
        elif self.held_by is None and closing and robot.held_object() is None:
            for body, digits in hand.contacts().items():
                name = self._object_of.get(body)
                if name is not None and is_grasping(digits):
                    robot.use_arm(side.value)  # nothing is held, so either arm may be chosen
                    if robot.palm_grasp(name, finger_reach=1.0):  # the fingers decide, not the palm's reach
                        hand.limit_torque(HOLD_TORQUE_LIMIT)  # the weld carries it (sim.dex3)
                        self.held_by = side
                    break

    def close(self) -> None:
        for side in Side:
            self._subs[side].Close()
            self._pubs[side].Close()
