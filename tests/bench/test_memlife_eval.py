"""MemLife evaluation on hand-made cases (accuracy with whole-set matching, recall by same-video overlap, oracle
accuracy), evidence intervals from narration rows, and the `memlife` condition end to end on a tiny benchmark."""
from __future__ import annotations

import json
import sys
from pathlib import Path

from memora_core.config import EmbeddingConfig
from memora_core.ingest.narration import NarrationRow

from memora_bench.data import BenchData
from memora_bench.memlife.condition import run_memlife, split_conditions
from memora_bench.memlife.config import MemLifeConfig
from memora_bench.memlife.evaluate import evaluate, evidence_intervals, oracle_entries
from memora_bench.memlife.types import Interval, ReaderAction, ReaderTrace, Timeline

sys.path.insert(0, str(Path(__file__).parent))
from memlife_helpers import entry, item  # noqa: E402

E1, E2, E3 = entry("V1", 0, 0, 30, "a"), entry("V2", 0, 40, 70, "b"), entry("V1", 1, 30, 60, "c")
ENTRIES = {e.key: e for e in (E1, E2, E3)}


def trace(qid: str, answer: str | None, returned=(), parse_failure: bool = False) -> ReaderTrace:
    return ReaderTrace(question_id=qid, question_time=100, answer=answer, parse_failure=parse_failure,
                       actions=[ReaderAction(kind="search", query="x", budget=32, returned=list(returned))])


def row(vid: str, start: float, stop: float, narration: str) -> NarrationRow:
    verb, noun = narration.split(" ", 1)
    return NarrationRow(narration_id=f"{vid}_{start}", participant_id="PX1", video_id=vid, start_s=start,
                        stop_s=stop, narration=narration, verb=verb, verb_class=0, noun=noun, noun_class=0,
                        all_nouns=(noun,), all_noun_classes=(0,))


def test_accuracy_needs_the_whole_set_and_parse_failure_is_wrong():
    items = [item("q0", "A"), item("q1", "B"), item("q2", "C"), item("q3", "D")]
    traces = [trace("q0", "A"), trace("q1", "AB"), trace("q2", "C", parse_failure=True), trace("q3", None)]
    res = evaluate(traces, items, entries=ENTRIES, evidence={})
    assert res["accuracy"] == 0.25 and res["parse_failures"] == 1


def test_recall_counts_overlap_with_evidence_of_the_same_video_only():
    items = [item("q0"), item("q1"), item("q2"), item("q3", "E", unanswerable=True)]
    ev = {"q0": [("V1", Interval(start=35, end=36))],   # E3 (V1 30-60) overlaps
          "q1": [("V1", Interval(start=45, end=50))],   # only E2 returned: V2 45-50 overlaps in time, wrong video
          "q2": [("V1", Interval(start=10, end=12))]}   # nothing returned
    traces = [trace("q0", "A", [E3.key]), trace("q1", "A", [E2.key]), trace("q2", "A"), trace("q3", "E")]
    res = evaluate(traces, items, entries=ENTRIES, evidence=ev)
    assert res["recall"] == round(1 / 3, 4) and res["n_answerable"] == 3  # the control is not in recall
    assert res["accuracy"] == 1.0 and res["per_type"]["ERecall"]["recall"] == round(1 / 3, 4)


def test_oracle_accuracy_and_oracle_entries():
    items = [item("q0", "A"), item("q1", "B")]
    res = evaluate([trace("q0", "B"), trace("q1", "B")], items, entries=ENTRIES, evidence={},
                   oracle=[trace("q0", "A"), trace("q1", "C")])
    assert res["accuracy"] == 0.5 and res["oracle_accuracy"] == 0.5
    ev = [("V1", Interval(start=31, end=32)), ("V1", Interval(start=50, end=51)), ("V1", Interval(start=1, end=2))]
    assert oracle_entries(ev, [E1, E2, E3], k=1) == [E3]          # covers two evidence intervals
    assert oracle_entries(ev, [E1, E2, E3], k=5) == [E1, E3]      # chronological; E2 is another video


