"""Where a closed Dex3 hand pinches what it holds, read from the hand's own joint state (forward kinematics of its
tips), and what that says of where the held object is.

A sweep pinch moves what it takes: the index and middle push it along the table against the thumb. How far depends
on the grasp (the square palm-down pinch swept a spoon 2.3-3.0 cm; the turned and pitched ones anywhere from 0 to
3.7 cm), so no single model of the hand says where the object ends up. The fingers do: the object lies between the
thumb's tip and the index and middle tips, so along the direction the hand closed, its centre is midway between
them. Across that direction the fingers say nothing, and the object is where it was seen."""
from __future__ import annotations

from dataclasses import dataclass

import mujoco
import numpy as np

# Each digit's tip link (the last of the digit's links in Unitree's Dex3-1 model).
TIP_LINKS = {"thumb": "thumb_2", "index": "index_1", "middle": "middle_1"}
# The fingers' reading replaces where the held object is believed to be only when the two differ by more than this
# (m, along the closing direction): on dev grasps of objects that did not move in the hand (sim-bench 100150-100187,
# perceived poses) the tips' midpoint was up to 1.7 cm from the object's centre (the tips' geometry is not where
# they touch), while a sweep that moved the object put the belief 2.3-3.7 cm off.
PINCH_TRUST_M = 0.02


@dataclass(frozen=True)
class Pinch:
    point: np.ndarray    # world, m: midway between the thumb's tip and the mean of the index and middle tips
    closing: np.ndarray  # unit, horizontal: from the thumb's tip toward the other tips


def tip_centre(model: mujoco.MjModel, data: mujoco.MjData, body: str) -> np.ndarray | None:
    """The centre of the geoms of `body` (its origin where it has none), None where the model has no such body.
    `data` must hold the posture's kinematics."""
    bid = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, body)
    if bid < 0:
        return None
    geoms = np.flatnonzero(model.geom_bodyid == bid)
    return data.geom_xpos[geoms].mean(axis=0).copy() if len(geoms) else data.xpos[bid].copy()


def pinch_from(model: mujoco.MjModel, data: mujoco.MjData, side: str) -> Pinch | None:
    """The pinch of `side`'s hand at the posture in `data`; None where the model has no such hand, or the tips stand
    too close across the table's plane to give a direction."""
    tips = {d: tip_centre(model, data, f"{side}_hand_{link}_link") for d, link in TIP_LINKS.items()}
    if any(t is None for t in tips.values()):
        return None
    thumb, fingers = tips["thumb"], (tips["index"] + tips["middle"]) / 2
    across = (fingers - thumb)[:2]
    if float(np.linalg.norm(across)) < 1e-3:
        return None
    closing = np.array([*(across / np.linalg.norm(across)), 0.0])
    return Pinch(point=(thumb + fingers) / 2, closing=closing)


def pinched_centre(believed: np.ndarray, pinch: Pinch) -> np.ndarray | None:
    """Where the held object's centre is by the fingers: `believed` moved along the closing direction onto the pinch
    point (its height and its place across that direction as believed); None where the two differ by no more than
    PINCH_TRUST_M (the fingers say nothing the belief did not)."""
    believed = np.asarray(believed, float)
    off = float(np.dot(pinch.point - believed, pinch.closing))
    if abs(off) <= PINCH_TRUST_M:
        return None
    return believed + off * pinch.closing
