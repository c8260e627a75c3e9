"""A part of the person's body is never where a plan step is grounded: memory may say the dough was last 'in
hands' or soap was poured 'into hand', but the step reads 'knead the dough', not 'knead the dough at the hands'
(invented narrations through the real writer, real consolidation and the structured planner)."""
from __future__ import annotations


from memora_core.agents import make_planner
from memora_core.conditions import build_condition
from memora_core.store.sqlite_store import SQLiteStore
from tests.agents.invented_store import formed_store

PID = "Z07"
ROWS = [  # (video, start s, narration, verb, noun)
    ("Z07_01", 2, "pick up dough", "pick-up", "dough"), ("Z07_01", 5, "put dough in hands", "put", "dough"),
    ("Z07_01", 9, "knead dough", "knead", "dough"), ("Z07_01", 14, "pour soap into hand", "pour", "soap"),
    ("Z07_01", 18, "wash hands", "wash", "hand"),
    ("Z07_02", 3, "pick up dough", "pick-up", "dough"), ("Z07_02", 6, "put dough in hands", "put", "dough"),
    ("Z07_02", 10, "knead dough", "knead", "dough"), ("Z07_02", 15, "put dough on tray", "put", "tray"),
]


def _write(tmp_path):
    ts = lambda s: f"00:00:{s:05.2f}"  # noqa: E731
    return formed_store(tmp_path, PID, ([f"{vid}_{i}", PID, vid, ts(t), ts(t), ts(t + 2), t * 50, (t + 2) * 50, text,
                                         verb, 0, noun, 0, f"['{noun}']", "[0]"] for i, (vid, t, text, verb, noun)
                                        in enumerate(ROWS)))


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
