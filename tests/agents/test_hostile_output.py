"""Hostile model output (issue 17): each reported crash or hang as a regression test, typed parse failures,
a property test that no parser raises on any text, and a small fuzz run through every parser, the LLM
editor decider and both ReAct agents on a real small store.

Time bounds here are hang guards only (SIGALRM, generous): the fixed parses take milliseconds; before the
fix "answer" x 8000 took about a minute and the 1 MB plan never finished."""
from __future__ import annotations

import importlib.util
import json
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memora_core.agents.react import ReActAnswerer, ReActPlanner
from memora_core.agents.structured import split_label
from memora_core.conditions import build_condition
from memora_core.editing.config import EditorConfig, LlmDeciderConfig
from memora_core.editing.deciders import DecisionContext, make_decider
from memora_core.llm.parsing import (
    MAX_JSON_DEPTH,
    MAX_REPLY_CHARS,
    ParseBudget,
    ParseFailure,
    ReplyParseError,
    loads_lenient,
    parse_answer,
    parse_api_tool_calls,
    parse_json_object,
    parse_plan,
    parse_tool_calls,
)
from memora_core.perception.vlm import extract_json_object
from memora_core.schemas import EditOp, ObjectObservation, PlanStep

pytestmark = pytest.mark.shared_data
HANG_S = 10.0
MB = 1_000_000
_BENCH = Path(__file__).resolve().parents[2] / "bench" / "benchmarks" / "fuzz_bench.py"


def _load_fuzz_bench():
    spec = importlib.util.spec_from_file_location("fuzz_bench", _BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fuzz_bench = _load_fuzz_bench()
Scripted = fuzz_bench.ScriptedLLM  # replies in order, then empty text


class Hang(AssertionError):
    pass


@contextmanager
def hang_guard(seconds: float = HANG_S) -> Iterator[None]:
    """Fails the block when it is still running after `seconds` (a hang check, not a timing assertion)."""
    def on_alarm(_sig, _frame):
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="module")
def memory():
    with tempfile.TemporaryDirectory() as tmp:
        store = fuzz_bench.build_store(Path(tmp), rows=150)
        yield build_condition("memora", store, "P06")
        store.close()


# ----------------------------------------------------------------- the reported cases
def test_repeated_cue_word_is_not_quadratic():
    with hang_guard():
        assert parse_answer("answer" * 8000) is None  # 48 KB: 66 s before the fix
        assert parse_answer("answer" * 4000 + " answer: C") == "C"


def test_long_whitespace_inside_a_numbered_line():
    assert parse_plan("1. open" + " " * 20_000 + "kettle\n2. fill kettle") == ["open kettle", "fill kettle"]
    budget = ParseBudget()
    with hang_guard():
        steps = parse_plan("1. open" + " " * MB + "kettle", budget=budget)  # never finished before the fix
    assert steps == ["open"]  # the reply is cut at MAX_REPLY_CHARS, in one place, and that is recorded
    assert budget.failures == [ParseFailure.TRUNCATED]


@pytest.mark.parametrize("text", ["[" * 5000, "[" * 5000 + "]" * 5000, '{"a":' * 5000 + "1" + "}" * 5000])
def test_deep_nesting_is_refused_not_recursed(text):
    with pytest.raises(ReplyParseError) as err:  # RecursionError escaped before the fix
        extract_json_object(text)
    assert err.value.failure is ParseFailure.TOO_DEEP
    for parser in (parse_json_object, loads_lenient, parse_plan, parse_tool_calls):
        assert not parser(text)


def test_nesting_up_to_the_limit_is_read():
    ok = "[" * MAX_JSON_DEPTH + "1" + "]" * MAX_JSON_DEPTH
    value = extract_json_object(ok)
    for _ in range(MAX_JSON_DEPTH - 1):
        value = value[0]
    assert value == [1]
    with pytest.raises(ReplyParseError):
        extract_json_object("[" + ok + "]")


def test_a_million_open_braces_ends():
    with hang_guard():  # never finished before the fix
        with pytest.raises(ReplyParseError) as err:
            extract_json_object("{" * MB)
    assert err.value.failure is ParseFailure.TOO_DEEP


def test_lone_surrogate_in_a_plan_reaches_no_validator(memory):
    for reply in ['{"plan": ["\\ud800 open kettle", "fill\\u0000 kettle"]}', '{"plan": ["\ud800 open kettle"]}']:
        plan = ReActPlanner(memory, Scripted([reply])).plan("Help P06 boil water")  # ValidationError before
        assert plan.steps[0].text == "open kettle" and plan.steps[0].action == "open"
    assert [s.text for s in plan.steps] == ["open kettle"]
    assert PlanStep(index=0, action="\ud800go", text="a\x00b").model_dump() == PlanStep(
        index=0, action="\ufffdgo", text="ab").model_dump()


# ----------------------------------------------------------------- typed failures, values, budget
def test_timeout_is_a_typed_failure_in_parsers_and_agents(memory):
    budget = ParseBudget(-1.0)  # already past its deadline
    assert parse_plan("Plan:\n1. a", budget=budget) == [] and budget.failures == [ParseFailure.TIMEOUT]
    with pytest.raises(ReplyParseError) as err:
        extract_json_object('{"a": 1}', ParseBudget(-1.0))
    assert err.value.failure is ParseFailure.TIMEOUT
    planner = ReActPlanner(memory, Scripted(["Plan:\n1. open kettle"] * 8))
    planner.parse_budget_s = -1.0
    plan = planner.plan("Help P06 boil water")
    assert not plan.steps and planner.parse_failures[ParseFailure.TIMEOUT] >= 1
    assert any("reply parse failure: timeout" in m for m in plan.missing)
    answerer = ReActAnswerer(memory, Scripted(["Answer: B"] * 8))
    answerer.parse_budget_s = -1.0
    assert answerer.answer("Which?", {"A": "x", "B": "y"}).letter is None
    assert answerer.parse_failures[ParseFailure.TIMEOUT] >= 1


