"""The action-replay cache: built from a real MemLife index and the real deterministic reader, replaying each
entry unchanged reproduces what the reader's actions actually returned; a replaced entry moves only itself."""
from __future__ import annotations

import numpy as np

from memora_core.store.embedding import HashingEmbedder

from memora_bench.data import QaItem
from memora_bench.memlife.config import ReaderConfig
from memora_bench.memlife.index import MemLifeIndex
from memora_bench.memlife.reader import DeterministicReader
from memora_bench.memlife.types import MemoryEntry
from memora_bench.memopt.replay_cache import ReplayCache
from memora_bench.memopt.rewards.retrievability import retrievability

TEXTS = ["I opened the fridge and took the milk", "I washed the pan in the sink with the sponge",
         "I cut the onion on the chopping board", "I put the pan on the hob and turned it on",
         "I poured the milk into the cup", "I dried the knife with a towel", "I closed the cupboard door"]


def _entries() -> list[MemoryEntry]:
    return [MemoryEntry(participant_id="P01", video_id="P01_01", segment_index=i, t_start=30.0 * i,
                        t_end=30.0 * (i + 1), text=t, writer_id="test") for i, t in enumerate(TEXTS)]


def _question(qid: str, q: str, choices: list[str], answer: str) -> QaItem:
    return QaItem(qid=qid, participant_id="P01", question=q, choices=[*choices, "not available"], answer=answer,
                  qa_type="ERecall", gt=choices["ABCD".index(answer)], video_ids=["P01_01"])


QUESTIONS = [_question("q1", "What did P01 do with the milk?", ["took the milk", "washed the pan",
                                                                 "cut the onion", "dried the knife"], "A"),
             _question("q2", "Where did P01 wash the pan?", ["in the sink", "on the hob", "in the fridge",
                                                            "on the board"], "A")]


def _built(question_time: float = 1e9):
    index = MemLifeIndex(HashingEmbedder())
    index.add(_entries())
    reader = DeterministicReader(ReaderConfig(search_k=4))
    traces = [reader.answer(q, index, question_time) for q in QUESTIONS]
    evidence = {"q1": [("P01", "P01_01", 0)], "q2": [("P01", "P01_01", 1)]}
    return index, traces, ReplayCache.build(index, traces, evidence)


def test_replay_of_unchanged_entries_reproduces_the_recorded_results():
    index, traces, cache = _built()
    vecs = index.embed([e.text for e in index.entries])
    n_checked = 0
    for tr, q in zip(traces, cache.questions):
        searches = [a for a in tr.actions if a.kind == "search"]
        assert len(q.actions) == len(searches) and searches
        for rec, cached in zip(searches, q.actions):
            assert cached.budget == rec.budget and cached.interval == rec.interval
            for e, v in zip(index.entries, vecs):
                assert cache.returns(cached, e.key, e.interval, v) == (e.key in {tuple(k) for k in rec.returned})
                n_checked += 1
    assert n_checked > 0


def test_only_the_candidates_entry_is_replaced():
    index, _, cache = _built()
    key, span = ("P01", "P01_01", 0), index.entries[0].interval
    good = index.embed([TEXTS[0]])[0]
    assert retrievability(cache, key, span, good) == 1.0
    # an entry that no longer mentions milk or the question's words loses the searches it won
    bad = index.embed(["zebra xylophone quartz"])[0]
    assert retrievability(cache, key, span, bad) < 1.0
    # the other entries are untouched: the cache still holds entry 0's original text
    assert cache.entries[0].text == TEXTS[0]


def test_actions_are_clipped_to_the_question_time():
    _, _, cache = _built(question_time=95.0)  # entries 0-2 end by 90 s; 3.. lie in the future
    for q in cache.questions:
        for a in q.actions:
            assert a.interval is not None and a.interval.end <= 95.0
    future = ("P01", "P01_01", 5)
    v = HashingEmbedder().embed([TEXTS[5]])[0]
    fut_span = _entries()[5].interval
    assert not any(cache.returns(a, future, fut_span, v) for q in cache.questions for a in q.actions)


def test_cache_round_trip(tmp_path):
    _, _, cache = _built()
    cache.save(tmp_path / "c.json")
    back = ReplayCache.load(tmp_path / "c.json")
    assert back == cache
    a = back.questions[0].actions[0]
    e = back.entries[0]
    assert back.returns(a, e.key, e.interval, np.asarray(back.vectors[0])) == \
        cache.returns(a, e.key, e.interval, np.asarray(cache.vectors[0]))
