"""Planners and answerers: the deterministic ones on every condition, the ReAct loop with scripted replies
(deterministic stand-ins for a model; the loop, budget, forcing and parsing are what is checked), the
per-store call shares, the fuzzing of 1,000 model outputs, and the CLI commands."""
from __future__ import annotations

import json
import random

import pytest

from memora_core.agents import make_answerer, make_planner, store_shares
from memora_core.agents.structured import StructuredPlanner, split_label
from memora_core.cli.main import main as memora_main
from memora_core.conditions import CONDITION_IDS, build_condition
from memora_core.llm.base import LLMBackend, LLMReply, ToolCall
from memora_core.schemas import Plan

pytestmark = pytest.mark.shared_data

KETTLE_Q = "How does P06 usually get the kettle going for a hot drink?"  # invented, in the benchmark's form
KETTLE_CHOICES = {"A": "Reboils whatever is left in the kettle.",
                  "B": "Opens the kettle and fills it at the tap first.",
                  "C": "Heats the water in a saucepan instead.",
                  "D": "Pours water into the kettle from a mug.",
                  "E": "The information is not available based on the given context"}


class Scripted(LLMBackend):
    """Replies from a list (then a default); records what it was sent."""

    def __init__(self, replies, default=""):
        self.replies, self.default, self.seen = list(replies), default, []

    def chat(self, messages, tools=None, *, max_new_tokens=None):
        self.seen.append({"messages": [dict(m) for m in messages], "tools": tools})
        r = self.replies.pop(0) if self.replies else self.default
        if isinstance(r, Exception):
            raise r
        return r if isinstance(r, LLMReply) else LLMReply(text=r)


def test_task_and_label_parsing():
    from memora_core.conditions.base import ParametricMemory

    planner = StructuredPlanner(ParametricMemory("P06"))
    t = planner.parse("Help P06 wash the bowl.").task
    assert (t.verb, t.objects) == ("wash", ["bowl"])
    t = planner.parse("Help P06 prepare and roll the pastry on the board.").task
    assert t.verb == "roll" and t.objects == ["pastry", "board"]
    assert split_label("put lid on pan") == ("put", "lid", "pan")
    assert split_label("pick up knife") == ("pick up", "knife", None)
    assert split_label("pour water out of pan") == ("pour", "water", "pan")
    assert split_label("put pan down") == ("put down", "pan", None)


@pytest.mark.parametrize("cid", CONDITION_IDS)
def test_structured_planner_each_condition(p06_store, cid):
    memory = build_condition(cid, p06_store, "P06")
    plan = make_planner("structured", memory).plan("Help P06 fill the kettle.")
    assert isinstance(plan, Plan) and plan.steps and plan.condition == cid
    assert len(plan.tool_calls) <= 8
    assert all(c["store"] for c in plan.tool_calls)
    if cid != "parametric":
        assert plan.tool_calls and any("kettle" in s.render() for s in plan.steps)
        assert plan.evidence  # memory-based plans cite where they come from
    else:
        assert not plan.tool_calls and plan.missing


def test_memora_planner_routine_preferences_grounding(p06_store):
    memory = build_condition("memora", p06_store, "P06")
    plan = make_planner("structured", memory).plan("Help P06 prepare hot water with the kettle.")
    # the routine is consulted; it is used when it covers the task better than the best recalled episode
    assert any(c["tool"] == "get_routine_skill" for c in plan.tool_calls)
    if plan.routine_id:
        routine = p06_store.routine(plan.routine_id)
        assert routine is not None and set(routine.steps) & {s.text for s in plan.steps}
    assert any(s.object == "kettle" and s.action in ("fill", "turn on", "pick up") for s in plan.steps)
    kettle_steps = [s for s in plan.steps if s.object == "kettle"]
    assert kettle_steps and all(s.entity_id and s.entity_id.startswith("P06:") for s in kettle_steps)
    shares = store_shares(plan.tool_calls)
    assert shares["inferred_knowledge"] > 0 and shares["entity_memory"] > 0 and abs(sum(shares.values()) - 1) < 1e-3


def test_planner_transfers_a_same_verb_procedure(p06_store):
    memory = build_condition("memora", p06_store, "P06")
    plan = make_planner("structured", memory).plan("Please wash an onion.")
    assert any(s.action == "wash" and s.object == "onion" for s in plan.steps)
    assert any("transferred" in m for m in plan.missing)