def test_numbers_constants_and_strings_are_sanitised():
    assert loads_lenient('{"a": NaN, "b": Infinity, "c": -Infinity, "d": 1e400, "e": ' + "9" * 30 + ', "f": 7}') == \
        {"a": None, "b": None, "c": None, "d": None, "e": None, "f": 7}
    assert loads_lenient('"' + "x" * 10_000 + '"') == "x" * 4000
    assert loads_lenient('["\\ud800", "a\\u0000b"]') == ["\ufffd", "ab"]
    calls = parse_tool_calls('{"name": "search\\u0000", "arguments": {"query": "\\udfff", "top_k": 1e999}}')
    assert [(c.name, c.arguments) for c in calls] == [("search", {"query": "\ufffd", "top_k": None})]
    assert parse_tool_calls('{"name": "' + "x" * 65 + '", "arguments": {}}') == []
    assert parse_answer('{"answer": ""}') is None  # IndexError before the fix


def test_llm_decider_survives_hostile_replies():
    class Chat:
        replies = [None, "[" * 5000, '{"op": "add", "reason": "\\ud800 new"}', "{" * MB]

        def complete(self, messages):
            return self.replies.pop(0)

    decider = make_decider(EditorConfig(decider="llm", llm=LlmDeciderConfig(max_attempts=1)), chat=Chat())
    obs, ctx = ObjectObservation(name="kettle"), DecisionContext(participant_id="P06", segment_id="s0")
    with hang_guard():
        decisions = [decider.propose(obs, [], ctx) for _ in range(4)]
    assert [d.op for d in decisions] == [EditOp.ADD] * 4
    assert decisions[2].reason == "llm: \ufffd new" and decider.fallbacks == 3
    assert decider.parse_failures == {ParseFailure.NOT_TEXT: 1, ParseFailure.TOO_DEEP: 2}


# ----------------------------------------------------------------- properties and fuzz
_PIECES = ["{", "}", "[", "]", '"', "'", "\\", ",", ":", " ", "\n", "\t", "answer", "Answer: ", "(B)", "Plan:",
           "1. ", "- ", "Step 2:", "Action: search", "Action Input:", "<tool_call>", "</tool_call>", "```json",
           "```", "NaN", "Infinity", "1e999", "True", "None", '"name": "search"', '"arguments": ', '"plan": ', '"answer": ', '""',
           "\ud800", "\udfff", "\x00", "\x85", "\u2028", "open kettle", "A"]
_TEXT = st.one_of(st.text(st.characters(exclude_categories=())),
                  st.lists(st.sampled_from(_PIECES), max_size=60).map("".join))


@settings(max_examples=250, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(text=_TEXT)
def test_parsers_never_raise(text):
    assert isinstance(parse_tool_calls(text), list)
    assert isinstance(parse_tool_calls(text, {"search"}), list)
    assert isinstance(parse_api_tool_calls([{"function": {"name": text, "arguments": text}, "id": text}]), list)
    assert isinstance(parse_plan(text), list)
    assert parse_answer(text, {"A": "open kettle", "B": "x"}) in (None, "A", "B", "C", "D", "E")
    obj = parse_json_object(text)
    assert obj is None or isinstance(obj, dict)
    loads_lenient(text)
    try:
        extract_json_object(text)
    except ReplyParseError as exc:
        assert isinstance(exc.failure, ParseFailure)


_KEYS = ["answer", "letter", "plan", "steps", "text", "action", "object", "name", "tool", "arguments", "args",
         "function", "id", "op", "reason", "target_entity_id"]
_LEAF = st.sampled_from(["", " ", "B", "c)", "\ud800 open kettle", "open\x00 kettle", "search", "\udfff"]) | \
    st.text(st.characters(exclude_categories=()), max_size=8)
_JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | _LEAF,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(_KEYS) | st.text(max_size=4), inner,
                                                                 max_size=4),
    max_leaves=16)
_JSON_REPLY = st.builds(lambda v, ascii_only, prose: prose + json.dumps(v, ensure_ascii=ascii_only),
                        st.dictionaries(st.sampled_from(_KEYS), _JSON_VALUE, min_size=1, max_size=4) | _JSON_VALUE,
                        st.booleans(), st.sampled_from(["", "Sure: ", "```json\n", "Plan: "]))


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(text=_JSON_REPLY)
def test_json_shaped_replies_never_raise_and_give_valid_steps(text):
    test_parsers_never_raise.hypothesis.inner_test(text)
    for i, step in enumerate(parse_plan(text)):
        action, obj, target = split_label(step)
        PlanStep(index=i, action=action, object=obj, target=target, text=step)


def test_fuzzed_replies_through_parsers_decider_and_agents():
    result = fuzz_bench.run(n=200, seed=3, hang_s=HANG_S)
    assert result["replies"] == 200 and result["crafted"] > 40
    assert (result["crashes"], result["hangs"]) == (0, 0), result["crash_examples"]
    assert result["targets"]["react_planner"]["calls"] > 10 and result["targets"]["react_answerer"]["calls"] > 10


def test_reply_cap_is_the_documented_one():
    budget = ParseBudget()
    assert parse_answer("x" * MAX_REPLY_CHARS + " answer: B", budget=budget) is None
    assert budget.failures == [ParseFailure.TRUNCATED]
    assert parse_answer("x" * (MAX_REPLY_CHARS - 20) + " answer: B") == "B"
