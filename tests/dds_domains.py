"""DDS domains for tests that start Unitree SDK processes (the sim bridge, the G1 backend), one per pytest-xdist
worker (TEST_WORKERS=N make test runs the suite on N workers): two bridges on one domain would answer each
other's controllers. ROS domains are chosen in tests/ros/conftest.py."""
from __future__ import annotations

import os


def worker_index() -> int:
    """0 outside pytest-xdist; N on worker gwN."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw")
    return int(worker) if worker.isdigit() else 0


def unitree_domain() -> int:
    """1 on the first worker (and without xdist), 3 on the second, ...: below the 60-99 the ROS tests derive."""
    return 1 + 2 * worker_index()
