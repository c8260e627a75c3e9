"""Small helpers every memora node shares: the spin/shutdown wrapper and message <-> JSON."""
from __future__ import annotations

import faulthandler
import importlib
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, NoReturn

import rclpy
from rclpy.executors import ExternalShutdownException, MultiThreadedExecutor
from rclpy.node import Node
from rclpy.signals import SignalHandlerOptions, install_signal_handlers

from memora.core_log import bridge_core_log
from memora_core.errors import MemoraError

log = logging.getLogger(__name__)


def run_node(factory: Callable[[], Node], args: Sequence[str] | None = None, threads: int = 1) -> int:
    """Init rclpy, build the node, spin until SIGINT/SIGTERM, shut down cleanly; return an exit code.

    rclpy turns SIGINT and SIGTERM into a context shutdown, so both end in the same clean path.
    A node that fails while building or spinning is logged and exits 1 so a supervisor can report it.
    """
    # rclpy's own handlers only shut the context down, which a node still loading its models (seconds of torch
    # import and weights) never looks at. Until the node exists, SIGINT/SIGTERM raise KeyboardInterrupt instead;
    # rclpy's handlers take over for the spin.
    faulthandler.enable()  # a crash in rclpy/DDS code leaves a traceback on stderr, not a bare -11
    rclpy.init(args=list(args) if args is not None else sys.argv, signal_handler_options=SignalHandlerOptions.NO)
    node: Node | None = None
    code = 0
    detach_log: Callable[[], None] = lambda: None
    try:
        with _interrupting_signals():
            node = factory()
        detach_log = bridge_core_log(node)  # the core's `logging` records appear in this node's ROS log
        install_signal_handlers(SignalHandlerOptions.ALL)
        if threads > 1:
            executor = MultiThreadedExecutor(num_threads=threads)
            executor.add_node(node)
            executor.spin()
        else:
            rclpy.spin(node)
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except SystemExit as exc:  # a node that finished its job on purpose
        code = int(exc.code or 0)
    except MemoraError as exc:  # a typed refusal (store locked, bad store path): one line, its own exit code
        log.error("%s", exc)
        if node is not None:
            node.get_logger().fatal(str(exc))
        code = int(exc.exit_code)
    except Exception:
        # Unless SIGINT/SIGTERM shut the context down while the executor was between waits: rclpy then raises a
        # plain RCLError ("context is not valid") instead of ExternalShutdownException, still a clean stop.
        if rclpy.ok():
            log.exception("node failed")
            if node is not None:
                node.get_logger().fatal("node failed; see the traceback above")
            code = 1
    detach_log()
    # Teardown (destroying the node and its DDS participant) is bounded as the one-shot tools' is: a supervisor
    # escalates to SIGTERM and SIGKILL after its grace (the test graph's 8 s; a camera node killed about 10 s after
    # SIGINT was seen once in CI, where it hung not known), so past TEARDOWN_LIMIT_S the node leaves with its own code.
    _arm_teardown_watchdog(_name(node), code)
    return _finish(node, code)


def _name(node: Node | None) -> str:
    return node.get_name() if node is not None else "node"


TEARDOWN_LIMIT_S = 5.0


@dataclass
class OneShot:
    """What a one-shot tool works with: its node, and the exit code it settles on (kept if teardown stalls)."""

    node: Node
    code: int = 0


def _raise_interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(signal.Signals(signum).name)


