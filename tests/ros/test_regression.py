"""`make sim-regression` runner on one seed of a reduced demo (one routine, two sessions (a routine needs repetition), one task): it renders
the demonstration, forms memory, plans and executes, writes results.json and prints the table. The success
rate is the controller's business (not asserted here); the plumbing is."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytestmark = [pytest.mark.sim, pytest.mark.slow]
REPO = Path(__file__).resolve().parents[2]


def test_regression_runs_a_seed_and_prints_the_table(tmp_path):
    cfg = yaml.safe_load((REPO / "robot_configs" / "demo.yaml").read_text())
    cfg.update(sessions=2, routines=["task_a_drink"], tasks=[t for t in cfg["tasks"] if "drink" in t["instruction"]])
    (tmp_path / "demo.yaml").write_text(yaml.safe_dump(cfg))
    proc = subprocess.run([sys.executable, "-m", "memora_core.runtime.regression", "--config", str(tmp_path / "demo.yaml"),
                           "--seeds", "1", "--first-seed", "7", "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=240, cwd=REPO)
    assert proc.returncode in (0, 1), proc.stdout[-2000:] + proc.stderr[-3000:]  # 1 = some seed failed
    assert "seed | Prepare my drink." in proc.stdout
    assert "seeds with every task successful:" in proc.stdout and "/1" in proc.stdout
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    (row,) = results["rows"]
    assert row["seed"] == 7 and row["instruction"] == "Prepare my drink."
    assert row["expected_objects"] == ["coca-cola bottle", "orange cup"]
    # the plan came from memory formed out of the demonstration (not a refusal), and it was executed
    assert "answer" not in row, row
    assert row["first_motion_s"] is not None and row["first_motion_s"] < 60
    assert (row["success"] and proc.returncode == 0) or (not row["success"] and proc.returncode == 1)
