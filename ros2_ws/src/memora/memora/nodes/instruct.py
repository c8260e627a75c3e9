"""`instruct "Prepare my drink."`: send one text instruction from a terminal.

Publishes a memora_interfaces/Instruction on the instruction topic (default), or with --service calls the
planner's SendInstruction service and prints the plan it returns as JSON. Exits 0 on success, 2 when nobody
listens / the service is absent, 3 when the planner refuses the instruction.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile, ReliabilityPolicy

from memora.common import msg_to_dict, one_shot_node
from memora_interfaces.msg import Instruction
from memora_interfaces.srv import SendInstruction


def _parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="instruct", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("text", help="the instruction, e.g. 'Prepare my drink.'")
    p.add_argument("--participant", default="P01", help="whose memory grounds the instruction")
    p.add_argument("--topic", default="/memora/instruction")
    p.add_argument("--service", nargs="?", const="/memora/send_instruction", default=None,
                   help="call the planner service instead of publishing (optional service name)")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for a listener / the plan")
    return p.parse_args(argv)


def _publish(node: Node, args: argparse.Namespace) -> int:
    pub = node.create_publisher(Instruction, args.topic, QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE))
    deadline = time.monotonic() + args.timeout
    # Publishing before discovery completes would drop the message: wait for a subscriber first.
    while pub.get_subscription_count() == 0:
        if time.monotonic() > deadline:
            print(f"instruct: nobody subscribes to {args.topic} after {args.timeout:.0f} s", file=sys.stderr)
            return 2
        rclpy.spin_once(node, timeout_sec=0.05)
    msg = Instruction(participant_id=args.participant, text=args.text, source=Instruction.SOURCE_TEXT, confidence=1.0)
    msg.header.stamp = node.get_clock().now().to_msg()
    pub.publish(msg)
    # Reliable delivery needs the writer alive until the reader acknowledged.
    pub.wait_for_all_acked(rclpy.duration.Duration(seconds=min(args.timeout, 5.0)))
    print(json.dumps({"published": args.topic, "text": args.text, "participant_id": args.participant}))
    return 0


def _call(node: Node, args: argparse.Namespace) -> int:
    client = node.create_client(SendInstruction, args.service)
    if not client.wait_for_service(timeout_sec=args.timeout):
        print(f"instruct: service {args.service} not available after {args.timeout:.0f} s", file=sys.stderr)
        return 2
    future = client.call_async(SendInstruction.Request(participant_id=args.participant, text=args.text))
    rclpy.spin_until_future_complete(node, future, timeout_sec=args.timeout)
    if not future.done():
        print(f"instruct: no answer from {args.service} within {args.timeout:.0f} s", file=sys.stderr)
        return 2
    resp = future.result()
    print(json.dumps({"ok": resp.ok, "message": resp.message, "plan": msg_to_dict(resp.plan)}))
    return 0 if resp.ok else 3


def main(argv: list[str] | None = None) -> int:
    all_args = sys.argv if argv is None else ["instruct", *argv]
    ros_free = rclpy.utilities.remove_ros_args(all_args)[1:]
    args = _parse(ros_free)
    with one_shot_node("instruct", all_args) as tool:
        try:
            tool.code = _call(tool.node, args) if args.service else _publish(tool.node, args)
        except KeyboardInterrupt:
            tool.code = 130
    return tool.code


if __name__ == "__main__":
    sys.exit(main())
