"""Test bodies that start a DDS participant run in a fresh interpreter. The Unitree SDK's Cyclone DDS threads and a
MuJoCo EGL context left by an earlier test in the same pytest process crash it (SIGSEGV in C, measured here); each DDS
participant gets its own process, as the controller and the bridge have in deployment."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_in_fresh_process(module: str, body: str, timeout_s: float = 240) -> None:
    """Call `module`'s function `body` (no arguments) in a new Python process from the repository root; the test
    fails with the tail of its output unless it exits 0."""
    res = subprocess.run([sys.executable, "-c", f"import {module} as t; t.{body}()"], cwd=REPO, capture_output=True,
                         text=True, timeout=timeout_s)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
