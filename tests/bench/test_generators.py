"""Construction pipelines: index, gates, dedup, controls, caps, the LLM path (scripted chat), segmentation."""
import json
from pathlib import Path

import numpy as np
import pytest

from memora_bench.config import EamQaGenConfig, LlmConfig, PlanningGenConfig
from memora_bench.data import BenchData, Narration
from memora_bench.generators.eamqa_gen import (
    GenItem, build_index, cap_per_type, dedup, generate_eam_qa, make_controls, passes_gates, template_items,
    video_digest,
)
from memora_bench.generators.llm import extract_json
from memora_bench.generators.planning_gen import (
    duplicate_share, generate_planning, segment, select_diverse,
)


def n(nid, vid, t, verb, noun, dur=1.0, text=None):
    return Narration(narration_id=nid, participant_id="PX1", video_id=vid, start_s=t, end_s=t + dur,
                     narration=text or f"{verb} {noun}", verb=verb, noun=noun)


def test_index_tables_stay_within_videos(compact_root):
    rows = BenchData(compact_root).narrations("PX1", ["PX1_01", "PX1_02", "PX1_03"])
    idx = build_index("PX1", rows)
    assert idx.pairs["take|cup"] == 3 and idx.verbs["open"] == 3
    assert idx.next_after["take|cup"] == {"close|cupboard": 3}
    assert idx.next_videos["take|cup>close|cupboard"] == ["PX1_01", "PX1_02", "PX1_03"]
    # the last action of PX1_01 (turn-off tap) is never followed by PX1_02's first action
    assert "turn-off|tap" not in idx.next_after
    assert idx.bigrams["open>take"] == 3


def item(**kw):
    base = dict(q="What does PX1 typically do right after they take cup?", choices=["a", "b", "c", "d"],
                answer="A", type="SHabit", gt="close cupboard", video_ids=["PX1_01"])
    base.update(kw)
    return GenItem(**base)


def test_gates(compact_root):
    idx = build_index("PX1", BenchData(compact_root).narrations("PX1", ["PX1_01", "PX1_02", "PX1_03"]))
    cfg = EamQaGenConfig(min_videos_cross=2)
    assert passes_gates(item(), idx, cfg)[0]
    assert not passes_gates(item(type="SPref"), idx, cfg)[0]          # cross-video type from one video
    assert passes_gates(item(type="SPref", video_ids=["PX1_01", "PX1_02"]), idx, cfg)[0]
    assert not passes_gates(item(video_ids=["PX1_99"]), idx, cfg)[0]  # evidence outside the memory scope
    assert not passes_gates(item(video_ids=[]), idx, cfg)[0]
    assert not passes_gates(item(q="After take cup, is close cupboard next?"), idx, cfg)[0]  # leaked answer


def test_item_schema_rejects_bad_llm_output():
    with pytest.raises(ValueError):
        item(choices=["a", "a", "b", "c"])
    with pytest.raises(ValueError):
        item(answer="F")
    with pytest.raises(ValueError):
        item(type="Other")


def test_min_trigger_count_gate(compact_root):
    rows = BenchData(compact_root).narrations("PX1", ["PX1_01", "PX1_02", "PX1_03"])
    idx = build_index("PX1", rows)
    digests = {v: video_digest(v, [r for r in rows if r.video_id == v], 10) for v in idx.videos}
    habits = [i for i in template_items(idx, digests, EamQaGenConfig(min_trigger_count=3, hops=[1]))
              if i.type == "SHabit"]
    # only triggers seen >= 3 times: open cupboard, take cup, close cupboard
    assert {i.q.split("they ")[-1] for i in habits} <= {"open cupboard?", "take cup?", "close cupboard?"}
    assert all(idx.pairs[k] >= 3 for k in ("open|cupboard", "take|cup"))


