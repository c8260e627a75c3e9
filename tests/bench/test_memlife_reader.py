"""MemLife reader: tools (clipping, budgets, chronological order, video unavailable), the deterministic policy,
and the LLM agent loop on scripted replies (one call per round, parse failures, the round cap, never the future)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from memora_bench.memlife.config import ReaderConfig
from memora_bench.memlife.reader import DeterministicReader, make_reader, normalise_letters
from memora_bench.memlife.tools import ReaderTools
from memora_bench.memlife.types import Interval, Timeline

sys.path.insert(0, str(Path(__file__).parent))
from memlife_helpers import ScriptedLLM, entry, index_of, item  # noqa: E402

QT = 100.0  # question time
PAST = [entry("V1", 2, 60, 90, "I cut the onion on the board"), entry("V1", 0, 0, 30, "I took a cup from the shelf"),
        entry("V1", 1, 30, 60, "I filled the kettle at the tap")]
FUTURE = [entry("V2", 0, 100, 130, "I cut the onion again tomorrow"), entry("V2", 1, 95, 125, "I cut onion rings")]


def call(name: str, **args) -> str:
    return json.dumps({"name": name, "arguments": args})


def future_keys():
    return {e.key for e in FUTURE}


def test_interval_clip_and_overlap():
    assert Interval(start=-5, end=500).clip(QT) == Interval(start=0, end=QT)
    assert Interval(start=150, end=200).clip(QT) is None
    assert Interval(start=0, end=10).overlaps(Interval(start=10, end=20))
    assert not Interval(start=0, end=10).overlaps(Interval(start=10.5, end=20))
    with pytest.raises(ValueError):
        Interval(start=2, end=1)
    t = Timeline({"P01_02": 10, "P01_01": 5})
    assert t.to_global("P01_02", 3) == 8 and t.to_local(7) == ("P01_02", 2) and t.end == 15


def test_tools_clip_to_question_time_and_return_chronologically():
    tools = ReaderTools(index_of(PAST + FUTURE), QT)
    s = tools.search("cut onion", Interval(start=0, end=1e6))
    assert s.action.interval == Interval(start=0, end=QT)
    assert [e.segment_index for e in s.entries] == [0, 1, 2]  # chronological, not rank order
    assert not {e.key for e in s.entries} & future_keys()
    f = tools.fetch_memory(Interval(start=20, end=1e6))
    assert [e.key for e in f.entries] == [PAST[2].key, PAST[0].key]  # inside [20, QT]: 30-60 then 60-90
    assert tools.fetch_memory(Interval(start=120, end=200)).entries == []
    assert tools.search("cup", Interval(start=120, end=200)).action.interval is None
    v = tools.fetch_video(Interval(start=0, end=50))
    assert v.action.unavailable and v.video is None and v.action.kind == "fetch_video"


def test_tool_budgets_are_capped():
    many = [entry("V1", i, i, i + 1, f"I stirred the pot {i}") for i in range(80)]
    tools = ReaderTools(index_of(many), 1000, search_k=500, fetch_k=500)
    assert len(tools.search("stir pot").entries) == 32
    assert len(tools.fetch_memory(Interval(start=0, end=1000)).entries) == 64
    hits = tools.search("stir pot").entries
    assert [e.t_start for e in hits] == sorted(e.t_start for e in hits)


def test_deterministic_reader_answers_from_the_past_only():
    reader = DeterministicReader(ReaderConfig(answer_min_score=0.05))
    tr = reader.answer(item(choices=("onion", "cup", "kettle", "tap")), index_of(PAST + FUTURE), QT)
    returned = {tuple(k) for a in tr.actions for k in a.returned}
    assert returned and not returned & future_keys()
    assert tr.actions[-1].kind == "answer" and tr.answer == "A" and tr.rounds <= 10
    assert all(a.interval is None or a.interval.end <= QT for a in tr.actions)


def test_deterministic_reader_time_anchor_on_a_named_video():
    tl = Timeline({"P01_01": 50, "P01_02": 50})
    idx = index_of([entry("P01_01", 0, 0, 30, "I cut the onion"), entry("P01_02", 0, 50, 80, "I washed the cup")])
    tr = DeterministicReader(ReaderConfig(), timeline=tl).answer(item(question="In P01_02, what did I wash?"), idx, 100)
    assert tr.actions[0].interval == Interval(start=50, end=100)
    assert {tuple(k)[1] for k in tr.actions[0].returned} == {"P01_02"}


def test_llm_reader_loop_with_scripted_replies():
    llm = ScriptedLLM([call("Rewrite", query="onion cutting"),
                       call("SearchMemory", query="cut onion", start=0, end=10_000),
                       call("FetchMemory", start=50, end=10_000),
                       call("FetchVideo", start=0, end=30),
                       'I am sure. {"name": "Answer", "arguments": {"answer": "a"}}'])
    reader = make_reader("llm", ReaderConfig(), llm=llm)
    tr = reader.answer(item(), index_of(PAST + FUTURE), QT)
    assert [a.kind for a in tr.actions] == ["rewrite", "search", "fetch_memory", "fetch_video", "answer"]
    assert tr.answer == "A" and not tr.parse_failure and tr.rounds == 5
    assert tr.actions[1].interval == Interval(start=0, end=QT) and tr.actions[3].unavailable
    returned = {tuple(k) for a in tr.actions for k in a.returned}
    assert PAST[0].key in returned and not returned & future_keys()
    # results went back to the model in chronological order, the future never
    shown = llm.requests[2]["messages"][-1]["content"]
    assert shown.index("took a cup") < shown.index("filled the kettle") < shown.index("cut the onion")
    assert "tomorrow" not in json.dumps([r["messages"] for r in llm.requests])


@pytest.mark.parametrize("reply", [
    call("SearchMemory", query="a") + "\n" + call("FetchMemory", start=0, end=5),  # two calls in one round
    call("DeleteMemory", key="x"),                                                 # unknown tool
    call("FetchMemory", start="soon"),                                             # invalid arguments
    call("Answer", answer="F"),                                                    # not a letter A-E
    "I think the onion, probably.",                                                # neither call nor letter
])
def test_llm_reader_parse_failure_scores_wrong(reply):
    from memora_bench.memlife.evaluate import is_correct

    tr = make_reader("llm", ReaderConfig(), llm=ScriptedLLM([reply])).answer(item(), index_of(PAST), QT)
    assert tr.parse_failure and tr.answer is None and tr.rounds == 1 and tr.replies == [reply]
    assert not is_correct(tr, item())


def test_llm_reader_stops_after_max_rounds():
    llm = ScriptedLLM([call("SearchMemory", query="onion")] * 20)
    tr = make_reader("llm", ReaderConfig(max_rounds=10), llm=llm).answer(item(), index_of(PAST), QT)
    assert tr.rounds == 10 and len(llm.requests) == 10 and tr.answer is None and not tr.parse_failure


def test_plain_letter_is_a_final_answer_and_letters_normalise():
    tr = make_reader("llm", ReaderConfig(), llm=ScriptedLLM(["Answer: C"])).answer(item(), index_of(PAST), QT)
    assert tr.answer == "C" and tr.rounds == 1
    assert normalise_letters("c, a") == "AC" and normalise_letters(["B"]) == "B" and normalise_letters("AB9") is None
