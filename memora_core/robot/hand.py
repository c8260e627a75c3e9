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


def opening_path(side: Side | str, start: list[float], postures: HandPostures | None = None,
                 steps: int = 10) -> list[list[float]]:
    """Targets from `start` to the open posture in `steps` equal steps: a hand letting go opens smoothly (fingers
    snapped open in one step sweep a light object they were around off its place)."""
    opened = (postures or HandPostures()).open(side)
    n = max(1, int(steps))
    return [[a + (b - a) * k / n for a, b in zip(start, opened)] for k in range(1, n + 1)]
