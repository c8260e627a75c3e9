"""Scene model node: the head RGB-D camera's colour, aligned depth, camera info (the RealSense ROS 2 driver's
topics) and the camera's pose in, memora_interfaces/SceneModel out: each object on the table with its pose,
size, shape and colour, named after the known object it matches (memora_core.perception.scene; the objects'
descriptions come from the robot's scene catalogue). Works the same on the simulator node's topics
(`sim_bridge`, rgbd_hz > 0) and on a real head RealSense with its pose from the robot's kinematics.

A frame is modelled when all four messages with one stamp have arrived; frames arriving while one is being
modelled are dropped (sensor-data QoS, latest wins), at most `max_hz` per second."""
from __future__ import annotations

import sys
import time

from geometry_msgs.msg import TransformStamped
from pydantic import BaseModel, ConfigDict, Field
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy, qos_profile_sensor_data
from sensor_msgs.msg import CameraInfo, Image

from memora.common import declare_params, run_node
from memora_core.perception.scene.geometry import NoTableError
from memora.rgbd import COLOR_TOPIC, DEPTH_TOPIC, INFO_TOPIC, FrameError, msgs_to_frame, scene_to_msg


class SceneModelParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    robot_config: str = Field(default="sim_g1", description="robot config whose scene catalogue names objects")
    color_topic: str = COLOR_TOPIC
    depth_topic: str = DEPTH_TOPIC
    camera_info_topic: str = INFO_TOPIC
    camera_pose_topic: str = Field(default="/memora/head_camera/pose",
                                   description="geometry_msgs/TransformStamped world -> colour optical frame")
    scene_topic: str = "/memora/scene_model"
    world_frame: str = "world"
    max_hz: float = Field(default=2.0, gt=0, description="most scene models per second")


def catalogue_entities(robot_config: str) -> list:
    """The known objects of the robot's scene, as the scene model matches them."""
    from memora_core.perception.scene.model import entity_from_object
    from memora_core.robot import load_robot_config
    from sim.scene.config import load_scene_config

    scene = load_scene_config(load_robot_config(robot_config).scene_path())
    return [entity_from_object(o.name, o.category, o.colour, o.half_height, o.footprint_radius,
                               (o.size[0], o.size[1]) if o.shape == "box" else None, o.container, o.label)
            for o in scene.objects]


class SceneModelNode(Node):
    def __init__(self) -> None:
        super().__init__("scene_model")
        from memora_core.perception.scene import SceneModeller
        from memora_interfaces.msg import SceneModel

        self.p: SceneModelParams = declare_params(self, SceneModelParams)
        self.modeller = SceneModeller(catalogue_entities(self.p.robot_config))
        self._latest: dict[str, object] = {}
        self._last = 0.0
        self.published = 0
        self.pub = self.create_publisher(SceneModel, self.p.scene_topic,
                                         QoSProfile(depth=5, reliability=ReliabilityPolicy.RELIABLE))
        for key, typ, topic in (("colour", Image, self.p.color_topic), ("depth", Image, self.p.depth_topic),
                                ("info", CameraInfo, self.p.camera_info_topic),
                                ("pose", TransformStamped, self.p.camera_pose_topic)):
            self.create_subscription(typ, topic, lambda msg, k=key: self._on(k, msg), qos_profile_sensor_data)
        self.get_logger().info(f"scene model: {len(self.modeller.entities)} known objects; "
                               f"{self.p.color_topic} + {self.p.depth_topic} -> {self.p.scene_topic}")

    def _on(self, key: str, msg) -> None:
        self._latest[key] = msg
        if len(self._latest) < 4:
            return
        stamps = {(m.header.stamp.sec, m.header.stamp.nanosec) for m in self._latest.values()}
        if len(stamps) != 1 or time.monotonic() - self._last < 1.0 / self.p.max_hz:
            return
        msgs, self._latest = self._latest, {}
        self._last = time.monotonic()
        try:
            frame = msgs_to_frame(msgs["colour"], msgs["depth"], msgs["info"], msgs["pose"])
            scene = self.modeller.observe(frame)
        except (FrameError, NoTableError) as exc:  # messages that do not fit, or a frame without a table
            self.get_logger().warning(f"no scene model from this frame: {exc}")
            return
        self.pub.publish(scene_to_msg(scene, msgs["colour"].header.stamp, self.p.world_frame))
        self.published += 1


def main(argv: list[str] | None = None) -> int:
    return run_node(SceneModelNode, argv)


if __name__ == "__main__":
    sys.exit(main())
