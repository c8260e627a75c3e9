"""Primitive controller node: the ExecutePlan action server over memora_core's rule-based controller.

Each plan step runs as one primitive on the robot (MuJoCo simulation; the G1 through its backend), with
feedback when a step starts and when it ends. Cancel takes effect between steps (a primitive is not left
half-done); a message on the e-stop topic latches the robot's e-stop at once, which stops the motion on
the spot (the backend checks it every control period) and aborts the goal; a step that is planning rather
than moving then fails at its next command. `estop` / `estop --clear` engage and release it. The first
failed step aborts the plan: the caller (execution monitor / planner) decides whether to retry, replan or
ask, so nothing silently continues.

The backend comes from the `robot_config` parameter alone (its `type`): `sim_g1` is the MuJoCo simulation
in this process; `unitree_g1` is the G1 over the Unitree SDK (DDS domain and interface from that config,
overridable by `dds_domain` / `dds_interface`), answered either by the real robot or by the `sim_bridge`
node. The G1 backend sees objects only through the head RGB-D scene model (`scene_model_topic`, kept by an
object tracker); without it pick/place/pour fail with `object_missing` in the action result; arm moves work.
"""
from __future__ import annotations

import logging

import json
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from sensor_msgs.msg import Image
from std_msgs.msg import Bool, String

from memora.common import declare_params, exit_without_teardown, run_node, shutdown_log
from memora.conversions import plan_from_msg
from memora.nodes.estop import ESTOP_QOS
from memora_interfaces.action import ExecutePlan
from memora_interfaces.msg import PrimitiveResult
from memora_core.perception.scene.tracker import ObjectTracker, scene_catalogue


class ControllerParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    robot_config: str = Field(default="sim_g1", description="robot config name (robot_configs) for make_robot")
    # Unitree G1 backend only (robot config type unitree_g1): override its `dds` section when set.
    dds_domain: int = Field(default=-1, ge=-1, le=232, description="Unitree SDK DDS domain; -1 = robot config's")
    dds_interface: str = Field(default="", description="network interface for the Unitree SDK; empty = robot config's")
    state_timeout_s: float = Field(default=30.0, gt=0, description="wait this long for the first rt/lowstate")
    scene_model_topic: str = Field(default="", description="G1 backend: objects from this memora_interfaces/"
                                   "SceneModel topic (the scene_model node), kept by an object tracker; empty = none")
    layout_seed: int = 0
    layout_poses_json: str = Field(default="", description='explicit layout {"name": [x, y, yaw]}; empty = seeded')
    action_name: str = "/memora/execute_plan"
    moving_feedback_s: float = Field(default=10.0, gt=0, description=(
        "while a step runs, at most one `moving` action feedback per this many seconds, sent after a joint move: "
        "a client waiting on progress hears that a slow robot is still under way"))
    estop_topic: str = "/memora/estop"
    result_topic: str = "/memora/primitive_result"
    # Execution video (third-person offscreen render, memora_core.runtime.video); empty = none.
    video_path: str = Field(default="", description="mp4 of the execution; key frames go beside it in frames/")
    video_fps: float = Field(default=5.0, gt=0)
    video_size: list[int] = Field(default_factory=lambda: [320, 240])
    video_camera: list[float] = Field(default_factory=lambda: [0.45, 0.0, 0.85, 2.0, 210.0, -25.0],
                                      description="free camera: lookat x y z, distance, azimuth, elevation")
    # Simulator topics (sim only): ground truth object poses (JSON) and the head camera (sensor-data QoS).
    ground_truth_topic: str = "/memora/sim/ground_truth"
    head_camera_topic: str = "/memora/sim/head_camera/image"
    sim_topics_hz: float = Field(default=2.0, ge=0, description="per second of simulated time; 0 = off")
    head_camera_size: list[int] = Field(default_factory=lambda: [160, 120])


