"""bench/benchmarks/motion_bench.py as a CLI: --help, one clear line and exit 2 on bad input."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "benchmarks" / "motion_bench.py"


def test_help_and_bad_input():
    ok = subprocess.run([sys.executable, str(BENCH), "--help"], capture_output=True, text=True)
    assert ok.returncode == 0 and "--first-seed" in ok.stdout and "--json" in ok.stdout
    bad = subprocess.run([sys.executable, str(BENCH), "--layouts", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
