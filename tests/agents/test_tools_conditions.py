"""Every typed tool on real P06 memory, the declared schemas, and each of the seven condition builders."""
from __future__ import annotations

import json

import pytest

from memora_core.conditions import CONDITION_IDS, build_condition
from memora_core.store import MemoryStore
from memora_core.tools.memora_tools import MemoraTools
from memora_core.tools.registry import SPECS

from tests.agents.conftest import no_vector_config, write_participant

pytestmark = pytest.mark.shared_data


@pytest.fixture(scope="module")
def tools(p06_store):
    return MemoraTools(p06_store, "P06")


def _evidence_ok(res, store):
    videos = set(store.videos("P06"))
    assert res.ok and res.evidence, res
    assert all(e.video_id in videos for e in res.evidence)


def test_search_objects_and_history(tools, p06_store):
    res = tools.call("search_objects", {"name": "kettle"})
    _evidence_ok(res, p06_store)
    assert res.store == "entity_memory" and res.items[0]["name"] == "kettle"
    hist = tools.call("get_object_history", {"entity_id": res.items[0]["entity_id"], "limit": 5})
    _evidence_ok(hist, p06_store)
    assert len(hist.items) == 1 + min(5, len(p06_store.entity_history(res.items[0]["entity_id"], "P06")))
    assert "kettle" in hist.text
    assert not tools.call("get_object_history", {"entity_id": "P28:e00001"}).ok  # another participant's id


def test_routines_preferences_activities_and_unified(tools, p06_store):
    rt = tools.call("get_routine_skill", {"goal_query": "fill the kettle", "top_k": 2})
    _evidence_ok(rt, p06_store)
    assert rt.store == "inferred_knowledge" and "kettle" in rt.items[0]["key_objects"]
    pf = tools.call("get_preferences", {"query": "salt"})
    _evidence_ok(pf, p06_store)
    assert any("salt" in p["statement"] for p in pf.items)
    top = tools.call("get_preferences", {})
    confs = [p["confidence"] * min(p["support"], 10) for p in top.items]
    assert confs == sorted(confs, reverse=True) and len(top.items) == 5
    acts = tools.call("search_activities", {"query": "wash bowl", "video_id": "P06_113", "start_s": 0, "end_s": 120})
    _evidence_ok(acts, p06_store)
    assert all(it["video_id"] == "P06_113" and it["start_s"] <= 120 for it in acts.items)
    assert any("bowl" in it["summary"] for it in acts.items)
    uni = tools.call("search", {"query": "kettle"})
    _evidence_ok(uni, p06_store)
    assert {it["store"] for it in uni.items} >= {"inferred_knowledge", "activity_memory", "entity_memory"}


def test_bad_calls_never_raise(tools):
    assert "unknown tool" in tools.call("delete_everything", {}).error
    assert not tools.call("search_objects", {"name": ["x"], "top_k": "many"}).ok
    assert not tools.call("search_activities", "not a dict").ok
    assert tools.call("search_objects", {"name": "kettle", "surprise": 1}).ok  # stray keys are ignored


def test_schemas_declared_once_and_valid(p06_store):
    for name, spec in SPECS.items():
        schema = spec.openai_schema()
        assert schema["function"]["name"] == name and schema["function"]["parameters"]["type"] == "object"
        json.dumps(schema)
    m = build_condition("memora_episodic", p06_store, "P06")
    assert m.tool_specs() == [SPECS[n].openai_schema() for n in m.tool_names]


def test_each_condition_builder(p06_store):
    shares = {}
    for cid in CONDITION_IDS:
        m = build_condition(cid, p06_store, "P06")
        assert m.condition_id == cid and m.participant_id == "P06"
        names = m.tool_names
        shares[cid] = names
        for spec in m.tool_specs():
            assert spec["function"]["name"] in SPECS
    assert shares["parametric"] == []
    assert set(shares["flat1d_raw"]) == {"search_memory", "read_log"} == set(shares["flat1d_processed"])
    assert "get_temporal_neighbors" in shares["graph2d_raw"]
    assert "get_routine_skill" not in shares["memora_episodic"] and "get_routine_skill" in shares["memora"]


