"""The real Unitree G1 as a `Robot` over the Unitree SDK (DDS): the same rule-based controller drives it by
publishing `rt/lowcmd` (unitree_hg LowCmd_, CRC-stamped) and reading `rt/lowstate`. On hardware this talks
to the G1 (domain 0, the robot's interface); in simulation to `python -m sim.unitree_bridge.bridge`
(domain 1, `lo`).

What the controller side computes locally (backends/g1_kinematics.py, fed with the measured joints): forward
kinematics, mink IK, gravity torques, a kinematic clearance check of postures against the table of the configured
scene (its pose is part of the kitchen's description, as the controller's table height is) and the objects the
object source reports, and the motion library's planner on a snapshot of that scene. Without them the controller
would plan blind: hook the fingers under the table's front edge on the way out of the tuck, or sweep a neighbour
into the object it reaches for. Joint position/velocity limits and the e-stop are
enforced by `Robot.command()` before anything is published, and again here: a move streams one frame per
command period from the last published frame (JointTrajectory: a duration too short for the velocity limit
is stretched, never squeezed), frames are paced at least one period apart (a stalled loop slows the arm
down, it never catches up in a burst), and `_publish` refuses any frame outside the joint ranges or
moving a joint more than `max_velocity * period` from the last one.

The Dex3 hands (config `dex3`, backends/dex3.py): `grasp()` closes the current arm's hand, streams the
closed posture for `dex3.close_s` and reports a grasp only when the finger state says so (thumb and an
opposing finger held short of closed); otherwise it opens the hand again. Without a `dex3` section
`grasp()` is False.

Objects come from an object source (`objects`: e.g. memora_core.perception.scene.tracker.ObjectTracker fed by
the head RGB-D scene model); without one `scene_objects()` is empty and pick/place report `object_missing`."""
from __future__ import annotations

import logging
import threading
import time
from typing import Callable

import numpy as np

from memora_core.robot.hand import (CLOSE_S, GUARD_POLL_S, SWEEP_S, clamp_to_ranges, closes_by_sweep,
                                    guarded_close_step, is_grasping, lets_go_thumb_first, letting_go_path, sweep_path)
from memora_core.robot.hand_pinch import Pinch, pinch_from
from memora_core.robot.limits import LimitCause, LimitViolation, finite_number
from memora_core.robot.look_around import LOOK_AROUND, LOOK_SETTLE_S, look_joints
from memora_core.robot.robot import MotionReport, Robot, RobotConfig, SceneObject
from memora_core.robot.trajectory import JointTrajectory
from memora_core.robot.backends.g1_kinematics import G1Kinematics
from sim.g1 import BODY_JOINTS_29, LEG_JOINTS

log = logging.getLogger(__name__)

ObjectSource = Callable[[], list[SceneObject]]

# An object source that counts the frames it took in (`updates`, as the tracker does) is waited on for new ones:
# each head viewpoint gets this many (the first may have been taken on the way there), each within FRAME_WAIT_S of
# the last; a source that stops sending frames is not waited on for longer. (On this 2-core machine the simulated
# G1's scene models came slowly: two of layout 98003's viewpoints got no new one within 3 s. The scene model node
# sends at most `max_hz`, 2, a second.)
FRAMES_PER_VIEW = 2
FRAME_WAIT_S = 5.0


