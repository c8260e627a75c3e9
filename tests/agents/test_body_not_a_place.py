"""A part of the person's body is never where a plan step is grounded: memory may say the dough was last 'in
hands' or soap was poured 'into hand', but the step reads 'knead the dough', not 'knead the dough at the hands'
(invented narrations through the real writer, real consolidation and the structured planner)."""
from __future__ import annotations

import contextlib
import csv
import io

from memora_core.agents import make_planner
from memora_core.cli.main import main as memora_main
from memora_core.conditions import build_condition
from memora_core.consolidation import consolidate
from memora_core.store.sqlite_store import SQLiteStore

PID = "Z07"
ROWS = [  # (video, start s, narration, verb, noun)
    ("Z07_01", 2, "pick up dough", "pick-up", "dough"), ("Z07_01", 5, "put dough in hands", "put", "dough"),
    ("Z07_01", 9, "knead dough", "knead", "dough"), ("Z07_01", 14, "pour soap into hand", "pour", "soap"),
    ("Z07_01", 18, "wash hands", "wash", "hand"),
    ("Z07_02", 3, "pick up dough", "pick-up", "dough"), ("Z07_02", 6, "put dough in hands", "put", "dough"),
    ("Z07_02", 10, "knead dough", "knead", "dough"), ("Z07_02", 15, "put dough on tray", "put", "tray"),
]


def _write(tmp_path):
    path = tmp_path / "narrations.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["narration_id", "participant_id", "video_id", "narration_timestamp", "start_timestamp",
                    "stop_timestamp", "start_frame", "stop_frame", "narration", "verb", "verb_class", "noun",
                    "noun_class", "all_nouns", "all_noun_classes"])
        for i, (vid, t, text, verb, noun) in enumerate(ROWS):
            ts = lambda s: f"00:00:{s:05.2f}"  # noqa: E731
            w.writerow([f"{vid}_{i}", PID, vid, ts(t), ts(t), ts(t + 2), t * 50, (t + 2) * 50, text, verb, 0, noun, 0,
                        f"['{noun}']", "[0]"])
    store_dir = tmp_path / "store"
    with contextlib.redirect_stdout(io.StringIO()):
        rc = memora_main(["write", "--participant", PID, "--narrations", str(path), "--store", str(store_dir),
                          "--embedding", "hashing", "--vectors", "none", "--quiet"])
    assert rc == 0
    writer = SQLiteStore(store_dir)
    try:
        consolidate(writer, PID)
    finally:
        writer.close()
    return store_dir


def test_plan_steps_are_never_grounded_at_a_body_part(tmp_path):
    store = SQLiteStore(_write(tmp_path), readonly=True)
    try:
        for condition in ("memora", "memora_episodic"):
            plan = make_planner("structured", build_condition(condition, store, PID)).plan("Knead the dough.")
            assert any(s.object == "dough" for s in plan.steps), plan.steps
            # what the person did stays as memory says it ('put the dough in the hands'); no step is given
            # the body as the place it is done at
            assert [s.text for s in plan.steps if s.action == "knead"], plan.steps
            for s in plan.steps:
                assert " at the hand" not in s.text, (condition, s.text)
    finally:
        store.close()
