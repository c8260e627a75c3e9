"""The simulated G1 planning from what its head camera sees, not from MuJoCo's ground truth (issue 19).

`PerceivedSimRobot` is a SimRobot whose controller-facing objects come from the head RGB-D scene model through
an ObjectTracker (the same path the G1 backend takes: sim.head_camera.HeadRGBD -> SceneModeller ->
ObjectTracker), refreshed at every grasp and release (and of
the object in the hand, after the grasp until seen there). What the controller plans against sees the
same: the clearance checks and the motion planner's world (`_qpos_with`) put every object where the tracker
last saw it (standing, turned by the perceived yaw of a box), and leave out what it has not seen. The object in
the hand is where it was seen at the grasp, carried with the palm; one let go is where it was let go until the
camera sees it again (as UnitreeG1Robot keeps them).

Physics stays MuJoCo's own: the fingers close on the real object and the scene's weld carries it (sim.dex3);
`ground_truth_pose` is for scoring only (memora sim-bench --poses perceived)."""
from __future__ import annotations

import mujoco
import numpy as np

from memora_core.perception.scene import SceneModeller
from memora_core.perception.scene.objects import entities
from memora_core.perception.scene.tracker import ObjectTracker, scene_catalogue
from memora_core.robot.hand_zones import hand_zones
from memora_core.robot.look_around import LOOK_AROUND, LOOK_SETTLE_S, look_joints
from memora_core.robot.robot import MotionReport, RobotConfig, SceneObject
from sim.head_camera import HeadCameraSpec, HeadRGBD
from sim.robot_backend import SimRobot
from sim.scene import Layout

# Where an object the tracker has not seen is put in the planning copy of the scene: out of every check.
UNSEEN_Z = -10.0
# Frames taken of an object just grasped (at the grasp and after each following move) until one sees it.
HELD_LOOKS = 3
# A sighting of the object in the hand further than this (m, horizontally) from where it is believed is not it.
HELD_JUMP = 0.05


