"""bench/benchmarks/camera_demo_plans.py: how two plans of a demo task are compared (same steps; the objects a plan
would handle against the task's expected ones, as the demo judges a run), and bad seeds refused in one line."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "bench" / "benchmarks" / "camera_demo_plans.py"


def _bench():
    spec = importlib.util.spec_from_file_location("camera_demo_plans", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _plan(*steps):
    return {"steps": [{"index": i, "action": a, "object": o, "target": t, "text": f"{a} the {o}"}
                      for i, (a, o, t) in enumerate(steps)]}


def test_plans_are_compared_by_their_steps_and_the_objects_they_handle():
    bench = _bench()
    cfg = SimpleNamespace(tasks=[SimpleNamespace(instruction="Water the fern.", expected_objects=["green jug", "fern"])])
    oracle = _plan(("pick up", "green jug", "table"), ("pour", "green jug", "fern"), ("put", "green jug", "table"))
    same = bench.compare(cfg, [oracle], [oracle])[0]
    assert same["same_steps"] and same["expected_objects"] and same["oracle_expected_objects"]
    # the camera's plan pours into another pot: other steps, and an object the task does not expect
    other = _plan(("pick up", "green jug", "table"), ("pour", "green jug", "cactus"), ("put", "green jug", "table"))
    row = bench.compare(cfg, [oracle], [other])[0]
    assert not row["same_steps"] and not row["expected_objects"] and row["oracle_expected_objects"]
    # names compare without hyphens and extra spaces; the table is where things go, not an object chosen
    assert bench.objects(_plan(("pick up", "coca-cola  can", "table"), ("put", "coca-cola can", "table"))) == \
        ["coca cola can", "table"]
    # verbs as the robot reads them ('grab' picks; a relation word is not part of the target); no robot verb, no object
    assert bench.objects(_plan(("grab", "green jug", None), ("put", "green jug", "in fern"), ("admire", "fern", None))) \
        == ["green jug", "fern"]
    # a table spot beside an object is that object chosen, as the controller reads 'next to'
    assert bench.objects(_plan(("put", "green jug", "table next to the fern"))) == ["fern"]
    assert bench.compare(cfg, [oracle], [_plan(("grab", "green jug", None), ("pour", "green jug", "into fern"))])[0][
        "expected_objects"]


def test_negative_seeds_are_refused_in_one_line():
    res = subprocess.run([sys.executable, str(BENCH), "--seeds", "-3"], capture_output=True, text=True, timeout=120,
                         cwd=REPO)
    assert res.returncode == 2 and res.stderr.strip().count("\n") == 0 and "--seeds" in res.stderr
