"""What the controller remembers between moves and steps, in one place: the hand pose of the current grasp,
the held object's hold-over state (grasp orientation, lift contacts, a relaxed carry), where each object was
picked from, and which boxes were found lying."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from memora_core.robot.robot import GraspPose


@dataclass
class LiftClearance:
    """What the hand/held object touched at the grasp of `name`, with the palm at `xy`: while the palm stays on
    that vertical line, lifting straight up leaves those contacts behind, so they are no obstacle."""
    name: str
    xy: np.ndarray
    contacts: set[str]


@dataclass
class ControlState:
    pose: GraspPose                               # hand orientation of the current/last grasp
    lift_clear: LiftClearance | None = None
    held_rot: np.ndarray | None = None            # palm orientation at the grasp of the held object
    held_up: np.ndarray | None = None             # the held object's own axis it is to stand on when put down
    origin_up: np.ndarray | None = None           # the object's own axis that pointed up when its pick began
    grasping: str | None = None                   # the object the current descent goes for
    held_cost: float | None = None                # a carry's relaxed weight on the held hand orientation
    let_go_rot: np.ndarray | None = None          # palm orientation the hand let go with, kept while it retracts
    origins: dict[str, np.ndarray] = field(default_factory=dict)  # where each object was picked from
    lying: set[str] = field(default_factory=set)  # boxes found knocked over at a pick: lying is their state now

    def drop_hold(self) -> None:
        """The hand let go: forget the hold-over state of the grasp."""
        self.lift_clear, self.held_rot, self.held_up, self.origin_up = None, None, None, None
