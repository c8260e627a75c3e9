"""Key-fact extraction for informativeness (memopt/run.key_facts): only a segment's first `max_facts_per_segment`
questions are extracted (informativeness averages over no more), with a real tiny causal LM; the result is cached."""
from __future__ import annotations

import json

from memora_core.schemas import SegmentObservation

from memora_bench.memlife.types import Interval, SegmentInput
from memora_bench.memopt.config import MemOptConfig, RewardConfig
from memora_bench.memopt.data import MemOptData, ParticipantData, TrainingQuestion
from memora_bench.memopt.firm import key_str
from memora_bench.memopt.models import smollm2_tokenizer, tiny_model
from memora_bench.memopt.run import key_facts

from .memlife_helpers import item


def _segment(idx: int) -> SegmentInput:
    obs = SegmentObservation.model_validate({
        "segment": {"participant_id": "PX1", "video_id": "V1", "index": idx, "start_s": 30.0 * idx,
                    "end_s": 30.0 * idx + 30},
        "actions": [{"verb": "take", "nouns": ["cup"], "start_s": 30.0 * idx + 1, "end_s": 30.0 * idx + 2}],
        "backend": "narration"})
    return SegmentInput(participant_id="PX1", video_id="V1", index=idx, start_s=30.0 * idx, end_s=30.0 * idx + 30,
                        t_start=30.0 * idx, t_end=30.0 * idx + 30, perception_json=obs.model_dump_json())


def test_key_facts_stop_at_the_per_segment_cap_and_are_cached(tmp_path):
    segs = [_segment(0), _segment(1)]
    questions = [TrainingQuestion(item=item(qid=f"q{i}"), evidence=[Interval(start=0, end=30)],
                                  evidence_segments=[segs[0].key, *([segs[1].key] if i == 0 else [])],
                                  question_time=60.0) for i in range(4)]
    data = MemOptData(seed=0, splits={"train": ["PX1"], "validation": [], "test": []},
                      train=[ParticipantData(participant_id="PX1", segments=segs, questions=questions)],
                      validation=[], test=[])
    cfg = MemOptConfig(rewards=RewardConfig(max_facts_per_segment=2, fact_max_new_tokens=4, max_prompt_tokens=256))
    tok = smollm2_tokenizer()
    facts = key_facts(data, tiny_model(tok, seed=1).eval(), tok, cfg, tmp_path)
    assert {k: len(v) for k, v in facts.items()} == {key_str(segs[0].key): 2, key_str(segs[1].key): 1}
    assert json.loads((tmp_path / "facts.json").read_text()) == facts
    assert key_facts(data, None, tok, cfg, tmp_path) == facts  # cached: no model needed
