"""What the scene looks like now, as the controller needs it: footprints, container contents, what the arm
touches, whether an object stands, hangs in the hand or fell over (postconditions with typed failures)."""
from __future__ import annotations

import numpy as np

from memora_core.robot.control.failures import FailureCause, FailureReason, PrimitiveFailure
from memora_core.robot.control.geometry import Footprints
from memora_core.robot.control.resolve import Resolver
from memora_core.robot.control.state import ControlState
from memora_core.robot.robot import Robot, SceneObject


class SceneView:
    def __init__(self, robot: Robot, resolver: Resolver, table_z: float, state: ControlState) -> None:
        self.robot, self.resolver, self.table_z, self.state = robot, resolver, table_z, state

    def xy(self, name: str) -> np.ndarray | None:
        pose = self.robot.object_pose(name)
        return None if pose is None else np.asarray(pose[0][:2], float)

    def footprints(self, *exclude: str) -> Footprints:
        """(table xy, footprint radius) of every object in the scene but `exclude`."""
        return [(np.asarray(self.robot.object_pose(o.name)[0][:2]), o.radius) for o in self.resolver.objects()
                if o.name not in exclude and self.robot.object_pose(o.name) is not None]

    def over(self, container: str, name: str) -> bool:
        """Whether `name`'s centre is above `container`'s footprint."""
        cpos, _ = self.robot.object_pose(container)
        pos, _ = self.robot.object_pose(name)
        return bool(np.hypot(*(pos[:2] - cpos[:2])) < self.resolver.require(container).radius)

    def inside(self, container: SceneObject) -> set[str]:
        """Names of the objects above `container`'s footprint (what lies in it); empty for a non-container."""
        if not container.container or self.robot.object_pose(container.name) is None:
            return set()
        return {o.name for o in self.resolver.objects() if o.name != container.name
                and self.robot.object_pose(o.name) is not None and self.over(container.name, o.name)}

    def table_contents(self, held: str | None = None) -> dict[str, set[str]]:
        """Each container on the table with something lying in it: the names of what lies in it (a held container and
        its contents are not on the table)."""
        found = {o.name: self.inside(o) for o in self.resolver.objects() if o.container and o.name != held}
        return {name: inside for name, inside in found.items() if inside}

    def contents(self, container: str, held: str) -> list[tuple[np.ndarray, float]]:
        """(position, top z) of every object lying in `container` (centre within its footprint, resting above
        the table)."""
        rec = self.resolver.require(container)
        cpos, _ = self.robot.object_pose(container)
        out = []
        for o in self.resolver.objects():
            pose = self.robot.object_pose(o.name) if o.name not in (container, held) else None
            if pose is None:
                continue
            pos, rot = pose
            halves = np.array([*(o.extent or (o.radius, o.radius)), o.half_height])
            top = float(pos[2] + np.abs(rot[2, :]) @ halves)  # highest point of the (possibly tilted) box
            if np.hypot(*(pos[:2] - cpos[:2])) < rec.radius and pos[2] - o.half_height > self.table_z + 0.004:
                out.append((pos, top))
        return out

    def touching_now(self) -> set[str]:
        return set(self.robot.clearance(self.robot.joint_positions(), set()))

    def resting_on_table(self, obj: SceneObject) -> bool:
        pose = self.robot.object_pose(obj.name)
        if pose is None or self.robot.held_object() == obj.name:
            return False
        pos, rot = pose
        return abs(pos[2] - obj.half_height - self.table_z) < 0.01 and rot[2, 2] > 0.9

    def held_half_up(self, obj: SceneObject) -> float:
        """Half the vertical extent of `obj` as it hangs now (a box taken lying keeps lying in the hand)."""
        pose = self.robot.object_pose(obj.name)
        return obj.half_height if pose is None else obj.half_up(pose[1])

    def hang(self, name: str) -> np.ndarray:
        """Palm minus the held object's centre."""
        return self.robot.hand_position() - self.robot.object_pose(name)[0]

    def fell_over(self, obj: SceneObject, rot: np.ndarray) -> bool:
        """Knocked over by the move just made: not standing, though it stood when it was picked."""
        return not obj.upright(rot) and obj.name not in self.state.lying

    def check_standing(self, obj: SceneObject, how: str) -> None:
        pose = self.robot.object_pose(obj.name)
        if pose is None or self.fell_over(obj, pose[1]):
            raise PrimitiveFailure(FailureReason.POSTCONDITION, f"{obj.name} fell over when {how}",
                                   cause=FailureCause.FELL_OVER)

    def check_held(self, name: str) -> None:
        if self.robot.held_object() != name:
            raise PrimitiveFailure(FailureReason.SLIPPED, f"{name} is no longer in the hand",
                                   cause=FailureCause.SLIPPED)
        pos, _ = self.robot.object_pose(name)
        if np.linalg.norm(pos - self.robot.hand_position()) > 2 * self.resolver.require(name).half_height + 0.1:
            raise PrimitiveFailure(FailureReason.SLIPPED, f"{name} drifted away from the hand",
                                   cause=FailureCause.SLIPPED)
