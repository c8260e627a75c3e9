"""MemOpt training data from the real EPIC validation narrations: participants split deterministically (never
P06 / P28), every question in the bench's QA schema with verified evidence intervals and segments."""
from __future__ import annotations

from memora_core.config import SegmentingConfig

from memora_bench.data import BenchData, QaItem
from memora_bench.generators.eamqa_gen import _say
from memora_bench.memlife.segments import build_history
from memora_bench.memlife.types import Interval
from memora_bench.memopt.data import build_data, eligible_participants, split_participants


def test_split_is_deterministic_disjoint_and_excludes_the_benchmark(shared_data):
    pids = eligible_participants(shared_data)
    assert pids and "P06" not in pids and "P28" not in pids
    a = split_participants(pids, 0, 0.7, 0.15)
    assert a == split_participants(list(reversed(pids)), 0, 0.7, 0.15)
    assert a != split_participants(pids, 1, 0.7, 0.15)
    flat = a["train"] + a["validation"] + a["test"]
    assert sorted(flat) == pids and len(set(flat)) == len(flat)
    assert all(a[s] for s in ("train", "validation", "test"))


def test_questions_have_verified_evidence(shared_data, tmp_path):
    seg = SegmentingConfig(segment_s=30.0, min_tail_s=1.0)
    d = build_data(shared_data, tmp_path, seed=0, train_frac=0.7, val_frac=0.15,
                   budgets={"train": 4, "validation": 2, "test": 3},
                   max_participants={"train": 1, "validation": 1, "test": 1}, seg_cfg=seg)
    assert (tmp_path / "data" / "data.json").exists()
    bench = BenchData(shared_data)
    for split in ("train", "validation", "test"):
        parts = getattr(d, split)
        assert parts and sum(len(p.segments) for p in parts) <= {"train": 4, "validation": 2, "test": 3}[split]
        for p in parts:
            assert p.participant_id in d.splits[split]
            history = build_history(shared_data, p.participant_id, bench.videos_of(p.participant_id), seg)
            keys = {s.key for s in p.segments}
            for q in p.questions:
                assert isinstance(q.item, QaItem) and not q.item.unanswerable
                assert q.evidence and set(map(tuple, q.evidence_segments)) <= keys
                # each evidence interval is a narration row that shows the ground truth
                rows = [Interval(start=history.timeline.to_global(r.video_id, r.start_s),
                                 end=history.timeline.to_global(r.video_id, r.stop_s))
                        for r in history.rows if q.item.gt.lower() in (_say((r.verb, r.noun)).lower(),
                                                                        r.narration.lower())]
                assert all(ev in rows for ev in q.evidence)
    again = build_data(shared_data, tmp_path, seed=0, train_frac=0.7, val_frac=0.15, budgets={}, max_participants={},
                       seg_cfg=seg)  # cached: budgets are not consulted again
    assert again == d
