"""The Unitree Dex3-1 hand as the controller knows it: its 7 joints in the SDK's motor order (unitree_hg
HandCmd_/HandState_ motor_cmd/motor_state[0..6]), their ranges, the open and closed postures within them,
and the grasp check from finger state (a finger commanded closed that stopped short of it is held off by
something between the fingers). Pure Python: the DDS client (backends/dex3.py) and the simulator use it."""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

FINGER_JOINTS = ("thumb_0", "thumb_1", "thumb_2", "middle_0", "middle_1", "index_0", "index_1")
# Joint ranges (rad) of the right hand; the left hand mirrors the flexing joints (Unitree's Dex3-1 URDF).
RIGHT_RANGES = {"thumb_0": (-1.0472, 1.0472), "thumb_1": (-1.0472, 0.724312), "thumb_2": (-1.74533, 0.0),
                "middle_0": (0.0, 1.5708), "middle_1": (0.0, 1.74533), "index_0": (0.0, 1.5708),
                "index_1": (0.0, 1.74533)}
# Which way each joint flexes toward a closed hand on the right (the left is the mirror); thumb_0 turns the
# thumb into opposition and stays put.
RIGHT_FLEX = {"thumb_0": 0.0, "thumb_1": -1.0, "thumb_2": -1.0, "middle_0": 1.0, "middle_1": 1.0,
              "index_0": 1.0, "index_1": 1.0}
DIGITS = {"thumb": ("thumb_1", "thumb_2"), "index": ("index_0", "index_1"), "middle": ("middle_0", "middle_1")}
# The space the right thumb sweeps from open to closed (m, box in the palm frame: x along the fingers, y toward
# the palm's inner side, z across the finger spread), measured on the MuJoCo Dex3-1 (tests/scene/
# test_finger_hand_geometry.py checks it); the left hand mirrors y. An object the thumb cannot reach is no grip.
RIGHT_THUMB_SWEEP = ((-0.045, -0.003, -0.013), (0.045, 0.114, 0.013))


# Outlines (convex, palm-frame x along the fingers, y toward the palm's inner side, right hand; the left mirrors
# y) of the thumb and of the index + middle at fractions of their travel from open to closed (HandPostures),
# measured on the MuJoCo Dex3-1 (tests/scene/test_finger_hand_geometry.py checks them). A pre-shaped hand (the
# thumb partly closed instead of sticking 11 cm out) needs less free table around the object it goes for.
RIGHT_THUMB_OUTLINES = {
    0.0: ((-0.045, 0.016), (-0.044, -0.003), (-0.023, -0.003), (-0.027, 0.095), (-0.031, 0.109), (-0.037, 0.114),
          (-0.04, 0.109), (-0.044, 0.087)),
    0.2: ((-0.045, 0.016), (-0.044, -0.003), (-0.023, -0.003), (-0.002, 0.097), (-0.002, 0.105), (-0.006, 0.109),
          (-0.019, 0.095), (-0.03, 0.074)),
    0.35: ((-0.045, 0.016), (-0.044, -0.003), (-0.023, -0.003), (0.016, 0.087), (0.017, 0.093), (0.015, 0.097),
           (-0.009, 0.083), (-0.027, 0.064)),
    0.5: ((-0.045, 0.016), (-0.044, -0.003), (-0.023, -0.003), (0.03, 0.072), (0.031, 0.08), (0.003, 0.074),
          (-0.02, 0.063)),
}
RIGHT_FINGER_OUTLINES = {
    0.0: ((0.042, 0.011), (0.017, 0.002), (0.012, -0.004), (0.016, -0.011), (0.039, -0.017), (0.072, -0.016),
          (0.117, -0.005), (0.114, 0.001), (0.105, 0.004), (0.06, 0.011)),
    0.2: ((0.019, -0.012), (0.041, -0.011), (0.073, -0.002), (0.108, 0.034), (0.103, 0.038), (0.096, 0.037),
          (0.037, 0.016), (0.013, -0.001), (0.013, -0.008)),
}
# Pre-shapes tried for a level finger grasp, most closed first: (thumb, index + middle) fractions of travel.
PRESHAPES = ((0.5, 0.2), (0.5, 0.0), (0.35, 0.2), (0.35, 0.0), (0.2, 0.0), (0.0, 0.0))


