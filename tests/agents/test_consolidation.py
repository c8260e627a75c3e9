"""Consolidation on real shared data: routines and preferences carry real evidence; idempotent; updates."""
from __future__ import annotations

import csv
import shutil
import time

import pytest

from memora_core.agents.config import ConsolidationConfig, load_agents_config
from memora_core.consolidation import consolidate, mine
from memora_core.consolidation.enrichment import enrich_routines
from memora_core.consolidation.procedures import Step, split_procedures
from memora_core.llm.base import LLMBackend, LLMReply
from memora_core.store import MemoryStore

from tests.agents.conftest import no_vector_config, write_participant

pytestmark = pytest.mark.shared_data


def _covered(store, pid, ev) -> bool:
    """Evidence points at stored experience: an activity of that video overlaps the cited time."""
    acts = store.activities(pid, video_id=ev.video_id, t0=ev.start_s - 1e-6, t1=ev.end_s + 1e-6)
    return bool(acts)


def test_p06_routines_and_preferences_carry_real_evidence(p06_store):
    routines, prefs = p06_store.routines("P06"), p06_store.preferences("P06")
    assert len(routines) >= 10 and len(prefs) >= 20
    videos = set(p06_store.videos("P06"))
    for r in routines:
        assert r.frequency >= 2 and len(r.steps) >= 1 and r.episodes
        for ev in r.episodes:
            assert ev.video_id in videos and _covered(p06_store, "P06", ev), (r.routine_id, ev)
    for p in prefs:
        assert p.episodes and p.support >= 1 and 0 < p.confidence <= 1 and p.keywords
        for ev in p.episodes:
            assert ev.video_id in videos and _covered(p06_store, "P06", ev), (p.pref_id, ev)
    # the kettle is filled at the tap in several P06 videos: a recurring procedure must be found
    kettle = [r for r in routines if "kettle" in r.key_objects]
    assert kettle and any(any("fill" in s for s in r.steps) for r in kettle)
    assert len({e.video_id for r in kettle for e in r.episodes}) >= 2
    assert any(p.kind == "habit" for p in prefs) and any(p.kind == "preference" for p in prefs)


def test_habit_statistics_match_the_narrations(p06_store, narrations_csv):
    """Recount mined habits straight from the CSV: the statement's 'k of n' must be the real counts."""
    from memora_core.ingest.narration import load_narrations, readable_noun

    cfg = load_agents_config().consolidation
    by_video = {}
    for r in load_narrations(narrations_csv, "P06"):
        by_video.setdefault(r.video_id, []).append(r)
    key = lambda r: (r.verb, readable_noun(r.all_nouns[0]) if r.all_nouns else readable_noun(r.noun))  # noqa: E731
    habits = [p for p in p06_store.preferences("P06") if p.kind == "habit"][:5]
    assert habits
    for habit in habits:
        ev = habit.episodes[0]
        rows = sorted(by_video[ev.video_id], key=lambda r: (r.start_s, r.stop_s))
        i = next(i for i, r in enumerate(rows) if abs(r.start_s - ev.start_s) < 1e-3)
        trig, nxt = key(rows[i]), key(rows[i + 1])
        n = k = 0
        for vrows in by_video.values():
            vrows = sorted(vrows, key=lambda r: (r.start_s, r.stop_s))
            for a, b in zip(vrows, vrows[1:]):
                if key(a) == trig:
                    n += 1
                    k += key(b) == nxt and b.start_s - a.stop_s <= cfg.habit_next_window_s
        assert f"({k} of {n} times)" in habit.statement, (habit.statement, k, n)
        assert habit.support == k


def test_consolidation_is_idempotent(p06_store_dir, tmp_path):
    root = tmp_path / "copy"
    shutil.copytree(p06_store_dir, root)
    store = MemoryStore.open(root, no_vector_config())
    r1, p1 = consolidate(store, "P06")
    r2, p2 = consolidate(store, "P06")
    assert [r.model_dump() for r in r1] == [r.model_dump() for r in r2]
    assert [p.model_dump() for p in p1] == [p.model_dump() for p in p2]
    assert store.stats("P06").routines == len(r1) and store.stats("P06").preferences == len(p1)


