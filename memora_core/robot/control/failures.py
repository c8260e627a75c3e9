"""Typed failures of the controller: the coarse `FailureReason` a step reports, and the precise
`FailureCause` (with its data: what blocked, how far short, how big the IK residual) that recoveries decide
on. Nothing here or in its callers branches on a failure's message text."""
from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import NamedTuple

import numpy as np
from pydantic import BaseModel, ConfigDict

from memora_core.robot.motion.failures import is_robot_link


class FailureReason(str, Enum):
    UNREACHABLE = "unreachable"
    COLLISION = "collision"
    SLIPPED = "slipped"
    OBJECT_MISSING = "object_missing"
    NOT_ALLOWED = "not_allowed"      # not a primitive / limit violation
    ESTOP = "estop"
    POSTCONDITION = "postcondition_failed"


class FailureCause(str, Enum):
    """Why a move or a step failed, precisely enough to choose a recovery."""
    IK_MISS = "ik_miss"                  # no IK solution within tolerance (`residual`, `point`)
    OUT_OF_WORKSPACE = "out_of_workspace"  # the point lies outside the workspace box (`point`)
    PATH_BLOCKED = "path_blocked"        # planned waypoint too close to `blocked_by` (nothing moved yet)
    ARM_HIT = "arm_hit"                  # the moving arm touched `blocked_by`
    STOPPED_SHORT = "stopped_short"      # the palm ended `gap` m short of the move's end, nothing planned hit
    NO_GRASP = "no_grasp"                # grasp selection found no arm/hand pose (`blocked_by`: most in the way)
    NO_SPOT = "no_spot"                  # no free table spot (`blocked_by`: the neighbours crowding it)
    NOT_GRASPABLE = "not_graspable"      # the object lies over (a round one cannot be taken from the top)
    HAND_FULL = "hand_full"              # the hand already holds something else
    PALM_SHORT = "palm_short"            # the hand could not close on the object (`gap`, `blocked_by`)
    TIPPED = "tipped"                    # the approaching hand tipped the object it went for (`angle_deg`)
    LIFTED_NEIGHBOUR = "lifted_neighbour"  # a neighbour came up with the object (`blocked_by`)
    SLIPPED = "slipped"                  # the held object left the hand
    LANDED_OFF = "landed_off"            # placed `gap` m from the target, beyond tolerance
    OFF_AIM = "off_aim"                  # the held object hangs `gap` m from where it is to be let go (kept)
    FELL_OVER = "fell_over"              # the object did not stay upright
    WRIST_LIMIT = "wrist_limit"          # the wrist cannot roll far enough from any pose tried
    WEAK_TILT = "weak_tilt"              # a pour tipped the bottle less than needed (`angle_deg`)
    OBJECT_MISSING = "object_missing"    # nothing in the scene matches the step's object/target
    NOT_ALLOWED = "not_allowed"          # the step asks for something no primitive may do


# Causes a move's planning reports before anything moved (the arm is where it was): another plan may be tried.
PLAN_REFUSED = frozenset({FailureCause.IK_MISS, FailureCause.OUT_OF_WORKSPACE, FailureCause.PATH_BLOCKED})


class BlockedGrasp(NamedTuple):
    """A grasp candidate that neighbours were in the way of: its arm, the joint targets at which it was found
    blocked, and what blocked it there (movable objects only). `path`: where known, the grasp's whole checked joint
    path (above, pre-grasp, grasp), found clear by a what-if with its blockers gone; a neighbour set aside must then
    keep clear of all of it, not only of the posture it was found blocked at (dev 98102: bread set aside beside the
    yellow bowl's grasp posture, on its descent)."""
    arm: str
    posture: dict[str, float]
    blockers: tuple[str, ...]
    path: tuple[dict[str, float], ...] = ()


class Blockers(tuple):
    """The neighbours in a grasp's way (names, in making room's order): what a what-if of the grasp search answers
    when no grasp is clear (GraspChooser.blockers_of); the grasp a freeing set clears comes from `open_grasp`."""