def test_raw_and_processed_read_different_records(p06_store, tmp_path):
    raw = build_condition("flat1d_raw", p06_store, "P06")
    proc = build_condition("flat1d_processed", p06_store, "P06")
    assert raw.stats()["lines"] == p06_store.stats("P06").segments
    assert proc.stats()["lines"] == p06_store.stats("P06").activities + p06_store.stats("P06").entities
    assert any(" | seen: " in ln["text"] for ln in raw.lines)  # perception records, as perceived
    assert any(ln["kind"] == "entity" for ln in proc.lines)  # the editor's entities
    g_raw, g_proc = build_condition("graph2d_raw", p06_store, "P06"), build_condition("graph2d_processed", p06_store, "P06")
    assert all(n["node_id"].startswith("ent:") for n in g_raw.entities.values())
    # raw: one node per perceived mention (no identity resolution); processed: the editor's entities
    assert g_raw.stats()["entity_nodes"] > g_proc.stats()["entity_nodes"]
    assert len({n["name"] for n in g_raw.entities.values()}) < len(g_raw.entities)
    kettle = g_raw.call("get_entity_events", {"entity": "kettle"})
    assert kettle.ok and len({e["segment_id"] for e in kettle.items}) == 1  # a mention links to its own segment
    assert len({e["segment_id"] for e in g_proc.call("get_entity_events", {"entity": "kettle"}).items}) > 1
    assert all(n["node_id"].startswith("P06:") for n in g_proc.entities.values())
    hit = g_raw.call("search_events", {"query": "fill kettle"})
    assert hit.ok and "kettle" in hit.items[0]["text"]
    nb = g_raw.call("get_temporal_neighbors", {"event_id": hit.items[0]["event_id"], "before": 2, "after": 3})
    assert nb.ok and 1 <= len(nb.items) <= 6 and len({e["video_id"] for e in nb.items}) == 1
    ev = g_proc.call("get_entity_events", {"entity": "kettle", "verb": "fill"})
    assert ev.ok and all("fill" in e["verb"] for e in ev.items)
    log = raw.call("search_memory", {"query": "kettle"})
    assert log.ok and "kettle" in log.items[0]["text"]
    win = raw.call("read_log", {"video_id": log.items[0]["video_id"], "start_s": 0, "end_s": 60})
    assert win.ok and all(it["start_s"] <= 60 for it in win.items)
    # the bank store: raw records may come from another store
    empty = MemoryStore.open(tmp_path / "empty", no_vector_config())
    assert build_condition("flat1d_raw", empty, "P06", bank_store=p06_store).stats()["lines"] == raw.stats()["lines"]
    path = raw.save(tmp_path / "out")
    assert json.loads(path.read_text())["lines"] == raw.stats()["lines"]


def test_unknown_condition(p06_store):
    with pytest.raises(ValueError):
        build_condition("memora_plus", p06_store, "P06")


@pytest.mark.slow
def test_semantic_search_with_real_minilm_and_chroma(tmp_path, narrations_csv):
    """One real embedding path: MiniLM vectors in Chroma feed search_activities alongside BM25."""
    import csv

    rows = [r for r in csv.DictReader(narrations_csv.open()) if r["video_id"] == "P06_104"]
    small = tmp_path / "small.csv"
    with small.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    root = tmp_path / "s"
    write_participant(root, "P06", small, vectors="chroma", embedding="minilm")
    from memora_core.config import EmbeddingConfig, MemoraConfig, StoreConfig, VectorConfig

    cfg = MemoraConfig(store=StoreConfig(vectors=VectorConfig(backend="chroma"), embedding=EmbeddingConfig(backend="minilm")))
    store = MemoryStore.open(root, cfg)
    tools = MemoraTools(store, "P06", include_knowledge=False)
    assert tools._semantic("activities", "boil water in the kettle", 5, tools._act_pos)
    res = tools.call("search_activities", {"query": "boil water for tea"})  # no lexical hit on 'tea'/'boil' needed
    assert res.ok and res.items and any("kettle" in it["summary"] or "water" in it["summary"] for it in res.items)
    store.close()
