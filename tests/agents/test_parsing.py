"""Every parser format: tool calls (JSON, Qwen <tool_call>, ReAct, API), plans, answer letters."""
from __future__ import annotations

from types import SimpleNamespace

import pytest

from memora_core.llm.parsing import (
    parse_answer,
    parse_api_tool_calls,
    parse_json_object,
    parse_plan,
    parse_tool_calls,
)


def test_tool_calls_json_variants():
    assert parse_tool_calls('{"name": "search", "arguments": {"query": "bowl"}}')[0].arguments == {"query": "bowl"}
    assert parse_tool_calls('call: {"tool": "search", "args": {"query": "x"}}')[0].name == "search"
    assert parse_tool_calls('{"function": {"name": "search", "arguments": "{\\"query\\": \\"k\\"}"}}')[0].arguments == \
        {"query": "k"}
    assert parse_tool_calls('```json\n{"name": "get_preferences", "parameters": {}}\n```')[0].name == "get_preferences"
    two = parse_tool_calls('[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]')
    assert [c.name for c in two] == ["a", "b"]
    assert parse_tool_calls("{'name': 'search', 'arguments': {'query': 'cup',}}")[0].arguments == {"query": "cup"}


def test_tool_calls_qwen_blocks_and_react_lines():
    text = ('I will look.\n<tool_call>\n{"name": "get_routine_skill", "arguments": {"goal_query": "wash bowl"}}\n'
            '</tool_call>\n<tool_call>{"name": "search_objects", "arguments": {"name": "bowl"}}')
    calls = parse_tool_calls(text)
    assert [c.name for c in calls] == ["get_routine_skill", "search_objects"]  # the unterminated block counts too
    react = parse_tool_calls('Thought: find it\nAction: search\nAction Input: {"query": "kettle"}')
    assert react[0].name == "search" and react[0].arguments == {"query": "kettle"}


def test_tool_calls_filtering_and_garbage():
    assert parse_tool_calls('{"name": "rm_rf", "arguments": {}}', allowed={"search"}) == []
    for bad in ["", "   ", None, 42, "{\"name\": ", '{"name": 3, "arguments": {}}', '{"name": "x", "arguments": [1]}',
                "<tool_call>not json</tool_call>", "just prose about a bowl"]:
        assert parse_tool_calls(bad) == []


def test_api_tool_calls_objects_and_dicts():
    obj = SimpleNamespace(id="c1", function=SimpleNamespace(name="search", arguments='{"query": "pan"}'))
    broken = SimpleNamespace(id="c2", function=SimpleNamespace(name="search", arguments='{"query": '))
    d = {"id": "c3", "function": {"name": "get_preferences", "arguments": ""}}
    calls = parse_api_tool_calls([obj, broken, d])
    assert [(c.id, c.name, c.arguments) for c in calls] == [("c1", "search", {"query": "pan"}),
                                                           ("c3", "get_preferences", {})]
    assert parse_api_tool_calls(None) == []


@pytest.mark.parametrize("text,steps", [
    ("Plan:\n1. pick up bowl\n2) turn on tap\nStep 3: wash bowl", ["pick up bowl", "turn on tap", "wash bowl"]),
    ("Here is what to do:\n- open kettle\n* fill kettle\n\u2022 turn on kettle", ["open kettle", "fill kettle",
                                                                               "turn on kettle"]),
    ("Plan: take cup; fill kettle -> boil water", ["take cup", "fill kettle", "boil water"]),
    ('{"plan": ["open fridge", {"action": "take", "object": "milk"}]}', ["open fridge", "take milk"]),
    ("Thought: 1. is a guess\nFinal plan:\n1. **open** drawer.\n2. take spoon", ["open drawer", "take spoon"]),
])
def test_plan_formats(text, steps):
    assert parse_plan(text) == steps


def test_plan_garbage():
    for bad in ["", None, "I cannot help with that.", "{\"plan\": 5}", "Plan:"]:
        assert parse_plan(bad) == []


@pytest.mark.parametrize("text,letter", [
    ("B", "B"), ("(c)", "C"), ("Answer: D", "D"), ("The answer is A because the kettle was filled.", "A"),
    ('{"answer": "E"}', "E"), ("Final answer: **B**", "B"), ("A. Opens the cupboard first", "A"),
    ("I pick option C.", "C"), ("After reasoning, (D) fits best.", "D"), ("answer: e", "E"),
])
def test_answer_letters(text, letter):
    assert parse_answer(text) == letter


@pytest.mark.parametrize("text", [
    "A person usually washes the bowl first.", "The answer is A kettle on the hob.", "answer is a kettle",
    "", None, "I am not sure.", "Both B and C could be right (B) (C).",
])
def test_answer_prose_is_not_a_letter(text):
    assert parse_answer(text) is None


def test_answer_by_choice_text():
    choices = {"A": "put it back in the cupboard", "B": "shake it a few times", "C": "wipe it", "D": "carry it"}
    assert parse_answer("They shake it a few times.", choices) == "B"


def test_json_object_helper():
    assert parse_json_object('noise {"a": {"b": [1, 2]}} tail') == {"a": {"b": [1, 2]}}
    assert parse_json_object("{broken") is None


def test_lenient_json_repair():
    from memora_core.llm.parsing import loads_lenient

    assert loads_lenient("{'q': 'it\\'s \"hot\"', 'k': [1, 2,], 'ok': True, 'x': None}") == \
        {"q": 'it\'s "hot"', "k": [1, 2], "ok": True, "x": None}
    assert loads_lenient('{"q": "don\'t, [stop]"}') == {"q": "don't, [stop]"}  # valid JSON is never rewritten
    assert loads_lenient("{'q': 'unterminated") is None
    assert parse_tool_calls("<tool_call>{'name': 'search', 'arguments': {'query': 'pan'}}</tool_call> <tool_call>") \
        [0].arguments == {"query": "pan"}