class PrimitiveFailure(Exception):
    """A primitive that cannot be done: the step-level `reason`, the precise `cause` and its data.
    `blockers`: the scene objects found in the way (not the table, not the robot), so a recovery may move
    them aside; `what`: the move that failed ("lift", "carry", "approach" …); `self_only`: a refused path
    (PATH_BLOCKED) that only the robot's own body was in the way of (no recovery can move that aside, but
    another arm posture, planned, may go round it); `by_body`: the robot's own body was among what was in the way
    (moving the neighbours named beside it does not clear that path); `arm_posture`: the joint targets at which a
    path was found blocked; `blocked_grasps`: for a grasp that neighbours blocked, the candidates they blocked
    (where the arm goes once they are moved, so what is set aside must not stand there again)."""

    def __init__(self, reason: FailureReason, detail: str, blockers: Iterable[str] = (), *,
                 cause: FailureCause, what: str = "", point: np.ndarray | None = None,
                 residual: float | None = None, gap: float | None = None, angle_deg: float | None = None,
                 self_only: bool = False, by_body: bool = False,
                 blocked_grasps: Iterable[BlockedGrasp] = (),
                 arm_posture: dict[str, float] | None = None) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail
        self.blockers = tuple(dict.fromkeys(blockers))
        self.cause = cause
        self.what = what
        self.point = None if point is None else np.asarray(point, float).copy()
        self.residual = residual
        self.gap = gap
        self.angle_deg = angle_deg
        self.self_only = self_only
        self.by_body = by_body or self_only
        self.blocked_grasps = tuple(blocked_grasps)
        self.arm_posture = None if arm_posture is None else dict(arm_posture)

    @property
    def ik_miss(self) -> bool:
        """No IK solution from the seed tried: another posture may still reach the point."""
        return self.cause is FailureCause.IK_MISS

    @property
    def stopped_short(self) -> str | None:
        """The move whose hand stopped short of its end (nothing planned hit), else None."""
        return self.what if self.cause is FailureCause.STOPPED_SHORT else None

    @classmethod
    def short_of(cls, what: str, gap: float) -> "PrimitiveFailure":
        return cls(FailureReason.COLLISION, f"{what}: hand blocked {gap * 100:.1f} cm short",
                   cause=FailureCause.STOPPED_SHORT, what=what, gap=gap)

    @classmethod
    def no_ik(cls, what: str, point: np.ndarray, err: float, tolerance: float) -> "PrimitiveFailure":
        return cls(FailureReason.UNREACHABLE, f"{what} {np.round(point, 3).tolist()}: IK residual "
                                              f"{err * 100:.1f} cm > {tolerance * 100:.1f} cm",
                   cause=FailureCause.IK_MISS, what=what, point=point, residual=err)

    @classmethod
    def blocked(cls, what: str, point: np.ndarray, hits: list[str], movable: list[str],
                posture: bool = False, arm_posture: dict[str, float] | None = None) -> "PrimitiveFailure":
        where = "posture change" if posture else f"path to {np.round(point, 3).tolist()}"
        # no names: no posture there is clear of the scene (the planner found no goal), nothing in particular hit
        by = f"blocked by {', '.join(hits)}" if hits else "blocked: no clear posture there"
        return cls(FailureReason.COLLISION, f"{what}: {where} {by}", movable,
                   cause=FailureCause.PATH_BLOCKED, what=what, point=point,
                   self_only=bool(hits) and all(is_robot_link(h) for h in hits),
                   by_body=any(is_robot_link(h) for h in hits), arm_posture=arm_posture)

    @classmethod
    def arm_hit(cls, what: str, hits: list[str], movable: list[str]) -> "PrimitiveFailure":
        return cls(FailureReason.COLLISION, f"{what}: arm hit {', '.join(hits)}", movable,
                   cause=FailureCause.ARM_HIT, what=what)

    @classmethod
    def missing(cls, detail: str) -> "PrimitiveFailure":
        return cls(FailureReason.OBJECT_MISSING, detail, cause=FailureCause.OBJECT_MISSING)


class StepResult(BaseModel):
    model_config = ConfigDict(extra="forbid")
    index: int
    primitive: str | None = None
    object: str | None = None
    target: str | None = None
    success: bool
    reason: FailureReason | None = None
    cause: FailureCause | None = None  # the precise cause behind `reason` (None on success)
    detail: str = ""
    placement_error_m: float | None = None
    duration_s: float = 0.0
    moved_aside: list[str] = []  # neighbours the step set aside to get through
