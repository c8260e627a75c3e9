"""Small pose helpers for the kinematic demonstrator (quaternions are MuJoCo's w, x, y, z)."""
from __future__ import annotations

import math

import mujoco
import numpy as np


def yaw_quat(yaw: float) -> np.ndarray:
    return np.array([math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)])


def axis_quat(axis: tuple[float, float, float], angle: float) -> np.ndarray:
    q = np.zeros(4)
    mujoco.mju_axisAngle2Quat(q, np.asarray(axis, float), angle)
    return q


def mul_quat(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    q = np.zeros(4)
    mujoco.mju_mulQuat(q, a, b)
    return q


def quat_to_mat(q: np.ndarray) -> np.ndarray:
    m = np.zeros(9)
    mujoco.mju_quat2Mat(m, np.asarray(q, float))
    return m.reshape(3, 3)


def look_at_quat(eye: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Orientation of a MuJoCo camera at `eye` looking at `target` (camera looks along -z, y up)."""
    fwd = np.asarray(target, float) - np.asarray(eye, float)
    fwd /= np.linalg.norm(fwd)
    z = -fwd
    x = np.cross([0.0, 0.0, 1.0], z)
    if np.linalg.norm(x) < 1e-6:  # looking straight down: any horizontal x will do
        x = np.array([0.0, -1.0, 0.0])
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    q = np.zeros(4)
    mujoco.mju_mat2Quat(q, np.stack([x, y, z], axis=1).flatten())
    return q


def slerp(q0: np.ndarray, q1: np.ndarray, s: float) -> np.ndarray:
    q0, q1 = np.asarray(q0, float), np.asarray(q1, float)
    dot = float(np.dot(q0, q1))
    if dot < 0:
        q1, dot = -q1, -dot
    if dot > 0.9995:
        q = q0 + s * (q1 - q0)
        return q / np.linalg.norm(q)
    theta = math.acos(dot)
    return (math.sin((1 - s) * theta) * q0 + math.sin(s * theta) * q1) / math.sin(theta)


def min_jerk(s: float) -> float:
    """Minimum-jerk time scaling: how people move a hand between two points (bell-shaped speed)."""
    s = min(1.0, max(0.0, s))
    return s * s * s * (10 - 15 * s + 6 * s * s)


def tilt_deg(q: np.ndarray) -> float:
    """Angle between a body's z axis and the world's vertical."""
    return math.degrees(math.acos(max(-1.0, min(1.0, float(quat_to_mat(q)[2, 2])))))