def test_evidence_intervals_are_answer_aligned_narration_rows_on_the_timeline():
    tl = Timeline({"V1": 100, "V2": 100})
    rows = [row("V2", 5, 7, "cut onion"), row("V2", 10, 12, "wash cup"), row("V1", 1, 2, "cut onion")]
    it = item("q0", "A", choices=("cut the onion", "x", "y", "z"), videos=("V2", "V9"))
    assert evidence_intervals(it, rows, tl) == [("V2", Interval(start=105, end=107))]
    none_aligned = item("q1", "B", choices=("x", "stir soup", "y", "z"), videos=("V2",))
    assert len(evidence_intervals(none_aligned, rows, tl)) == 2  # no row matches: every row of the video
    assert evidence_intervals(item("q2", "E", unanswerable=True), rows, tl) == []


def test_split_conditions():
    assert split_conditions("all,memlife") == ("all", True)
    assert split_conditions("flat1d") == (["flat1d"], False)
    assert split_conditions("memlife") == ([], True)


def test_memlife_condition_end_to_end(compact_root, tmp_path):
    data = BenchData(compact_root)
    items = data.eam_qa("PX1").items
    cfg = MemLifeConfig(embedding=EmbeddingConfig(backend="hashing"))
    records, block = run_memlife(data, "PX1", items, tmp_path / "out", cfg=cfg, progress=False)
    assert [r.qid for r in records] == [it.qid for it in items]
    assert block["writer_id"] == "template:v1" and block["reader_id"] == "deterministic:v1"
    assert block["entries"] == 4 and block["question_time_s"] > 0
    assert block["recall"] == 1.0 and block["oracle_accuracy"] is not None
    lines = (tmp_path / "out" / "memlife" / "PX1" / "traces.jsonl").read_text().splitlines()
    assert len(lines) == len(items) and json.loads(lines[0])["trace"]["question_time"] == block["question_time_s"]
    # a rerun reuses the cached entries of the same writer
    cache = tmp_path / "out" / "memlife" / "PX1" / "entries.jsonl"
    before = cache.read_text()
    run_memlife(data, "PX1", items, tmp_path / "out", cfg=cfg, progress=False)
    assert cache.read_text() == before


def test_cli_reports_memlife_beside_the_core_conditions(compact_root, tmp_path, monkeypatch, capsys):
    from memora_bench.cli import main

    monkeypatch.setenv("MEMORA_DATA", str(compact_root))
    cfg = tmp_path / "memlife.yaml"
    cfg.write_text("embedding:\n  backend: hashing\n")
    out = tmp_path / "o"
    rc = main(["eam-qa", "--participants", "PX1", "--conditions", "parametric,memlife", "--memlife-config",
               str(cfg), "--out", str(out), "--no-progress"])
    printed = capsys.readouterr().out
    assert rc == 0 and "memlife (writer template:v1, reader deterministic:v1)" in printed
    res = json.loads((out / "results.json").read_text())
    assert set(res["conditions"]) == {"parametric", "memlife"} and set(res["strict"]) == {"parametric", "memlife"}
    assert set(res["memlife"]["pooled"]) >= {"accuracy", "recall", "oracle_accuracy"}
    assert res["memlife"]["per_participant"]["PX1"]["n"] == 3
    # bad input: a missing MemLife config is one line and exit 1; planning has no memlife condition
    assert main(["eam-qa", "--participants", "PX1", "--conditions", "memlife", "--memlife-config",
                 str(tmp_path / "nope.yaml"), "--out", str(out / "x")]) == 1
    assert "nope.yaml" in capsys.readouterr().err
    assert main(["planning", "--participants", "PX1", "--conditions", "memlife", "--out", str(out / "p")]) == 1
