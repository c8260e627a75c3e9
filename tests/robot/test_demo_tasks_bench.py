"""bench/benchmarks/demo_tasks_bench.py: a routine's always-done steps become the robot plan (an invented routine),
the CLI's --help and bad input, and one layout run with ground-truth poses printing its JSON summary."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "benchmarks" / "demo_tasks_bench.py"


def test_the_plan_is_the_routines_always_done_steps():
    sys.path.insert(0, str(BENCH.parent))
    from demo_tasks_bench import routine_plan

    from sim.demonstrator.config import RoutineConfig

    routine = RoutineConfig.model_validate({"name": "tidy", "sequence": [
        {"p": 0.5, "steps": [{"do": "pick", "object": "metal spoon"}]},          # only sometimes: left out
        {"steps": [{"do": "look", "object": "grey bowl"},                          # a look: left out
                   {"do": "pick", "object": "green cup"},
                   {"do": "put", "object": "green cup", "target": "table", "near": "grey bowl"},
                   {"do": "pick", "object": "lipton tea box"},
                   {"do": "put", "object": "lipton tea box", "target": "grey bowl"},
                   {"do": "pick", "object": "fanta can"},
                   {"do": "pour", "object": "fanta can", "target": "green cup"},
                   {"do": "put", "object": "fanta can", "target": "table", "near": "origin"},
                   {"do": "pick", "object": "blue cup"},
                   {"do": "put", "object": "blue cup", "target": "table", "near": "sink side"}]}]})
    plan = routine_plan(routine, regions={"sink side"})
    assert [(s.index, s.action, s.object, s.target) for s in plan] == [
        (0, "pick", "green cup", None), (1, "put", "green cup", "on table next to grey bowl"),
        (2, "pick", "lipton tea box", None), (3, "put", "lipton tea box", "in grey bowl"),
        (4, "pick", "fanta can", None), (5, "pour", "fanta can", "green cup"), (6, "put", "fanta can", "on table"),
        (7, "pick", "blue cup", None), (8, "put", "blue cup", "on table")]


def test_help_and_bad_input():
    ok = subprocess.run([sys.executable, str(BENCH), "--help"], capture_output=True, text=True)
    assert ok.returncode == 0 and "--seed0" in ok.stdout and "--poses" in ok.stdout
    for bad in (["--layouts", "0"], ["--robot", "no_such_robot"], ["--poses", "guessed"], ["--jobs", "0"]):
        run = subprocess.run([sys.executable, str(BENCH), *bad], capture_output=True, text=True)
        assert run.returncode == 2 and "error:" in run.stderr.strip().splitlines()[-1]  # usage, then one line


@pytest.mark.sim
def test_one_layout_prints_its_summary(tmp_path):
    """Run in a worker process (--jobs 2), its row written to --rows; the summary counts what the row says."""
    rows = tmp_path / "rows.jsonl"
    run = subprocess.run([sys.executable, str(BENCH), "--layouts", "1", "--seed0", "98100", "--poses", "truth",
                          "--json", "--jobs", "2", "--rows", str(rows)], capture_output=True, text=True, timeout=900,
                         env={**os.environ, "MUJOCO_GL": "egl"})
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout)
    assert out["layouts"] == 1 and set(out["tasks"]) == {"task_a_drink", "task_b_breakfast"}
    assert out["all_tasks"] <= min(out["tasks"].values()) and isinstance(out["failures"], list)
    [row] = [json.loads(line) for line in rows.read_text().splitlines()]
    assert row["seed"] == 98100 and {n: t["success"] for n, t in row["tasks"].items()} == {
        n: bool(k) for n, k in out["tasks"].items()}