def test_dedup_cosine_threshold():
    items = [item(q="What does PX1 do after taking the cup?"), item(q="What does PX1 do after taking the cup ?"),
             item(q="Which drawer holds the knives?", gt="left drawer")]
    table = {items[0].q: [1, 0, 0], items[1].q: [0.99, 0.1, 0], items[2].q: [0, 1, 0]}
    embed = lambda texts: np.array([table[t.rsplit(" ", 2)[0] if t.rsplit(" ", 2)[0] in table else  # noqa: E731
                                          next(k for k in table if t.startswith(k))] for t in texts], dtype=float)
    kept = dedup(items, embed, 0.95)
    assert [k.q for k in kept] == [items[0].q, items[2].q]  # cos(0,1) = 0.995 ≥ 0.95 → dropped
    assert len(dedup(items, embed, 0.999)) == 3


def test_controls_and_caps(compact_root):
    idx = build_index("PX1", BenchData(compact_root).narrations("PX1", ["PX1_01", "PX1_02", "PX1_03"]))
    donor = [item(q="What does P77 do after taking the pan?", gt="stir soup"),
             item(q="What does P77 do after the cup?", gt="take cup")]  # PX1 did 'take cup': not a control
    ctrls = make_controls(idx, {"P77": donor}, 5, 0)
    assert len(ctrls) == 1 and ctrls[0].answer == "E" and ctrls[0].unanswerable
    assert ctrls[0].source == "p77" and "PX1" in ctrls[0].q and ctrls[0].video_ids == []
    capped = cap_per_type([item(), item(), item(type="ERecall"), item()], 2)
    assert [c.type for c in capped] == ["SHabit", "SHabit", "ERecall"]


def test_template_generation_end_to_end_is_evaluable(compact_root, tmp_path):
    path = generate_eam_qa(BenchData(compact_root), "PX1", tmp_path, EamQaGenConfig(min_trigger_count=2))
    doc = json.loads(path.read_text())
    assert doc["questions"] and doc["metadata"]["n_answerable"] > 0
    qa = BenchData(tmp_path).eam_qa("PX1")  # the output is the compact schema the runners read
    assert all(len(q.choices) == 5 for q in qa.items)
    assert all(set(q.video_ids) <= {"PX1_01", "PX1_02", "PX1_03"} for q in qa.items)


class ScriptedChat:
    """Deterministic stand-in for the generator/verifier endpoint: replies by model name."""

    def __init__(self, gen_reply: str, verify_letter: str) -> None:
        self.gen_reply, self.verify_letter, self.calls = gen_reply, verify_letter, []

    def complete(self, model, messages):
        self.calls.append(model)
        return self.gen_reply if model == "gen" else f"The answer is ({self.verify_letter})."


def test_llm_path_gates_verifies_and_resumes(compact_root, tmp_path):
    reply = "```json\n" + json.dumps([
        {"q": "What does PX1 do right after taking a cup?", "choices": ["close cupboard", "fill kettle",
         "cut onion", "wash knife"], "answer": "A", "gt": "close cupboard", "video_ids": ["PX1_01", "PX1_02"]},
        {"q": "broken", "choices": ["x"], "answer": "Z"},
    ]) + "\n```"
    llm = LlmConfig(base_url="http://unused", generator_model="gen", verifier_model="ver")
    cfg = EamQaGenConfig(hops=[1])
    chat = ScriptedChat(reply, "A")
    path = generate_eam_qa(BenchData(compact_root), "PX1", tmp_path, cfg, llm_cfg=llm, chat=chat)
    doc = json.loads(path.read_text())
    # 4 types x 1 hop = 4 identical valid items → dedup to 1; the malformed one is dropped; verifier agrees
    assert [q["q"] for q in doc["questions"]] == ["What does PX1 do right after taking a cup?"]
    assert chat.calls.count("gen") == 4 and chat.calls.count("ver") == 1
    # a rerun resumes from the save points: no generator or verifier calls again
    chat2 = ScriptedChat("[]", "B")
    generate_eam_qa(BenchData(compact_root), "PX1", tmp_path, cfg, llm_cfg=llm, chat=chat2)
    assert chat2.calls == []
    # a verifier that re-derives a different letter rejects the item
    chat3 = ScriptedChat(reply, "C")
    doc3 = json.loads(generate_eam_qa(BenchData(compact_root), "PX1", tmp_path / "b", cfg, llm_cfg=llm,
                                      chat=chat3).read_text())
    assert doc3["questions"] == []
    with pytest.raises(ValueError):
        generate_eam_qa(BenchData(compact_root), "PX1", tmp_path / "c", cfg, chat=chat,
                        llm_cfg=LlmConfig(base_url="x", generator_model="m", verifier_model="m"))


