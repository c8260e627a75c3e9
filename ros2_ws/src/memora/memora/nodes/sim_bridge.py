"""Simulator node for `robot:=g1 g1_bridge:=sim`: runs sim.unitree_bridge.bridge (MuJoCo G1 answering
`rt/lowcmd` with `rt/lowstate` over the Unitree SDK's Cyclone DDS) in the kitchen laid out by
`layout_seed`, and publishes what the simulator knows: ground truth (object poses, std_msgs/String JSON,
the controller node's format for a simulated robot) and the head camera (sensor_msgs/Image rgb8,
sensor-data QoS), both on the controller's topics so the sim perception and the recorder read either.
A status topic reports the bridge loop's rate and its longest stall. With `rgbd_hz` > 0 it also publishes
the head RealSense as its ROS 2 driver does (colour, depth aligned to colour, camera info; memora.rgbd) and
the camera's pose, which the scene model node (`scene_model`) turns into a typed SceneModel. The bridge
serves the Dex3 hands' DDS topics too (rt/dex3/{left,right}/cmd|state).

Two DDS stacks meet here and stay apart: the bridge talks Cyclone DDS on `dds_domain` / `dds_interface`
(domain 1 on `lo` in simulation, as the controller's g1 backend expects), while this node's own topics go
out over ROS 2 on ROS_DOMAIN_ID. Physics steps on a worker thread (the bridge loop, 200 Hz); ground truth
is published from it at `ground_truth_hz` of simulated time, and the head camera is rendered on a thread of
its own from a snapshot (bridge.HeadCamera), so rendering never stalls a LowState frame. The node stops the
loop when the context shuts down (SIGINT / SIGTERM).
"""
from __future__ import annotations

import json
import sys
import threading
import time
from typing import Any

from pydantic import BaseModel, ConfigDict, Field
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from sensor_msgs.msg import Image
from std_msgs.msg import String

from memora.common import declare_params, run_node


class SimBridgeParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    dds_domain: int = Field(default=1, ge=0, le=232, description="Unitree SDK (Cyclone DDS) domain")
    dds_interface: str = Field(default="lo", description="network interface the Unitree SDK binds to")
    robot_config: str = Field(default="sim_g1", description="simulated robot config (robot_configs) the bridge steps")
    layout_seed: int = Field(default=1000, description="seeded kitchen layout (the controller's sample_layout)")
    kitchen_objects: bool = Field(default=True, description="false: the robot alone, no objects (no ground truth)")
    real_time: bool = Field(default=True, description="pace physics to wall-clock time, as the real robot runs")
    status_topic: str = "/memora/sim_bridge/status"
    status_hz: float = Field(default=1.0, gt=0)
    ground_truth_topic: str = "/memora/sim/ground_truth"
    ground_truth_hz: float = Field(default=2.0, ge=0, description="per second of simulated time; 0 = off")
    head_camera_topic: str = "/memora/sim/head_camera/image"
    head_camera_hz: float = Field(default=5.0, ge=0, description="per second of simulated time; 0 = off")
    head_camera_size: list[int] = Field(default_factory=lambda: [320, 240], min_length=2, max_length=2,
                                        description="width, height in pixels")
    head_camera_frame_id: str = "head_camera"
    # The head RealSense as its ROS 2 driver publishes it (colour, aligned depth, camera info; memora.rgbd)
    # plus the camera's pose, for the scene model node.
    # Off by default until the graph runs the scene model node (a 640x480 RGB-D render costs ~0.7 s of CPU here).
    rgbd_hz: float = Field(default=0.0, ge=0, description="head RGB-D frames per second of simulated time; 0 = off")
    rgbd_size: list[int] = Field(default_factory=lambda: [640, 480], min_length=2, max_length=2,
                                 description="RGB-D width, height in pixels")
    camera_pose_topic: str = Field(default="/memora/head_camera/pose",
                                   description="geometry_msgs/TransformStamped world -> colour optical frame")
    world_frame: str = "world"


