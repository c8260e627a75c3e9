"""MemOpt's compact perception JSON (memopt/compact.py) and the batched evaluator passes behind the FIRM rewards:
the compact form keeps every known fact, drops whole items when over budget, and the batched faithfulness /
entailment scores equal the one-at-a-time ones (left padding changes nothing)."""
from __future__ import annotations

import json

import pytest
import torch

from memora_core.schemas import SegmentObservation

from memora_bench.memlife.types import SegmentInput
from memora_bench.memopt.compact import compact_perception
from memora_bench.memopt.lm import greedy_batch
from memora_bench.memopt.memory import writer_prompts
from memora_bench.memopt.models import smollm2_tokenizer, tiny_model
from memora_bench.memopt.rewards.faithfulness import token_faithfulness, token_faithfulness_batch
from memora_bench.memopt.rewards.informativeness import informativeness, informativeness_batch

OBS = {
    "segment": {"participant_id": "P01", "video_id": "P01_01", "index": 3, "start_s": 90.0, "end_s": 120.0},
    "objects": [{"name": "cup", "category": "cup", "location": "shelf", "state": None},
                {"name": "kettle", "category": "appliance", "state": "on", "confidence": 0.8},
                {"name": "spoon"}],
    "actions": [{"verb": "take", "nouns": ["cup"], "start_s": 91.4, "end_s": 93.0, "text": "take cup from shelf",
                 "source_id": "P01_01_7"},
                {"verb": "turn-on", "nouns": ["kettle"], "start_s": 95.6, "end_s": 96.0}],
    "summary": "take cup from shelf; ",
    "backend": "narration"}


def _json() -> str:
    return SegmentObservation.model_validate(OBS).model_dump_json()


def test_compact_keeps_every_known_fact_and_drops_the_rest():
    got = json.loads(compact_perception(_json(), 2000))
    assert got == {"actions": [{"t": 91, "did": "take cup from shelf"}, {"t": 96, "did": "turn on kettle"}],
                   "objects": [{"name": "cup", "location": "shelf"},
                               {"name": "kettle", "category": "appliance", "state": "on", "confidence": 0.8},
                               {"name": "spoon"}],
                   "summary": "take cup from shelf;"}
    assert len(compact_perception(_json(), 2000)) < len(_json()) / 2


def test_compact_over_budget_drops_whole_items_objects_first():
    full = compact_perception(_json(), 2000)
    cut = compact_perception(_json(), len(full) - 1)
    got = json.loads(cut)  # still valid JSON
    assert [o["name"] for o in got["objects"]] == ["cup", "kettle"] and len(got["actions"]) == 2
    tiny = json.loads(compact_perception(_json(), 70))
    assert tiny["objects"] == [] and len(tiny["actions"]) <= 1


def test_summary_that_only_repeats_the_actions_is_dropped():
    obs = dict(OBS, summary="take cup from shelf; ")
    obs["actions"] = obs["actions"][:1]
    assert "summary" not in json.loads(compact_perception(SegmentObservation.model_validate(obs).model_dump_json(),
                                                          2000))


def test_writer_prompt_carries_the_compact_perception():
    seg = SegmentInput(participant_id="P01", video_id="P01_01", index=3, start_s=90.0, end_s=120.0, t_start=90.0,
                       t_end=120.0, perception_json=_json(), transcript="")
    user = writer_prompts(600).messages(seg)[1]["content"]
    assert compact_perception(_json(), 600) in user and "source_id" not in user and "null" not in user


@pytest.fixture(scope="module")
def lm():
    tok = smollm2_tokenizer()
    return tiny_model(tok, seed=2).eval(), tok


def test_batched_faithfulness_equals_one_at_a_time(lm):
    model, tok = lm
    sources = ["PERCEPTION: I took the cup", "PERCEPTION: I washed a long row of plates and pans"]
    texts = ["I took the cup", "I washed"]
    ids = [tok.encode(" I took the cup", add_special_tokens=False),
           tok.encode(" I washed the plates and then the pans", add_special_tokens=False)]
    batched = token_faithfulness_batch(model, tok, sources + [sources[0]], texts + ["x"], ids + [[]], 512)
    for s, t, i, b in zip(sources, texts, ids, batched):
        assert torch.allclose(b, token_faithfulness(model, tok, s, t, i, 512), atol=1e-4)
    assert batched[2].numel() == 0


def test_batched_informativeness_equals_one_at_a_time(lm):
    model, tok = lm
    cands = ["I took the cup", "I washed the pan and dried it on the rack"]
    facts = [["I took the cup.", "The kettle was on."], [], ["I washed the pan."]]
    got = informativeness_batch(model, tok, cands + ["nothing"], facts)
    want = [informativeness(model, tok, c, f) for c, f in zip(cands + ["nothing"], facts)]
    assert got == pytest.approx(want, abs=1e-4) and got[1] == 1.0


def test_batched_greedy_equals_one_at_a_time(lm):
    model, tok = lm
    prompts = [tok.encode("I took the cup and", add_special_tokens=False),
               tok.encode("Then I washed the long row of plates", add_special_tokens=False)]
    assert greedy_batch(model, tok, prompts, 5) == [greedy_batch(model, tok, [p], 5)[0] for p in prompts]
