"""Recorder node: the demo topics -> one MCAP file (rosbag2 layout) written with `rosbags` (no `ros2 bag`).

Messages are taken serialized (CDR) straight from DDS and written as they are; the message definitions of
memora_interfaces come from its installed .msg files, so any MCAP reader can decode them.
"""
from __future__ import annotations

import sys
import threading
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data

from memora.common import declare_params, msg_type, run_node, shutdown_log

DEFAULT_TOPICS = [
    "/memora/camera/episode:memora_interfaces/msg/EpisodeEvent",
    "/memora/camera/image:sensor_msgs/msg/Image",
    "/memora/memory_event:memora_interfaces/msg/MemoryEvent",
    "/memora/instruction:memora_interfaces/msg/Instruction",
    "/memora/plan:memora_interfaces/msg/Plan",
    "/memora/primitive_result:memora_interfaces/msg/PrimitiveResult",
    "/memora/status:memora_interfaces/msg/NodeStatus",
    "/memora/sim/ground_truth:std_msgs/msg/String",
    "/memora/sim/head_camera/image:sensor_msgs/msg/Image",
]


class RecorderParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    out: str = Field(default="runs/demo/recording", description="bag directory (created; must not exist)")
    topics: list[str] = Field(default_factory=lambda: list(DEFAULT_TOPICS), description="'topic:pkg/msg/Type'")
    sensor_topics: list[str] = Field(default_factory=lambda: ["/memora/camera/image", "/memora/sim/head_camera/image"],
                                     description="subscribed best-effort (sensor-data QoS)")
    latched_topics: list[str] = Field(default_factory=lambda: ["/memora/camera/episode", "/memora/status",
                                                               "/memora/plan", "/memora/memory_event"])


def typestore_with_memora():  # noqa: ANN201 - rosbags Typestore
    """The ROS 2 typestore plus memora_interfaces, read from the installed .msg files."""
    from ament_index_python.packages import get_package_share_directory
    from rosbags.typesys import Stores, get_types_from_msg, get_typestore

    store = get_typestore(Stores.LATEST)
    share = Path(get_package_share_directory("memora_interfaces")) / "msg"
    types = {}
    for path in sorted(share.glob("*.msg")):
        types.update(get_types_from_msg(path.read_text(), f"memora_interfaces/msg/{path.stem}"))
    store.register(types)
    return store


class RecorderNode(Node):
    def __init__(self) -> None:
        super().__init__("recorder")
        from rosbags.rosbag2 import StoragePlugin, Writer

        self.p: RecorderParams = declare_params(self, RecorderParams)
        store = typestore_with_memora()
        self.writer = Writer(Path(self.p.out), version=9, storage_plugin=StoragePlugin.MCAP)
        self.writer.open()
        self._lock = threading.Lock()
        self.counts: dict[str, int] = {}
        for item in self.p.topics:
            topic, _, type_name = item.partition(":")
            if not type_name:
                raise ValueError(f"recorder topic {item!r} must look like '/topic:pkg/msg/Type'")
            conn = self.writer.add_connection(topic, type_name, typestore=store)
            qos = qos_profile_sensor_data if topic in self.p.sensor_topics else QoSProfile(
                depth=100, reliability=ReliabilityPolicy.RELIABLE,
                durability=DurabilityPolicy.TRANSIENT_LOCAL if topic in self.p.latched_topics else DurabilityPolicy.VOLATILE)
            self.create_subscription(msg_type(type_name), topic, lambda raw, c=conn: self._write(c, raw), qos, raw=True)
            self.counts[topic] = 0
        self.get_logger().info(f"recording {len(self.p.topics)} topics to {self.p.out}")

    def _write(self, conn, raw: bytes) -> None:  # noqa: ANN001 - rosbags Connection
        with self._lock:
            self.writer.write(conn, self.get_clock().now().nanoseconds, raw)
            self.counts[conn.topic] += 1

    def destroy_node(self) -> None:
        with self._lock:
            self.writer.close()
        shutdown_log(self, "recorded " + ", ".join(f"{t}: {n}" for t, n in self.counts.items()))
        super().destroy_node()


def main(argv: list[str] | None = None) -> int:
    return run_node(RecorderNode, argv)


if __name__ == "__main__":
    sys.exit(main())
