"""SQLite + Chroma store: round trips, transactions under injected failure, scoping, reindexing."""
import shutil
import sqlite3

import pytest
from pydantic import ValidationError

from memora_core.schemas import EditOp, Evidence, Preference, RoutineSkill
from memora_core.store import MemoryStore, SQLiteStore
from memora_core.store.migrations import MIGRATIONS
from tests.factories import segment_write


def table_counts(store: SQLiteStore) -> dict[str, int]:
    names = [r[0] for r in store.query("SELECT name FROM sqlite_master WHERE type='table'"
                                       " AND name NOT LIKE 'sqlite_%'")]
    return {n: store.query(f"SELECT COUNT(*) FROM {n}")[0][0] for n in names}


def test_round_trip(tmp_path, fast_store_config):
    store = MemoryStore.open(tmp_path / "mem", fast_store_config)
    w = segment_write("P06", "P06_101", 0, 0, ["yellow bowl", "spoon"], place="counter")
    store.commit_segment(w)
    assert store.has_segment(w.observation.segment.segment_id)
    assert store.next_seq("P06") == 1
    ents = store.entities("P06")
    assert [e.name for e in ents] == ["spoon", "yellow bowl"] or {e.name for e in ents} == {"spoon", "yellow bowl"}
    hist = store.entity_history(ents[0].entity_id, "P06")
    assert hist[0].op is EditOp.ADD and hist[0].segment_id == "P06/P06_101/00000"
    acts = store.activities("P06")
    assert acts[0].summary == "take yellow bowl, spoon" and acts[0].actions[0].verb == "take"
    assert {p.entity_id for p in store.placements("P06")} == {e.entity_id for e in ents}
    assert store.places("P06")[0].name == "counter"
    assert list(store.segment_observations("P06"))[0] == w.observation
    assert [d.op for d in store.decisions("P06")] == [EditOp.ADD, EditOp.ADD]
    stats = store.stats("P06")
    assert (stats.segments, stats.entities, stats.entity_observations, stats.activities) == (1, 2, 2, 1)
    assert stats.compression_ratio == 1.0
    # Vectors are queued in the outbox in the same transaction; a search by the writer flushes them.
    assert ("entities", ents[0].entity_id) in store.pending_vectors()
    hits = store.semantic_search("entities", "yellow bowl", participant_id="P06", k=1)
    assert store.pending_vectors() == []
    assert hits[0][0] == next(e.entity_id for e in ents if e.name == "yellow bowl")


def test_failed_segment_leaves_store_exactly_as_before(tmp_path, sqlite_only_config):
    store = MemoryStore.open(tmp_path / "mem", sqlite_only_config)
    store.commit_segment(segment_write("P06", "P06_101", 0, 0, ["cup"]))
    before = table_counts(store)
    bad = segment_write("P06", "P06_101", 1, 1, ["plate", "knife"])
    # Inject a failure after the first rows are written: the history row points at an entity that does
    # not exist, so the foreign key check fails midway through the transaction.
    bad.entity_observations[-1].entity_id = "no-such-entity"
    with pytest.raises(sqlite3.IntegrityError):
        store.commit_segment(bad)
    assert table_counts(store) == before
    assert not store.has_segment("P06/P06_101/00001")
    # The same segment, corrected, then commits normally.
    store.commit_segment(segment_write("P06", "P06_101", 1, 1, ["plate", "knife"]))
    assert store.stats("P06").entities == 3


def test_duplicate_segment_is_refused_without_side_effects(tmp_path, sqlite_only_config):
    store = MemoryStore.open(tmp_path / "mem", sqlite_only_config)
    w = segment_write("P06", "P06_101", 0, 0, ["cup"])
    store.commit_segment(w)
    before = table_counts(store)
    with pytest.raises(sqlite3.IntegrityError):
        store.commit_segment(segment_write("P06", "P06_101", 0, 5, ["pan"]))
    assert table_counts(store) == before


def test_records_of_another_participant_are_refused(tmp_path, sqlite_only_config):
    store = MemoryStore.open(tmp_path / "mem", sqlite_only_config)
    w = segment_write("P06", "P06_101", 0, 0, ["cup"])
    w.entities[0].participant_id = "P28"
    with pytest.raises(ValueError, match="P28"):
        store.commit_segment(w)
    assert table_counts(store)["segments"] == 0


def test_participants_never_answer_for_each_other(tmp_path, fast_store_config):
    store = MemoryStore.open(tmp_path / "mem", fast_store_config)
    store.commit_segment(segment_write("P06", "P06_101", 0, 0, ["kettle"]))
    store.commit_segment(segment_write("P28", "P28_101", 0, 0, ["kettle", "teapot"]))
    assert [e.name for e in store.entities("P06")] == ["kettle"]
    assert {e.participant_id for e in store.entities("P28")} == {"P28"}
    hits = store.semantic_search("entities", "teapot", participant_id="P06", k=5)
    assert all(h[0].startswith("P06:") for h in hits)
    assert store.activities("P06", video_id="P28_101") == []


def test_invalid_knowledge_is_refused_naming_the_field(tmp_path, sqlite_only_config):
    with pytest.raises(ValidationError, match="confidence"):
        Preference(pref_id="p", participant_id="P06", statement="s", keywords=["k"], confidence=2, support=1,
                   subject="mug", attribute="variant", choice="green", choice_text="use green mug", occasions=1,
                   episodes=[Evidence(video_id="v", start_s=0, end_s=1)])


