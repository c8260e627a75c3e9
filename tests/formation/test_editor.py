"""The online editor on a real SQLite store: every decision type, the side-by-side rule, environment
memory, and the robust conversions of the LLM decider (its chat replies scripted for determinism)."""
from __future__ import annotations

import pytest

from memora_core.editing import MemoryWriter, load_editor_config, make_decider
from memora_core.editing.config import EditorConfig
from memora_core.editing.llm_decider import LlmDecider
from memora_core.schemas import EditOp, ObjectObservation, Segment, SegmentObservation
from memora_core.store import MemoryStore

PID = "P99"


def seg_obs(index: int, *objects: ObjectObservation, video: str = "V1", summary: str = "") -> SegmentObservation:
    seg = Segment(participant_id=PID, video_id=video, index=index, start_s=index * 10.0, end_s=index * 10.0 + 10)
    return SegmentObservation(segment=seg, objects=list(objects), summary=summary, backend="test")


def obj(name: str, **kw) -> ObjectObservation:
    return ObjectObservation(name=name, **kw)


@pytest.fixture
def cfg() -> EditorConfig:
    return load_editor_config(candidates={"embedder": "hashing", "embedding_threshold": 0.5})


@pytest.fixture
def store(tmp_path, sqlite_only_config):
    s = MemoryStore.open(tmp_path / "store", sqlite_only_config)
    yield s
    s.close()


@pytest.fixture
def writer(store, cfg):
    return MemoryWriter(store, None, make_decider(cfg), config=cfg)


def ops(write) -> list[str]:
    return [d.op.value for d in write.decisions]


def test_add_noop_update_delete(writer, store):
    w0 = writer.process(seg_obs(0, obj("knife", category="knife")))
    assert ops(w0) == ["add"] and w0.decisions[0].target_entity_id == "P99:e00000"
    w1 = writer.process(seg_obs(1, obj("knife", category="knife")))
    assert ops(w1) == ["noop"] and w1.decisions[0].target_entity_id == "P99:e00000"
    w2 = writer.process(seg_obs(2, obj("knife", category="knife", location="drawer", state="washed")))
    assert ops(w2) == ["update"]
    d = w2.decisions[0]
    assert d.after == {"location": "drawer", "state": "washed"} and d.before == {"location": None, "state": None}
    w3 = writer.process(seg_obs(3, obj("knife", category="knife", state="discarded")))
    assert ops(w3) == ["delete"]
    assert store.entity("P99:e00000").deleted
    # after the retraction the next knife is a new entity
    w4 = writer.process(seg_obs(4, obj("knife", category="knife")))
    assert ops(w4) == ["add"] and w4.decisions[0].target_entity_id == "P99:e00001"
    st = store.stats(PID)
    assert st.decisions == {"add": 2, "update": 1, "delete": 1, "noop": 1}
    assert st.entity_observations == 5 and st.entities == 1 and st.entities_deleted == 1
    hist = store.entity_history("P99:e00000", PID)
    assert [h.op for h in hist] == [EditOp.ADD, EditOp.NOOP, EditOp.UPDATE, EditOp.DELETE]
    assert hist[2].location == "drawer"
    # every decision is logged with its reason and segment
    logged = store.decisions(PID)
    assert [x.op for x in logged] == [EditOp.ADD, EditOp.NOOP, EditOp.UPDATE, EditOp.DELETE, EditOp.ADD]
    assert all(x.reason for x in logged)
    assert len(store.decisions(PID, segment_id="P99/V1/00002")) == 1


def test_synonym_joins_but_side_by_side_stays_apart(writer, store):
    writer.process(seg_obs(0, obj("spoon", category="spoon")))
    w1 = writer.process(seg_obs(1, obj("teaspoon", category="spoon")))  # same class, not side by side: joined
    assert ops(w1) == ["update"] and w1.decisions[0].after == {"aliases": ["teaspoon"]}
    w2 = writer.process(seg_obs(2, obj("spoon", category="spoon"), obj("wooden spoon", category="spoon")))
    assert ops(w2) == ["noop", "add"]  # two spoons used together are two objects
    spoon, wooden = w2.decisions[0].target_entity_id, w2.decisions[1].target_entity_id
    assert spoon != wooden
    w3 = writer.process(seg_obs(3, obj("wooden spoon", category="spoon"), obj("teaspoon", category="spoon")))
    assert {d.observed_name: d.target_entity_id for d in w3.decisions} == {"wooden spoon": wooden,
                                                                           "teaspoon": spoon}
    assert ops(w3) == ["noop", "noop"]


def test_attribute_conflict_is_a_new_object(writer):
    writer.process(seg_obs(0, obj("mug", colour="red")))
    w1 = writer.process(seg_obs(1, obj("mug", colour="blue")))
    assert ops(w1) == ["add"]
    w2 = writer.process(seg_obs(2, obj("mug", colour="red", material="ceramic")))
    assert ops(w2) == ["update"] and w2.decisions[0].target_entity_id == "P99:e00000"
    assert w2.decisions[0].after == {"attributes": {"material": "ceramic"}}


def test_embedding_similarity_candidate(writer):
    writer.process(seg_obs(0, obj("coffee mug")))
    w1 = writer.process(seg_obs(1, obj("mug")))  # hashing cosine 0.58 >= configured 0.5
    assert ops(w1) == ["update"] and "embedding" in w1.decisions[0].reason
    w2 = writer.process(seg_obs(2, obj("kettle")))
    assert ops(w2) == ["add"]


