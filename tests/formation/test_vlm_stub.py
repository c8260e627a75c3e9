"""The `vlm` perception backend against a real local HTTP server speaking the OpenAI chat-completions API,
driven by the real `openai` client. The server returns canned replies; the tests check our request
(model, system prompt, transcript, base64 JPEG frames) and our parsing, retries and errors."""
from __future__ import annotations

import base64
import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import cv2
import numpy as np
import pytest

from memora_core.config import SegmentingConfig
from memora_core.editing import MemoryWriter, load_editor_config, make_decider
from memora_core.editing.config import LlmDeciderConfig
from memora_core.editing.llm_decider import OpenAIChat
from memora_core.ingest.video import iter_video_segments
from memora_core.perception import PerceptionError, PerceptionInput, load_perception_config, make_perception
from memora_core.schemas import Segment
from memora_core.store import MemoryStore
from tests.formation.conftest import make_video

GOOD = {"summary": "cutting an onion on the board",
        "objects": [{"name": "Onion", "category": "vegetable", "colour": "unknown", "state": "cut",
                     "confidence": 0.9},
                    {"name": "knife", "material": "steel", "location": "chopping board", "confidence": 1.4},
                    {"name": "chopping board", "colour": "white", "extra_field": "ignored"}],
        "actions": [{"verb": "Cut", "nouns": ["onion"], "start_s": 11.0, "end_s": 99.0, "text": "cut onion"}]}


class StubServer:
    """Minimal OpenAI-compatible chat server: pops one scripted reply per request and records requests."""

    def __init__(self) -> None:
        self.replies: list[tuple[int, str]] = []
        self.requests: list[dict] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep test output clean
                pass

            def do_POST(self):  # noqa: N802 - http.server API
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                status, content = stub.replies.pop(0) if stub.replies else (200, json.dumps(GOOD))
                if status != 200:
                    payload = {"error": {"message": content, "type": "server_error"}}
                else:
                    payload = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0,
                               "model": body.get("model"),
                               "choices": [{"index": 0, "finish_reason": "stop",
                                            "message": {"role": "assistant", "content": content}}],
                               "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self) -> "StubServer":
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    with StubServer() as s:
        yield s


def vlm(url: str, **vlm_overrides):
    cfg = load_perception_config(backend="vlm")
    cfg.vlm = cfg.vlm.model_copy(update={"base_url": url, "backoff_s": 0.01, "timeout_s": 5, **vlm_overrides})
    return make_perception(cfg)


def item(n_frames: int = 12) -> PerceptionInput:
    seg = Segment(participant_id="P99", video_id="V1", index=1, start_s=10.0, end_s=20.0,
                  frame_times_s=[10 + i * 0.5 for i in range(n_frames)], transcript="now the onion")
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 255, (480, 640, 3), dtype=np.uint8) for _ in range(n_frames)]
    return PerceptionInput(segment=seg, frames=frames)


def test_request_and_parsing(server):
    backend = vlm(server.url, max_images=4, image_max_side=320)
    obs = backend.observe(item())
    req = server.requests[0]
    assert req["path"] == "/v1/chat/completions"
    body = req["body"]
    assert body["model"] == "Qwen/Qwen2.5-VL-7B-Instruct" and body["temperature"] == 0.0
    assert body["response_format"] == {"type": "json_object"}
    system, user = body["messages"]
    assert system["role"] == "system" and "JSON" in system["content"]
    text = [c for c in user["content"] if c["type"] == "text"][0]["text"]
    assert "now the onion" in text and "10.0s to 20.0s" in text
    images = [c["image_url"]["url"] for c in user["content"] if c["type"] == "image_url"]
    assert len(images) == 4  # the image budget, spread over the segment
    assert "10.0s, 11.5s, 13.0s, 14.5s" in text
    jpeg = base64.b64decode(images[0].split(",", 1)[1])
    assert images[0].startswith("data:image/jpeg;base64,")
    decoded = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert decoded.shape == (240, 320, 3)
    # parsing: validated, normalised, nothing invented
    assert obs.backend == "vlm" and obs.summary == GOOD["summary"]
    by_name = {o.name: o for o in obs.objects}
    assert set(by_name) == {"onion", "knife", "chopping board"}
    assert by_name["onion"].colour is None and by_name["onion"].state == "cut"
    assert by_name["knife"].material == "steel" and by_name["knife"].confidence == 1.0
    assert by_name["knife"].location == "chopping board"
    assert obs.actions[0].verb == "cut" and (obs.actions[0].start_s, obs.actions[0].end_s) == (11.0, 20.0)


