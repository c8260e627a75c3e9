"""The Dex3-1 hands in MuJoCo: the fingers' position actuators driven to the open / closed postures of
memora_core.robot.hand (within the joint ranges), with the finger motors' torque limited as on the real
hand so a closing finger stops on the object instead of driving through it, and the grasp check from
finger contact: the thumb and an opposing finger touching the object.

A grasp made here holds the object with the scene's weld (SimRobot.palm_grasp) once the fingers touch it: the
fingers close on it physically, the weld then carries it (finger friction alone on a position-servoed
hand lets light objects slip in MuJoCo). Without finger contact there is no grasp."""
from __future__ import annotations

import mujoco
import numpy as np

from memora_core.robot.hand import (CLOSE_S, DIGITS, FINGER_JOINTS, PRESS_PADS, SWEEP_S, HandPostures, Side,
                                    clamp_to_ranges,
                                    closes_by_sweep, guarded_close_step, is_grasping, joint_name, lets_go_thumb_first,
                                    letting_go_path, sweep_path)

# Dex3-1 finger motors: a closing finger presses with at most this torque (N m) in the simulation.
FINGER_TORQUE_LIMIT = 2.0
# While closing, the finger contacts are read every HOLD_POLL_S (s); HOLD_POLLS reads in a row with thumb and a
# finger on the object make a grasp (one read could be a finger brushing past).
HOLD_POLL_S = 0.025
HOLD_POLLS = 2
# Once the weld holds the object, the closed hand presses with at most this torque (N m): the weld is soft (its
# time constant is the shortest the time step allows), and three digits pressing at FINGER_TORQUE_LIMIT twist
# the object in it (measured in MuJoCo on one cup welded 2 deg off upright: the pick left it leaning 16 deg with
# the full torque, 4 deg with this). So lightly pressed, a level hand's thumb can slide off a bottle being lifted
# while the weld carries it (tests/scene/test_dex3_sim.py). How the value was chosen: README, robot section.
HOLD_TORQUE_LIMIT = 0.2


class Dex3Sim:
    """One simulated hand on a MuJoCo model/data pair (the SimRobot's, or the bridge's)."""

    def __init__(self, model: mujoco.MjModel, data: mujoco.MjData, side: Side | str,
                 postures: HandPostures | None = None, torque_limit: float = FINGER_TORQUE_LIMIT) -> None:
        self.model, self.data, self.side = model, data, Side(side)
        self.postures = postures or HandPostures()
        names = [joint_name(self.side, j) for j in FINGER_JOINTS]
        by_joint = {int(model.actuator_trnid[a, 0]): a for a in range(model.nu)}
        self.joint_ids = [model.joint(n).id for n in names]
        self.actuators = np.array([by_joint[j] for j in self.joint_ids])
        self.qadr = np.array([model.jnt_qposadr[j] for j in self.joint_ids])
        self.dadr = np.array([model.jnt_dofadr[j] for j in self.joint_ids])
        model.actuator_forcelimited[self.actuators] = 1
        self.torque_limit = torque_limit
        self.limit_torque(torque_limit)
        self._digit_of: dict[int, str] = {}
        links_of: dict[str, list[int]] = {}  # each digit's links, from the palm out
        for digit in DIGITS:
            for k in range(3):
                name = f"{self.side.value}_hand_{digit}_{k}_link"
                if mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, name) >= 0:
                    self._digit_of[model.body(name).id] = digit
                    links_of.setdefault(digit, []).append(model.body(name).id)
        # each tactile pad's link (hand.PRESS_PADS): a digit's tip is its last link, the pad the one below it
        self._pad_link = {(digit, part): links[-1] if part == "tip" else links[-2]
                          for digit, links in links_of.items() for part in ("tip", "pad") if len(links) >= 2}
        self.target = list(self.q())

    # --- command / state (SDK motor order) --------------------------------------------------------------
    def command(self, q: list[float]) -> list[float]:
        """Set the 7 finger targets, clipped into the joint ranges; returns what was applied."""
        self.target = clamp_to_ranges(self.side, list(q), self.postures.margin)
        self.data.ctrl[self.actuators] = self.target
        return self.target

    def limit_torque(self, limit: float) -> None:
        """Each finger motor presses with at most `limit` N m from now on."""
        self.model.actuator_forcerange[self.actuators] = [-limit, limit]

    def open(self) -> None:
        self.command(self.postures.open(self.side))

    def close(self) -> None:
        self.command(self.postures.closed(self.side))

    def q(self) -> np.ndarray:
        return self.data.qpos[self.qadr].copy()

    def dq(self) -> np.ndarray:
        return self.data.qvel[self.dadr].copy()

    def torque(self) -> np.ndarray:
        return self.data.actuator_force[self.actuators].copy()

    # --- grasp check ------------------------------------------------------------------------------------
    def touching(self, body: int) -> set[str]:
        """Digits (thumb, index, middle) of this hand in contact with MuJoCo body `body`."""
        return self.contacts().get(body, set())

    def contacts(self) -> dict[int, set[str]]:
        """Every body this hand's digits touch, with the digits on it (one pass over the contacts)."""
        m, d = self.model, self.data
        out: dict[int, set[str]] = {}
        for i in range(d.ncon):
            b1, b2 = int(m.geom_bodyid[d.contact[i].geom1]), int(m.geom_bodyid[d.contact[i].geom2])
            for digit_body, other in ((b1, b2), (b2, b1)):
                if digit_body in self._digit_of and other not in self._digit_of:
                    out.setdefault(other, set()).add(self._digit_of[digit_body])
        return out

    def pad_forces(self, pads: tuple[tuple[str, str], ...] = PRESS_PADS) -> list[float]:
        """What each tactile pad (hand.PRESS_PADS: a digit's tip, its last link, or the pad on the link below)
        would feel: the normal force (N) of the contacts between that link and anything not of the robot (closed
        fingertips resting on the palm feel nothing)."""
        m, d = self.model, self.data
        force = {b: 0.0 for b in self._pad_link.values()}
        f6 = np.zeros(6)
        for i in range(d.ncon):
            b1, b2 = int(m.geom_bodyid[d.contact[i].geom1]), int(m.geom_bodyid[d.contact[i].geom2])
            for mine, other in ((b1, b2), (b2, b1)):
                if mine in force and m.body_rootid[other] != m.body_rootid[mine]:
                    mujoco.mj_contactForce(m, d, i, f6)
                    force[mine] += abs(float(f6[0]))
        return [force.get(self._pad_link.get(tuple(p), -1), 0.0) for p in pads]

    def holds(self, body: int) -> bool:
        return is_grasping(self.touching(body))


