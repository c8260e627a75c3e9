"""EAM-QA parsing and metrics against hand-computed cases."""
import pytest

from memora_bench.metrics.eamqa import (
    AnswerRecord, conditional_diagnostic, decision_profile, parse_letter, summarize, video_ids_in,
)

CHOICES = ["Use dining table", "Move items aside", "Work over clutter", "Stop preparation", "Not available"]


@pytest.mark.parametrize("raw,letter", [
    ("A", "A"), ("(B)", "B"), ("C.", "C"), ("Answer: D", "D"), ("The answer is (C).", "C"), ("**B**", "B"),
    ("E) the information is not available", "E"), ("Final answer: A", "A"), ("B: Move items aside", "B"),
    ("Move items aside.", "B"),
    # the article "A" in prose is not a letter, and neither is lower-case "a"
    ("A person usually clears the table first.", None), ("answer is a guess", None), ("a", None),
    ("", None), (None, None), ("I cannot tell.", None),
])
def test_parse_letter(raw, letter):
    assert parse_letter(raw, CHOICES) == letter


def rec(qid, pid, t, gold, pred, unans=False, ev=(), got=()):
    return AnswerRecord(qid=qid, participant_id=pid, qa_type=t, gold=gold, unanswerable=unans, predicted=pred,
                        evidence_videos=list(ev), retrieved_videos=list(got))


def test_summarize_macro_pooled_controls_and_unparseable():
    records = [
        rec("q1", "P1", "SPref", "A", "A", ev=["v1"], got=["v1", "v2"]),
        rec("q2", "P1", "SPref", "B", "E", ev=["v1", "v3"], got=["v3"]),
        rec("q3", "P1", "SHabit", "C", None, ev=["v2"], got=[]),   # unparseable: wrong, not E
        rec("q4", "P2", "SPref", "D", "D", ev=["w1"], got=["w1"]),
        rec("c1", "P1", "SPref", "E", "E", unans=True),
        rec("c2", "P2", "ERecall", "E", "A", unans=True),
    ]
    s = summarize(records)
    # SPref answerable: q1 ✓ q2 ✗ q4 ✓ → pooled 2/3 ; macro: P1 1/2, P2 1 → 0.75
    assert s["SPref"]["accuracy"] == pytest.approx(2 / 3)
    assert s["SPref"]["accuracy_macro"] == pytest.approx(0.75)
    assert s["SPref"]["e_rate"] == pytest.approx(1 / 3)
    assert s["SHabit"]["accuracy"] == 0.0 and s["SHabit"]["e_rate"] == 0.0
    assert s["SHabit"]["unparseable_rate"] == 1.0
    assert s["ERecall"]["n"] == 0 and s["ERecall"]["accuracy"] is None
    assert s["controls"]["accuracy"] == pytest.approx(0.5)
    # evidence: any-hit q1 ✓ q2 ✓ q3 ✗ q4 ✓ → 3/4 ; all-hit: q1, q4 → 2/4 ; video-level (1 + .5 + 0 + 1)/4
    assert s["answerable"]["evidence_recall"] == pytest.approx(0.75)
    assert s["answerable"]["evidence_recall_all"] == pytest.approx(0.5)
    assert s["answerable"]["evidence_video_recall"] == pytest.approx(0.625)
    assert s["all"]["n"] == 6


def test_conditional_diagnostic():
    param = [rec("q1", "P1", "SPref", "A", "E"), rec("q2", "P1", "SPref", "B", "C"),
             rec("q3", "P1", "SPref", "C", "C"), rec("q4", "P1", "SPref", "D", None),
             rec("c1", "P1", "SPref", "E", "A", unans=True)]
    memora = [rec("q1", "P1", "SPref", "A", "A"), rec("q2", "P1", "SPref", "B", "D"),
              rec("q3", "P1", "SPref", "C", "C"), rec("q4", "P1", "SPref", "D", "E"),
              rec("c1", "P1", "SPref", "E", "E", unans=True)]
    d = conditional_diagnostic(param, memora)
    # parametric missed q1, q2, q4 (controls excluded); memora commits on q1, q2 → 2/3; right on q1 → 1/2
    assert d["n_parametric_missed"] == 3
    assert d["commit_rate"] == pytest.approx(2 / 3)
    assert d["commit_accuracy"] == pytest.approx(0.5)


def test_decision_profile_sums_to_one():
    rs = [rec("a", "P", "SPref", "A", "A"), rec("b", "P", "SPref", "A", "B"), rec("c", "P", "SPref", "A", "E"),
          rec("d", "P", "SPref", "A", None)]
    prof = decision_profile(rs)
    assert prof == {"correct": 0.25, "wrong_committed": 0.25, "abstain_e": 0.25, "unparseable": 0.25}


def test_video_ids_in_reads_models_dicts_and_text():
    class Ev:
        video_id = "P06_101"
        segment_id = None
    got = video_ids_in([Ev(), {"video_id": "P06_102"}, "seen in [P06_103 10-20s] and P28_101",
                        {"segment_id": "P06/P06_104/00003"}])
    assert got == {"P06_101", "P06_102", "P06_103", "P28_101", "P06_104"}