def test_new_episodes_update_knowledge(tmp_path, narrations_csv):
    rows = list(csv.DictReader(narrations_csv.open()))
    header = list(rows[0].keys())
    first = [r for r in rows if r["participant_id"] == "P06" and r["video_id"] <= "P06_103"]
    part = tmp_path / "part.csv"
    with part.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=header)
        w.writeheader()
        w.writerows(first)
    root = tmp_path / "store"
    write_participant(root, "P06", part)
    store = MemoryStore.open(root, no_vector_config())
    r_before, _ = consolidate(store, "P06")
    store.close()
    write_participant(root, "P06", narrations_csv)  # the writer skips committed segments
    store = MemoryStore.open(root, no_vector_config())
    r_after, _ = consolidate(store, "P06")
    assert sum(r.frequency for r in r_after) > sum(r.frequency for r in r_before)
    assert {e.video_id for r in r_after for e in r.episodes} - {e.video_id for r in r_before for e in r.episodes}


def test_consolidation_time_target(tmp_path, narrations_csv):
    for pid in ("P06", "P28"):
        root = tmp_path / pid
        write_participant(root, pid, narrations_csv)
        store = MemoryStore.open(root, no_vector_config())
        t0 = time.perf_counter()
        routines, prefs = consolidate(store, pid)
        assert time.perf_counter() - t0 < 60.0
        assert routines and prefs


def _step(t, verb, *nouns, video="V1"):
    return Step(video, t, t + 1.0, verb, tuple(nouns), f"{verb} {' '.join(nouns)}")


def test_procedures_split_at_pauses_topics_and_length():
    cfg = ConsolidationConfig(max_gap_s=10, min_steps=2, max_steps=4, boundary_window=2, generic_nouns=["tap"])
    steps = [_step(0, "open", "kettle"), _step(2, "fill", "kettle"), _step(4, "close", "kettle"),
             _step(40, "pick-up", "knife"), _step(42, "cut", "onion", "knife"), _step(44, "cut", "onion"),
             _step(46, "pick-up", "bowl"), _step(47, "wipe", "bowl"), _step(48, "rinse", "bowl")]
    procs = split_procedures(steps, cfg)
    assert [len(p.steps) for p in procs][0] == 3  # the 36 s pause ends the kettle procedure
    assert all(len(p.steps) <= 4 for p in procs)
    assert any(p.steps[0].nouns == ("bowl",) for p in procs)  # knife/onion -> bowl is a topic boundary


class _ScriptedLLM(LLMBackend):
    """Deterministic stand-in so the test checks enrichment's handling of replies, not a model."""

    def __init__(self, replies):
        self.replies = list(replies)

    def chat(self, messages, tools=None, *, max_new_tokens=None):
        return LLMReply(text=self.replies.pop(0) if self.replies else "")


def test_enrichment_uses_valid_replies_and_keeps_mined_wording_otherwise(p06_store):
    routines = p06_store.routines("P06")[:3]
    llm = _ScriptedLLM(['{"name": "Boil water", "summary": "Fills and boils the kettle."}', "no json here",
                        '{"name": ""}'])
    out, n = enrich_routines(routines, llm)
    assert n == 1 and out[0].name == "Boil water" and out[0].summary.startswith("Fills")
    assert out[1] == routines[1] and out[2] == routines[2]
    assert enrich_routines(routines, None) == (routines, 0)


def test_mine_does_not_write(p06_store_dir, tmp_path):
    root = tmp_path / "c"
    shutil.copytree(p06_store_dir, root)
    store = MemoryStore.open(root, no_vector_config())
    store.replace_knowledge("P06", [], [])
    routines, prefs = mine(store, "P06", load_agents_config().consolidation)
    assert routines and prefs and store.stats("P06").routines == 0 == store.stats("P06").preferences