def thumb_sweep(side: Side | str) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """(low, high) corners of the box the thumb sweeps while closing, in the palm frame of `side`."""
    lo, hi = RIGHT_THUMB_SWEEP
    if Side(side) is Side.RIGHT:
        return lo, hi
    return (lo[0], -hi[1], lo[2]), (hi[0], -lo[1], hi[2])


class Side(str, Enum):
    LEFT = "left"
    RIGHT = "right"


def joint_name(side: Side | str, joint: str) -> str:
    """The model's joint name, e.g. right_hand_index_0_joint."""
    return f"{Side(side).value}_hand_{joint}_joint"


def joint_ranges(side: Side | str) -> dict[str, tuple[float, float]]:
    if Side(side) is Side.RIGHT:
        return dict(RIGHT_RANGES)
    # Mirror: thumb_0 is symmetric; the flexing joints' ranges flip sign.
    return {j: (lo, hi) if j == "thumb_0" else (-hi, -lo) for j, (lo, hi) in RIGHT_RANGES.items()}


def flex_sign(side: Side | str, joint: str) -> float:
    return RIGHT_FLEX[joint] * (1.0 if Side(side) is Side.RIGHT else -1.0)


@dataclass(frozen=True)
class HandPostures:
    """Open and closed joint targets, each inside the joint ranges by `margin`."""

    closed_fraction: float = 0.85  # of each flexing joint's travel toward its stop
    margin: float = 0.02           # rad kept from every stop

    def open(self, side: Side | str) -> list[float]:
        out = []
        for j in FINGER_JOINTS:
            lo, hi = joint_ranges(side)[j]
            out.append(min(max(0.0, lo + self.margin), hi - self.margin))
        return out

    def shaped(self, side: Side | str, thumb: float, fingers: float) -> list[float]:
        """The thumb `thumb` and the index and middle `fingers` of their way from open to closed (0..1)."""
        opened, closed = self.open(side), self.closed(side)
        return [a + (thumb if j.startswith("thumb") else fingers) * (b - a)
                for j, a, b in zip(FINGER_JOINTS, opened, closed)]

    def closed(self, side: Side | str) -> list[float]:
        out = []
        for j, q0 in zip(FINGER_JOINTS, self.open(side)):
            lo, hi = joint_ranges(side)[j]
            s = flex_sign(side, j)
            stop = hi if s > 0 else lo if s < 0 else q0
            q = q0 + self.closed_fraction * (stop - q0)
            out.append(min(max(q, lo + self.margin), hi - self.margin))
        return out


def clamp_to_ranges(side: Side | str, q: list[float], margin: float = 0.0) -> list[float]:
    """`q` (7, SDK order) clipped into the joint ranges less `margin`: a command never sits past a stop."""
    r = joint_ranges(side)
    return [min(max(v, r[j][0] + margin), r[j][1] - margin) for j, v in zip(FINGER_JOINTS, q)]


def blocked_digits(side: Side | str, target: list[float], q: list[float], shortfall: float = 0.12) -> set[str]:
    """Digits whose flexing joints stopped more than `shortfall` rad short of a target that closes them
    (target beyond the open posture in the flexing direction): something holds them off."""
    out = set()
    for digit, joints in DIGITS.items():
        for j in joints:
            i = FINGER_JOINTS.index(j)
            s = flex_sign(side, j)
            if s and s * (target[i] - q[i]) > shortfall:
                out.add(digit)
                break
    return out


def is_grasping(digits: set[str]) -> bool:
    """A grasp: the thumb and at least one opposing finger are on the object."""
    return "thumb" in digits and bool(digits & {"index", "middle"})


