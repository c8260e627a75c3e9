"""Why a motion could not be planned: a cause from a fixed set, with the data a caller acts on (the bodies
in the way, the IK residual). Callers branch on `cause`, never on the text."""
from __future__ import annotations

from enum import Enum


class PlanningCause(str, Enum):
    START_IN_COLLISION = "start_in_collision"    # the arm (or what it holds) already touches something
    GOAL_IN_COLLISION = "goal_in_collision"      # every goal posture touches something
    START_OUT_OF_BOUNDS = "start_out_of_bounds"  # a start joint outside its range (beyond a small tolerance)
    GOAL_OUT_OF_BOUNDS = "goal_out_of_bounds"
    UNREACHABLE = "unreachable"                  # no IK solution within the position tolerance
    NO_PATH = "no_path"                          # the planner found no path within its time limit
    TIMING_FAILED = "timing_failed"              # the path could not be time-parameterised within the limits


# The robot's own links are named among the obstacles as ROBOT_LINK + the body's name.
ROBOT_LINK = "robot:"


def robot_link(body: str) -> str:
    """The obstacle name of the robot's own body `body`."""
    return f"{ROBOT_LINK}{body}"


def is_robot_link(name: str) -> bool:
    """Whether an obstacle name is one of the robot's own links (not an object, not the table)."""
    return name.startswith(ROBOT_LINK)


class PlanningFailure(RuntimeError):
    """A motion that cannot be planned. `cause`: why; `colliding`: the bodies in the way (object names,
    "table", or "robot:<link>" for the robot's own links); `residual`: the best IK position error (m)."""

    def __init__(self, cause: PlanningCause, detail: str, colliding: tuple[str, ...] = (),
                 residual: float | None = None) -> None:
        super().__init__(detail)
        self.cause = cause
        self.colliding = tuple(colliding)
        self.residual = residual

    def __reduce__(self):
        return type(self), (self.cause, str(self), self.colliding, self.residual)
