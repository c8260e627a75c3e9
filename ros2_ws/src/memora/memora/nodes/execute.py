"""`execute plan.json`: send a memora_core Plan (JSON) to the ExecutePlan action and follow it.

Prints one JSON line per feedback and one for the result. --cancel-after N cancels the goal after the
N-th step feedback (started, succeeded, failed, retrying; `moving` heartbeats are printed, not counted);
--estop-after N publishes an e-stop instead (both for operators and for the tests).
The goal goes out only once the action server has discovered this process; before, a fresh client got
the goal's answer and first feedback up to seconds late, and a cancel or e-stop sent on
that feedback landed after the step it was meant for.
Exit codes: 0 plan succeeded, 2 server absent / not answering / goal rejected, 3 plan failed, canceled or aborted.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import rclpy
from rclpy.action import ActionClient
from rclpy.node import Node
from std_msgs.msg import Bool

from memora.common import msg_to_dict, one_shot_node
from memora.conversions import plan_to_msg
from memora.nodes.estop import ESTOP_QOS, send_estop
from memora_core.schemas import Plan
from memora_interfaces.action import ExecutePlan


PROBE_RETRY_S = 0.25  # ask again after this long without an answer
ESTOP_ACK_S = 1.0  # how long to wait for the e-stop's delivery to be acknowledged


def _parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="execute", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("plan", type=Path, help="a memora_core.schemas.Plan as JSON")
    p.add_argument("--action", default="/memora/execute_plan")
    p.add_argument("--estop-topic", default="/memora/estop")
    p.add_argument("--cancel-after", type=int, default=0, help="cancel after this many step feedback messages")
    p.add_argument("--estop-after", type=int, default=0, help="publish an e-stop after this many step feedback messages")
    p.add_argument("--timeout", type=float, default=120.0)
    return p.parse_args(argv)


def _drain_feedback(node: Node, count: Callable[[], int], quiet_s: float = 0.3, limit_s: float = 2.0) -> None:
    """Feedback travels on a topic and the result as a service reply, so the last feedback (the final step's
    outcome) can arrive after the result: keep spinning until none came for `quiet_s` (at most `limit_s`)."""
    start = quiet_since = time.monotonic()
    seen = count()
    while time.monotonic() - quiet_since < quiet_s and time.monotonic() - start < limit_s:
        rclpy.spin_once(node, timeout_sec=0.05)
        if count() != seen:
            seen, quiet_since = count(), time.monotonic()


def _server_sees_us(node: Node, action: str, timeout_s: float) -> bool:
    """Wait until the action server has discovered this process's readers (bounded by `timeout_s`).

    `wait_for_server` only says that this side has matched the server's endpoints. Discovery is not
    symmetric: the server can still lack our readers, and then its goal response and first feedback reach
    us only when DDS resends them, up to seconds later. A result request for an unknown goal is answered
    at once and changes nothing; its answer arrives only once the server has matched the reader of a
    client created after the action client's, and the server learns our readers in creation order."""
    probe = node.create_client(ExecutePlan.Impl.GetResultService, action.rstrip("/") + "/_action/get_result")
    deadline = time.monotonic() + timeout_s
    try:
        if not probe.wait_for_service(timeout_sec=timeout_s):
            return False
        while (left := deadline - time.monotonic()) > 0:  # (a negative timeout would wait forever)
            request = ExecutePlan.Impl.GetResultService.Request()
            request.goal_id.uuid = list(uuid.uuid4().bytes)
            future = probe.call_async(request)
            rclpy.spin_until_future_complete(node, future, timeout_sec=min(PROBE_RETRY_S, left))
            if future.done():
                return True
            probe.remove_pending_request(future)  # answer lost to a server that had not matched us yet
        return False
    finally:
        node.destroy_client(probe)


def _run(node: Node, args: argparse.Namespace, plan: Plan) -> int:
    estop = node.create_publisher(Bool, args.estop_topic, ESTOP_QOS)
    client = ActionClient(node, ExecutePlan, args.action)
    feedback_count = 0
    goal_handle = None
    cancel_due = False

    def on_feedback(fb: object) -> None:
        nonlocal feedback_count, cancel_due
        print(json.dumps({"feedback": msg_to_dict(fb.feedback)}), flush=True)
        if fb.feedback.status == ExecutePlan.Feedback.STATUS_MOVING:
            return  # a heartbeat: not counted by --cancel-after / --estop-after
        feedback_count += 1
        if args.cancel_after and feedback_count == args.cancel_after:
            # Feedback (a topic) can overtake the goal response (a service reply): then cancel once it is here.
            if goal_handle is None:
                cancel_due = True
            else:
                goal_handle.cancel_goal_async()
        if args.estop_after and feedback_count == args.estop_after:
            if not send_estop(estop, True, ESTOP_ACK_S):
                print(f"execute: e-stop not acknowledged by a subscriber within {ESTOP_ACK_S} s", file=sys.stderr)

    try:
        if not client.wait_for_server(timeout_sec=min(args.timeout, 30.0)):
            print(f"execute: action {args.action} not available", file=sys.stderr)
            return 2
        if not _server_sees_us(node, args.action, min(args.timeout, 30.0)):
            print(f"execute: action {args.action} does not answer", file=sys.stderr)
            return 2
        send = client.send_goal_async(ExecutePlan.Goal(plan=plan_to_msg(plan)), feedback_callback=on_feedback)
        rclpy.spin_until_future_complete(node, send, timeout_sec=args.timeout)
        goal_handle = send.result()
        if goal_handle is None or not goal_handle.accepted:
            print("execute: goal rejected (busy, empty plan or ungrounded steps)", file=sys.stderr)
            return 2
        if cancel_due:
            goal_handle.cancel_goal_async()
        done = goal_handle.get_result_async()
        rclpy.spin_until_future_complete(node, done, timeout_sec=args.timeout)
        if not done.done():
            print("execute: no result before the timeout", file=sys.stderr)
            return 3
        wrapped = done.result()
        _drain_feedback(node, lambda: feedback_count)
        print(json.dumps({"status": int(wrapped.status), "result": msg_to_dict(wrapped.result)}), flush=True)
        return 0 if wrapped.result.success else 3
    except KeyboardInterrupt:
        return 130


def main(argv: list[str] | None = None) -> int:
    all_args = sys.argv if argv is None else ["execute", *argv]
    args = _parse(rclpy.utilities.remove_ros_args(all_args)[1:])
    plan = Plan.model_validate_json(args.plan.read_text())
    with one_shot_node("execute", all_args) as tool:
        tool.code = _run(tool.node, args, plan)
    return tool.code


if __name__ == "__main__":
    sys.exit(main())