def _backend_kwargs(p: ControllerParams, cfg: Any, scene: Any) -> dict[str, Any]:
    """make_robot's keyword arguments for the backend the robot config names."""
    if cfg.type in ("sim", "sim_perceived"):
        from sim.scene import Layout
        from sim.scene.layout import sample_layout

        if p.layout_poses_json:
            poses = {k: tuple(v) for k, v in json.loads(p.layout_poses_json).items()}
            return {"layout": Layout(seed=p.layout_seed, poses=poses)}
        return {"layout": sample_layout(scene, p.layout_seed)}
    if cfg.type == "unitree_g1":
        # None keeps the robot config's value: domain 0 and the robot's interface on hardware.
        kwargs = {"domain": None if p.dds_domain < 0 else p.dds_domain,
                  "interface": p.dds_interface or None, "state_timeout_s": p.state_timeout_s}
        if p.scene_model_topic:  # what the head RGB-D scene model sees is what the controller picks from
            kwargs["objects"] = ObjectTracker(scene_catalogue(scene))
        return kwargs
    raise ValueError(f"robot config {p.robot_config!r}: no controller backend for type {cfg.type!r}")


def _make_controller(p: ControllerParams) -> Any:
    # Imported here: MuJoCo, DDS and the scene load only in the process that drives the robot.
    from memora_core.robot import load_robot_config, make_robot
    from memora_core.robot.control import RuleBasedController
    from sim.scene.config import load_scene_config

    cfg = load_robot_config(p.robot_config)
    # Table height and named regions come from the scene description the robot config names, so a
    # backend without a simulated scene (the G1 over DDS) plans its arm moves in the same frame.
    scene = load_scene_config(cfg.scene_path())
    robot = make_robot(cfg, **_backend_kwargs(p, cfg, scene))
    return robot, RuleBasedController(robot, scene.table.height, scene.regions)