def close_and_grasp(robot, name: str, seconds: float = 0.6, hand: Dex3Sim | None = None) -> bool:
    """On a SimRobot: close its current arm's hand on object `name` (physics steps, so the execution video
    shows it), and grasp (weld) only if thumb and a finger touch it. Returns whether it holds the object;
    without finger contact the hand opens again.
    The contacts are read while the hand closes (every HOLD_POLL_S): the grasp is taken once thumb and a finger
    have been on the object for HOLD_POLLS reads in a row. A box the closing fingers squeeze at an edge turns
    and squirts out of a hand that keeps closing (found on a lone tea box: held at 0.1-0.3 s, gone at 0.6 s).
    Any other hand closes guarded (hand.guarded_close_step): every digit over CLOSE_S, each stopping where it
    touches the object, so the first to arrive holds it in place rather than shoving it over before the thumb is
    on it; then waits `seconds` more at most. A hand whose palm faces the table (hand.closes_by_sweep: the flat
    pinch) keeps its thumb and closes the index and middle over SWEEP_S (hand.sweep_path), then waits `seconds`
    more at most."""
    hand = hand or Dex3Sim(robot.model, robot.data, robot.arm)
    hand.limit_torque(hand.torque_limit)
    body = robot.model.body(robot.scene.object(name).body_name).id
    sweep, guarded = [], False
    if closes_by_sweep(hand.side, robot.hand_rotation(hand.side.value)):
        sweep = sweep_path(hand.side, hand.target, hand.postures, steps=max(1, round(SWEEP_S / HOLD_POLL_S)))
        seconds += SWEEP_S
    else:
        guarded = True  # each digit closes until it is on the object (hand.guarded_close_step)
        seconds += CLOSE_S
    held, streak, waited = False, 0, 0.0
    while not held and waited < seconds - 1e-9:
        step = min(HOLD_POLL_S, seconds - waited)
        if sweep:
            hand.command(sweep.pop(0))
        elif guarded:
            hand.command(guarded_close_step(hand.side, hand.target, hand.touching(body), step, hand.postures))
        robot.settle(step)
        waited += step
        streak = streak + 1 if hand.holds(body) else 0
        held = streak >= HOLD_POLLS
    if not held:
        hand.open()
        robot.settle(0.3)
        return False
    # The fingers are on it: the weld takes the load from here (reach check waived: the fingers decide), and the
    # hand is then told to close all the way, pressing within the finger torque limit (the squeeze a real hand
    # keeps on what it holds, and what its finger state reads as a grasp: digits held short of closed).
    ok = robot.palm_grasp(name, finger_reach=1.0)
    if ok:
        hand.limit_torque(HOLD_TORQUE_LIMIT)
        hand.close()
    return ok


def let_go(robot, hand: Dex3Sim, drop_weld, open_s: float = 0.5) -> None:
    """On a SimRobot: let go of what `hand` holds (hand.letting_go_path): the fingers stop pressing where they
    are, the weld (`drop_weld()`) lets the object go, the index and middle open, then the thumb (the thumb
    first when the fingers slant down), over `open_s` in all."""
    path = letting_go_path(hand.side, list(hand.q()), hand.postures,
                           thumb_first=lets_go_thumb_first(robot.hand_rotation(hand.side.value)))
    relax, opening = path[0], path[1:]
    hand.command(relax)
    hand.limit_torque(hand.torque_limit)
    robot.settle(0.1)
    drop_weld()
    robot.settle(0.1)
    for target in opening:
        hand.command(target)
        robot.settle(open_s / len(opening))


def shape(robot, hand: Dex3Sim, thumb: float, fingers: float, seconds: float = 0.2) -> bool:
    """On a SimRobot: pre-shape the empty `hand` (HandPostures.shaped) and let the fingers get there; True
    when it changed (a hand already in that shape is left alone)."""
    target = clamp_to_ranges(hand.side, hand.postures.shaped(hand.side, thumb, fingers), hand.postures.margin)
    if max(abs(a - b) for a, b in zip(target, hand.target)) < 1e-6:
        return False
    hand.command(target)
    robot.settle(seconds)
    return True
