"""The Unitree sim bridge as its own process for DDS tests: objects at given places, and what the simulator
knew at its end (ground truth, for scoring only) read back once it stopped on SIGINT with exit code 0."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.dds_domains import unitree_domain


@contextmanager
def bridge_with(poses: dict[str, tuple[float, float, float]], seconds: float = 300.0) -> Iterator[dict]:
    """Yields a dict that holds the bridge's final ground truth under "truth" after the block."""
    truth = Path(tempfile.mkdtemp()) / "truth.json"
    proc = subprocess.Popen([sys.executable, "-m", "sim.unitree_bridge.bridge", "--domain", str(unitree_domain()), "--interface", "lo",
                             "--seconds", str(seconds), "--poses-json", json.dumps(poses),
                             "--ground-truth-out", str(truth)],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out: dict = {}
    try:
        yield out
    finally:
        proc.send_signal(signal.SIGINT)
        log, _ = proc.communicate(timeout=30)
    assert proc.returncode == 0, log
    out["truth"] = json.loads(truth.read_text())