def grips_by_feel(blocked: set[str], touching: set[str]) -> bool:
    """A grasp read from a hand's state: the thumb stopped short of where it was told to close, and an opposing finger
    stopped short too or pressing on the object (its pads read contact). A finger closed round a thin wall (a bowl's
    rim) reaches its closed posture with the wall in it; a hand without pads reads no contact: stopped short only."""
    return "thumb" in blocked and is_grasping(blocked | touching)


def closing_digits(side: Side | str, target: list[float], postures: HandPostures | None = None,
                   fraction: float = 0.5) -> set[str]:
    """Digits whose flexing joints are all commanded at least `fraction` of the way from the open to the
    closed posture: what the hand is being told to close (whatever the fingers have reached)."""
    postures = postures or HandPostures()
    opened, closed = postures.open(side), postures.closed(side)
    out = set()
    for digit, joints in DIGITS.items():
        idx = [FINGER_JOINTS.index(j) for j in joints]
        if all(abs(closed[i] - opened[i]) > 1e-9
               and (target[i] - opened[i]) / (closed[i] - opened[i]) >= fraction for i in idx):
            out.add(digit)
    return out


# A hand closing on an object moves each digit from open to closed over this long (s) and stops each one where it
# touches the object (guarded_close_step). Snapped closed at once, the first finger to arrive shoves the object
# before the thumb is on it (measured in MuJoCo: cups, cans and boxes tipped 6-20 deg in the hand that way).
CLOSE_S = 0.4
# A hand closing guarded over DDS reads its tactile pads and steps its digits this often (s).
GUARD_POLL_S = 0.025


def guarded_close_step(side: Side | str, target: list[float], touching: set[str], dt: float,
                       postures: HandPostures | None = None, close_s: float = CLOSE_S) -> list[float]:
    """The next closing target after `dt` seconds: every digit not in `touching` moves `dt / close_s` of its
    open-to-closed travel further (never past the closed posture); a digit already on the object keeps its
    target, so it holds the object where it met it while the others come to it."""
    postures = postures or HandPostures()
    opened, closed = postures.open(side), postures.closed(side)
    frac = max(0.0, dt) / close_s
    out = list(target)
    for digit, joints in DIGITS.items():
        if digit in touching:
            continue
        for j in joints:
            i = FINGER_JOINTS.index(j)
            travel = closed[i] - opened[i]
            moved = target[i] + frac * travel
            out[i] = min(moved, closed[i]) if travel > 0 else max(moved, closed[i]) if travel < 0 else target[i]
    return out


# The Dex3-1's optional tactile pads: HandState_.press_sensor_state[i] (a 3x4 array of cells each) lies on
# PRESS_PADS[i] = (digit, part): each digit's tip (its last link) and the pad below it. Unitree's G1 developer
# notes give six 3x4 fingertip arrays; the order here is the one published monitoring tools for the G1 hand read,
# not checked on a hand of ours: dex3.press_pads in the robot config overrides it. The sim bridge fills the same
# entries from MuJoCo contact forces (sim/unitree_bridge/dex3_bridge.py).
PRESS_PADS = (("thumb", "tip"), ("thumb", "pad"), ("index", "tip"), ("index", "pad"), ("middle", "tip"),
              ("middle", "pad"))
# A pad whose cells sum to at least this reads touch (the sim bridge publishes N; a real hand needs its own value:
# dex3.touch_threshold in the robot config, which defaults to this).
TOUCH_THRESHOLD = 0.3


def pad_load(cells: list[float]) -> float:
    """One pad's reading: the sum of its finite, positive cells (a cell reporting garbage or nothing adds 0)."""
    return float(sum(v for v in cells if v == v and 0.0 < v < float("inf")))


def touching_digits(pressures: list[list[float]], threshold: float,
                    pads: tuple[tuple[str, str], ...] = PRESS_PADS) -> set[str]:
    """Digits with a tactile pad loaded at least `threshold` (`pressures[i]`: the cells of pad `pads[i]`; pads
    beyond either list are ignored). A hand without pads reads all zeros: no digit touches."""
    return {pads[i][0] for i, cells in enumerate(pressures[:len(pads)]) if pad_load(cells) >= threshold}


