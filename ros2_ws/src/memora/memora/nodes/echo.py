"""`echo TOPIC TYPE`: print each message on a topic as one JSON line (there is no `ros2 topic echo` here).

Exits 0 after --count messages, 4 when --timeout passes first. Used by the tests and for debugging.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import rclpy
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data

from memora.common import msg_to_dict, msg_type, one_shot_node


def _parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="echo", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("topic")
    p.add_argument("type", help="e.g. memora_interfaces/msg/Instruction or sensor_msgs/msg/Image")
    p.add_argument("--count", type=int, default=0, help="exit after this many messages (0: never)")
    p.add_argument("--timeout", type=float, default=0.0, help="give up after this many seconds (0: never)")
    p.add_argument("--qos", choices=["reliable", "sensor", "latched"], default="reliable",
                   help="latched = reliable + transient local: also gets what was published before discovery")
    p.add_argument("--ready-file", default="", help="touch this file once the subscription exists")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    all_args = sys.argv if argv is None else ["echo", *argv]
    args = _parse(rclpy.utilities.remove_ros_args(all_args)[1:])
    cls = msg_type(args.type)
    qos = {"sensor": qos_profile_sensor_data,
           "reliable": QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE),
           "latched": QoSProfile(depth=50, reliability=ReliabilityPolicy.RELIABLE,
                                 durability=DurabilityPolicy.TRANSIENT_LOCAL)}[args.qos]
    with one_shot_node("echo", all_args) as tool:
        node = tool.node
        received = 0

        def on_msg(msg: object) -> None:
            nonlocal received
            received += 1
            print(json.dumps(msg_to_dict(msg), default=str), flush=True)

        node.create_subscription(cls, args.topic, on_msg, qos)
        if args.ready_file:
            open(args.ready_file, "w").close()
        deadline = time.monotonic() + args.timeout if args.timeout > 0 else float("inf")
        try:
            while rclpy.ok() and (args.count <= 0 or received < args.count):
                if time.monotonic() > deadline:
                    print(f"echo: {received} message(s) on {args.topic} before the {args.timeout:.0f} s timeout",
                          file=sys.stderr)
                    tool.code = 4
                    break
                rclpy.spin_once(node, timeout_sec=0.1)
        except KeyboardInterrupt:
            pass
    return tool.code


if __name__ == "__main__":
    sys.exit(main())
