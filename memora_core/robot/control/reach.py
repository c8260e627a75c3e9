"""Choosing by reach: the precomputed reachability map (`Robot.reachability()`) orders the arms for a grasp
and the spots for a put-down, so the first tried is one the arm can reach. Orders only: a candidate the map
doubts is still tried after the others (the map is position-only and conservative between its nodes), and
without a map the order is left as it was (the object's side first)."""
from __future__ import annotations

from typing import Sequence

import numpy as np


def reaches(reach, point: Sequence[float], arm: str) -> bool | None:
    """Whether the map says `arm`'s palm reaches `point`; None when there is no map or the arm is not in it."""
    if reach is None or arm not in reach.arms:
        return None
    return bool(reach.reachable(np.asarray(point, float), arm))


def arms_by_reach(reach, point: Sequence[float], arms: list[str]) -> list[str]:
    """`arms` (in preference order) with those the map says reach `point` first; stable otherwise."""
    return sorted(arms, key=lambda a: reaches(reach, point, a) is False)


def spots_by_reach(reach, spots: list[np.ndarray], arm: str, palm_z: float) -> list[np.ndarray]:
    """Table `spots` (x, y; in preference order) with those `arm`'s palm reaches at height `palm_z` first."""
    return sorted(spots, key=lambda s: reaches(reach, (float(s[0]), float(s[1]), palm_z), arm) is False)