def test_invalid_reply_retried(server):
    server.replies = [(200, "I see an onion."), (200, json.dumps({"objects": "not a list"})),
                      (200, "```json\n" + json.dumps(GOOD) + "\n```")]
    obs = vlm(server.url).observe(item(2))
    assert len(server.requests) == 3 and len(obs.objects) == 3


def test_server_error_retried_then_gives_up(server):
    server.replies = [(500, "overloaded"), (200, json.dumps(GOOD))]
    assert len(vlm(server.url).observe(item(1)).objects) == 3
    server.replies = [(503, "down")] * 3
    with pytest.raises(PerceptionError, match="failed after 3 attempts: HTTP 503"):
        vlm(server.url).observe(item(1))


def test_client_error_not_retried(server):
    server.replies = [(400, "image too large")]
    with pytest.raises(PerceptionError, match="rejected the request .HTTP 400"):
        vlm(server.url).observe(item(1))
    assert len(server.requests) == 1


def test_unreachable_names_url():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed once the block ends: nothing listens there
    url = f"http://127.0.0.1:{port}/v1"
    with pytest.raises(PerceptionError) as err:
        vlm(url, max_attempts=2).observe(item(1))
    assert url in str(err.value) and "unreachable" in str(err.value)


def test_video_through_vlm_into_memory(server, tmp_path, sqlite_only_config):
    """A real video → PyAV segments → VLM stub → editor → store: the whole visual path."""
    video = make_video(tmp_path / "kitchen.webm", seconds=21.0, fps=10, size=(96, 64))
    store = MemoryStore.open(tmp_path / "store", sqlite_only_config)
    ecfg = load_editor_config(candidates={"embedder": "hashing"})
    writer = MemoryWriter(store, vlm(server.url), make_decider(ecfg), config=ecfg)
    summary = writer.write_video(video, "P99", SegmentingConfig())
    assert summary.processed == 3 and summary.video_reports[0].ok
    assert [d.op.value for d in store.decisions("P99")] == ["add"] * 3 + ["noop"] * 6
    frames_sent = [sum(c["type"] == "image_url" for c in r["body"]["messages"][1]["content"])
                   for r in server.requests]
    assert frames_sent == [8, 8, 2]  # 20 samples capped at max_images 8; the 1 s tail has 2 frames
    again = writer.write_video(video, "P99", SegmentingConfig())
    assert again.processed == 0 and again.skipped == 3 and len(server.requests) == 3
    store.close()


def test_llm_decider_over_http(server, tmp_path, sqlite_only_config):
    """The LLM editor's OpenAI-compatible client against the same stub server."""
    from memora_core.schemas import ObjectObservation, SegmentObservation

    server.replies = [(200, '{"op": "add", "reason": "first sight"}'), (200, "no idea"), (200, "still no")]
    ecfg = load_editor_config(decider="llm", candidates={"embedder": "hashing"},
                              llm=LlmDeciderConfig(base_url=server.url, model="qwen-editor").model_dump())
    chat = OpenAIChat(ecfg.llm)
    store = MemoryStore.open(tmp_path / "store", sqlite_only_config)
    writer = MemoryWriter(store, None, make_decider(ecfg, chat=chat), config=ecfg)
    for i in range(2):
        seg = Segment(participant_id="P99", video_id="V", index=i, start_s=i * 10.0, end_s=i * 10.0 + 10)
        writer.process(SegmentObservation(segment=seg, objects=[ObjectObservation(name="kettle")], backend="t"))
    ds = store.decisions("P99")
    assert [d.op.value for d in ds] == ["add", "noop"]
    assert ds[0].reason == "llm: first sight" and "llm fallback" in ds[1].reason
    assert server.requests[0]["body"]["model"] == "qwen-editor"
    store.close()
