"""Runners end to end on the real core (writer, consolidation, conditions, structured agents), on a synthetic
participant and on the shared data; resume; the CLI as a real process."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memora_bench.config import BenchConfig
from memora_bench.data import BenchData
from memora_bench.runners.common import Checkpoint, RunSettings, resolve_conditions
from memora_bench.runners.eam_qa import run_eam_qa
from memora_bench.runners.planning import run_planning

ALL = ("parametric", "flat1d_raw", "flat1d_processed", "graph2d_raw", "graph2d_processed", "memora_episodic",
       "memora")


def settings(out: Path, **kw) -> RunSettings:
    return RunSettings(participants=kw.pop("participants", ["PX1"]), conditions=kw.pop("conditions", list(ALL)),
                       out=out, progress=False, **kw)


def test_resolve_conditions():
    assert resolve_conditions("all", ALL) == list(ALL)
    assert resolve_conditions("memora, parametric", ALL) == ["memora", "parametric"]
    with pytest.raises(ValueError):
        resolve_conditions("memora,nope", ALL)


def test_checkpoint_skips_a_cut_line(tmp_path):
    cp = Checkpoint(tmp_path / "c.jsonl")
    cp.append({"item_id": "a", "x": 1})
    with cp.path.open("a") as fh:
        fh.write('{"item_id": "b", "x"')  # a crash mid-write
    assert list(cp.load()) == ["a"]


def test_planning_runner_on_fixture(compact_root, tmp_path):
    out = tmp_path / "plan"
    res = run_planning(BenchData(compact_root), settings(out), BenchConfig())
    assert res["mode"] == "cpu-structured"
    assert set(res["conditions"]) == set(ALL)
    for cid in ALL:
        for split in ("replay", "generalize"):
            block = res["conditions"][cid][split]
            assert block["n_tasks"] == 1 and "rgp" in block
            assert 0.0 <= (block["rgp"] or 0.0) <= 1.0
    assert res["memory"]["PX1"]["videos"] == 3  # PX1_99 is out of scope and never enters memory
    saved = json.loads((out / "results.json").read_text())
    assert saved["conditions"].keys() == res["conditions"].keys() == saved["strict"].keys()
    assert saved["strict"]["memora"]["replay"]["order_exec_lcs"] is not None  # ours, beside the headline
    assert saved["per_participant_strict"]["PX1"]["memora"].keys() == {"replay", "generalize"}
    item = saved["items"]["memora"][0]
    assert item["steps"] and all(isinstance(t, str) and t for t in item["steps"])  # step texts as produced
    assert set(item["reference"]) >= {"order_exec", "keyobj", "prefadh", "exec"}
    assert saved["reference_memory"]["PX1"]["object_names"]
    for f in ("planning_reference.csv", "planning.csv", "planning_per_participant.csv", "planning_tool_share.csv", "planning_rgp.png",
              "compression.png", "report.html"):
        assert (out / f).stat().st_size > 0, f
    # resume: every item is read back from its save point, the same numbers come out
    lines = (out / "items" / "planning_memora_PX1.jsonl").read_text().count("\n")
    res2 = run_planning(BenchData(compact_root), settings(out), BenchConfig())
    assert (out / "items" / "planning_memora_PX1.jsonl").read_text().count("\n") == lines
    assert res2["conditions"] == res["conditions"]


def test_eam_qa_runner_on_fixture(compact_root, tmp_path):
    out = tmp_path / "qa"
    res = run_eam_qa(BenchData(compact_root), settings(out), BenchConfig())
    ref_par = res["conditions"]["parametric"]
    assert ref_par["n"] == 3 and sum(ref_par["per_type_n"].values()) == 3  # the control is in its type
    assert res["items"]["memora"][0]["response"] in ("A", "B", "C", "D", "E")
    assert "pooled" in res["filtered_subset"]
    par, mem = res["strict"]["parametric"], res["strict"]["memora"]
    assert par["all"]["n"] == 3 and par["controls"]["n"] == 1
    assert par["answerable"]["evidence_recall"] == 0.0  # no memory, nothing retrieved
    assert mem["answerable"]["evidence_recall"] is not None
    assert "diagnostic" in mem and "diagnostic" not in par
    assert sum(mem["decision_profile"].values()) == pytest.approx(1.0)
    for f in ("eam_qa_reference.csv", "eam_qa_accuracy.csv", "eam_qa_accuracy_macro.csv", "eam_qa_decisions.csv",
              "eam_qa_per_participant.csv", "eam_qa_accuracy.png", "eam_qa_decision_profile.png", "report.html"):
        assert (out / f).stat().st_size > 0, f


def test_runners_on_shared_data_subset(shared_data, tmp_path):
    data = BenchData(shared_data)
    s = settings(tmp_path / "p", participants=["P06"], conditions=["parametric", "flat1d_raw", "memora"], limit=3)
    res = run_planning(data, s, BenchConfig())
    assert res["conditions"]["memora"]["replay"]["n_tasks"] == 3
    assert res["conditions"]["memora"]["generalize"]["n_tasks"] == 3
    assert res["memory"]["P06"]["narrations"] == 1229 and res["memory"]["P06"]["videos"] == 11
    assert res["strict"]["memora"]["replay"]["tool_share"]  # MEMORA called its typed tools
    s = settings(tmp_path / "q", participants=["P28"], conditions=["parametric", "memora"], limit=12)
    res = run_eam_qa(data, s, BenchConfig())
    assert res["conditions"]["memora"]["n"] == 12 and res["strict"]["memora"]["all"]["n"] == 12
    assert res["strict"]["parametric"]["answerable"]["evidence_recall"] == 0.0


def test_cli_process(compact_root, tmp_path):
    env = {**os.environ, "MEMORA_DATA": str(compact_root)}
    cmd = [sys.executable, "-m", "memora_bench.cli"]
    help_ = subprocess.run(cmd + ["planning", "--help"], capture_output=True, text=True, env=env, timeout=60)
    assert help_.returncode == 0 and "--conditions" in help_.stdout and "--planner" in help_.stdout
    bad = subprocess.run(cmd + ["eam-qa", "--conditions", "nope", "--participants", "PX1", "--out",
                                str(tmp_path / "x")], capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode == 1 and "unknown condition" in bad.stderr
    ok = subprocess.run(cmd + ["planning", "--participants", "PX1", "--conditions", "parametric,memora",
                               "--out", str(tmp_path / "o"), "--no-progress"],
                        capture_output=True, text=True, env=env, timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert "memora" in ok.stdout and (tmp_path / "o" / "results.json").exists()
    res = json.loads((tmp_path / "o" / "results.json").read_text())
    assert set(res["conditions"]) == {"parametric", "memora"}
    assert set(res["conditions"]["memora"]) == {"replay", "generalize"}


@pytest.mark.slow
def test_full_evaluation_shared_data(shared_data, tmp_path):
    """Both participants, all seven conditions, both benchmarks (the CPU default run)."""
    data = BenchData(shared_data)
    plan = run_planning(data, settings(tmp_path / "p", participants=["P06", "P28"]), BenchConfig())
    assert plan["conditions"]["memora"]["replay"]["n_tasks"] == 24
    assert plan["conditions"]["memora"]["generalize"]["n_tasks"] == 16
    qa = run_eam_qa(data, settings(tmp_path / "q", participants=["P06", "P28"]), BenchConfig())
    assert qa["conditions"]["memora"]["n"] == 356
    assert qa["strict"]["memora"]["answerable"]["n"] == 285