def test_activity_and_environment_memory(writer, store):
    w = writer.process(seg_obs(0, obj("pot", category="pan", location="cupboard"), obj("cupboard", category="cupboard"),
                               obj("counter", category="top"), summary="put pot in cupboard"))
    assert w.activity is not None and w.activity.summary == "put pot in cupboard"
    acts = store.activities(PID)
    assert len(acts) == 1 and acts[0].objects == ["pot", "cupboard", "counter"]
    places = {p.name: p.kind for p in store.places(PID)}
    assert places == {"cupboard": "container", "counter": "place"}
    pot = w.decisions[0].target_entity_id
    where = {p.entity_id: p.place_name for p in store.placements(PID)}
    assert where == {pot: "cupboard"}
    writer.process(seg_obs(1, obj("pot", category="pan", location="hob")))
    assert {p.entity_id: p.place_name for p in store.placements(PID)} == {pot: "hob"}
    assert store.entity(pot).location == "hob"
    assert len(store.activities(PID)) == 2


class ScriptedChat:
    """Replays fixed replies so the conversion tests are deterministic; records the prompts."""

    def __init__(self, replies: list) -> None:
        self.replies = list(replies)
        self.prompts: list = []

    def complete(self, messages):
        self.prompts.append(messages)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply


def llm_writer(store, cfg, replies):
    chat = ScriptedChat(replies)
    cfg = cfg.model_copy(update={"decider": "llm"})
    decider = make_decider(cfg, chat=chat)
    assert isinstance(decider, LlmDecider)
    return MemoryWriter(store, None, decider, config=cfg), chat, decider


def test_llm_decisions_and_conversions(store, cfg, caplog):
    writer, chat, decider = llm_writer(store, cfg, [
        '{"op": "add", "reason": "new knife"}',
        '```json\n{"op": "noop", "target_entity_id": "P99:e00000", "reason": "same knife"}\n```',
        'Sure! {"op": "update", "target_entity_id": "P99:e00042", "reason": "hallucinated id"}',
        '{"op": "delete", "target_entity_id": "nope", "reason": "bad id"}',
        '{"op": "noop", "target_entity_id": "P99:e00000", "reason": "says nothing changed"}',
        '{"op": "update", "target_entity_id": "P99:e00000", "reason": "claims a change"}',
        '{"op": "DELETE", "target_entity_id": "P99:e00000", "reason": "it was a fork"}',
    ])
    caplog.set_level("INFO", logger="memora_core.editing")
    assert ops(writer.process(seg_obs(0, obj("knife")))) == ["add"]
    assert ops(writer.process(seg_obs(1, obj("knife")))) == ["noop"]
    # Update naming an unknown id -> Add
    w2 = writer.process(seg_obs(2, obj("board")))
    assert ops(w2) == ["add"] and w2.decisions[0].converted_from == EditOp.UPDATE
    # Delete of an unknown id -> Noop on the best candidate
    w3 = writer.process(seg_obs(3, obj("knife")))
    assert ops(w3) == ["noop"] and w3.decisions[0].converted_from == EditOp.DELETE
    assert w3.decisions[0].target_entity_id == "P99:e00000"
    # Noop although the location changed -> Update
    w4 = writer.process(seg_obs(4, obj("knife", location="drawer")))
    assert ops(w4) == ["update"] and w4.decisions[0].converted_from == EditOp.NOOP
    assert store.entity("P99:e00000").location == "drawer"
    # Update that changes nothing -> Noop
    w5 = writer.process(seg_obs(5, obj("knife", location="drawer")))
    assert ops(w5) == ["noop"] and w5.decisions[0].converted_from == EditOp.UPDATE
    # a real Delete (upper-case op parsed defensively)
    w6 = writer.process(seg_obs(6, obj("knife")))
    assert ops(w6) == ["delete"] and store.entity("P99:e00000").deleted
    conversions = [r for r in caplog.records if "editor conversion" in r.getMessage()]
    assert len(conversions) == 4
    logged = [d for d in store.decisions(PID) if d.converted_from]
    assert [d.converted_from for d in logged] == [EditOp.UPDATE, EditOp.DELETE, EditOp.NOOP, EditOp.UPDATE]
    assert all("converted" in d.reason for d in logged)
    # the prompt shows the model the candidates it may name
    assert "P99:e00000" in chat.prompts[1][1]["content"]
    assert decider.fallbacks == 0


def test_llm_non_json_retried_then_falls_back(store, cfg, caplog):
    writer, chat, decider = llm_writer(store, cfg, [
        "I think this is a knife.",               # not JSON
        '{"op": "add"',                           # truncated JSON
        '{"op": "teleport", "reason": "?"}',      # JSON, invalid op (2nd object, 1st attempt)
        '{"op": "add", "reason": "fine"}',        # 2nd attempt ok
        RuntimeError("connection reset"),         # transport failure ...
        "[]",                                     # ... then a JSON array: falls back
    ])
    caplog.set_level("WARNING", logger="memora_core.editing")
    w0 = writer.process(seg_obs(0, obj("knife")))
    assert ops(w0) == ["add"] and "llm fallback after 2 attempts" in w0.decisions[0].reason
    w1 = writer.process(seg_obs(1, obj("fork")))
    assert ops(w1) == ["add"] and w1.decisions[0].reason == "llm: fine"
    w2 = writer.process(seg_obs(2, obj("knife", location="sink")))
    # fallback = the deterministic decision: same knife, moved -> Update
    assert ops(w2) == ["update"] and "llm fallback" in w2.decisions[0].reason
    assert decider.fallbacks == 2
    assert store.stats(PID).segments == 3  # never a lost segment
    assert any("fell back" in r.getMessage() for r in caplog.records)