def opening_path(side: Side | str, start: list[float], postures: HandPostures | None = None,
                 steps: int = 10) -> list[list[float]]:
    """Targets from `start` to the open posture in `steps` equal steps: a hand letting go opens smoothly (fingers
    snapped open in one step sweep a light object they were around off its place)."""
    opened = (postures or HandPostures()).open(side)
    n = max(1, int(steps))
    return [[a + (b - a) * k / n for a, b in zip(start, opened)] for k in range(1, n + 1)]


# A hand whose fingers point more steeply down than this (sine of the angle below level) holds what it holds on
# its slanting fingers (a tilted grasp): it lets go thumb first.
SLANT = 0.3


def lets_go_thumb_first(palm_rotation) -> bool:  # noqa: ANN001 - a 3x3 rotation (nested sequences or an array)
    """Whether a hand at this world palm orientation (palm frame: x along the fingers) lets go thumb first: its
    fingers slant down under what it holds (letting_go_path)."""
    return float(palm_rotation[2][0]) < -SLANT


def letting_go_path(side: Side | str, measured: list[float], postures: HandPostures | None = None,
                    steps: int = 10, thumb_first: bool = False) -> list[list[float]]:
    """How a hand lets go of what it holds: first the measured posture (the digits stop pressing where they
    are), then the index and middle open in `steps` steps, then the thumb (`thumb_first`: the other way round).
    A thumb closed on an object presses it toward the fingers: opened together (or the fingers first without
    relaxing) it pushes the object off its spot as the fingers give way (measured in MuJoCo: a can let go into
    a bowl from a level hand landed 3.8 cm off centre that way, 0.3 cm this way). Fingers slanting down under
    the object (a tilted grasp) must stay until the thumb has let it drop: straightening first they push it
    (7.3 cm off, 4.6 thumb first)."""
    opened = (postures or HandPostures()).open(side)
    n = max(1, int(steps))
    q = list(measured)
    out = [list(q)]
    groups = [[i for i, j in enumerate(FINGER_JOINTS) if not j.startswith("thumb")],
              [i for i, j in enumerate(FINGER_JOINTS) if j.startswith("thumb")]]
    for group in groups[::-1] if thumb_first else groups:
        start = list(q)
        for k in range(1, n + 1):
            for i in group:
                q[i] = start[i] + (opened[i] - start[i]) * k / n
            out.append(list(q))
    return out


# A hand whose palm's inner side faces the table more than this (minus the world-z part of the inner side's
# direction) closes by a sweep: a flat object's pinch (the hand rolled, the thumb's tip just above the table).
FACING_DOWN = 0.7
# A sweep closes the index and middle over this long (s). Closed at once they flick a 1.6 cm spoon away (measured
# in MuJoCo: a grip only with the spoon within 5 mm of one spot; over 0.5 s within 2 cm along the fingers and
# 3 mm of palm height).
SWEEP_S = 0.5


def closes_by_sweep(side: Side | str, palm_rotation) -> bool:  # noqa: ANN001 - a 3x3 rotation
    """Whether a hand at this world palm orientation (palm frame: x along the fingers, the inner side +y on the
    right hand, -y on the left) closes by a sweep (sweep_path): its palm's inner side faces the table."""
    inner = 1.0 if Side(side) is Side.RIGHT else -1.0
    return float(palm_rotation[2][1]) * inner < -FACING_DOWN


def sweep_path(side: Side | str, start: list[float], postures: HandPostures | None = None,
               steps: int = 20) -> list[list[float]]:
    """How a rolled hand closes on a flat object: the thumb stays where it is (its tip a wall just above the
    table behind the object), the index and middle close from `start` in `steps` equal steps, their tips
    sweeping along the table and pushing the object against the thumb."""
    closed = (postures or HandPostures()).closed(side)
    n = max(1, int(steps))
    fingers = [i for i, j in enumerate(FINGER_JOINTS) if not j.startswith("thumb")]
    out = []
    for k in range(1, n + 1):
        q = list(start)
        for i in fingers:
            q[i] = start[i] + (closed[i] - start[i]) * k / n
        out.append(q)
    return out