def test_structured_answerer(p06_store):
    for cid in CONDITION_IDS:
        memory = build_condition(cid, p06_store, "P06")
        res = make_answerer("structured", memory).answer(KETTLE_Q, KETTLE_CHOICES)
        assert res.letter in "ABCDE" and len(res.tool_calls) <= 5
    parametric = make_answerer("structured", build_condition("parametric", p06_store, "P06"))
    assert parametric.answer(KETTLE_Q, KETTLE_CHOICES).letter == "E"
    unknown = make_answerer("structured", build_condition("memora", p06_store, "P06")).answer(
        "What did P06 do in video P06_999?", KETTLE_CHOICES)
    assert unknown.letter == "E"


def test_react_planner_uses_tools_then_plans(p06_store):
    memory = build_condition("memora", p06_store, "P06")
    llm = Scripted([LLMReply(tool_calls=[ToolCall(name="get_routine_skill", arguments={"goal_query": "fill kettle"})]),
                    '<tool_call>{"name": "search_objects", "arguments": {"name": "kettle"}}</tool_call>',
                    "Plan:\n1. open kettle\n2. fill kettle at the tap\n3. turn on kettle"])
    plan = make_planner("react", memory, llm).plan("Help P06 boil water")
    assert [s.text for s in plan.steps] == ["open kettle", "fill kettle at the tap", "turn on kettle"]
    assert [c["tool"] for c in plan.tool_calls] == ["get_routine_skill", "search_objects"]
    assert plan.evidence and plan.planner == "react"
    assert "get_routine_skill" in llm.seen[0]["messages"][0]["content"]  # the memora prompt names the routine tool
    assert "Observation from get_routine_skill" in llm.seen[1]["messages"][-1]["content"]


def test_react_planner_forced_final_turn(p06_store):
    memory = build_condition("memora", p06_store, "P06")
    always_tool = '{"name": "search", "arguments": {"query": "kettle"}}'
    llm = Scripted([always_tool] * 7 + ["Plan:\n1. fill kettle\n2. turn on kettle"], default=always_tool)
    plan = make_planner("react", memory, llm).plan("Help P06 boil water")
    assert len(llm.seen) == 8 and len(plan.tool_calls) == 7
    final = llm.seen[-1]
    assert final["tools"] is None  # tools removed on the last turn
    assert "no longer available" in final["messages"][-1]["content"] and "search(" in final["messages"][-1]["content"]
    assert [s.text for s in plan.steps] == ["fill kettle", "turn on kettle"]
    # a model that never produces a plan ends in a clear failure record, not an exception
    stuck = make_planner("react", memory, Scripted([], default=always_tool)).plan("Help P06 boil water")
    assert not stuck.steps and stuck.missing and len(stuck.tool_calls) == 7


def test_react_answerer_budget_and_letter(p06_store):
    memory = build_condition("memora", p06_store, "P06")
    search = '{"name": "get_routine_skill", "arguments": {"goal_query": "kettle"}}'
    llm = Scripted([], default=search)
    res = make_answerer("react", memory, llm).answer(KETTLE_Q, KETTLE_CHOICES)
    assert len(res.tool_calls) == 5 and llm.seen[-1]["tools"] is None and res.letter is None
    llm2 = Scripted([search, "The kettle is opened and filled at the tap, so the answer is B."])
    res2 = make_answerer("react", memory, llm2).answer(KETTLE_Q, KETTLE_CHOICES)
    assert res2.letter == "B" and len(res2.tool_calls) == 1 and res2.retrieved_evidence
    res3 = make_answerer("react", build_condition("parametric", p06_store, "P06"), Scripted(["E"])).answer(
        KETTLE_Q, KETTLE_CHOICES)
    assert res3.letter == "E" and res3.tool_calls == []


def test_react_survives_backend_errors(p06_store):
    memory = build_condition("flat1d_raw", p06_store, "P06")
    plan = make_planner("react", memory, Scripted([RuntimeError("server down")] * 10)).plan("Help P06 wash the bowl")
    assert not plan.steps and any("llm error" in m for m in plan.missing)


