"""MemLife writer: the prompt file, per-segment independence, greedy budget, sanitised output, the template
writer, the VLM path against a real local OpenAI-compatible server, and one real SmolLM2 run."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from memora_core.llm.base import LLMConfig, OpenAIHTTPConfig, TransformersLocalConfig, make_llm
from memora_core.schemas import ActionObservation, ObjectObservation, Segment, SegmentObservation

from memora_bench.memlife.config import load_memlife_config
from memora_bench.memlife.segments import build_history
from memora_bench.memlife.types import SegmentInput
from memora_bench.memlife.writer import MemLifeWriter, PromptError, TemplateWriter, load_prompt

sys.path.insert(0, str(Path(__file__).parent))
from memlife_helpers import ScriptedLLM  # noqa: E402

from tests.formation.test_vlm_stub import StubServer  # noqa: E402  (the project's OpenAI-compatible stub)


@pytest.fixture
def stub_server():
    with StubServer() as s:
        yield s


def seg_input(idx: int = 0, transcript: str = "", frames: list[str] | None = None) -> SegmentInput:
    s = Segment(participant_id="P01", video_id="P01_01", index=idx, start_s=30.0 * idx, end_s=30.0 * idx + 30)
    obs = SegmentObservation(segment=s, backend="narration", actions=[
        ActionObservation(verb="take", nouns=["cup"], start_s=s.start_s + 1, end_s=s.start_s + 2, text="take cup"),
        ActionObservation(verb="put", nouns=["cup", "cupboard"], start_s=s.start_s + 3, end_s=s.start_s + 4,
                          text="put cup in cupboard")],
        objects=[ObjectObservation(name="cup", location="cupboard"), ObjectObservation(name="cupboard")])
    return SegmentInput(participant_id="P01", video_id="P01_01", index=idx, start_s=s.start_s, end_s=s.end_s,
                        t_start=s.start_s, t_end=s.end_s, perception_json=obs.model_dump_json(),
                        transcript=transcript, frames=frames or [])


def test_prompt_is_one_versioned_file_and_bad_versions_are_refused():
    system, user = load_prompt("writer", "v1")
    assert "first person" in system and "{{evidence}}" in user and "{{transcript}}" in user
    with pytest.raises(PromptError):
        load_prompt("writer", "v999")
    with pytest.raises(PromptError):
        load_prompt("writer", "../x")


def test_llm_writer_prompt_carries_the_segment_alone_and_decodes_within_512():
    llm = ScriptedLLM(["I took the cup.", "I took the cup again."])
    w = MemLifeWriter(llm, "v1", 512)
    first, second = seg_input(0, "this is Anna's cup"), seg_input(1)
    alone = w.messages(second)
    w.write(first)
    w.write(second)
    # independent of earlier segments: the second request is exactly what it is without the first write
    assert llm.requests[1]["messages"] == alone
    user = llm.requests[0]["messages"][1]["content"]
    assert "put cup in cupboard" in user and "Anna's cup" in user and "P01_01" in user
    assert all(r["max_new_tokens"] == 512 for r in llm.requests)
    with pytest.raises(ValueError):
        MemLifeWriter(llm, "v1", 513)


def test_llm_writer_output_is_bounded_and_sanitised():
    nasty = "I took\x00 the cup\x1b[31m\n\n" + "blah " * 5000 + "\ud800"
    w = MemLifeWriter(ScriptedLLM([nasty]), "v1", 64, max_entry_chars=200)
    e = w.write(seg_input())
    assert len(e.text) <= 200 and "\x00" not in e.text and "\x1b" not in e.text and "\n" not in e.text
    assert "\ud800" not in e.text and e.text.startswith("I took")
    assert e.writer_id == "llm:scripted:writer_v1" and (e.t_start, e.t_end) == (0.0, 30.0)


def test_template_writer_is_first_person_and_deterministic():
    w = TemplateWriter()
    a, b = w.write(seg_input(0, "hello")), w.write(seg_input(0, "hello"))
    assert a.text == b.text and a.text.startswith("I take cup. I put cup in cupboard.")
    assert "I left the cup in the cupboard" in a.text and '"hello"' in a.text and a.writer_id == "template:v1"


def test_history_uses_memlife_30s_segments_on_one_timeline(compact_root):
    cfg = load_memlife_config()
    assert cfg.segmenting.segment_s == 30.0
    h = build_history(compact_root, "PX1", ["PX1_01", "PX1_02", "PX1_03"], cfg.segmenting)
    assert [(s.video_id, s.index) for s in h.segments] == [("PX1_01", 0), ("PX1_02", 0), ("PX1_02", 1),
                                                          ("PX1_03", 0)]
    # PX1_01 ends at its last narration (13 s; no video info): PX1_02 starts there on the global timeline
    assert h.timeline.offsets["PX1_02"] == pytest.approx(13.0)
    s = h.segments[2]
    assert (s.start_s, s.t_start) == (30.0, pytest.approx(43.0))
    assert json.loads(s.perception_json)["backend"] == "narration"


def test_vlm_path_sends_frames_to_an_openai_compatible_server(stub_server, tmp_path):
    frame = tmp_path / "f0.jpg"
    frame.write_bytes(b"\xff\xd8\xff\xe0fakejpeg")
    stub_server.replies.append((200, "I opened the cupboard and said hi."))
    llm = make_llm(LLMConfig(backend="openai_http", openai_http=OpenAIHTTPConfig(
        base_url=stub_server.url, model="vlm-test", native_tools=False)))
    e = MemLifeWriter(llm, "v1", 512, vlm=True).write(seg_input(0, "hi", frames=[str(frame)]))
    assert e.text == "I opened the cupboard and said hi." and e.writer_id.startswith("vlm:")
    body = stub_server.requests[0]["body"]
    assert body["max_tokens"] == 512 and body["temperature"] == 0.0
    parts = body["messages"][1]["content"]
    assert parts[0]["type"] == "image_url" and parts[0]["image_url"]["url"].startswith("data:image/jpeg;base64,")
    assert "hi" in parts[-1]["text"] and "put cup in cupboard" not in parts[-1]["text"]


@pytest.mark.slow
def test_smollm2_writes_real_entries():
    llm = make_llm(LLMConfig(backend="transformers_local", max_new_tokens=12,
                             transformers_local=TransformersLocalConfig(model="smollm2", threads=2)))
    w = MemLifeWriter(llm, "v1", 12)
    entries = [w.write(seg_input(i)) for i in range(2)]
    assert all(e.text.strip() for e in entries)
    assert [e.segment_index for e in entries] == [0, 1] and entries[0].writer_id.endswith("writer_v1")
