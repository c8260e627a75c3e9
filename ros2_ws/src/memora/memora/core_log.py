"""The core's Python log inside a node's ROS log: `memora_core` and `sim` use the standard `logging` module
(they never import ROS), so without a bridge a node's log never shows what its core decided (a recovery
tried, a fall-back taken). `CoreLogBridge` forwards those records to the node's rclpy logger at the same
severity; `bridge_core_log(node)` installs it for the node's life and returns the detach function."""
from __future__ import annotations

import logging
from collections.abc import Callable

from rclpy.node import Node

CORE_LOGGERS = ("memora_core", "sim")


class CoreLogBridge(logging.Handler):
    """A logging handler that writes each record through a ROS node's logger."""

    def __init__(self, node: Node, level: int = logging.INFO) -> None:
        super().__init__(level)
        self.ros_logger = node.get_logger()

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = f"[{record.name}] {self.format(record)}"
            if record.levelno >= logging.ERROR:
                self.ros_logger.error(text)
            elif record.levelno >= logging.WARNING:
                self.ros_logger.warning(text)
            elif record.levelno >= logging.INFO:
                self.ros_logger.info(text)
            else:
                self.ros_logger.debug(text)
        except Exception:  # noqa: BLE001 - a log line must never take the node down (e.g. during shutdown)
            self.handleError(record)


def bridge_core_log(node: Node, level: int = logging.INFO) -> Callable[[], None]:
    handler = CoreLogBridge(node, level)
    loggers = [logging.getLogger(name) for name in CORE_LOGGERS]
    for lg in loggers:
        lg.addHandler(handler)
        if lg.getEffectiveLevel() > level:
            lg.setLevel(level)

    def detach() -> None:
        for lg in loggers:
            lg.removeHandler(handler)

    return detach