class _Every:
    """True once per `period` of simulated time (the first step included); never when period is None."""

    def __init__(self, hz: float) -> None:
        self.period = 1.0 / hz if hz > 0 else None
        self.next = 0.0

    def due(self, t: float) -> bool:
        if self.period is None or t < self.next:
            return False
        self.next = t + self.period
        return True


class SimBridgeNode(Node):
    def __init__(self) -> None:
        super().__init__("sim_bridge")
        from sim.unitree_bridge.bridge import BridgeStats

        self.p: SimBridgeParams = declare_params(self, SimBridgeParams)
        self.stats = BridgeStats()
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self._camera: Any = None
        self._objects = 0
        self._gt_published = 0
        self._last = (0, 0.0)  # (published, time) at the previous status message
        reliable = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
        self.status_pub = self.create_publisher(String, self.p.status_topic, reliable)
        self.gt_pub = self.create_publisher(String, self.p.ground_truth_topic, reliable)
        self.head_pub = self.create_publisher(Image, self.p.head_camera_topic, qos_profile_sensor_data)
        self._rgbd: Any = None
        self._rgbd_frames = 0
        if self.p.rgbd_hz > 0:  # the head RealSense's topics (new in issue 19; memora.rgbd)
            from geometry_msgs.msg import TransformStamped
            from sensor_msgs.msg import CameraInfo

            from memora.rgbd import COLOR_TOPIC, DEPTH_TOPIC, INFO_TOPIC

            self.rgbd_pubs = [self.create_publisher(t, n, qos_profile_sensor_data) for t, n in (
                (Image, COLOR_TOPIC), (Image, DEPTH_TOPIC), (CameraInfo, INFO_TOPIC),
                (TransformStamped, self.p.camera_pose_topic))]
        self._thread = threading.Thread(target=self._bridge, name="unitree_bridge", daemon=True)
        self._thread.start()
        self.create_timer(1.0 / self.p.status_hz, self._status)
        layout = f"kitchen layout {self.p.layout_seed}" if self.p.kitchen_objects else "no objects"
        self.get_logger().info(f"unitree sim bridge: domain {self.p.dds_domain} on {self.p.dds_interface}, "
                               f"robot {self.p.robot_config}, {layout}; ground truth {self.p.ground_truth_hz} Hz, "
                               f"head camera {self.p.head_camera_hz} Hz {self.p.head_camera_size}")

    # --- bridge thread ------------------------------------------------------------------------------------
    def _bridge(self) -> None:
        from sim.unitree_bridge.bridge import HeadCamera, make_bridge_robot, run

        try:
            robot = make_bridge_robot(self.p.robot_config, self.p.layout_seed if self.p.kitchen_objects else None)
            self._objects = len(robot.layout.poses)
            if self.p.head_camera_hz > 0:
                w, h = self.p.head_camera_size
                self._camera = HeadCamera(robot.model, w, h, self._publish_image)
            if self.p.rgbd_hz > 0:
                from sim.head_camera import HeadCameraSpec
                from sim.unitree_bridge.rgbd_camera import RGBDCamera

                w, h = self.p.rgbd_size
                self._rgbd = RGBDCamera(robot.model, HeadCameraSpec(width=w, height=h), self._publish_rgbd)
            gt_clock, cam_clock = _Every(self.p.ground_truth_hz), _Every(self.p.head_camera_hz)
            rgbd_clock = _Every(self.p.rgbd_hz)

            def observe(robot: Any, sim_time_s: float) -> None:
                if gt_clock.due(sim_time_s):
                    self._publish_ground_truth(robot, sim_time_s)
                if self._camera is not None and cam_clock.due(sim_time_s):
                    self._camera.request(robot.data, sim_time_s)
                if self._rgbd is not None and rgbd_clock.due(sim_time_s):
                    self._rgbd.request(robot.data, sim_time_s)

            run(self.p.dds_domain, self.p.dds_interface, float("inf"), real_time=self.p.real_time,
                stop=self._stop, stats=self.stats, robot=robot, observers=[observe])
        except BaseException as exc:  # noqa: BLE001 - reported by the status timer, which ends the node
            self._error = exc
        finally:
            if self._camera is not None:
                self._camera.close()
            if self._rgbd is not None:
                self._rgbd.close()

    def _publish_ground_truth(self, robot: Any, sim_time_s: float) -> None:
        from sim.unitree_bridge.bridge import ground_truth

        self.gt_pub.publish(String(data=json.dumps(ground_truth(robot, sim_time_s))))
        self._gt_published += 1

    def _publish_image(self, img: Any, sim_time_s: float) -> None:
        # On the camera's render thread; rclpy publishers may be used from any thread.
        h, w = img.shape[:2]
        msg = Image(height=h, width=w, encoding="rgb8", is_bigendian=0, step=3 * w, data=img.tobytes())
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.header.frame_id = self.p.head_camera_frame_id
        self.head_pub.publish(msg)

    def _publish_rgbd(self, frame: Any, sim_time_s: float) -> None:
        from memora.rgbd import frame_to_msgs

        msgs = frame_to_msgs(frame, self.get_clock().now().to_msg(), self.p.world_frame)
        for pub, msg in zip(self.rgbd_pubs, msgs):
            pub.publish(msg)
        self._rgbd_frames += 1

    # --- status (executor thread) -------------------------------------------------------------------------
    def _status(self) -> None:
        error = (self._error or (self._camera.error if self._camera is not None else None)
                 or (self._rgbd.error if self._rgbd is not None else None))
        if error is not None:
            # The bridge is the whole point of this node: without it, fail so the supervisor reports it.
            raise RuntimeError(f"unitree sim bridge failed: {error!r}") from error
        if not self._thread.is_alive() and not self._stop.is_set():
            raise RuntimeError("unitree bridge loop ended on its own")
        now = time.monotonic()
        published = self.stats.published
        prev_pub, prev_t = self._last
        # A window in which the loop started counts from its start, not from the model build before it.
        since = max(prev_t, self.stats.started)
        window_hz = (published - prev_pub) / (now - since) if prev_t and now > since else self.stats.rate_hz()
        self._last = (published, now)
        max_gap_ms, self.stats.max_gap_s = self.stats.max_gap_s * 1000, 0.0  # per status window
        cam = self._camera
        self.status_pub.publish(String(data=json.dumps({
            "running": self.stats.started > 0, "rate_hz": round(window_hz, 1),
            "mean_rate_hz": round(self.stats.rate_hz(), 1), "max_gap_ms": round(max_gap_ms, 1),
            "lowstate_published": published, "lowcmd_received": self.stats.commands,
            "lowcmd_bad_crc": self.stats.rejected, "dds_domain": self.p.dds_domain,
            "dds_interface": self.p.dds_interface, "layout_seed": self.p.layout_seed if self._objects else None,
            "objects": self._objects, "ground_truth_published": self._gt_published,
            "head_camera_frames": cam.frames if cam else 0, "rgbd_frames": self._rgbd_frames,
            "head_camera_render_ms": round(1000 * cam.render_s / cam.frames, 1) if cam and cam.frames else None})))

    def destroy_node(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10.0)
        frames = self._camera.frames if self._camera is not None else 0
        self.get_logger().info(f"unitree sim bridge stopped: {self.stats.published} LowState at "
                               f"{self.stats.rate_hz():.0f} Hz, {self.stats.commands} LowCmd received, "
                               f"{self._gt_published} ground truth, {frames} head camera frames")
        super().destroy_node()


def main(argv: list[str] | None = None) -> int:
    return run_node(SimBridgeNode, argv)


if __name__ == "__main__":
    sys.exit(main())