def test_knowledge_replace_is_idempotent_and_indexed(tmp_path, fast_store_config):
    store = MemoryStore.open(tmp_path / "mem", fast_store_config)
    ev = [Evidence(video_id="P06_101", start_s=0, end_s=10)]
    routines = [RoutineSkill(routine_id="P06:r0", participant_id="P06", goal="make tea",
                             steps=["fill kettle", "boil water", "pour water into mug"], key_objects=["kettle"],
                             episodes=ev, frequency=3)]
    prefs = [Preference(pref_id="P06:p0", participant_id="P06", statement="uses the green mug for tea",
                        subject="mug", attribute="variant", choice="green", choice_text="use green mug", occasions=3,
                        keywords=["green", "mug", "tea"], confidence=0.9, support=3, episodes=ev)]
    store.replace_knowledge("P06", routines, prefs)
    store.replace_knowledge("P06", routines, prefs)
    assert store.routines("P06") == routines and store.preferences("P06") == prefs
    assert store.vectors.count("routines") == 1
    assert store.semantic_search("routines", "tea", participant_id="P06", k=1)[0][0] == "P06:r0"
    store.replace_knowledge("P06", [], [])
    assert store.vectors.count("routines") == 0 and store.routines("P06") == []


def test_reindex_rebuilds_a_lost_vector_index(tmp_path, fast_store_config):
    root = tmp_path / "mem"
    store = MemoryStore.open(root, fast_store_config)
    for i, objs in enumerate([["cup", "kettle"], ["knife", "chopping board"], ["pan"]]):
        store.commit_segment(segment_write("P06", "P06_101", i, i, objs))
    expected = store.semantic_search("entities", "chopping board", participant_id="P06", k=1)
    store.close()
    shutil.rmtree(root / "chroma")
    store = MemoryStore.open(root, fast_store_config)
    assert store.vectors.count("entities") == 0
    counts = store.reindex()
    assert counts["entities"] == 5 and counts["activities"] == 3
    assert store.semantic_search("entities", "chopping board", participant_id="P06", k=1) == expected


def test_crash_between_sqlite_and_chroma_is_repaired_on_open(tmp_path, fast_store_config, monkeypatch):
    root = tmp_path / "mem"
    store = MemoryStore.open(root, fast_store_config)

    def boom(*a, **k):
        raise RuntimeError("process died before the vector write")

    monkeypatch.setattr(store.vectors, "upsert", boom)
    store.commit_segment(segment_write("P06", "P06_101", 0, 0, ["toaster"]))
    with pytest.raises(RuntimeError):
        store.flush_vectors()
    assert store.has_segment("P06/P06_101/00000")  # SQLite committed
    assert store.pending_vectors()                  # ... and remembers what Chroma still needs
    store.vectors.close()  # the process dies: no orderly flush on close
    store.vectors = None
    SQLiteStore.close(store)
    reopened = MemoryStore.open(root, fast_store_config)
    assert reopened.pending_vectors() == []
    assert reopened.semantic_search("entities", "toaster", participant_id="P06", k=1)


def test_schema_version_and_readonly_access(tmp_path, sqlite_only_config):
    root = tmp_path / "mem"
    store = MemoryStore.open(root, sqlite_only_config)
    assert store.schema_version == len(MIGRATIONS)
    store.commit_segment(segment_write("P06", "P06_101", 0, 0, ["cup"]))
    reader = SQLiteStore(root, readonly=True)
    assert reader.stats("P06").entities == 1
    with pytest.raises(PermissionError):
        reader.commit_segment(segment_write("P06", "P06_101", 1, 1, ["pan"]))
    with pytest.raises(FileNotFoundError):
        SQLiteStore(tmp_path / "nothing", readonly=True)


def test_newer_schema_is_refused(tmp_path, sqlite_only_config):
    root = tmp_path / "mem"
    MemoryStore.open(root, sqlite_only_config).close()
    conn = sqlite3.connect(root / "memory.sqlite")
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    conn.close()
    with pytest.raises(RuntimeError, match="newer"):
        MemoryStore.open(root, sqlite_only_config)


def test_minilm_embedder_loads_offline_and_ranks_by_meaning():
    from memora_core.config import EmbeddingConfig
    from memora_core.store.embedding import make_embedder

    emb = make_embedder(EmbeddingConfig(backend="minilm"))
    vecs = emb.embed(["a mug of coffee", "a cup of espresso", "a chainsaw"])
    assert vecs.shape == (3, 384)
    assert float(vecs[0] @ vecs[1]) > float(vecs[0] @ vecs[2]) + 0.2


def test_unchanged_records_are_not_re_embedded(tmp_path, fast_store_config):
    store = MemoryStore.open(tmp_path / "mem", fast_store_config)
    sent: list[str] = []
    real_upsert = store.vectors.upsert

    def counting_upsert(collection, ids, docs, metas):
        sent.extend(f"{collection}:{i}" for i in ids)
        return real_upsert(collection, ids, docs, metas)

    store.vectors.upsert = counting_upsert
    w = segment_write("P06", "P06_101", 0, 0, ["cup"])
    store.commit_segment(w)
    store.flush_vectors()
    eid = w.entities[0].entity_id
    assert f"entities:{eid}" in sent
    sent.clear()
    # Seen again later with nothing changed but the time: no new embedding.
    again = segment_write("P06", "P06_101", 1, 1, ["pan"])
    again.entities.append(w.entities[0].model_copy(update={"last_seen_s": 10.0, "last_seen_seq": 1}))
    store.commit_segment(again)
    store.flush_vectors()
    assert f"entities:{eid}" not in sent
    # A state change alters the document, so the vector is refreshed.
    changed = segment_write("P06", "P06_101", 2, 2, ["lid"])
    changed.entities.append(w.entities[0].model_copy(update={"state": "washed", "last_seen_seq": 2}))
    store.commit_segment(changed)
    store.flush_vectors()
    assert f"entities:{eid}" in sent