class PerceivedSimRobot(SimRobot):
    def __init__(self, config: RobotConfig, seed: int = 0, objects: list[str] | None = None,
                 layout: Layout | None = None, camera: HeadCameraSpec | None = None) -> None:
        self.tracker: ObjectTracker | None = None  # none yet while SimRobot sets itself up
        super().__init__(config, seed, objects, layout)
        self.catalogue = scene_catalogue(self.scene)  # every known object, identity and size only
        self.tracker = ObjectTracker(self.catalogue, hands=lambda: hand_zones(self))
        self._modeller = SceneModeller(entities(self.catalogue))
        self._camera = HeadRGBD(self.model, camera or HeadCameraSpec(width=320, height=240), seed=seed)
        self._held_seen: tuple[SceneObject, np.ndarray, np.ndarray] | None = None  # object, offset, rotation (palm frame)
        self._let_go: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self._held_looks = 0  # frames still to take of the object in the hand until it is seen there
        self.frames = 0
        self.refresh()

    # --- perception ----------------------------------------------------------------------------------
    def refresh(self, keep: bool = False):  # noqa: ANN201 - the names seen, or the SceneModel with `keep`
        """Render one head RGB-D frame, build its scene model and feed the tracker; the names it saw (the scene
        model itself with `keep`)."""
        if self.tracker is None:
            return None if keep else []
        scene = self._frame()
        seen = self.tracker.update(scene)
        for p in scene.objects:
            if p.name in seen:
                self._let_go.pop(p.name, None)
        return scene if keep else seen

    def _frame(self):  # noqa: ANN202 - a SceneModel
        """Render one head RGB-D frame and build its scene model (the tracker is not fed)."""
        self.frames += 1
        return self._modeller.observe(self._camera.render(self.data, self.sim_time_s))

    def look(self, around: bool = False) -> bool:
        """A new frame of the table (`around` and the hand empty: also one from each of LOOK_AROUND's waist
        postures, then back to where the waist was). The object in the hand stays with the hand."""
        self.refresh()
        if around and self.held_object() is None:
            start = self.joint_positions()
            for offsets in LOOK_AROUND:
                self.command({j: start[j] + d for j, d in offsets.items()})
                self.settle(LOOK_SETTLE_S)
                self.refresh()
            self.command({j: start[j] for j in look_joints()})
            self.settle(LOOK_SETTLE_S)
        held = self.held_object()
        if held is not None:
            self.tracker.forget(held)
        return True

    def seen_fraction(self, name: str) -> float | None:
        sighting = self.tracker.sighting(name) if self.tracker is not None else None
        return None if sighting is None else float(sighting.explained)

    def look_at(self, name: str) -> float | None:
        """One frame from the waist as it is and from each of LOOK_AROUND's postures, built into scene models
        without feeding the tracker; then back to the posture whose frame explained the most of `name`, whose
        frame the tracker takes, and back to where the waist was."""
        if self.tracker is None or self.held_object() is not None:
            return None
        start = self.joint_positions()
        joints = look_joints()
        best, best_q = -1.0, {j: start[j] for j in joints}
        for offsets in ({},) + LOOK_AROUND:
            q = {j: start[j] + offsets.get(j, 0.0) for j in joints}
            self.command(q)
            self.settle(LOOK_SETTLE_S)
            seen = self._frame().get(name)
            shown = -1.0 if seen is None else (1.0 if seen.explained is None else float(seen.explained))
            if shown > best:
                best, best_q = shown, q
        self.command(best_q)
        self.settle(LOOK_SETTLE_S)
        self.refresh()
        self.command({j: start[j] for j in joints})
        self.settle(LOOK_SETTLE_S)
        return self.seen_fraction(name)

    def _move_path(self, targets: list[dict[str, float]], times: list[float]) -> MotionReport:
        report = super()._move_path(targets, times)
        if self._held_seen is not None and self._held_looks > 0:
            self._look_at_held()
        return report

    def _look_at_held(self) -> None:
        """Look at the object in the hand (after the grasp, and after the moves that follow it until seen): the
        closing fingers may have shifted it, and where it sits in the hand is where it will be set down."""
        self._held_looks -= 1
        name = self.held_object()
        scene = self.refresh(keep=True)
        seen = scene.get(name) if scene is not None else None
        believed = self.object_pose(name)[0]
        # Only a whole view of it near where it is believed to be: a partial blob (at the image border, behind
        # the arm) matched by colour alone is not the object in the hand.
        if (seen is not None and not seen.partial
                and np.linalg.norm(np.array(seen.position, float)[:2] - believed[:2]) <= HELD_JUMP):
            obj, _, rot = self._held_seen
            self._held_seen = (obj, self._hand_offset(np.array(seen.position, float)), rot)
            self._held_looks = 0
        self.tracker.forget(name)  # its place is with the hand, not where it was seen

    def _hand_offset(self, point: np.ndarray) -> np.ndarray:
        """`point` in the frame of the current arm's palm (it moves with the hand as it turns)."""
        arm = self._held_arm or self.arm
        return self.hand_rotation(arm).T @ (np.asarray(point, float) - self.hand_position(arm))

    def _in_hand(self, offset: np.ndarray) -> np.ndarray:
        arm = self._held_arm or self.arm
        return self.hand_position(arm) + self.hand_rotation(arm) @ offset

    def _turned_with_hand(self, rot_in_palm: np.ndarray) -> np.ndarray:
        """A held object's orientation: the grasp is rigid, so it turns as the palm turns (a pour tips it)."""
        return self.hand_rotation(self._held_arm or self.arm) @ rot_in_palm

    # --- the controller's objects ----------------------------------------------------------------------
    def known_objects(self) -> list[SceneObject]:
        return list(self.catalogue)

    def scene_objects(self) -> list[SceneObject]:
        if self.tracker is None:
            return []
        out = {o.name: o for o in self.tracker.objects()}
        for name, (pos, _) in self._let_go.items():
            out[name] = next(o for o in self.catalogue if o.name == name).model_copy(
                update={"position": tuple(float(v) for v in pos)})
        held = self.held_object()
        if held is not None and self._held_seen is not None:
            obj, offset, _ = self._held_seen
            out[held] = obj.model_copy(update={"position": tuple(float(v) for v in self._in_hand(offset))})
        return list(out.values())

    def object_pose(self, name: str) -> tuple[np.ndarray, np.ndarray] | None:
        if name == self.held_object() and self._held_seen is not None:
            _, offset, rot = self._held_seen
            return self._in_hand(offset), self._turned_with_hand(rot)
        if name in self._let_go:
            pos, rot = self._let_go[name]
            return pos.copy(), rot.copy()
        for o in self.tracker.objects() if self.tracker is not None else []:
            if o.name == name and o.position is not None:
                return np.array(o.position, float), o.standing_rotation()
        return None

    @property
    def perceived_scene(self) -> bool:
        return True

    def grasp(self, name: str, finger_reach: float = 0.0) -> bool:
        seen = self.object_pose(name)
        obj = next((o for o in self.scene_objects() if o.name == name), None)
        ok = super().grasp(name, finger_reach)
        if ok and seen is not None and obj is not None:
            palm = self.hand_rotation(self._held_arm or self.arm)
            self._held_seen = (obj, self._hand_offset(seen[0]), palm.T @ seen[1])
            self._let_go.pop(name, None)
            self._held_looks = HELD_LOOKS
            self._look_at_held()
        elif not ok:
            self.refresh()
        return ok

    def held_at(self, point: np.ndarray) -> None:
        # Not once the object was seen whole in the hand (`_look_at_held`): what was seen beats the hand's model.
        if self.held_object() is not None and self._held_seen is not None and self._held_looks > 0:
            obj, _, rot = self._held_seen
            self._held_seen = (obj, self._hand_offset(point), rot)

    def came_to_rest(self, name: str, position: np.ndarray) -> None:
        if name not in self._let_go:
            return  # seen since: the view is newer than any estimate
        _, rot = self._let_go[name]
        at = np.asarray(position, float).copy()
        self._let_go[name] = (at, rot)
        obj = next(o for o in self.catalogue if o.name == name)
        self.tracker.put(obj.model_copy(update={"position": tuple(float(v) for v in at)}))

    def release(self) -> str | None:
        name = self.held_object()
        if name is not None and self._held_seen is not None:
            obj, offset, rot = self._held_seen
            at = self._in_hand(offset)
            self._let_go[name] = (at, self._turned_with_hand(rot))
            self.tracker.put(obj.model_copy(update={"position": tuple(float(v) for v in at)}))
        out = super().release()
        self._held_seen = None
        self.refresh()
        return out

    # --- what planning checks against ------------------------------------------------------------------
    def _qpos_with(self, joints: dict[str, float] | None) -> np.ndarray:
        """The planning posture (SimRobot._qpos_with) with every object not in the hand where it is perceived,
        and those not perceived out of the scene."""
        qpos = super()._qpos_with(joints)
        if self.tracker is None:
            return qpos
        held = self.held_object()
        for name, body in self._object_body.items():
            if name == held:
                continue
            adr = self.model.jnt_qposadr[self.model.body_jntadr[body]]
            pose = self.object_pose(name)
            if pose is None:
                qpos[adr:adr + 3] = [0.0, 0.0, UNSEEN_Z - 0.1 * body]  # apart, below everything
                continue
            quat = np.zeros(4)
            mujoco.mju_mat2Quat(quat, pose[1].reshape(-1))
            qpos[adr:adr + 3] = pose[0]
            qpos[adr + 3:adr + 7] = quat
        return qpos

    def close(self) -> None:
        self._camera.close()
        super().close()
