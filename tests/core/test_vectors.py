"""The vector index on a real Chroma path: one collection per participant, filters split between Chroma
(equality) and exact ranking here (ranges), and an index written before per-participant collections."""
from __future__ import annotations

import numpy as np
import pytest

from memora_core.config import VectorConfig
from memora_core.store.embedding import HashingEmbedder
from memora_core.store.vector_filters import matches, split_where
from memora_core.store.vectors import VectorIndex, legacy_name

WORDS = ["cup", "kettle", "knife", "board", "pan", "bowl", "spoon", "tea", "bread", "milk"]


def records(pid: str, n: int) -> tuple[list[str], list[str], list[dict]]:
    ids = [f"act:{pid}/{i}" for i in range(n)]
    docs = [f"take {WORDS[i % len(WORDS)]} {WORDS[(i * 3) % len(WORDS)]} {i}" for i in range(n)]
    metas = [{"participant_id": pid, "video_id": f"{pid}_{i // 20:02d}", "t_s": float(i % 20) * 10, "seq": i}
             for i in range(n)]
    return ids, docs, metas


@pytest.fixture
def index(tmp_path):
    ix = VectorIndex(tmp_path, VectorConfig(backend="chroma"), HashingEmbedder())
    yield ix
    ix.close()


def brute_force(ix: VectorIndex, text: str, docs: dict[str, str], keep, k: int) -> list[float]:
    """Cosine distances of the k nearest kept records (ids may tie, distances may not differ)."""
    q = ix.embedder.embed([text])[0]
    emb = ix.embedder.embed([docs[i] for i in docs if keep(i)])
    return [round(float(d), 4) for d in np.sort(1 - emb @ q)[:k]]


def dists(hits: list[tuple[str, float]]) -> list[float]:
    return [round(d, 4) for _, d in hits]


def test_each_participant_has_its_own_collection(index):
    for pid, n in (("P01", 60), ("P02", 25)):
        index.upsert("activities", *records(pid, n))
    assert index.count("activities") == 85
    assert (index.count("activities", "P01"), index.count("activities", "P02"), index.count("activities", "P03")) \
        == (60, 25, 0)
    hits = index.query("activities", "take kettle", participant_id="P02", k=30)
    assert len(hits) == 25 and all(i.startswith("act:P02/") for i, _ in hits)
    assert index.query("activities", "take kettle", participant_id="P03", k=5) == []
    index.delete("activities", ["act:P01/0", "act:P02/0", "act:nobody/0"])
    assert (index.count("activities", "P01"), index.count("activities", "P02")) == (59, 24)
    index.clear()
    assert index.count("activities") == 0


def test_time_filtered_query_is_exact_and_matches_chroma(index):
    ids, docs, metas = records("P01", 200)
    index.upsert("activities", ids, docs, metas)
    other = records("P02", 50)
    index.upsert("activities", *other)
    by_id, meta_of = dict(zip(ids, docs)), dict(zip(ids, metas))
    where = {"video_id": "P01_03", "$and": [{"t_s": {"$gte": 50.0}}, {"t_s": {"$lte": 150.0}}]}
    got = index.query("activities", "take kettle", participant_id="P01", k=4, where=where)
    expected = brute_force(index, "take kettle", by_id,
                           lambda i: meta_of[i]["video_id"] == "P01_03" and 50 <= meta_of[i]["t_s"] <= 150, 4)
    assert dists(got) == expected and all(meta_of[i]["video_id"] == "P01_03" for i, _ in got)
    # the same filter evaluated by Chroma alone ($ne is not applied here, so it goes to Chroma whole)
    chroma = index.query("activities", "take kettle", participant_id="P01", k=4,
                         where={**where, "video_id": {"$ne": "none"}, "$and": [*where["$and"], {"video_id": "P01_03"}]})
    assert dists(chroma) == expected


def test_range_only_filters_are_exact_whether_oversampling_suffices_or_not(index):
    ids, docs, metas = records("P01", 300)
    index.upsert("activities", ids, docs, metas)
    by_id, meta_of = dict(zip(ids, docs)), dict(zip(ids, metas))
    for lo, hi in ((40, 200), (7, 9)):  # wide: the 10 x k nearest hold k matches; narrow: Chroma filters
        where = {"$and": [{"seq": {"$gte": lo}}, {"seq": {"$lte": hi}}]}
        got = index.query("activities", "take pan", participant_id="P01", k=5, where=where)
        assert all(lo <= meta_of[i]["seq"] <= hi for i, _ in got)
        assert dists(got) == brute_force(index, "take pan", by_id, lambda i: lo <= meta_of[i]["seq"] <= hi, 5)


def test_split_where_sends_equalities_to_chroma_and_keeps_ranges():
    where = {"video_id": "v1", "$and": [{"t_s": {"$gte": 5.0}}, {"seq": {"$lte": 9}}]}
    selected, rest = split_where(where)
    assert selected == [{"video_id": "v1"}]
    assert rest == [{"t_s": {"$gte": 5.0}}, {"seq": {"$lte": 9}}]
    assert split_where({"video_id": {"$ne": "v1"}})[1] is None
    assert matches({"t_s": 5.0}, {"t_s": {"$gte": 5.0, "$lt": 6}})
    assert not matches({"t_s": "5"}, {"t_s": {"$gte": 5.0}}) and not matches({}, {"t_s": {"$gte": 5.0}})
    assert matches({"v": "a"}, {"$or": [{"v": {"$in": ["a", "b"]}}, {"t_s": 1}]})


def test_an_index_from_before_per_participant_collections_is_read_then_split(tmp_path):
    ix = VectorIndex(tmp_path, VectorConfig(backend="chroma"), HashingEmbedder())
    old = ix.client.get_or_create_collection(legacy_name("activities", "hashing"), metadata={"hnsw:space": "cosine"},
                                             embedding_function=ix._ef)  # as VectorIndex made them
    for pid, n in (("P01", 30), ("P02", 10)):
        ids, docs, metas = records(pid, n)
        old.upsert(ids=ids, documents=docs, metadatas=metas, embeddings=ix.embedder.embed(docs))
    ix.close()
    ix = VectorIndex(tmp_path, VectorConfig(backend="chroma"), HashingEmbedder())
    before = ix.query("activities", "take bread", participant_id="P02", k=3)
    assert len(before) == 3 and all(i.startswith("act:P02/") for i, _ in before)
    assert ix.count("activities") == 40 and ix.count("activities", "P02") == 10
    ix.upsert("activities", *records("P03", 5))  # the writer's first write splits the old collection
    names = [c.name for c in ix.client.list_collections()]
    assert legacy_name("activities", "hashing") not in names
    assert (ix.count("activities"), ix.count("activities", "P01"), ix.count("activities", "P03")) == (45, 30, 5)
    assert dists(ix.query("activities", "take bread", participant_id="P02", k=3)) == dists(before)
    ix.close()
