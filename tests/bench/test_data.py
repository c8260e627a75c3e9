"""Loaders: the compact shared layout, the original release layout, and the real shared data."""
import pytest

from memora_bench.data import BenchData, norm_pid, to_seconds
from memora_bench.metrics.ground_truth import key_objects, reference_verbs


def test_helpers():
    assert to_seconds("00:01:02.50") == pytest.approx(62.5)
    assert norm_pid("p06") == "P06" and norm_pid("6") == "P06" and norm_pid("P28") == "P28"


@pytest.mark.parametrize("layout", ["compact_root", "original_root"])
def test_both_layouts_read_the_same(layout, request, taxonomy):
    data = BenchData(request.getfixturevalue(layout))
    assert data.participants() == ["PX1"]
    qa = data.eam_qa("px1")
    assert qa.video_scope == ["PX1_01", "PX1_02", "PX1_03"]
    assert [q.qid for q in qa.items] == ["px1_q0", "px1_q1", "px1_q2"]
    q0, q2 = qa.items[0], qa.items[2]
    assert q0.prompt().startswith("What does PX1") and q0.prompt().endswith("pick E if unsure.")
    assert q0.choices[4].startswith("The information is not available") and q0.answer == "A"
    assert q2.unanswerable and q2.video_ids == [] and q2.answer == "E"
    pl = data.planning("PX1")
    assert [t.task_id for t in pl.replay] == ["plan_PX1_01_000"]
    assert reference_verbs(pl.replay[0]) == ["open", "grasp", "close"]
    assert reference_verbs(pl.generalize[0]) == ["grasp", "turn_on", "wash", "place"]
    assert key_objects(pl.generalize[0], taxonomy) == ["cup", "tap"]
    # only videos in scope: PX1_99 stays out
    assert {n.video_id for n in data.narrations("PX1", qa.video_scope)} == {"PX1_01", "PX1_02", "PX1_03"}
    assert "PX1_99" in data.videos_of("PX1")


def test_missing_root_and_participant(tmp_path, compact_root):
    with pytest.raises(FileNotFoundError):
        BenchData(tmp_path / "nope")
    with pytest.raises(FileNotFoundError):
        BenchData(compact_root).eam_qa("P77")


@pytest.mark.shared_data
def test_shared_data_counts(shared_data):
    data = BenchData(shared_data)
    assert {"P06", "P28"} <= set(data.participants())
    p06 = data.eam_qa("P06")
    answerable = [q for q in p06.items if not q.unanswerable]
    assert len(p06.items) == 192 and len(answerable) == 154
    assert {t: sum(q.qa_type == t for q in answerable) for t in ("SPref", "SRoutine", "SHabit", "ERecall")} == \
        {"SPref": 44, "SRoutine": 45, "SHabit": 40, "ERecall": 25}
    assert len(data.eam_qa("P28").items) == 164
    pl = data.planning("P28")
    assert len(pl.replay) == 12 and len(pl.generalize) == 11
    assert len(data.narrations("P06", p06.video_scope)) == 1229
    assert all(q.video_ids for q in answerable)
