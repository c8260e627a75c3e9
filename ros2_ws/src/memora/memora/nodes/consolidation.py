"""Consolidation node: decides WHEN memory is consolidated (routines, preferences) — at the end of every
written episode, on a timer, or on request (Consolidate service) — and publishes each report.

The mining itself (memora_core.consolidation) runs inside the memory writer, through its internal
Consolidate service, because the writer is the store's only writer; this node owns the policy.
"""
from __future__ import annotations

import sys
import threading

from pydantic import BaseModel, ConfigDict, Field
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

from memora.common import declare_params, run_node
from memora_interfaces.msg import EpisodeEvent, NodeStatus
from memora_interfaces.srv import Consolidate


class ConsolidationParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    participant_id: str = "P01"
    on_episode_end: bool = Field(default=True, description="consolidate after every episode the writer finished")
    period_s: float = Field(default=0.0, ge=0, description="also consolidate every period_s seconds (0 = off)")
    service_name: str = "/memora/consolidate"
    writer_service: str = "/memora/memory_writer/consolidate"
    written_topic: str = "/memora/memory/episode"
    report_topic: str = "/memora/consolidation/report"
    status_topic: str = "/memora/status"
    timeout_s: float = Field(default=120.0, gt=0)


class ConsolidationNode(Node):
    def __init__(self) -> None:
        super().__init__("consolidation")
        self.p: ConsolidationParams = declare_params(self, ConsolidationParams)
        group = ReentrantCallbackGroup()
        latched = QoSProfile(depth=20, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.client = self.create_client(Consolidate, self.p.writer_service, callback_group=group)
        self.report_pub = self.create_publisher(String, self.p.report_topic, latched)
        self.status_pub = self.create_publisher(NodeStatus, self.p.status_topic, latched)
        self.create_service(Consolidate, self.p.service_name, self._on_request, callback_group=group)
        if self.p.on_episode_end:
            self.create_subscription(EpisodeEvent, self.p.written_topic, self._on_written, latched, callback_group=group)
        if self.p.period_s > 0:
            self.create_timer(self.p.period_s, lambda: self.run(self.p.participant_id, "timer"), callback_group=group)
        self._seen: set[tuple[str, int, int]] = set()
        self._one = threading.Lock()
        self.get_logger().info(f"consolidation ready (episode end={self.p.on_episode_end}, period={self.p.period_s} s)")

    def _status(self, state: str, message: str) -> None:
        msg = NodeStatus(node=self.get_name(), state=state, message=message)
        msg.header.stamp = self.get_clock().now().to_msg()
        self.status_pub.publish(msg)

    def run(self, participant_id: str, why: str) -> Consolidate.Response:
        with self._one:
            if not self.client.wait_for_service(timeout_sec=min(self.p.timeout_s, 10.0)):
                return Consolidate.Response(ok=False, message=f"memory writer service {self.p.writer_service} absent")
            done = threading.Event()
            future = self.client.call_async(Consolidate.Request(participant_id=participant_id))
            future.add_done_callback(lambda _f: done.set())
            if not done.wait(self.p.timeout_s):
                return Consolidate.Response(ok=False, message=f"no answer within {self.p.timeout_s:.0f} s")
            resp = future.result()
            if resp.ok:
                self.report_pub.publish(String(data=resp.report_json))
            self._status(NodeStatus.STATE_READY if resp.ok else NodeStatus.STATE_ERROR, f"{why}: {resp.message}")
            # one severity per call site: rclpy refuses a logging call whose severity changes between calls
            if resp.ok:
                self.get_logger().info(f"consolidation ({why}) for {participant_id}: {resp.message}")
            else:
                self.get_logger().error(f"consolidation ({why}) for {participant_id} failed: {resp.message}")
            return resp

    def _on_written(self, msg: EpisodeEvent) -> None:
        key = (msg.video_id, msg.header.stamp.sec, msg.header.stamp.nanosec)
        if key in self._seen:  # latched history redelivered after a reconnect
            return
        self._seen.add(key)
        self.run(msg.participant_id or self.p.participant_id, f"episode {msg.video_id} ended")

    def _on_request(self, req: Consolidate.Request, resp: Consolidate.Response) -> Consolidate.Response:
        out = self.run(req.participant_id or self.p.participant_id, "request")
        resp.ok, resp.message, resp.report_json = out.ok, out.message, out.report_json
        return resp


def main(argv: list[str] | None = None) -> int:
    return run_node(ConsolidationNode, argv, threads=3)


if __name__ == "__main__":
    sys.exit(main())
