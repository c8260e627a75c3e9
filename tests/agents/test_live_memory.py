"""A long-running reader's live view of memory (memora_core.conditions.live): after segments are written and
knowledge is consolidated in between, the incrementally refreshed view plans and answers exactly as a fresh
build over the same store does, and a refresh reads only the rows committed since the last one."""
from __future__ import annotations

import contextlib
import io
import itertools
import random
from pathlib import Path

import pytest

from memora_core.agents import make_planner
from memora_core.cli.main import main as memora_main
from memora_core.conditions import build_condition
from memora_core.conditions.live import LiveConditions, LiveMemora
from memora_core.consolidation import consolidate
from memora_core.store.sqlite_store import SQLiteStore
from memora_core.tools.registry import SearchActivitiesArgs, SearchArgs, SearchObjectsArgs
from memora_core.tools.text import BM25, tokens

PID = "P06"
INSTRUCTIONS = ("Help P06 fill the kettle.", "Please wash an onion.", "Make a cup of tea.", "Put the pan away.")
QUERIES = ("kettle water", "wash onion", "cut", "pan fry")


def _write_rows(narrations: Path, store_dir: Path, rows: int) -> None:
    """The first `rows` narrations through the real writer (resumable: committed segments are skipped)."""
    csv_path = store_dir.parent / f"narr{rows}.csv"
    with open(narrations, encoding="utf-8") as f, open(csv_path, "w", encoding="utf-8") as out:
        out.writelines(itertools.islice(f, rows + 1))
    with contextlib.redirect_stdout(io.StringIO()):
        rc = memora_main(["write", "--participant", PID, "--narrations", str(csv_path), "--store", str(store_dir),
                          "--embedding", "hashing", "--vectors", "none", "--quiet"])
    assert rc == 0


def _consolidate(store_dir: Path) -> None:
    writer = SQLiteStore(store_dir)
    try:
        consolidate(writer, PID)
    finally:
        writer.close()


def _plan_key(plan) -> dict:  # noqa: ANN001 - a Plan
    d = plan.model_dump()
    d["tool_calls"] = [{k: v for k, v in c.items() if k != "ms"} for c in d.get("tool_calls", [])]  # timings
    return d


def _answers(memory) -> list:  # noqa: ANN001 - a ConditionMemory
    out = [_plan_key(make_planner("structured", memory).plan(t)) for t in INSTRUCTIONS]
    for q in QUERIES:
        out += [memory.call("search", SearchArgs(query=q)).model_dump(),
                memory.call("search_activities", SearchActivitiesArgs(query=q, top_k=8)).model_dump(),
                memory.call("search_objects", SearchObjectsArgs(name=q.split()[0])).model_dump()]
    return out


def _activity_ids(store_dir: Path) -> list[str]:
    store = SQLiteStore(store_dir, readonly=True)
    try:
        return [a.activity_id for a in store.activities(PID)]
    finally:
        store.close()


def _fresh(store_dir: Path, condition: str) -> list:
    store = SQLiteStore(store_dir, readonly=True)
    try:
        return _answers(build_condition(condition, store, PID))
    finally:
        store.close()


@pytest.mark.parametrize("condition", ["memora", "memora_episodic"])
def test_refreshed_view_equals_fresh_build_and_reads_only_new_rows(tmp_path, narrations_csv, condition) -> None:
    store_dir = tmp_path / "s"
    _write_rows(narrations_csv, store_dir, 60)
    _consolidate(store_dir)
    live = LiveConditions(store_dir, condition)
    view = live.get(PID)
    assert isinstance(view, LiveMemora)
    first = len(view.activities)
    assert view.rows_read == first > 0
    assert _answers(view) == _fresh(store_dir, condition)

    for rows in (120, 180):  # segments written (and knowledge re-consolidated) while the reader lives
        _write_rows(narrations_csv, store_dir, rows)
        _consolidate(store_dir)
    assert live.get(PID) is view
    stored = _activity_ids(store_dir)
    total = len(stored)
    assert total > first
    assert view.rows_read == total  # the refresh read only the rows committed after the first build
    assert [a.activity_id for a in view.activities] == stored
    assert _answers(view) == _fresh(store_dir, condition)
    assert view.refresh() is False and view.rows_read == total  # nothing new: nothing read
    live.close()


def test_unconsolidated_store_rebuilds_and_stays_equal(tmp_path, narrations_csv) -> None:
    """Knowledge mined in memory depends on every activity: such a view is rebuilt when the store changes."""
    store_dir = tmp_path / "s"
    _write_rows(narrations_csv, store_dir, 60)
    live = LiveConditions(store_dir, "memora")
    view = live.get(PID)
    _write_rows(narrations_csv, store_dir, 120)
    assert view.refresh() is True
    assert _answers(view) == _fresh(store_dir, "memora")
    assert view.refresh() is False
    live.close()


def test_no_store_yet_gives_none(tmp_path) -> None:
    assert LiveConditions(tmp_path / "missing", "memora").get(PID) is None


def test_bm25_grown_by_add_scores_as_built_at_once() -> None:
    rng = random.Random(7)
    words = "onion onions chopping board wash washing knife cut pan fried eggs tea kettle pour cup the of".split()
    docs = [" ".join(rng.choice(words) for _ in range(rng.randint(0, 10))) for _ in range(120)]
    whole = BM25(docs)
    for split in (0, 1, 60, 119):
        grown = BM25(docs[:split])
        grown.add(docs[split:])
        assert len(grown) == len(whole) == len(docs)
        for q in ("onion chopping", "wash the cup cup", "tea", "zebra", "fried eggs onions"):
            assert grown.scores(q) == whole.scores(q)
            assert grown.top(q, 10) == whole.top(q, 10)


def test_memoised_tokens_are_fresh_lists() -> None:
    a = tokens("Washing the onions")
    a.append("x")
    assert tokens("Washing the onions") == ["wash", "onion"]
