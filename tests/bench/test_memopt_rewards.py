"""MemOpt reward components on hand-made cases (plus a real tiny causal LM for the model-facing wrappers)."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from memora_bench.memlife.types import Interval, MemoryEntry
from memora_bench.memopt.lm import prompt_ids
from memora_bench.memopt.models import smollm2_tokenizer, tiny_model
from memora_bench.memopt.replay_cache import CachedAction, QuestionReplay, ReplayCache
from memora_bench.memopt.rewards.faithfulness import evaluator_messages, ratio_to_max, token_faithfulness
from memora_bench.memopt.rewards.informativeness import (entailment_probability, informativeness,
                                                         yes_probability)
from memora_bench.memopt.rewards.retrievability import retrievability


@pytest.fixture(scope="module")
def lm():
    tok = smollm2_tokenizer()
    return tiny_model(tok, seed=1).eval(), tok


# ---------------------------------------------------------------- faithfulness
def test_ratio_to_max_hand_made():
    logits = torch.tensor([[2.0, 0.0, 1.0], [0.0, 0.0, 0.0]])
    got = ratio_to_max(logits, torch.tensor([0, 2]))
    assert torch.allclose(got, torch.tensor([1.0, 1.0]))  # the argmax, and a tie for the max
    got = ratio_to_max(logits, torch.tensor([2, 1]))
    assert torch.allclose(got, torch.tensor([math.exp(-1.0), 1.0]))


def test_token_faithfulness_is_one_on_the_evaluators_own_choice(lm):
    model, tok = lm
    source, text = "PERCEPTION: I took the cup", "I took the cup"
    prompt = prompt_ids(tok, evaluator_messages(source, text), 512)
    ids: list[int] = []
    for _ in range(5):  # the evaluator's own greedy continuation, teacher-forced
        ids.append(int(model(input_ids=torch.tensor([prompt + ids])).logits[0, -1].argmax()))
    own = token_faithfulness(model, tok, source, text, ids, 512)
    assert torch.allclose(own, torch.ones(5), atol=1e-5)
    worse = list(ids)
    worse[2] = (ids[2] + 1) % len(tok)
    got = token_faithfulness(model, tok, source, text, worse, 512)
    assert got[2] < 1.0 and torch.allclose(got[:2], torch.ones(2), atol=1e-5)
    assert token_faithfulness(model, tok, source, text, [], 512).numel() == 0


# ---------------------------------------------------------------- informativeness
def test_yes_probability_hand_made():
    logits = torch.log(torch.tensor([0.6, 0.2, 0.1, 0.1]))
    assert yes_probability(logits, [0], [1]) == pytest.approx(0.75)
    assert yes_probability(logits, [0, 2], [1, 3]) == pytest.approx(0.7)


def test_informativeness_is_the_mean_entailment(lm):
    model, tok = lm
    facts = ["I took the cup.", "I washed the pan."]
    each = [entailment_probability(model, tok, "I took the cup", f) for f in facts]
    assert all(0.0 <= p <= 1.0 for p in each)
    assert informativeness(model, tok, "I took the cup", facts) == pytest.approx(sum(each) / 2)
    assert informativeness(model, tok, "anything", []) == 1.0


# ---------------------------------------------------------------- retrievability
def _entry(i: int, t0: float) -> MemoryEntry:
    return MemoryEntry(participant_id="P01", video_id="P01_01", segment_index=i, t_start=t0, t_end=t0 + 30,
                       text=f"entry {i}", writer_id="test")


def _cache(actions: list[CachedAction]) -> ReplayCache:
    entries = [_entry(0, 0.0), _entry(1, 30.0), _entry(2, 60.0)]
    vectors = [[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]]
    return ReplayCache(entries=entries, vectors=vectors,
                       questions=[QuestionReplay(question_id="q", evidence=[("P01", "P01_01", 2)], actions=actions)])


KEY, SPAN = ("P01", "P01_01", 2), Interval(start=60.0, end=90.0)


def test_search_hit_when_rank_within_budget():
    cache = _cache([CachedAction(kind="search", query_vec=[0.6, 0.8], budget=1)])
    # entry scores for this query: 0.6, 0.96 (entry 1); the candidate must beat 0.96 to be the top 1
    assert retrievability(cache, KEY, SPAN, np.array([0.6, 0.8])) == 1.0   # 1.0: rank 0
    assert retrievability(cache, KEY, SPAN, np.array([0.8, 0.6])) == 0.0   # 0.96 ties, the earlier entry wins
    assert retrievability(cache, KEY, SPAN, np.array([1.0, 0.0])) == 0.0   # 0.6: rank 2
    cache2 = _cache([CachedAction(kind="search", query_vec=[1.0, 0.0], budget=3)])
    assert retrievability(cache2, KEY, SPAN, np.array([0.0, 1.0])) == 1.0  # last of 3, budget 3


def test_search_ignores_entries_outside_the_time_constraint_and_the_replaced_entry():
    # only entries inside [30, 90] compete: entry 1 (0.8) and the candidate; the old entry 2 is replaced
    act = CachedAction(kind="search", query_vec=[1.0, 0.0], interval=Interval(start=30.0, end=90.0), budget=1)
    cache = _cache([act])
    assert retrievability(cache, KEY, SPAN, np.array([0.9, 0.1])) == 1.0  # beats 0.8; entry 0 is out of range
    assert retrievability(cache, KEY, SPAN, np.array([0.1, 0.9])) == 0.0
    early = CachedAction(kind="search", query_vec=[1.0, 0.0], interval=Interval(start=0.0, end=59.0), budget=5)
    assert retrievability(_cache([early]), KEY, SPAN, np.array([1.0, 0.0])) == 0.0  # the segment is not eligible


def test_fetch_hit_when_interval_contains_the_segment():
    assert retrievability(_cache([CachedAction(kind="fetch_memory", interval=Interval(start=50.0, end=95.0),
                                               budget=64)]), KEY, SPAN, np.array([0.0, -1.0])) == 1.0
    assert retrievability(_cache([CachedAction(kind="fetch_memory", interval=Interval(start=70.0, end=95.0),
                                               budget=64)]), KEY, SPAN, np.array([0.0, 1.0])) == 0.0


def test_retrievability_neutral_without_questions():
    assert retrievability(_cache([]), ("P01", "P01_01", 0), Interval(start=0, end=30), np.array([1.0, 0])) == 1.0
    assert retrievability(_cache([]), KEY, SPAN, np.array([1.0, 0.0])) == 0.0  # a question, no action finds it


def test_the_candidate_does_not_compete_with_its_own_old_entry():
    # the old entry 2 ([0, 1]) would outrank the candidate; it is the one being replaced, so it is not counted
    cache = _cache([CachedAction(kind="search", query_vec=[0.0, 1.0], budget=1)])
    assert retrievability(cache, KEY, SPAN, np.array([0.6, 0.8])) == 1.0
