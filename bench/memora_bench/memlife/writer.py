"""MemLife writers: one first-person entry per segment, each written from that segment alone.

- `MemLifeWriter`: perception JSON + transcript through a text LLM (CPU path), or frames + transcript through
  an OpenAI-compatible VLM server (`vlm=True`); greedy, at most 512 new tokens; the prompt is the versioned file
  memlife/prompts/writer_<version>.md. The reply is untrusted: bounded and sanitised by memora_core's parser.
- `TemplateWriter`: deterministic first-person text from the perception JSON, for CI and fast CPU memories.
Both produce `MemoryEntry` with a `writer_id` naming the writer (and model/prompt), so every figure says which.
"""
from __future__ import annotations

import base64
import json
import mimetypes
from pathlib import Path
from typing import Any

from memora_core.llm.base import LLMBackend
from memora_core.llm.parsing import ParseBudget, bounded_reply
from memora_core.schemas import SegmentObservation
from memora_core.schemas.clean import clean_text

from memora_bench.memlife.types import MemoryEntry, SegmentInput

PROMPTS = Path(__file__).parent / "prompts"
MAX_FRAMES = 24  # images sent to the VLM per segment


class PromptError(ValueError):
    """A prompt file is missing or lacks its sections."""


def load_prompt(kind: str, version: str) -> tuple[str, str]:
    """(system, user template) of prompts/<kind>_<version>.md."""
    if not version.replace("_", "").isalnum():
        raise PromptError(f"bad prompt version {version!r}")
    path = PROMPTS / f"{kind}_{version}.md"
    if not path.is_file():
        raise PromptError(f"{path}: no such prompt file")
    text = path.read_text(encoding="utf-8")
    if "## system\n" not in text or "\n## user\n" not in text:
        raise PromptError(f"{path}: needs '## system' and '## user' sections")
    system, user = text.split("## system\n", 1)[1].split("\n## user\n", 1)
    return system.strip(), user.strip()


def fill(template: str, values: dict[str, Any]) -> str:
    for k, v in values.items():
        template = template.replace("{{" + k + "}}", str(v))
    return template


def sanitise_entry(text: Any, max_chars: int) -> str:
    """Untrusted model text -> one bounded, clean entry (control characters and lone surrogates removed)."""
    t = bounded_reply(text, ParseBudget())
    t = " ".join(t.split())  # one paragraph: newlines/tabs collapse
    return clean_text(t, max_chars).strip()


def _image_part(path: str) -> dict[str, Any]:
    mime = mimetypes.guess_type(path)[0] or "image/jpeg"
    data = base64.b64encode(Path(path).read_bytes()).decode("ascii")
    return {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}}


class MemLifeWriter:
    """LLM writer; `vlm=True` sends the frames instead of the perception JSON."""

    def __init__(self, llm: LLMBackend, prompt_version: str = "v1", max_new_tokens: int = 512, *,
                 vlm: bool = False, model_name: str | None = None, max_entry_chars: int = 4000,
                 max_prompt_json_chars: int = 6000) -> None:
        if not 1 <= max_new_tokens <= 512:
            raise ValueError(f"max_new_tokens must be in 1..512, got {max_new_tokens}")
        self.llm, self.prompt_version, self.max_new_tokens, self.vlm = llm, prompt_version, max_new_tokens, vlm
        self.system, self.user = load_prompt("writer", prompt_version)
        self.max_entry_chars, self.max_json = max_entry_chars, max_prompt_json_chars
        name = model_name or getattr(llm, "name", "llm")
        self.writer_id = f"{'vlm' if vlm else 'llm'}:{name}:writer_{prompt_version}"

    def messages(self, seg: SegmentInput) -> list[dict[str, Any]]:
        evidence = ("(the frames above)" if self.vlm else seg.perception_json[:self.max_json])
        user = fill(self.user, {"video_id": seg.video_id, "index": seg.index, "start_s": f"{seg.start_s:.1f}",
                                "end_s": f"{seg.end_s:.1f}", "evidence": evidence,
                                "transcript": seg.transcript.strip() or "(nothing said)"})
        if self.vlm:
            content: Any = [_image_part(p) for p in seg.frames[:MAX_FRAMES]] + [{"type": "text", "text": user}]
        else:
            content = user
        return [{"role": "system", "content": self.system}, {"role": "user", "content": content}]

    def write(self, seg: SegmentInput) -> MemoryEntry:
        reply = self.llm.chat(self.messages(seg), max_new_tokens=self.max_new_tokens)
        return entry_for(seg, sanitise_entry(reply.text, self.max_entry_chars), self.writer_id)


def entry_for(seg: SegmentInput, text: str, writer_id: str) -> MemoryEntry:
    return MemoryEntry(participant_id=seg.participant_id, video_id=seg.video_id, segment_index=seg.index,
                       t_start=seg.t_start, t_end=seg.t_end, text=text, writer_id=writer_id)


class TemplateWriter:
    """Deterministic first-person entry from the perception JSON (no model)."""

    writer_id = "template:v1"

    def __init__(self, max_entry_chars: int = 4000) -> None:
        self.max_entry_chars = max_entry_chars

    def text(self, seg: SegmentInput) -> str:
        obs = SegmentObservation.model_validate(json.loads(seg.perception_json))
        parts = []
        for a in obs.actions:
            said = a.text.strip() if a.text else " ".join([a.verb, *a.nouns])
            parts.append(f"I {said.replace('-', ' ')}")
        details = []
        for o in obs.objects:
            if o.state:
                details.append(f"the {o.name} was {o.state}")
            if o.location:
                details.append(f"I left the {o.name} in the {o.location}")
        text = ". ".join(parts) + ("." if parts else "I saw nothing I could name.")
        if details:
            text += " Afterwards " + ", ".join(details) + "."
        if seg.transcript.strip():
            text += f' I heard: "{seg.transcript.strip()}".'
        return clean_text(text, self.max_entry_chars)

    def write(self, seg: SegmentInput) -> MemoryEntry:
        return entry_for(seg, self.text(seg), self.writer_id)
