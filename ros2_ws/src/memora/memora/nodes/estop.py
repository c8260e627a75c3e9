"""`estop`: engage (default) or `--clear` the robot's e-stop over the controller's e-stop topic, and confirm it.

A message published by a process that has just started can be lost or held back: DDS has to match the
publisher with the controller's subscription first. So the message goes out only once a subscriber is
matched, and the tool waits until that subscriber has acknowledged it.
Exit codes: 0 delivered and acknowledged, 2 no subscriber within --timeout, 3 sent but not acknowledged.
"""
from __future__ import annotations

import argparse
import sys
import time

import rclpy
from rclpy.duration import Duration
from rclpy.node import Node
from rclpy.publisher import Publisher
from rclpy.qos import QoSProfile, ReliabilityPolicy
from std_msgs.msg import Bool

from memora.common import one_shot_node

# The controller's subscription and every e-stop publisher use this (volatile: a `ros2 topic pub` matches too).
ESTOP_QOS = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE)
EXIT_NO_SUBSCRIBER, EXIT_NOT_ACKED = 2, 3


def send_estop(publisher: Publisher, engaged: bool, ack_timeout_s: float) -> bool:
    """Publish the e-stop state; True once every matched subscriber acknowledged it within `ack_timeout_s`."""
    publisher.publish(Bool(data=engaged))
    return bool(publisher.wait_for_all_acked(Duration(seconds=ack_timeout_s)))


def wait_for_subscriber(node: Node, publisher: Publisher, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while publisher.get_subscription_count() < 1:
        if time.monotonic() >= deadline:
            return False
        rclpy.spin_once(node, timeout_sec=0.02)
    return True


def _parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="estop", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--clear", action="store_true", help="release the e-stop instead of engaging it")
    p.add_argument("--topic", default="/memora/estop", help="the controller's estop_topic")
    p.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for a subscriber, then for its ack")
    args = p.parse_args(argv)
    if not args.timeout > 0:
        p.error("--timeout must be > 0")
    return args


def main(argv: list[str] | None = None) -> int:
    all_args = sys.argv if argv is None else ["estop", *argv]
    args = _parse(rclpy.utilities.remove_ros_args(all_args)[1:])
    what = "e-stop clear" if args.clear else "e-stop"
    with one_shot_node("estop", all_args) as tool:
        publisher = tool.node.create_publisher(Bool, args.topic, ESTOP_QOS)
        if not wait_for_subscriber(tool.node, publisher, args.timeout):
            print(f"estop: no subscriber on {args.topic} within {args.timeout:g} s; {what} not sent", file=sys.stderr)
            tool.code = EXIT_NO_SUBSCRIBER
        elif not send_estop(publisher, not args.clear, args.timeout):
            print(f"estop: {what} sent on {args.topic} but not acknowledged within {args.timeout:g} s", file=sys.stderr)
            tool.code = EXIT_NOT_ACKED
        else:
            print(f"estop: {what} delivered on {args.topic}", file=sys.stderr)
    return tool.code


if __name__ == "__main__":
    sys.exit(main())
