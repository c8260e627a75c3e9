"""Unitree sim bridge node: runs sim.unitree_bridge.bridge (MuJoCo G1 answering `rt/lowcmd` with
`rt/lowstate` over the Unitree SDK's Cyclone DDS) inside the ROS graph, so `robot:=g1 g1_bridge:=sim`
starts it like any other node, and reports its rate on a status topic.

Two DDS stacks meet here and stay apart: the bridge talks Cyclone DDS on `dds_domain` / `dds_interface`
(domain 1 on `lo` in simulation, as the controller's g1 backend expects), while this node's own status
topic goes out over ROS 2 on ROS_DOMAIN_ID. The bridge loop steps physics on a worker thread; the node
stops it when the context shuts down (SIGINT / SIGTERM).
"""
from __future__ import annotations

import json
import sys
import threading
import time

from pydantic import BaseModel, ConfigDict, Field
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

from memora.common import declare_params, run_node


class SimBridgeParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    dds_domain: int = Field(default=1, ge=0, le=232, description="Unitree SDK (Cyclone DDS) domain")
    dds_interface: str = Field(default="lo", description="network interface the Unitree SDK binds to")
    robot_config: str = Field(default="sim_g1", description="simulated robot config (robot_configs) the bridge steps")
    seed: int = 0
    real_time: bool = Field(default=True, description="pace physics to wall-clock time, as the real robot runs")
    status_topic: str = "/memora/sim_bridge/status"
    status_hz: float = Field(default=1.0, gt=0)


class SimBridgeNode(Node):
    def __init__(self) -> None:
        super().__init__("sim_bridge")
        from sim.unitree_bridge.bridge import BridgeStats

        self.p: SimBridgeParams = declare_params(self, SimBridgeParams)
        self.stats = BridgeStats()
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self._last = (0, 0.0)  # (published, time) at the previous status message
        self.status_pub = self.create_publisher(String, self.p.status_topic,
                                                QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE))
        self._thread = threading.Thread(target=self._bridge, name="unitree_bridge", daemon=True)
        self._thread.start()
        self.create_timer(1.0 / self.p.status_hz, self._status)
        self.get_logger().info(f"unitree sim bridge: domain {self.p.dds_domain} on {self.p.dds_interface}, "
                               f"robot {self.p.robot_config}")

    def _bridge(self) -> None:
        from sim.unitree_bridge.bridge import run

        try:
            run(self.p.dds_domain, self.p.dds_interface, float("inf"), seed=self.p.seed,
                real_time=self.p.real_time, stop=self._stop, stats=self.stats, robot_config=self.p.robot_config)
        except BaseException as exc:  # noqa: BLE001 - reported by the status timer, which ends the node
            self._error = exc

    def _status(self) -> None:
        if self._error is not None:
            # The bridge is the whole point of this node: without it, fail so the supervisor reports it.
            raise RuntimeError(f"unitree bridge loop failed: {self._error!r}") from self._error
        if not self._thread.is_alive() and not self._stop.is_set():
            raise RuntimeError("unitree bridge loop ended on its own")
        now = time.monotonic()
        published = self.stats.published
        prev_pub, prev_t = self._last
        window_hz = (published - prev_pub) / (now - prev_t) if prev_t else self.stats.rate_hz()
        self._last = (published, now)
        self.status_pub.publish(String(data=json.dumps({
            "running": self.stats.started > 0, "rate_hz": round(window_hz, 1),
            "mean_rate_hz": round(self.stats.rate_hz(), 1), "lowstate_published": published,
            "lowcmd_received": self.stats.commands, "lowcmd_bad_crc": self.stats.rejected,
            "dds_domain": self.p.dds_domain, "dds_interface": self.p.dds_interface})))

    def destroy_node(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10.0)
        self.get_logger().info(f"unitree sim bridge stopped: {self.stats.published} LowState at "
                               f"{self.stats.rate_hz():.0f} Hz, {self.stats.commands} LowCmd received")
        super().destroy_node()


def main(argv: list[str] | None = None) -> int:
    return run_node(SimBridgeNode, argv)


if __name__ == "__main__":
    sys.exit(main())