def test_extract_json():
    assert extract_json('noise [1, 2] tail') == [1, 2]
    assert extract_json('```json\n{"a": 1}\n```') == {"a": 1}
    assert extract_json("no json here") is None


def test_segmentation_rules():
    cfg = PlanningGenConfig(hard_gap_s=30, soft_gap_s=10, min_steps=3, max_steps=15)
    cats = {"take": "retrieve", "open": "access", "wash": "clean", "rinse": "clean"}
    rows = [n("a0", "V", 0, "take", "cup"), n("a1", "V", 2, "open", "tap"), n("a2", "V", 4, "take", "cup"),
            n("a3", "V", 6, "take", "plate"),
            # 15 s gap + category change, confirmed by the next action → soft split
            n("b0", "V", 22, "wash", "cup"), n("b1", "V", 24, "rinse", "cup"), n("b2", "V", 26, "wash", "plate"),
            # 40 s gap → hard split; the 2-step tail is merged into the previous segment
            n("c0", "V", 67, "take", "cup"), n("c1", "V", 69, "take", "plate")]
    segs = segment(rows, cats, cfg)
    assert [[r.narration_id for r in s] for s in segs] == [["a0", "a1", "a2", "a3"],
                                                          ["b0", "b1", "b2", "c0", "c1"]]
    # soft split not confirmed (next action returns to the old category) → no split
    rows2 = [n("a0", "V", 0, "take", "cup"), n("a1", "V", 2, "take", "cup"), n("a2", "V", 4, "take", "cup"),
             n("b0", "V", 20, "wash", "cup"), n("b1", "V", 22, "take", "cup"), n("b2", "V", 24, "take", "cup")]
    assert len(segment(rows2, cats, cfg)) == 1
    # longer than max_steps → near-equal pieces within the bounds
    long = [n(f"l{i}", "V", i * 2, "take", "cup") for i in range(31)]
    assert [len(s) for s in segment(long, cats, cfg)] == [11, 11, 9]


def test_duplicate_share_and_selection_caps():
    rows = [n("a", "V", 0, "mix", "dough"), n("b", "V", 1, "mix", "dough"), n("c", "V", 2, "knead", "dough")]
    assert duplicate_share(rows) == pytest.approx(1 / 3)
    cands = [{"task_id": f"t{i}", "task_type": "cleanup_organization" if i < 6 else "meal_preparation",
              "primary_objects": [f"o{i}"], "primary_verbs": ["wash"], "num_steps": 5} for i in range(9)]
    picked = select_diverse(cands, PlanningGenConfig(per_participant=12, per_type=4))
    types = [p["task_type"] for p in picked]
    # 6 cleanup candidates but at most 4 per type; all 3 meal tasks fit → 7
    assert len(picked) == 7 and types.count("cleanup_organization") == 4
    assert len(select_diverse(cands, PlanningGenConfig(per_participant=5, per_type=4))) == 5


def test_planning_generation_on_shared_data(shared_data, tmp_path):
    path = generate_planning(BenchData(shared_data), "P06", tmp_path, PlanningGenConfig())
    doc = json.loads(path.read_text())
    assert 0 < len(doc["replay"]) <= 12
    counts = {}
    for t in doc["replay"]:
        counts[t["task_type"]] = counts.get(t["task_type"], 0) + 1
        assert 3 <= t["num_steps"] <= 15
        assert not any(s[2].split("-")[0] in PlanningGenConfig().filler_verbs for s in t["steps"])
    assert max(counts.values()) <= 4
    assert doc["generalize_pending_reference"]  # without an LLM no reference steps are invented
    assert len(BenchData(tmp_path).planning("P06").replay) == len(doc["replay"])