class UnitreeG1Robot(G1Kinematics, Robot):
    def __init__(self, config: RobotConfig, domain: int | None = None, interface: str | None = None,
                 state_timeout_s: float = 10.0, objects: ObjectSource | None = None, **_: object) -> None:
        super().__init__(config)
        from unitree_sdk2py.idl.default import unitree_hg_msg_dds__LowCmd_
        from unitree_sdk2py.utils.crc import CRC

        dds = config.dds
        if dds is None or config.gains is None:
            raise ValueError("the unitree_g1 robot config needs `dds` and `gains` sections")
        self.domain = dds.domain if domain is None else domain
        self.interface = dds.interface if interface is None else interface
        self.period = 1.0 / dds.command_hz
        self._build_kinematics(config)
        self._objects = objects
        self._crc = CRC()
        self._cmd = unitree_hg_msg_dds__LowCmd_()
        self._state_lock = threading.Lock()
        self._q: np.ndarray | None = None
        self._dq: np.ndarray | None = None
        self._states = 0
        self._bad_crc = 0
        self._target: dict[str, float] = {}  # the last published joint targets (all body joints)
        self._last_frame_at = -float("inf")
        self.published = 0

        self._held: str | None = None
        self._held_object: SceneObject | None = None
        self._held_offset = np.zeros(3)  # the held object's centre in the palm's frame at the grasp
        self._held_rotation = np.eye(3)  # ... and its orientation there (it was standing when grasped)
        self._let_go: dict[str, SceneObject] = {}
        # scene_objects() is also asked from the object tracker's thread (its hand zones): `_let_go` changes under it
        self._let_go_lock = threading.Lock()
        self.hands: dict[str, object] = {}
        self._open_channels()
        self.wait_for_state(state_timeout_s)
        if config.dex3 is not None:
            from memora_core.robot.backends.dex3 import Dex3Hand

            d = config.dex3
            self.hands = {side: Dex3Hand(side, touch_threshold=d.touch_threshold, press_pads=tuple(d.press_pads))
                          for side in config.arms}
            for hand in self.hands.values():
                hand.wait_for_state(config.dex3.state_timeout_s)
                hand.open()
        # Start by holding where the robot is (clipped into the safe ranges: a joint may rest on a stop).
        margin = config.limits.position_margin
        self._target = {n: float(np.clip(v, lo + margin, hi - margin)) for n, v in self.joint_positions().items()
                        for lo, hi in [self.limits.ranges[n]]}

    # --- DDS -------------------------------------------------------------------------------------------
    def _open_channels(self) -> None:
        """`rt/lowcmd` publisher and `rt/lowstate` subscriber (`_on_state`) on the configured domain."""
        from unitree_sdk2py.core.channel import ChannelFactoryInitialize, ChannelPublisher, ChannelSubscriber
        from unitree_sdk2py.idl.unitree_hg.msg.dds_ import LowCmd_, LowState_

        ChannelFactoryInitialize(self.domain, self.interface)
        self._pub = ChannelPublisher("rt/lowcmd", LowCmd_)
        self._pub.Init()
        self._sub = ChannelSubscriber("rt/lowstate", LowState_)
        self._sub.Init(self._on_state, 10)

    def _now(self) -> float:
        return time.monotonic()

    def _sleep(self, seconds: float) -> None:
        time.sleep(seconds)

    def _pace(self) -> None:
        """Wait until one command period has passed since the last frame; never less (no catch-up bursts)."""
        self._sleep(max(0.0, self._last_frame_at + self.period - self._now()))

    def _on_state(self, msg) -> None:
        if self._crc.Crc(msg) != msg.crc:
            self._bad_crc += 1  # a corrupted frame is dropped, never acted on
            return
        n = len(BODY_JOINTS_29)
        q = np.array([msg.motor_state[i].q for i in range(n)])
        dq = np.array([msg.motor_state[i].dq for i in range(n)])
        with self._state_lock:
            self._q, self._dq = q, dq
            self._states += 1

    def wait_for_state(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            with self._state_lock:
                if self._q is not None:
                    return
            time.sleep(0.01)
        raise TimeoutError(f"no rt/lowstate on domain {self.domain} ({self.interface}) within {timeout_s:.0f} s")

    @property
    def states_received(self) -> int:
        with self._state_lock:
            return self._states

    def _publish(self, target: dict[str, float], hold: bool = False) -> None:
        """One LowCmd frame: every body motor in position mode, commanded joints at `target`, the rest held
        at their last target. The last line of defence: a frame with a target that is not a finite number
        inside the joint ranges, or (unless `hold`: the e-stop commanding the measured joints) one that moves
        a joint more than `max_velocity * period` from the last frame, is never sent."""
        ranges = self.limits.ranges
        margin = self.config.limits.position_margin
        step = self.config.limits.max_velocity * self.period * (1 + 1e-9) + 1e-12
        frame = {name: finite_number(target.get(name, self._target.get(name))) for name in BODY_JOINTS_29}
        for name, q in frame.items():
            lo, hi = ranges[name]
            if q is None:
                raise LimitViolation(LimitCause.BAD_TARGET, f"{name}: refusing to publish target "
                                     f"{target.get(name, self._target.get(name))!r}", name)
            if not (lo + margin - 1e-6 <= q <= hi - margin + 1e-6):
                raise LimitViolation(LimitCause.OUT_OF_RANGE, f"{name}: refusing to publish target {q}", name)
            if not hold and name in self._target and abs(q - self._target[name]) > step:
                raise LimitViolation(LimitCause.TOO_FAST, f"{name}: refusing a frame step of "
                                     f"{abs(q - self._target[name]):.4f} rad in {self.period:.4f} s", name)
        g = self.config.gains
        tau = self._gravity_torques() if self.config.physics.servo_feedforward else {}
        # The frame's joint velocity (from the last frame), so the drivers' kd acts on the tracking error's rate;
        # zero for a hold (the e-stop) and before the first frame.
        lead = self.config.physics.velocity_feedforward and not hold
        for i, name in enumerate(BODY_JOINTS_29):
            q = frame[name]
            m = self._cmd.motor_cmd[i]
            m.mode = 1
            m.q = float(q)
            m.dq = float((q - self._target[name]) / self.period) if lead and name in self._target else 0.0
            m.tau = float(tau.get(name, 0.0))
            leg = name in LEG_JOINTS
            m.kp = g.kp_leg if leg else g.kp_arm
            m.kd = g.kd_leg if leg else g.kd_arm
        self._cmd.crc = self._crc.Crc(self._cmd)
        self._pub.Write(self._cmd)
        self._last_frame_at = self._now()
        self._target = frame
        self.published += 1
        if self.hands and self.published % self.config.dex3.command_every == 0:
            for hand in self.hands.values():  # the hands expect a steady command stream too
                if hand.target is not None:
                    hand.command(hand.target)

    # --- Robot interface -------------------------------------------------------------------------------
    def joint_positions(self) -> dict[str, float]:
        with self._state_lock:
            q = None if self._q is None else self._q.copy()
        if q is None:
            raise TimeoutError("no rt/lowstate received yet")
        return {n: float(v) for n, v in zip(BODY_JOINTS_29, q)}

    @property
    def object_source(self) -> ObjectSource | None:
        return self._objects

    @property
    def perceived_scene(self) -> bool:
        return self._objects is not None

    def known_objects(self) -> list[SceneObject]:
        """The object source's catalogue where it keeps one (the tracker does: the kitchen's objects), else what it
        reports now."""
        catalogue = getattr(self._objects, "catalogue", None)
        return list(catalogue) if catalogue is not None else self.scene_objects()

    def scene_objects(self) -> list[SceneObject]:
        """The object source's objects; the held one where the hand has it (its offset from the palm at the
        grasp), one let go where it was let go until the source sees it again."""
        seen = {o.name: o for o in (self._objects() if self._objects else [])}
        with self._let_go_lock:
            for name in [n for n in self._let_go if n in seen]:
                del self._let_go[name]  # seen again: the sighting is newer than where it was let go
            out = {**seen, **self._let_go}
        if self._held is not None and self._held_object is not None:
            out[self._held] = self._held_object.model_copy(
                update={"position": tuple(float(v) for v in self._in_hand(self._held_offset))})
        return list(out.values())

    def _in_hand(self, offset: np.ndarray) -> np.ndarray:
        """A point given in the palm's frame, in the world: the grasp is rigid, so the held object turns with the
        palm (a pour tips it; its tilt is what the pour checks)."""
        return self.hand_position() + self._palm_rotation(self.arm) @ offset

    def object_pose(self, name: str) -> tuple[np.ndarray, np.ndarray] | None:
        if name == self._held and self._held_object is not None:
            return self._in_hand(self._held_offset), self._palm_rotation(self.arm) @ self._held_rotation
        for o in self.scene_objects():
            if o.name == name and o.position is not None:
                return np.array(o.position), o.standing_rotation()
        return None

    def _move(self, target: dict[str, float], duration_s: float) -> MotionReport:
        """Stream the move from the last published frame, one frame per command period (smooth start and
        stop; stretched to the velocity limit when `duration_s` is too short), then hold the goal until the
        joints arrive or `motion.settle_s` passes. The e-stop is polled every frame: on it, the measured pose
        is held at once."""
        names = list(target)
        path = JointTrajectory([[self._target[n] for n in names], [target[n] for n in names]], [duration_s],
                               self.period, self.config.limits.max_velocity)
        track_end = None
        k = 0
        while True:
            if self.estop.engaged:
                self._hold_measured()
                return MotionReport(completed=False, stopped_by_estop=True)
            self._pace()
            self._publish(dict(zip(names, path[k].tolist())))
            k += 1
            if k >= len(path):
                track_end = track_end if track_end is not None else self._now() + self.config.motion.settle_s
                if self._now() >= track_end or self._arrived(target):
                    return MotionReport(completed=True)

    def _arrived(self, target: dict[str, float], tol: float = 0.02) -> bool:
        q = self.joint_positions()
        return all(abs(q[n] - v) < tol for n, v in target.items())

    def _hold_measured(self) -> None:
        """E-stop: command the measured joint positions (clipped into range) so the arm stops where it is."""
        q = self.joint_positions()
        margin = self.config.limits.position_margin
        held = {n: float(np.clip(v, lo + margin, hi - margin)) for n, v in q.items()
                for lo, hi in [self.limits.ranges[n]]}
        self._publish(held, hold=True)

    def grasp(self, name: str, finger_reach: float = 0.0) -> bool:
        """Close the current arm's Dex3 hand and keep it closed if the fingers say they hold something
        (`finger_reach` is for palm-reach backends: on a real hand the finger state decides)."""
        hand = self.hands.get(self.arm)
        if hand is None or self._held is not None or self.config.dex3 is None:
            return False
        # Where the object was seen before the fingers close on it (as the in-process perceiving robot takes it):
        # while they close, the hand hides it and may nudge it, and the object source's view of it is not to be
        # relied on (an object source may stop reporting it).
        known = next((o for o in self.scene_objects() if o.name == name and o.position is not None), None)
        if closes_by_sweep(hand.side, self._palm_rotation(self.arm)) and hand.target is not None:
            # The rolled hand (palm toward the table, a flat or low object's pinch): the thumb stays a wall behind
            # the object while the index and middle sweep it against the thumb over SWEEP_S (hand.sweep_path, as
            # the simulation closes it), then the whole hand closes: the thumb, pressing on the object, stops
            # short, which is what the finger state reads as a grasp. The sweep stops once the pads feel the thumb and
            # a finger on it (as the simulation's close does): sweeping on, the fingers slide a thin object out of
            # the pinch before the full close grips it (a spoon beside a cup, over DDS).
            path = sweep_path(hand.side, list(hand.target), hand.postures)
            for target in path:
                hand.command(target)
                self.settle(SWEEP_S / len(path))
                if is_grasping(hand.touching()):
                    break
        else:
            self._close_guarded(hand)
        hand.close()
        self.settle(self.config.dex3.close_s)
        if not hand.grasping():
            if not self.estop.engaged:  # under an e-stop nothing moves, the fingers included
                hand.open()
                self.settle(self.config.dex3.open_s)
            return False
        self._held = name
        self._held_object = known
        palm = self._palm_rotation(self.arm)
        self._held_offset = palm.T @ (np.asarray(known.position) - self.hand_position()) if known else np.zeros(3)
        # standing on the table at the grasp (as the scene model sees objects), turned as it was seen
        self._held_rotation = palm.T @ (known.standing_rotation() if known else np.eye(3))
        self._forget_sightings(name)  # its place on the table is stale now: it moves with the hand
        return True

    def held_at(self, point: np.ndarray) -> None:
        if self._held is not None:
            self._held_offset = self._palm_rotation(self.arm).T @ (np.asarray(point, float) - self.hand_position())

    def finger_pinch(self) -> Pinch | None:
        if self.hands.get(self.arm) is None:
            return None
        self._fk()  # the measured body and finger joints
        return pinch_from(self.model, self.data, self.arm)

    def _close_guarded(self, hand) -> None:  # noqa: ANN001 - backends.dex3.Dex3Hand
        """Close `hand` over CLOSE_S in GUARD_POLL_S steps (hand.guarded_close_step), each digit stopping where its
        tactile pads read contact: the first digit to meet the object holds it in place instead of shoving it over
        before the thumb is on it (as the simulation closes a hand, sim.dex3). A hand without pads reads no contact
        and just closes over CLOSE_S; the full close that follows makes the grip either way."""
        target = list(hand.target) if hand.target is not None else hand.postures.open(hand.side)
        for _ in range(max(1, round(CLOSE_S / GUARD_POLL_S))):
            touching = hand.touching()
            if is_grasping(touching):
                return  # thumb and a finger on it: the full close grips it where it stands
            target = guarded_close_step(hand.side, target, touching, GUARD_POLL_S, hand.postures)
            hand.command(target)
            self.settle(GUARD_POLL_S)

    def _forget_sightings(self, name: str) -> None:
        """Tell the object source (when it keeps sightings, as the tracker does) that what it saw of `name` is stale."""
        forget = getattr(self._objects, "forget", None)
        if callable(forget):
            forget(name)

    def came_to_rest(self, name: str, position: np.ndarray) -> None:
        with self._let_go_lock:
            kept = self._let_go.get(name)
            if kept is None:
                return  # seen since: the view is newer than any estimate
            rest = kept.model_copy(update={"position": tuple(float(v) for v in position)})
            self._let_go[name] = rest
        put = getattr(self._objects, "put", None)
        if callable(put):
            put(rest)

    def release(self) -> str | None:
        let_go = None
        if self._held is not None and self._held_object is not None:
            at = self._in_hand(self._held_offset)
            let_go = self._held_object.model_copy(update={"position": tuple(float(v) for v in at)})
            with self._let_go_lock:
                self._let_go[self._held] = let_go
        name, self._held, self._held_object = self._held, None, None
        if name is not None:
            # What the source saw of it until now (in the hand on the way, or a frame from before the grasp that
            # came in late) is stale: it is where it was let go until a newer frame sees it (a source that keeps
            # sightings keeps it there, so that a part of a look-alike elsewhere does not move it).
            put = getattr(self._objects, "put", None)
            if let_go is not None and callable(put):
                put(let_go)
            else:
                self._forget_sightings(name)
        hand = self.hands.get(self.arm)
        if hand is not None and self.config.dex3 is not None:
            # The digits stop pressing where they are, then open in turn (hand.letting_go_path): the index and
            # middle first, the thumb first where the fingers slant down under the object (a tilted grasp).
            measured = hand.q() or hand.target or hand.postures.closed(hand.side)
            path = letting_go_path(hand.side, list(measured), hand.postures,
                                   thumb_first=lets_go_thumb_first(self._palm_rotation(self.arm)))
            for target in path:
                hand.command(target)
                self.settle(self.config.dex3.open_s / len(path))
        return name

    def shape_hand(self, arm: str, thumb: float, fingers: float) -> bool:
        """Pre-shape the empty Dex3 hand of `arm` (HandPostures.shaped) and give the fingers `dex3.open_s` to get
        there; False without a hand, while one is held, under an e-stop, or when it is in that shape already."""
        hand = self.hands.get(arm)
        if hand is None or self.config.dex3 is None or self._held is not None or self.estop.engaged:
            return False
        target = clamp_to_ranges(hand.side, hand.postures.shaped(hand.side, thumb, fingers), hand.postures.margin)
        if hand.target is not None and max(abs(a - b) for a, b in zip(target, hand.target)) < 1e-6:
            return False
        hand.command(target)
        self.settle(self.config.dex3.open_s)
        return True

    def look(self, around: bool = False) -> bool:
        """A fresh frame of the table from the object source (its next one); with `around` and the hand empty, also
        frames from each of LOOK_AROUND's waist postures in turn, then back to where the waist was. The frames
        arrive from the head camera on their own; the tracker keeps what each saw (an object seen only from a turned
        waist stays where it was seen). False without an object source, or with one that never took in a frame (no
        camera feeds it: there is nothing to look with)."""
        if self._objects is None or self._frames_taken() == 0:
            return False
        self._await_frames(1)
        if around and self._held is None and not self.estop.engaged:
            start = {j: self._target[j] for j in look_joints()}
            for offsets in LOOK_AROUND:
                self.command({j: start[j] + offsets.get(j, 0.0) for j in start})
                self.settle(LOOK_SETTLE_S)
                self._await_frames(FRAMES_PER_VIEW)
            self.command(start)
        return True

    def _await_frames(self, n: int) -> None:
        """Keep streaming the hold until the object source has taken in `n` new frames (a source that does not count
        its frames: LOOK_SETTLE_S)."""
        start, got = self._frames_taken(), 0
        if start is None:
            self.settle(LOOK_SETTLE_S)
            return
        deadline = self._now() + FRAME_WAIT_S
        while got < n and self._now() < deadline and not self.estop.engaged:
            self.settle(self.period)
            taken = self._frames_taken() - start
            if taken > got:
                got, deadline = taken, self._now() + FRAME_WAIT_S
        if got < n:
            log.warning("look: %d of %d new frames from the object source in %.1f s", got, n, FRAME_WAIT_S)

    def _frames_taken(self) -> int | None:
        """How many frames the object source has taken in (None: it does not count them)."""
        return getattr(self._objects, "updates", None)

    def held_object(self) -> str | None:
        return self._held

    def settle(self, seconds: float) -> None:
        """Keep streaming the hold command (the G1 expects a steady command stream) for `seconds`."""
        end = self._now() + seconds
        while self._now() < end:
            if self.estop.engaged:
                self._hold_measured()
                return
            self._pace()
            self._publish({})

    def close(self) -> None:
        for hand in self.hands.values():
            hand.shutdown()
        self._sub.Close()
        self._pub.Close()
