"""bench/benchmarks/scene_bench.py as a user runs it: bad input exits 2 with one line, one layout prints
the figures as JSON."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "benchmarks" / "scene_bench.py"


def test_bad_arguments_exit_2():
    res = subprocess.run([sys.executable, str(BENCH), "--layouts", "0"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 2 and res.stderr.count("\n") == 1 and "--layouts" in res.stderr


@pytest.mark.sim
@pytest.mark.slow  # a MuJoCo build and a render in a fresh interpreter: ~6 s idle, 35 s on a loaded CI box
def test_one_layout_as_json():
    res = subprocess.run([sys.executable, str(BENCH), "--layouts", "1", "--first-seed", "7000", "--width", "320",
                          "--height", "240", "--json", "--no-progress"], capture_output=True, text=True, timeout=120,
                         cwd=REPO)
    assert res.returncode == 0, res.stderr[-2000:]
    out = json.loads(res.stdout)
    assert out["layouts"] == 1 and out["objects"] == 12 and out["seeds"] == [7000, 7000]
    assert out["found"] >= 11 and out["position_error_cm"]["median"] < 1.0
