"""The entry-validity gate (memopt/rewards/validity.py) on hand-made entries, and FIRM with the gate: a copy of the
serialised perception earns ~0 whatever F x I x R say, a first-person sentence keeps F x I x R unchanged."""
from __future__ import annotations

import pytest
import torch

from memora_core.schemas import SegmentObservation
from memora_core.store.embedding import HashingEmbedder

from memora_bench.memopt.compact import compact_perception
from memora_bench.memopt.firm import FirmReward, key_str
from memora_bench.memopt.models import smollm2_tokenizer, tiny_model
from memora_bench.memopt.rewards.validity import EntryFlaw, entry_validity, key_value_count, perception_field_names

OBS = {
    "segment": {"participant_id": "P01", "video_id": "P01_01", "index": 3, "start_s": 90.0, "end_s": 120.0},
    "objects": [{"name": "cup", "location": "shelf"}, {"name": "kettle", "state": "on"}],
    "actions": [{"verb": "take", "nouns": ["cup"], "start_s": 91.4, "end_s": 93.0, "text": "take cup from shelf"},
                {"verb": "turn-on", "nouns": ["kettle"], "start_s": 95.6, "end_s": 96.0}],
    "summary": "", "backend": "narration"}
RAW = SegmentObservation.model_validate(OBS).model_dump_json()
COMPACT = compact_perception(RAW, 400)
GOOD = ["I took the cup from the shelf and turned the kettle on.",
        "I was in the kitchen and said: \"Anna, this is your cup\" at 10:30, then I put it on the 2nd shelf.",
        "We opened the fridge, took out my milk and poured it into a bowl"]  # cut mid-sentence, as 24 tokens are


@pytest.mark.parametrize("text", [RAW, COMPACT, COMPACT[:60], "<entry><did>take cup</did></entry>",
                                  "actions: take cup from shelf; objects: cup, kettle; location: shelf",
                                  "t=91 did=take cup name=cup location=shelf"])
def test_structured_copies_score_about_zero(text):
    v = entry_validity(text)
    assert v.score <= 0.05, (text, v)
    assert {EntryFlaw.NOT_WORDS, EntryFlaw.STRUCTURE_SYNTAX, EntryFlaw.KEY_VALUE} & set(v.flaws)


@pytest.mark.parametrize("text", GOOD)
def test_first_person_sentences_score_one(text):
    v = entry_validity(text)
    assert v.score == 1.0 and v.flaws == (), v


def test_third_person_prose_is_halved_and_empty_is_zero():
    v = entry_validity("The person took the cup from the shelf.")
    assert v.score == pytest.approx(0.5) and v.flaws == (EntryFlaw.NOT_FIRST_PERSON,)
    assert entry_validity("  ").flaws == (EntryFlaw.EMPTY,) and entry_validity("").score == 0.0


def test_schema_field_names_count_twice_as_keys():
    assert {"actions", "objects", "start_s", "video_id", "location", "did"} <= perception_field_names()
    assert key_value_count("I said: hello") == 1  # one key is free
    assert key_value_count("location: shelf") == 2
    assert entry_validity("I said: hello").score == 1.0
    assert entry_validity("I put it there, location: shelf").score == pytest.approx(0.5)


def test_firm_gates_every_token_of_a_copy():
    tok = smollm2_tokenizer()
    model = tiny_model(tok, seed=1).eval()
    key = key_str(("P01", "P01_01", 3))
    firm = FirmReward(evaluator=model, tokenizer=tok, embedder=HashingEmbedder(), sources={key: COMPACT},
                      intervals={}, facts={key: ["I took the cup."]}, max_prompt_tokens=256)
    texts = [GOOD[0], COMPACT]
    ids = [tok.encode(t, add_special_tokens=False)[:12] for t in texts]
    (good_tok, gf, gi, gr, gv), (copy_tok, cf, ci, cr, cv) = firm.score_batch([key, key], texts, ids)
    assert gv == 1.0 and cv == 0.0
    assert cf > 0 and ci > 0 and cr == 1.0  # F x I x R alone would pay the copy
    assert torch.count_nonzero(copy_tok) == 0
    assert good_tok.mean() > 0
    means = firm(None, texts, ids, [key, key])
    assert means[1] == 0.0 and means[0] == pytest.approx(float(good_tok.mean()))
    assert firm.last_components["validity"] == pytest.approx(0.5)
