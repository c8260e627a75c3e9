"""Fixtures of the bench tests: the EPIC noun taxonomy and a tiny synthetic benchmark in both layouts."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from memora_bench.metrics.objects import NounTaxonomy

NOUN_CSV = '''"id","key","instances","category"
0,"tap","['tap', 'tap:water', 'faucet']","appliances"
1,"cupboard","['cupboard', 'cabinet']","storage"
2,"board:chopping","['board:chopping', 'board:cutting']","utensils"
3,"onion","['onion', 'onion:red']","vegetables"
4,"knife","['knife']","cutlery"
5,"counter","['counter', 'countertop', 'worktop']","furniture"
6,"sponge","['sponge']","cleaning"
7,"cup","['cup', 'mug']","crockery"
8,"kettle","['kettle']","appliances"
9,"pan","['pan', 'frying pan']","cookware"
'''


@pytest.fixture(scope="session")
def taxonomy(tmp_path_factory) -> NounTaxonomy:
    path = tmp_path_factory.mktemp("tax") / "nouns.csv"
    path.write_text(NOUN_CSV)
    return NounTaxonomy.from_csv(path)


NARRATIONS = [
    # narration_id, video, start, stop, narration, verb, noun
    ("PX1_01_0", "PX1_01", "00:00:01.00", "00:00:02.00", "open cupboard", "open", "cupboard"),
    ("PX1_01_1", "PX1_01", "00:00:03.00", "00:00:04.00", "take cup", "take", "cup"),
    ("PX1_01_2", "PX1_01", "00:00:05.00", "00:00:06.00", "close cupboard", "close", "cupboard"),
    ("PX1_01_3", "PX1_01", "00:00:07.00", "00:00:09.00", "fill kettle", "fill", "kettle"),
    ("PX1_01_4", "PX1_01", "00:00:10.00", "00:00:11.00", "turn on tap", "turn-on", "tap"),
    ("PX1_01_5", "PX1_01", "00:00:12.00", "00:00:13.00", "turn off tap", "turn-off", "tap"),
    ("PX1_02_0", "PX1_02", "00:00:01.00", "00:00:02.00", "open cupboard", "open", "cupboard"),
    ("PX1_02_1", "PX1_02", "00:00:03.00", "00:00:04.00", "take cup", "take", "cup"),
    ("PX1_02_2", "PX1_02", "00:00:05.00", "00:00:06.00", "close cupboard", "close", "cupboard"),
    ("PX1_02_3", "PX1_02", "00:00:50.00", "00:00:52.00", "cut onion", "cut", "onion"),
    ("PX1_02_4", "PX1_02", "00:00:53.00", "00:00:55.00", "wash knife", "wash", "knife"),
    ("PX1_03_0", "PX1_03", "00:00:01.00", "00:00:02.00", "open cupboard", "open", "cupboard"),
    ("PX1_03_1", "PX1_03", "00:00:03.00", "00:00:04.00", "take cup", "take", "cup"),
    ("PX1_03_2", "PX1_03", "00:00:05.00", "00:00:06.00", "close cupboard", "close", "cupboard"),
    ("PX1_99_0", "PX1_99", "00:00:01.00", "00:00:02.00", "cut onion", "cut", "onion"),  # out of scope
]
HEADER = ("narration_id,participant_id,video_id,narration_timestamp,start_timestamp,stop_timestamp,start_frame,"
          "stop_frame,narration,verb,verb_class,noun,noun_class,all_nouns,all_noun_classes")


NOUN_IDS = {"tap": 0, "cupboard": 1, "onion": 3, "knife": 4, "cup": 7, "kettle": 8}


def write_narrations(path: Path, rows=NARRATIONS, pid: str = "PX1") -> None:
    lines = [HEADER]
    for nid, vid, start, stop, narr, verb, noun in rows:
        c = NOUN_IDS[noun]
        lines.append(f"{nid},{pid},{vid},{start},{start},{stop},0,1,{narr},{verb},0,{noun},{c},\"['{noun}']\",[{c}]")
    path.write_text("\n".join(lines) + "\n")


SUFFIX = "\n\nIMPORTANT: pick E if unsure."
OPTION_E = "The information is not available based on the given context"
QUESTIONS = [
    {"id": "px1_q0", "q": "What does PX1 usually do right after taking a cup?",
     "choices": ["close cupboard", "fill kettle", "cut onion", "wash knife"], "answer": "A", "type": "SHabit",
     "gt": "close cupboard", "video_ids": ["PX1_01", "PX1_02"], "num_videos": 3},
    {"id": "px1_q1", "q": "In video PX1_02, what did PX1 cut?",
     "choices": ["a cup", "an onion", "the kettle", "a sponge"], "answer": "B", "type": "ERecall",
     "gt": "onion", "video_ids": ["PX1_02"], "num_videos": 1},
    {"id": "px1_q2", "q": "Which drink does PX1 prefer in the morning?",
     "choices": ["tea", "coffee", "juice", "milk"], "answer": "E", "type": "SPref", "gt": "tea",
     "num_videos": 1, "unanswerable": True, "source": "p99"},
]
PLANNING = {
    "participant_id": "PX1",
    "replay": [{"task_id": "plan_PX1_01_000", "task_type": "object_retrieval_setup",
                "task_query": "Help PX1 get a cup from the cupboard.", "video_id": "PX1_01",
                "steps": [["PX1_01_0", "open cupboard", "open", "cupboard", "00:00:01.00", "00:00:02.00"],
                          ["PX1_01_1", "take cup", "take", "cup", "00:00:03.00", "00:00:04.00"],
                          ["PX1_01_2", "close cupboard", "close", "cupboard", "00:00:05.00", "00:00:06.00"]],
                "primary_objects": ["cupboard", "cup"]}],
    "generalize": [{"task_id": "generalize_transfer_PX1_cut_kettle", "task_type": "transfer",
                    "task_query": "Help PX1 wash the cup.", "participant_id": "PX1", "target_object": "cup",
                    "ground_truth_steps": ["Pick up the cup from the counter.", "Turn on the tap.",
                                           "Rinse the cup under the tap.", "Place the cup on the counter."]}],
}


@pytest.fixture
def compact_root(tmp_path: Path) -> Path:
    """A data root in the compact shared layout with one synthetic participant PX1."""
    (tmp_path / "epic100").mkdir()
    (tmp_path / "memora_bench").mkdir()
    write_narrations(tmp_path / "epic100" / "EPIC_100_extension_narrations_X.csv")
    (tmp_path / "epic100" / "EPIC_100_noun_classes_v2.csv").write_text(NOUN_CSV)
    (tmp_path / "memora_bench" / "eam_qa_px1.json").write_text(json.dumps({
        "participant_id": "PX1", "question_suffix": SUFFIX, "option_e": OPTION_E,
        "video_scope": ["PX1_01", "PX1_02", "PX1_03"], "questions": QUESTIONS}))
    (tmp_path / "memora_bench" / "planning_px1.json").write_text(json.dumps(PLANNING))
    return tmp_path


@pytest.fixture
def original_root(tmp_path: Path) -> Path:
    """The same participant in the original release layout (eam_qa/questions, planning/suites)."""
    root = tmp_path / "src" / "memora_bench"
    (root / "eam_qa" / "questions").mkdir(parents=True)
    (root / "planning" / "suites" / "replay").mkdir(parents=True)
    (root / "planning" / "suites" / "generalize").mkdir(parents=True)
    (tmp_path / "epic100").mkdir()
    write_narrations(tmp_path / "epic100" / "EPIC_100_train.csv")
    scope = ["PX1_01", "PX1_02", "PX1_03"]
    qs = []
    for q in QUESTIONS:
        unans = bool(q.get("unanswerable"))
        qs.append({"question_id": q["id"], "question": q["q"] + SUFFIX, "choices": [*q["choices"], OPTION_E],
                   "correct_answer": q["answer"], "qa_type": q["type"], "ground_truth": q["gt"],
                   "video_ids": ["PX1_???"] if unans else q["video_ids"], "participant_id": "PX1",
                   "video_scope": ["PX1_???"] if unans else scope, "is_unanswerable": unans,
                   **({"source_participant": "p99"} if unans else {})})
    (root / "eam_qa" / "questions" / "px1.json").write_text(json.dumps({"questions": qs}))
    replay = []
    for t in PLANNING["replay"]:
        steps = [{"narration_id": s[0], "narration": s[1], "verb": s[2], "noun": s[3], "start_time": s[4],
                  "end_time": s[5]} for s in t["steps"]]
        replay.append({**{k: v for k, v in t.items() if k != "steps"}, "participant_id": "PX1",
                       "ground_truth_steps": steps})
    (root / "planning" / "suites" / "replay" / "px1.json").write_text(json.dumps(replay))
    (root / "planning" / "suites" / "generalize" / "px1.json").write_text(json.dumps(PLANNING["generalize"]))
    return tmp_path
