#!/usr/bin/env python
"""The soak's ROS side (its own process, so the bench itself never imports rclpy): records the camera's
episode events and the memory writer's "episode written" events, and calls the planner's SendInstruction
service at a steady rate, timing each call. One JSON object per line on --out:

    {"kind": "episode", "event": "start"|"end", "video_id", "duration_s", "frames", "wall"}
    {"kind": "written", "video_id", "wall"}
    {"kind": "query", "wall", "latency_s", "ok", "steps"}       (wall: when the call was sent)

    client.py --out events.jsonl [--period-s 2] [--participant P01] [--instruction TEXT ...]

Runs until SIGINT / SIGTERM.
"""
from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path

import rclpy
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy

from memora_interfaces.msg import EpisodeEvent
from memora_interfaces.srv import SendInstruction

DEFAULT_INSTRUCTIONS = ["Prepare my drink.", "Make my breakfast."]


class SoakClient(Node):
    def __init__(self, out: Path, args: argparse.Namespace) -> None:
        super().__init__("soak_client")
        self.args = args
        self._fh = out.open("a", buffering=1)
        self._write_lock = threading.Lock()
        # deeper than the publishers' history: every episode of a long run is kept while the client is up
        latched = QoSProfile(depth=1000, reliability=ReliabilityPolicy.RELIABLE,
                             durability=DurabilityPolicy.TRANSIENT_LOCAL)
        self.create_subscription(EpisodeEvent, args.episode_topic, self._on_episode, latched)
        self.create_subscription(EpisodeEvent, args.written_topic, self._on_written, latched)
        self.planner = self.create_client(SendInstruction, args.planner_service)

    def record(self, **row: object) -> None:
        with self._write_lock:
            self._fh.write(json.dumps(row) + "\n")

    def _on_episode(self, msg: EpisodeEvent) -> None:
        self.record(kind="episode", event=msg.event, video_id=msg.video_id, duration_s=msg.duration_s,
                    frames=msg.frames, wall=time.time())

    def _on_written(self, msg: EpisodeEvent) -> None:
        self.record(kind="written", video_id=msg.video_id, wall=time.time())

    def query_once(self, text: str) -> None:
        done = threading.Event()
        sent = time.time()
        t0 = time.monotonic()
        future = self.planner.call_async(SendInstruction.Request(participant_id=self.args.participant, text=text))
        future.add_done_callback(lambda _f: done.set())
        if not done.wait(self.args.timeout_s):
            self.record(kind="query", wall=sent, latency_s=None, ok=False, steps=0)
            return
        resp = future.result()
        self.record(kind="query", wall=sent, latency_s=time.monotonic() - t0, ok=bool(resp.ok),
                    steps=len(resp.plan.steps))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--period-s", type=float, default=2.0, help="one planner call every this many seconds")
    ap.add_argument("--participant", default="P01")
    ap.add_argument("--instruction", nargs="+", default=DEFAULT_INSTRUCTIONS)
    ap.add_argument("--timeout-s", type=float, default=60.0)
    ap.add_argument("--episode-topic", default="/memora/camera/episode")
    ap.add_argument("--written-topic", default="/memora/memory/episode")
    ap.add_argument("--planner-service", default="/memora/send_instruction")
    args = ap.parse_args(argv)
    rclpy.init()
    node = SoakClient(args.out, args)
    executor = MultiThreadedExecutor(num_threads=2)
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    n = 0
    try:
        while rclpy.ok() and not node.planner.wait_for_service(timeout_sec=0.5):
            pass
        next_t = time.monotonic()
        while rclpy.ok():
            node.query_once(args.instruction[n % len(args.instruction)])
            n += 1
            next_t += args.period_s
            time.sleep(max(0.0, next_t - time.monotonic()))
    except KeyboardInterrupt:
        pass
    except Exception:  # noqa: BLE001 - the context was shut down by a signal mid-call
        if rclpy.ok():
            raise
    finally:
        executor.shutdown(timeout_sec=1.0)
        node.destroy_node()
        if rclpy.ok():
            rclpy.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
