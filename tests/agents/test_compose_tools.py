"""Composition (full MEMORA) keeps the tools of the routine an object's steps come from: the person's routine
for the carrot picks up the grater before the carrot, so a composed plan that takes the carrot's steps from
it picks the grater up first (invented narrations through the real writer and consolidation, real SQLite
store, the structured planner)."""
from __future__ import annotations


from memora_core.agents import make_planner
from memora_core.conditions import build_condition
from memora_core.store.sqlite_store import SQLiteStore
from tests.agents.invented_store import formed_store

PID = "Z09"
CLASS = {"grater": 96, "carrot": 41, "knife": 4, "leek": 117}  # EPIC-100 noun class ids
EPISODE = [("pick up grater", "pick-up", "grater"), ("pick up carrot", "pick-up", "carrot"),
           ("grate carrot", "grate", "carrot"), ("put down carrot", "put-down", "carrot"),
           ("pick up knife", "pick-up", "knife"), ("pick up leek", "pick-up", "leek"),
           ("chop leek", "chop", "leek"), ("put down leek", "put-down", "leek")]


def _rows():
    n = 0
    for v in (1, 2, 3):
        for i, (text, verb, noun) in enumerate(EPISODE):
            t = 2 + 4 * i + (40 if i >= 4 else 0)  # the two procedures are a long pause apart
            ts = lambda s: f"00:{s // 60:02d}:{s % 60:05.2f}"  # noqa: E731
            yield [f"Z09_0{v}_{n}", PID, f"Z09_0{v}", ts(t), ts(t), ts(t + 2), t * 50, (t + 2) * 50, text,
                   verb, 0, noun, CLASS[noun], f"['{noun}']", f"[{CLASS[noun]}]"]
            n += 1


def _store(tmp_path) -> SQLiteStore:
    return SQLiteStore(formed_store(tmp_path, PID, _rows()), readonly=True)


def test_composed_steps_keep_their_routines_tools(tmp_path):
    store = _store(tmp_path)
    try:
        assert {r.goal for r in store.routines(PID)} == {"grate carrot", "chop leek"}
        plans = {c: [s.text for s in make_planner("structured", build_condition(c, store, PID))
                     .plan("Make a soup with the carrot and the leek.").steps]
                 for c in ("memora", "memora_episodic")}
        full = plans["memora"]
        # the carrot's steps start at the carrot in its routine; the grater it is grated with comes first
        assert full.index("pick up the grater") < full.index("grate the carrot")
        assert full.index("pick up the knife") < full.index("chop the leek")
        # MEMORA-Episodic recalls the same episodes but has no routines, so nothing names the tools
        episodic = plans["memora_episodic"]
        assert "grate the carrot" in episodic and not any("grater" in s for s in episodic)
    finally:
        store.close()
