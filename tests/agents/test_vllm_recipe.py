"""The README's vLLM recipe, run: its `robot_configs/llm.yaml` block drives the ReAct planner and answerer
through `openai_http` (the real `openai` client, real HTTP) against a local server that answers the way
`vllm serve ... --enable-auto-tool-choice --tool-call-parser hermes` does: tool calls as native OpenAI
`tool_calls` (content null) while tools are offered, text once they are not."""
from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml

from memora_core.agents.react import ReActAnswerer, ReActPlanner
from memora_core.llm import LLMConfig, make_llm

from tests.agents.openai_stub import read_body, send_completion
from tests.agents.small_store import small_memory

pytestmark = pytest.mark.shared_data
README = Path(__file__).resolve().parents[2] / "README.md"


def recipe() -> tuple[str, dict]:
    """The `vllm serve` command and the llm.yaml block of the README's vLLM section."""
    text = README.read_text(encoding="utf-8")
    section = text.split("#### vLLM on a GPU host", 1)[1].split("\n#", 1)[0]
    serve = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    block = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    return serve, yaml.safe_load(block)


class _VLLMLike(BaseHTTPRequestHandler):
    requests: list[dict] = []

    def do_POST(self):  # noqa: N802
        body = read_body(self)
        type(self).requests.append(body)
        send_completion(self, body["model"], self.reply(body), f"chatcmpl-{len(self.requests)}")

    @staticmethod
    def reply(body: dict) -> dict:
        observed = any(m["role"] == "user" and m["content"].startswith("Observation from") for m in body["messages"])
        answering = "multiple-choice" in body["messages"][0]["content"]
        if body.get("tools") and not observed:  # first turn: one native tool call, as the hermes parser returns it
            name, args = ("search", {"query": "cup"}) if answering else ("get_routine_skill",
                                                                          {"goal_query": "wash the cup"})
            return {"role": "assistant", "content": None, "tool_calls": [
                {"id": "chatcmpl-tool-1", "type": "function",
                 "function": {"name": name, "arguments": json.dumps(args)}}]}
        if answering:
            return {"role": "assistant", "content": "Answer: B"}
        return {"role": "assistant", "content": "Plan:\n1. pick up cup\n2. wash cup in sink\n3. put cup on rack"}

    def log_message(self, *args):
        pass


@pytest.fixture
def vllm_like():
    _VLLMLike.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _VLLMLike)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def memory():
    with small_memory() as m:
        yield m


def test_readme_recipe_is_a_valid_config_with_native_tool_calls():
    serve, block = recipe()
    cfg = LLMConfig.model_validate(block)
    assert cfg.backend == "openai_http" and cfg.openai_http.native_tools
    assert f"vllm serve {cfg.openai_http.model} " in serve
    assert "--enable-auto-tool-choice" in serve and "--tool-call-parser hermes" in serve


def test_recipe_drives_react_answerer_and_planner_end_to_end(vllm_like, memory):
    _, block = recipe()
    block["openai_http"]["base_url"] = vllm_like  # the GPU host, here
    cfg = LLMConfig.model_validate(block)
    llm = make_llm(cfg)

    answerer = ReActAnswerer(memory, llm)
    result = answerer.answer("Where is the cup kept?", {"A": "drawer", "B": "shelf", "C": "sink", "D": "oven",
                                                         "E": "none of these"})
    assert result.letter == "B"
    assert [(c["tool"], c["ok"]) for c in result.tool_calls] == [("search", True)]

    planner = ReActPlanner(memory, llm)
    plan = planner.plan("wash the cup")
    assert [s.text for s in plan.steps] == ["pick up cup", "wash cup in sink", "put cup on rack"]
    assert [(c["tool"], c["ok"]) for c in plan.tool_calls] == [("get_routine_skill", True)]
    assert not answerer.parse_failures and not planner.parse_failures and not plan.missing

    sent = _VLLMLike.requests
    assert len(sent) == 4 and {r["model"] for r in sent} == {cfg.openai_http.model}
    assert all(r["temperature"] == cfg.temperature and r["max_tokens"] == cfg.max_new_tokens for r in sent)
    first_q, first_p = sent[0], sent[2]
    assert "search" in [t["function"]["name"] for t in first_q["tools"]]
    assert "get_routine_skill" in [t["function"]["name"] for t in first_p["tools"]]
    # the observation of the native call reached the model; the next turn still offered tools
    assert sent[1]["messages"][-1]["content"].startswith("Observation from search")
    assert sent[3]["messages"][-1]["content"].startswith("Observation from get_routine_skill")