def _fuzz_outputs(n: int, seed: int = 7) -> list:
    rng = random.Random(seed)
    names = ["search", "get_routine_skill", "search_objects", "search_memory", "get_entity_events", "nope", "",
             "rm -rf", "get_preferences", "read_log", 5, None]
    good = ['{"name": "search", "arguments": {"query": "kettle"}}', "Plan:\n1. open kettle\n2. fill kettle",
            "Answer: B", '<tool_call>{"name": "search_objects", "arguments": {"name": "bowl"}}</tool_call>']
    out = []
    for i in range(n):
        kind = i % 7
        if kind == 0:  # truncated JSON
            s = rng.choice(good)
            out.append(s[: rng.randint(0, len(s))])
        elif kind == 1:  # wrong tool names
            out.append(json.dumps({"name": rng.choice(names), "arguments": {"query": "x"}}, default=str))
        elif kind == 2:  # wrong argument types
            arg = rng.choice([5, None, [1, 2], {"a": 1}, "", -3.5, True, "x" * 300])
            out.append(json.dumps({"name": rng.choice(names[:10]), "arguments": {"query": arg, "name": arg,
                                                                                 "top_k": arg, "entity_id": arg}}))
        elif kind == 3:  # prose
            out.append(rng.choice(["A person would wash the bowl.", "I think so.", "Let me think about it...",
                                   "The answer is a kettle.", "Step one is unclear", "E is not"]))
        elif kind == 4:  # empty / whitespace / control characters
            out.append(rng.choice(["", " ", "\n\n", "\x00\x01", "```", "<tool_call>", "{}", "[]", "null"]))
        elif kind == 5:  # API-level calls with broken arguments
            out.append(LLMReply(tool_calls=[ToolCall(name=str(rng.choice(names)),
                                                     arguments=rng.choice([{}, {"query": 3}, {"goal_query": "pan"}]))]))
        else:  # random bytes as text
            out.append("".join(chr(rng.randint(0, 0x2FFF)) for _ in range(rng.randint(0, 80))))
    return out


def test_fuzzed_model_outputs_never_crash_an_agent(p06_store):
    outputs = _fuzz_outputs(1000)
    conditions = [build_condition(c, p06_store, "P06") for c in CONDITION_IDS]
    used, runs = 0, 0
    while used < len(outputs):
        memory = conditions[runs % len(conditions)]
        chunk = outputs[used: used + 6]
        llm = Scripted(chunk)
        if runs % 2 == 0:
            plan = make_planner("react", memory, llm).plan("Help P06 wash the bowl")
            assert isinstance(plan, Plan) and (plan.steps or plan.missing)
        else:
            res = make_answerer("react", memory, llm).answer(KETTLE_Q, KETTLE_CHOICES)
            assert res.letter is None or res.letter in "ABCDE"
            assert isinstance(res.raw, str)
        used += len(chunk) - len(llm.replies)
        runs += 1
    assert used >= 1000


def test_cli_consolidate_plan_ask_build(p06_store_dir, tmp_path, capsys):
    base = ["--store", str(p06_store_dir), "--participant", "P06", "--vectors", "none", "--embedding", "hashing"]
    assert memora_main(["consolidate", *base, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # speed is a benchmark's figure (bench/), not asserted here: on a loaded machine a plan took 14 s
    assert out["routines"] > 0 and out["preferences"] > 0 and out["wall_s"] >= 0
    assert memora_main(["plan", *base, "Help P06 wash the bowl", "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert plan["steps"] and plan["planner"] == "structured" and plan["store_shares"]
    assert memora_main(["ask", *base, "--question", KETTLE_Q, "--choices",
                        *[f"{k}={v}" for k, v in KETTLE_CHOICES.items() if k != "E"], "--json"]) == 0
    ans = json.loads(capsys.readouterr().out)
    assert ans["letter"] in list("ABCDE") and len(ans["tool_calls"]) <= 5
    assert memora_main(["build-condition", *base, "--condition", "all", "--out", str(tmp_path), "--json"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["condition"] for x in lines] == list(CONDITION_IDS)
    assert all((tmp_path / f"P06_{c}.json").exists() for c in CONDITION_IDS)
    assert memora_main(["plan", "--store", str(tmp_path / "nope"), "--participant", "P06", "x"]) == 1
    assert memora_main(["plan", *base, "--planner", "react", "x"]) == 1  # no LLM configured: a clear error