class ControllerNode(Node):
    def __init__(self) -> None:
        super().__init__("controller")
        self.p: ControllerParams = declare_params(self, ControllerParams)
        self.robot, self.controller = _make_controller(self.p)
        self.controller.on_recovery = self._on_recovery
        self.robot.on_motion = self._on_motion
        self._last_moving = 0.0  # monotonic time of the last `moving` feedback
        self._running: tuple[Any, Any, int] | None = None  # (goal handle, step, total) while a step runs
        self._busy = threading.Lock()
        # All physics (and so all offscreen rendering) on one thread: a GL context belongs to the thread that
        # made it current, and the executor may run successive goals on different threads.
        self._physics = ThreadPoolExecutor(max_workers=1, thread_name_prefix="physics")
        group = ReentrantCallbackGroup()
        reliable = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
        self.result_pub = self.create_publisher(PrimitiveResult, self.p.result_topic, reliable)
        self.create_subscription(Bool, self.p.estop_topic, self._on_estop, ESTOP_QOS, callback_group=group)
        self.server = ActionServer(self, ExecutePlan, self.p.action_name, execute_callback=self._execute,
                                   goal_callback=self._on_goal, cancel_callback=lambda _g: CancelResponse.ACCEPT,
                                   callback_group=group)
        self.video = self._open_video()
        self.goals = 0
        self._sim_topics()
        self._scene_model_input()
        self.get_logger().info(f"controller ready: robot={self.p.robot_config} ({self.robot.config.type}"
                               f"{self._dds_text()}) action={self.p.action_name}")

    def _scene_model_input(self) -> None:
        """Feed the G1 backend's object tracker from the scene model topic (see `scene_model_topic`)."""
        tracker = getattr(self.robot, "object_source", None)
        if not self.p.scene_model_topic or not isinstance(tracker, ObjectTracker):
            return
        from memora.rgbd import msg_to_scene
        from memora_core.robot.hand_zones import hand_zones
        from memora_interfaces.msg import SceneModel

        robot = self.robot
        # A sighting moving an object into the hand is the hand, misnamed. The zones come from the backend's forward
        # kinematics on this subscription's thread, on its own MjData (G1Kinematics.data is per thread).
        tracker.hands = lambda: hand_zones(robot)
        self.create_subscription(SceneModel, self.p.scene_model_topic, lambda msg: tracker.update(msg_to_scene(msg)),
                                 QoSProfile(depth=5, reliability=ReliabilityPolicy.RELIABLE))

    def _dds_text(self) -> str:
        domain, interface = getattr(self.robot, "domain", None), getattr(self.robot, "interface", None)
        return "" if domain is None else f", DDS domain {domain} on {interface}"

    # --- simulator side: video, ground truth, head camera (only when the robot is simulated) --------------
    def _open_video(self) -> Any:
        if not self.p.video_path or not hasattr(self.robot, "step_observers"):
            return None
        from pathlib import Path

        from memora_core.runtime.video import CameraView, ExecutionVideo, VideoConfig

        c = self.p.video_camera
        cfg = VideoConfig(fps=self.p.video_fps, width=self.p.video_size[0], height=self.p.video_size[1],
                          camera=CameraView(lookat=tuple(c[:3]), distance=c[3], azimuth=c[4], elevation=c[5]))
        path = Path(self.p.video_path)
        return ExecutionVideo(self.robot, path, cfg, frames_dir=path.parent / "frames")

    def _sim_topics(self) -> None:
        if not self.p.sim_topics_hz or not hasattr(self.robot, "step_observers"):
            return
        self.gt_pub = self.create_publisher(String, self.p.ground_truth_topic, QoSProfile(
            depth=10, reliability=ReliabilityPolicy.RELIABLE))
        self.head_pub = self.create_publisher(Image, self.p.head_camera_topic, qos_profile_sensor_data)
        self._next_sim_pub = 0.0
        self.robot.step_observers.append(self._on_physics_step)
        # While idle nothing steps: ground truth still goes out (reads only; the busy lock keeps physics out).
        self.create_timer(1.0 / self.p.sim_topics_hz, self._idle_ground_truth)

    def _ground_truth(self) -> None:
        objs = {o.name: [round(v, 4) for v in o.position] for o in self.robot.ground_truth_objects()}
        self.gt_pub.publish(String(data=json.dumps({"sim_time_s": round(self.robot.sim_time_s, 3),
                                                    "held": self.robot.held_object(), "objects": objs})))

    def _idle_ground_truth(self) -> None:
        if self._busy.acquire(blocking=False):
            try:
                self._ground_truth()
            finally:
                self._busy.release()

    def _on_physics_step(self, robot: Any) -> None:
        # Runs on the thread stepping physics (the action's), which also owns the offscreen GL context.
        if robot.sim_time_s < self._next_sim_pub:
            return
        self._next_sim_pub = robot.sim_time_s + 1.0 / self.p.sim_topics_hz
        self._ground_truth()
        w, h = self.p.head_camera_size
        img = robot.render_head(w, h)
        msg = Image(height=h, width=w, encoding="rgb8", is_bigendian=0, step=3 * w, data=img.tobytes())
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.header.frame_id = "head_camera"
        self.head_pub.publish(msg)

    def _run_step(self, step: Any) -> Any:
        res = self.controller.execute_step(step)
        if self.video is not None:
            self.video.key_frame(f"plan{self.goals:02d}_step{step.index:02d}_{'ok' if res.success else 'failed'}")
        return res

    def destroy_node(self) -> None:
        if self._busy.locked():
            # A plan is running on the physics thread: the arm stops where it is (the e-stop is a flag every
            # physics step reads), so the step ends at once and the closes queued behind it run; a robot whose
            # controller goes down must not go on moving.
            self.robot.emergency_stop()
            shutdown_log(self, "shutting down during a plan: e-stop engaged, the arm stops where it is")
        if self.video is not None:
            self._physics.submit(self.video.close).result(timeout=30)
            shutdown_log(self, f"execution video {self.p.video_path}: {self.video.frames} frames")
        try:  # on the physics thread: the sim's renderer (GL context) and the G1's DDS endpoints live there
            self._physics.submit(self.robot.close).result(timeout=10)
        except Exception as exc:  # noqa: BLE001 - shutting down anyway; say why it was not clean
            shutdown_log(self, f"robot close failed: {exc!r}", logging.WARNING)
        self._physics.shutdown(wait=False)
        super().destroy_node()

    def _on_estop(self, msg: Bool) -> None:
        if msg.data:
            self.robot.emergency_stop()
            self.get_logger().error("E-STOP engaged: motion stopped")
        else:
            self.robot.estop.clear()
            self.get_logger().warning("e-stop cleared")

    def _on_goal(self, goal: ExecutePlan.Goal) -> GoalResponse:
        # One plan at a time; a plan memory could not ground is refused, not half-run.
        if self._busy.locked() or goal.plan.missing or not goal.plan.steps:
            return GoalResponse.REJECT
        return GoalResponse.ACCEPT

    def _resolved(self, name: str | None) -> str | None:
        """The scene object a plan string resolved to (what the robot really handled), for evaluation."""
        if not name:
            return None
        try:
            obj = self.controller.resolve(name)
        except Exception:  # noqa: BLE001 - a lookup must never fail a step report
            return None
        return obj.name if obj is not None else None

    def _result_msg(self, res: Any) -> PrimitiveResult:
        details = res.model_dump(mode="json", include={"object", "target", "reason", "placement_error_m"})
        details["resolved_object"] = self._resolved(res.object)
        details["resolved_target"] = self._resolved(res.target) if res.primitive in ("place", "pour") else None
        msg = PrimitiveResult(step_index=res.index, primitive=res.primitive or "", success=res.success,
                              message=res.detail or (res.reason.value if res.reason else ""),
                              duration_s=float(res.duration_s), details_json=json.dumps(details))
        msg.header.stamp = self.get_clock().now().to_msg()
        return msg

    def _on_recovery(self, index: int, recovery: str) -> None:
        """A recovery starts within the running step (on the physics thread): feedback that the step is still
        under way, so a client waiting on progress does not give up on a slow robot."""
        running = self._running
        if running is None:
            return
        goal_handle, step, total = running
        goal_handle.publish_feedback(ExecutePlan.Feedback(
            step_index=step.index, total_steps=total, step_text=f"{step.render()} ({recovery})",
            status=ExecutePlan.Feedback.STATUS_RETRYING))

    def _on_motion(self) -> None:
        """A joint move ended within the running step (on the physics thread): a `moving` heartbeat, throttled."""
        running, now = self._running, time.monotonic()
        if running is None or now - self._last_moving < self.p.moving_feedback_s:
            return
        self._last_moving = now
        goal_handle, step, total = running
        goal_handle.publish_feedback(ExecutePlan.Feedback(
            step_index=step.index, total_steps=total, step_text=step.render(),
            status=ExecutePlan.Feedback.STATUS_MOVING))

    def _execute(self, goal_handle: Any) -> ExecutePlan.Result:
        with self._busy:
            self.goals += 1
            result = ExecutePlan.Result()
            try:
                plan = plan_from_msg(goal_handle.request.plan)
            except ValueError as exc:
                goal_handle.abort()
                result.message = f"invalid plan: {exc}"
                return result
            total = len(plan.steps)
            self._physics.submit(self.controller.rest).result()  # a new plan starts with the waist upright
            for step in plan.steps:
                if goal_handle.is_cancel_requested:
                    goal_handle.canceled()
                    result.message = f"canceled before step {step.index}"
                    return result
                if self.robot.estop.engaged:
                    goal_handle.abort()
                    result.message = f"e-stop engaged before step {step.index}"
                    return result
                goal_handle.publish_feedback(ExecutePlan.Feedback(
                    step_index=step.index, total_steps=total, step_text=step.render(),
                    status=ExecutePlan.Feedback.STATUS_STARTED))
                self._running = (goal_handle, step, total)
                self._last_moving = time.monotonic()  # the first heartbeat comes a full period into the step
                try:
                    res = self._physics.submit(self._run_step, step).result()
                finally:
                    self._running = None
                rmsg = self._result_msg(res)
                self.result_pub.publish(rmsg)
                result.step_results.append(rmsg)
                goal_handle.publish_feedback(ExecutePlan.Feedback(
                    step_index=step.index, total_steps=total, step_text=step.render(), result=rmsg,
                    status=ExecutePlan.Feedback.STATUS_SUCCEEDED if res.success else ExecutePlan.Feedback.STATUS_FAILED))
                if not res.success:
                    goal_handle.abort()
                    result.message = f"step {step.index} ({step.render()}) failed: {rmsg.message}"
                    return result
                result.steps_completed += 1
            goal_handle.succeed()
            result.success = True
            result.message = f"{total} steps done"
            return result


def main(argv: list[str] | None = None) -> int:
    # The video and the robot are closed by then: skip the second or two of MuJoCo's teardown.
    exit_without_teardown(run_node(ControllerNode, argv, threads=3))


if __name__ == "__main__":
    sys.exit(main())