@contextmanager
def _interrupting_signals() -> Iterator[None]:
    previous = {sig: signal.signal(sig, _raise_interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextmanager
def one_shot_node(name: str, ros_args: Sequence[str]) -> Iterator[OneShot]:
    """For command-line tools that do one job and exit: init rclpy, yield the node, always clean up; when the block
    ends normally the process ends there, with `tool.code` (an exception leaving the block propagates as usual).

    The tool's work is done before teardown starts, so teardown is bounded: DDS participant destruction
    has been seen to stall for more than 30 s on a loaded machine after the peer process left. Past
    TEARDOWN_LIMIT_S a watchdog says so on stderr and ends the process with the tool's own exit code.
    """
    faulthandler.enable()  # a crash in rclpy/DDS teardown leaves a traceback on stderr, not a bare -11
    rclpy.init(args=list(ros_args))
    tool = OneShot(Node(name))
    try:
        yield tool
    finally:
        _arm_teardown_watchdog(name, tool.code)
        _finish(tool.node, 0)
    # The job is done and its node destroyed: nothing left for the interpreter's own teardown, where handles the
    # garbage collector finalises after the context is gone have crashed rclpy tools (CI saw `estop --clear` exit
    # -11 after it had printed its delivery). The process ends here with the tool's code.
    exit_without_teardown(tool.code)


def _arm_teardown_watchdog(name: str, code: int) -> None:
    """Past TEARDOWN_LIMIT_S from now, say so on stderr and end the process with `code` (a daemon timer: a
    process that finishes first is not held up by it)."""
    def expire() -> None:
        print(f"{name}: teardown took over {TEARDOWN_LIMIT_S:.0f} s; leaving without it", file=sys.stderr)
        exit_without_teardown(code)

    timer = threading.Timer(TEARDOWN_LIMIT_S, expire)
    timer.daemon = True
    timer.start()


def exit_without_teardown(code: int) -> NoReturn:
    """End a node process whose shutdown is done (node destroyed, rclpy shut down, its files closed) without
    Python's interpreter teardown, which for a process holding torch/transformers or MuJoCo spends seconds
    garbage-collecting (5-6 s measured for the memory writer on two busy cores, past the 5 s after which
    ros2 launch escalates SIGINT to SIGTERM). Logging and the standard streams are flushed first."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _finish(node: Node | None, code: int) -> int:
    if node is not None:
        node.destroy_node()
    if rclpy.ok():
        rclpy.shutdown()
    return code


def shutdown_log(node: Node, message: str, level: int = logging.INFO) -> None:
    """Log from a node that may be shutting down: after SIGINT/SIGTERM its context is gone and the ROS
    logger can no longer publish to /rosout (it prints an error instead), so the line goes to stderr in the
    console format of the ROS logger."""
    if node.context.ok():
        (node.get_logger().info if level < logging.WARNING else node.get_logger().warning)(message)
    else:
        print(f"[{logging.getLevelName(level)}] [{node.get_name()}]: {message}", file=sys.stderr, flush=True)


def msg_type(name: str) -> type:
    """'pkg/msg/Type' (or 'pkg/Type', 'pkg/srv/Type', 'pkg/action/Type') -> the generated Python class."""
    parts = name.strip("/").split("/")
    if len(parts) == 2:
        parts = [parts[0], "msg", parts[1]]
    if len(parts) != 3 or parts[1] not in ("msg", "srv", "action"):
        raise ValueError(f"interface type {name!r} must look like 'package/msg/Type'")
    module = importlib.import_module(f"{parts[0]}.{parts[1]}")
    try:
        return getattr(module, parts[2])
    except AttributeError as exc:
        raise ValueError(f"{parts[0]}.{parts[1]} has no type {parts[2]!r}") from exc


def msg_to_dict(msg: Any, max_array: int = 64) -> Any:
    """A generated message as plain data (nested messages become dicts; big byte arrays are summarised)."""
    if hasattr(msg, "get_fields_and_field_types"):
        return {field: msg_to_dict(getattr(msg, field), max_array) for field in msg.get_fields_and_field_types()}
    if isinstance(msg, (bytes, bytearray, memoryview)) or (hasattr(msg, "tolist") and hasattr(msg, "dtype")):
        seq = bytes(msg) if isinstance(msg, (bytes, bytearray, memoryview)) else msg.tolist()
        return seq if len(seq) <= max_array else {"len": len(seq)}
    if isinstance(msg, (list, tuple)) or type(msg).__name__ == "array":
        seq = list(msg)
        if len(seq) > max_array and not (seq and hasattr(seq[0], "get_fields_and_field_types")):
            return {"len": len(seq)}
        return [msg_to_dict(v, max_array) for v in seq]
    return msg


def declare_params(node: Node, model: type[Any]) -> Any:
    """Declare one ROS parameter per field of a pydantic model (its defaults), read them back, validate.

    The YAML parameter files under robot_configs/ros override the defaults; pydantic then refuses
    bad values with a message that names the field, before the node does any work.
    """
    from rcl_interfaces.msg import ParameterDescriptor

    values: dict[str, Any] = {}
    for name, field in model.model_fields.items():
        default = field.get_default(call_default_factory=True)
        descriptor = ParameterDescriptor(description=field.description or "", dynamic_typing=True)
        if isinstance(default, (list, tuple)) and not default:
            param = node.declare_parameter(name, None, descriptor)  # empty list: the type comes from the file
        else:
            param = node.declare_parameter(name, default, descriptor)
        value = param.value
        values[name] = default if value is None else (list(value) if isinstance(value, (list, tuple)) else value)
    return model.model_validate(values)


def stamp_add(stamp: Any, seconds: float) -> Any:
    """A builtin_interfaces/Time `seconds` after `stamp`."""
    from builtin_interfaces.msg import Time

    total = stamp.sec * 1_000_000_000 + stamp.nanosec + int(round(seconds * 1e9))
    return Time(sec=total // 1_000_000_000, nanosec=total % 1_000_000_000)


def stamp_diff(a: Any, b: Any) -> float:
    """Seconds from `b` to `a`."""
    return (a.sec - b.sec) + (a.nanosec - b.nanosec) * 1e-9
